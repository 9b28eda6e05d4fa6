// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "fastpsr/accel_output.hpp"
#include "fastpsr/accel_stats.hpp"
#include "fastpsr/presto_inf.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

// Column start offsets for widths separated by two spaces.
std::vector<std::size_t> offsets(std::initializer_list<int> widths) {
  std::vector<std::size_t> o;
  std::size_t at = 0;
  for (int w : widths) {
    o.push_back(at);
    at += static_cast<std::size_t>(w) + 2;
  }
  return o;
}

}  // namespace

TEST_CASE("accel output: nice_output values PRESTO prints") {
  CHECK(nice_output_2(433.563, 0.0625) == " 433.563(63)");
  CHECK(nice_output_1(206.74, 0.03) == " 206.74(3)");
  CHECK(nice_output_2(0.0, 0.25) == " 0.00(25)");
  CHECK(nice_output_2(0.0, 2.0) == " 0.0(2.0)");
  CHECK(center_string("abc", 6) == " abc  ");
  CHECK(center_string("abcdefgh", 6) == "abcdef");
}

TEST_CASE("accel output: PRESTO's ACCEL columns are reproduced from its .cand records" *
          doctest::skip(!test::have_shared_data())) {
  const auto dir = *test::shared_data_dir() / "peer-outputs";
  const std::array<const char*, 9> files{
      "small/small_DM62.50_ACCEL_0",       "small/small_DM62.50_ACCEL_200", "small/small_DM62.50_red_ACCEL_0",
      "small/small_DM62.50_red_ACCEL_200", "iso/iso_DM62.50_ACCEL_0",       "iso/iso_DM62.50_ACCEL_200",
      "iso/iso_DM62.50_red_ACCEL_0",       "bin/bin_DM88.80_ACCEL_0",       "bin/bin_DM88.80_ACCEL_200"};
  const auto fund = offsets({4, 5, 6, 8, 4, 16, 15, 15, 15, 11, 15, 20});
  const auto harm = offsets({5, 4, 5, 15, 11, 18, 13, 12, 9, 12, 10, 10, 20});
  int checked = 0;
  for (const char* f : files) {
    CAPTURE(f);
    const auto bytes = test::read_file(dir / f);
    const std::string text(bytes.begin(), bytes.end());
    const auto cand_bytes = test::read_file(dir / (std::string(f) + ".cand"));
    const auto props = parse_cand_records(cand_bytes, f);
    const auto lines = lines_of(text);
    // The .inf that ends the file gives T.
    const auto inf_pos = text.find(" Data file name without suffix");
    REQUIRE(inf_pos != std::string::npos);
    const PrestoInf inf = parse_inf(text.substr(inf_pos), f);
    const double T = inf.N * inf.dt;
    REQUIRE(lines.size() > 3 + props.size());
    std::size_t harm_line = 3 + props.size() + 2 + 3;  // after the table, two blanks, the header
    for (std::size_t i = 0; i < props.size(); ++i) {
      const FourierProps& p = props[i];
      const std::string& line = lines[3 + i];
      auto col = [&](std::size_t c, int w) { return line.substr(fund[c], static_cast<std::size_t>(w)); };
      const double rerr = double(p.rerr);
      const double zerr = double(p.zerr);
      const double fr = p.r / T;
      CHECK(col(5, 16) == center_string(nice_output_1(T / p.r * 1000.0, T * rerr / (p.r * p.r) * 1000.0), 16));
      CHECK(col(6, 15) == center_string(nice_output_1(fr, rerr / T), 15));
      CHECK(col(7, 15) == center_string(nice_output_2(p.r, rerr), 15));
      CHECK(col(8, 15) == center_string(nice_output_1(p.z / (T * T), zerr / (T * T)), 15));
      CHECK(col(9, 11) == center_string(nice_output_2(p.z, zerr), 11));
      const double acc = 299792458.0 / (T * T * fr);
      CHECK(col(10, 15) == center_string(nice_output_2(p.z * acc, zerr * acc), 15));
      // The first harmonic row of this candidate shows the same fundamental's props.
      while (harm_line < lines.size() && !(lines[harm_line].size() > 1 && lines[harm_line][0] == ' ' &&
                                           std::isdigit(static_cast<unsigned char>(lines[harm_line][1])))) {
        ++harm_line;
      }
      REQUIRE(harm_line < lines.size());
      const std::string& h = lines[harm_line++];
      auto hcol = [&](std::size_t c, int w) { return h.substr(harm[c], static_cast<std::size_t>(w)); };
      CHECK(hcol(2, 5) == center_string(fmt::format("{:.2f}", candidate_sigma(double(p.pow), 1, 1)), 5));
      CHECK(hcol(3, 15) == center_string(nice_output_2(double(p.pow), double(p.powerr)), 15));
      char raw[32];
      std::snprintf(raw, sizeof raw, "%.3g", double(p.rawpow));
      CHECK(hcol(4, 11) == center_string(raw, 11));
      CHECK(hcol(9, 12) == center_string(nice_output_2(double(p.phs), double(p.phserr)), 12));
      CHECK(hcol(10, 10) == center_string(nice_output_2(double(p.cen), double(p.cenerr)), 10));
      CHECK(hcol(11, 10) == center_string(nice_output_2(double(p.pur), double(p.purerr)), 10));
      ++checked;
    }
    // Both headers are exactly PRESTO's; an empty candidate list still gives them.
    const std::string ours = format_accel_text({}, {T, 0.0, ""});
    const auto ol = lines_of(ours);
    CHECK(ol[0] == lines[0]);
    CHECK(ol[1] == lines[1]);
    CHECK(ol[2] == lines[2]);
    CHECK(ol[5] == lines[3 + props.size() + 2]);
    CHECK(ol[7] == lines[3 + props.size() + 4]);
  }
  CHECK(checked > 100);
}

TEST_CASE("accel output: .cand records are 88 bytes with zeroed padding and round-trip") {
  AccelCandidate c;
  c.numharm = 4;
  c.r = 1234.125;
  c.z = -5.5;
  c.power = 80;
  c.sigma = 9;
  c.derivs.assign(4, RDerivs{40.0, 1.0, 0.1, 2.0, -900.0, 0.3, 1.25});
  c.pows.assign(4, 40.0);
  c.hirs = {1234.1, 2468.2, 3702.3, 4936.4};
  c.hizs = {-5.5, -11, -16.5, -22};
  c.hiws.assign(4, 0.0);
  const auto bytes = format_cand_records({c, c});
  REQUIRE(bytes.size() == 176);
  for (std::size_t off : {12, 13, 14, 15, 28, 29, 30, 31}) CHECK(bytes[off] == 0);
  const auto back = parse_cand_records(bytes, "x.cand");
  REQUIRE(back.size() == 2);
  CHECK(back[1].r == 1234.125);
  CHECK(back[1].rerr == 0.125F);
  CHECK(back[1].zerr == 0.5F);
  CHECK(back[1].pow == doctest::Approx(32.0));
  CHECK(back[1].locpow == 1.25F);
  CHECK_THROWS(parse_cand_records(std::vector<std::uint8_t>(87), "bad.cand"));
}
