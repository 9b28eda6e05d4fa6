// SPDX-License-Identifier: MIT
// Same input, same answers as PRESTO 6.0.1 (the files in shared/data/peer-outputs).
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <vector>

#include "accel_pipeline_support.hpp"
#include "fastpsr/presto_inf.hpp"

using namespace fastpsr;

namespace {

const std::filesystem::path peer() { return *test::shared_data_dir() / "peer-outputs"; }

// Every PRESTO candidate has ours at the same rank: r within 0.5 bin, z within 2, the same
// number of harmonics, sigma within `sigma_tol` (relative; the issue asks for 10%).
void check_same_candidates(const std::string& ours, const std::string& theirs, double sigma_tol) {
  const auto a = test::accel_rows(ours);
  const auto b = test::accel_rows(theirs);
  CHECK(a.size() == b.size());
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    CAPTURE(i);
    CHECK(std::fabs(a[i].r - b[i].r) <= 0.5);
    CHECK(std::fabs(a[i].z - b[i].z) <= 2.0);
    CHECK(a[i].numharm == b[i].numharm);
    CHECK(std::fabs(a[i].sigma - b[i].sigma) <= sigma_tol * b[i].sigma + 0.005);
    CHECK(std::fabs(a[i].power - b[i].power) <= 1e-3 * b[i].power + 0.011);
  }
}

// .cand field by field: the search-grid r, z and their errors exactly; the optimised
// fundamental's properties closely (PRESTO optimises with GSL's simplex, we with ours).
void check_cand_records(const std::vector<std::uint8_t>& ours, const std::filesystem::path& theirs) {
  const auto a = parse_cand_records(ours, "ours");
  const auto b = parse_cand_records(test::read_file(theirs), theirs.string());
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    CHECK(a[i].r == b[i].r);
    CHECK(a[i].z == b[i].z);
    CHECK(a[i].w == b[i].w);
    CHECK(a[i].rerr == b[i].rerr);
    CHECK(a[i].zerr == b[i].zerr);
    CHECK(a[i].werr == b[i].werr);
    // Properties of the optimised peak: relative 2% on powers (bright ones are much tighter)
    CHECK(a[i].pow == doctest::Approx(b[i].pow).epsilon(0.02).scale(1.0));
    CHECK(a[i].rawpow == doctest::Approx(b[i].rawpow).epsilon(0.02));
    CHECK(a[i].locpow == doctest::Approx(b[i].locpow).epsilon(0.02));
    if (b[i].pow > 20.0F) {
      const double dphs = std::remainder(double(a[i].phs - b[i].phs), 2 * M_PI);
      CHECK(std::fabs(dphs) < 0.05);
      CHECK(a[i].pur == doctest::Approx(b[i].pur).epsilon(0.02));
    }
  }
}

void check_txtcand(const std::string& ours, const std::filesystem::path& theirs) {
  std::istringstream a(ours);
  std::ifstream b(theirs);
  std::string la;
  std::string lb;
  int n = 0;
  while (std::getline(b, lb)) {
    REQUIRE(std::getline(a, la));
    std::istringstream sa(la);
    std::istringstream sb(lb);
    double pa = 0, pb = 0, sga = 0, sgb = 0, ra = 0, rb = 0, fa = 0, fb = 0, za = 0, zb = 0;
    int ha = 0, hb = 0;
    sa >> pa >> sga >> ha >> ra >> fa >> za;
    sb >> pb >> sgb >> hb >> rb >> fb >> zb;
    CAPTURE(lb);
    CHECK(ha == hb);
    CHECK(ra == rb);
    CHECK(za == zb);
    // PRESTO scales each correlation window by its block's median; we scale each bin by its own
    // block's: templates that straddle a block edge differ by up to ~1-2% in power.
    CHECK(std::fabs(pa - pb) <= 0.02 * pb + 0.011);
    CHECK(std::fabs(sga - sgb) <= 0.02 * sgb + 2e-4);
    ++n;
  }
  CHECK(!std::getline(a, la));
  CHECK(n > 0);
}

}  // namespace

TEST_CASE("accel vs PRESTO: small .fft after rednoise, -zmax 0 and 200" * doctest::skip(!test::have_shared_data())) {
  const auto dir = peer() / "small";
  const PrestoInf inf = read_inf((dir / "small_DM62.50_red.inf").string());
  for (int zmax : {0, 200}) {
    CAPTURE(zmax);
    AccelConfig c;
    c.zmax = zmax;
    c.deredden = false;  // PRESTO's accelsearch on a .fft: the file was de-reddened by rednoise
    const auto run =
        test::run_accel(read_presto_fft((dir / "small_DM62.50_red.fft").string()), inf.N * inf.dt, c, false, true);
    const std::string base = "small_DM62.50_red_ACCEL_" + std::to_string(zmax);
    check_same_candidates(run.text, test::read_text(dir / base), 1e-3);
    check_cand_records(run.cand, dir / (base + ".cand"));
    check_txtcand(run.result.txtcand, dir / (base + ".txtcand"));
  }
}

TEST_CASE("accel vs PRESTO: a raw .fft without de-reddening reproduces PRESTO's near-DC artefacts and notes" *
          doctest::skip(!test::have_shared_data())) {
  const auto dir = peer() / "small";
  const PrestoInf inf = read_inf((dir / "small_DM62.50.inf").string());
  AccelConfig c;
  c.zmax = 200;
  c.deredden = false;
  const auto run =
      test::run_accel(read_presto_fft((dir / "small_DM62.50.fft").string()), inf.N * inf.dt, c, false, false);
  const std::string theirs = test::read_text(dir / "small_DM62.50_ACCEL_200");
  check_same_candidates(run.text, theirs, 1e-3);
  // The Notes column ("SL? of Cand 1", "H 33 of Cand 1", ...) is the same.
  auto notes = [](const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0]))) out.push_back(line.substr(138));
    }
    return out;
  };
  CHECK(notes(run.text) == notes(theirs));
}

TEST_CASE(
    "accel vs PRESTO: iso .dat (2^21 points) with rednoise's de-reddening equals PRESTO's rednoise + accelsearch" *
    doctest::skip(!test::have_shared_data())) {
  const auto dir = peer() / "iso";
  const PrestoInf inf = read_inf((dir / "iso_DM62.50.inf").string());
  AccelConfig c;
  c.zmax = 0;
  // rednoise's parameters (--dered-end 100 --dered-endfreq 6); a time series' default is what
  // PRESTO's accelsearch does to a .dat (the next test case).
  c.dered_endwidth = 100;
  c.dered_endfreq_hz = 6.0;
  const auto run =
      test::run_accel(presto_realfft(test::read_dat(dir / "iso_DM62.50.dat")), inf.N * inf.dt, c, true, true);
  check_same_candidates(run.text, test::read_text(dir / "iso_DM62.50_red_ACCEL_0"), 1e-3);
  check_cand_records(run.cand, dir / "iso_DM62.50_red_ACCEL_0.cand");
  check_txtcand(run.result.txtcand, dir / "iso_DM62.50_red_ACCEL_0.txtcand");
  // The pulsar (206.731 Hz, 8 harmonics) is the top candidate.
  const auto rows = test::accel_rows(run.text);
  REQUIRE(!rows.empty());
  CHECK(rows[0].r / (inf.N * inf.dt) == doctest::Approx(206.731).epsilon(1e-4));
  CHECK(rows[0].numharm == 8);
}

TEST_CASE("accel: a time series is de-reddened as PRESTO's accelsearch does a .dat, a .fft as its rednoise does") {
  // PRESTO's accelsearch on a .dat (accel_utils.c): deredden(fft, numbins, 6, 200, 0.5 / dt, N dt).
  // Its rednoise (and realfft -deredden), whose output a .fft search is taken to follow: 6, 100, 6 Hz.
  AccelConfig c;
  CHECK(dered_options(c, true).startwidth == 6);
  CHECK(dered_options(c, true).endwidth == 200);
  CHECK(dered_options(c, true).endfreq_hz == std::numeric_limits<double>::infinity());
  CHECK(dered_options(c, false).startwidth == 6);
  CHECK(dered_options(c, false).endwidth == 100);
  CHECK(dered_options(c, false).endfreq_hz == 6.0);
  c.dered_endwidth = 150;  // a given value replaces that one alone, for either input
  CHECK(dered_options(c, true).endwidth == 150);
  CHECK(dered_options(c, true).endfreq_hz == std::numeric_limits<double>::infinity());
  CHECK(dered_options(c, false).endwidth == 150);
  CHECK(dered_options(c, false).endfreq_hz == 6.0);

  // Growing to an unbounded frequency is growing to Nyquist, PRESTO's 0.5 / dt: the same bits.
  const double dt = 64e-6;
  const std::size_t n = std::size_t{1} << 18;
  std::mt19937_64 rng(test::fresh_seed());
  std::normal_distribution<float> g(0.0F, 1.0F);
  std::vector<std::complex<float>> red(n / 2);
  for (std::size_t k = 0; k < red.size(); ++k) {
    const float a = 1.0F + 30.0F / (1.0F + static_cast<float>(k) / 50.0F);  // red noise
    red[k] = {a * g(rng), a * g(rng)};
  }
  auto to_nyquist = red;
  auto unbounded = red;
  deredden(to_nyquist, DereddenOptions{6, 200, 0.5 / dt}, static_cast<double>(n) * dt);
  deredden(unbounded, kAccelsearchSeriesDered, static_cast<double>(n) * dt);
  CHECK(std::memcmp(to_nyquist.data(), unbounded.data(), unbounded.size() * sizeof(unbounded[0])) == 0);
  // ... and not what rednoise's parameters give.
  auto rednoise = red;
  deredden(rednoise, DereddenOptions{}, static_cast<double>(n) * dt);
  CHECK(std::memcmp(rednoise.data(), unbounded.data(), unbounded.size() * sizeof(unbounded[0])) != 0);
}

TEST_CASE("accel vs PRESTO: the binary (2^21 points) at -zmax 200" * doctest::skip(!test::have_shared_data())) {
  const auto dir = peer() / "bin";
  const PrestoInf inf = read_inf((dir / "bin_DM88.80.inf").string());
  const double T = inf.N * inf.dt;
  const auto fft = presto_realfft(test::read_dat(dir / "bin_DM88.80.dat"));
  AccelConfig c;
  c.zmax = 200;
  SUBCASE("PRESTO's own processing (no de-reddening): the same candidates as PRESTO") {
    c.deredden = false;
    const auto run = test::run_accel(fft, T, c, false, true);
    check_same_candidates(run.text, test::read_text(dir / "bin_DM88.80_ACCEL_200"), 0.01);
    check_txtcand(run.result.txtcand, dir / "bin_DM88.80_ACCEL_200.txtcand");
  }
  SUBCASE("default de-reddening: the binary is the top candidate, without near-DC artefacts") {
    const auto run = test::run_accel(fft, T, c, true, false);
    const auto rows = test::accel_rows(run.text);
    REQUIRE(!rows.empty());
    CHECK(rows[0].r / T == doctest::Approx(254.4774).epsilon(2e-6));
    CHECK(rows[0].z == doctest::Approx(-22.75).epsilon(1e-6));
    CHECK(rows[0].numharm == 8);
    for (const auto& r : rows) CHECK(r.r / T > 1.0);  // nothing at the DC end
  }
}
