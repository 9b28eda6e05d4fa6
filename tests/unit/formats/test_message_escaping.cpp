// SPDX-License-Identifier: MIT
// Keywords, card names and values quoted in error messages are escaped (QA pass 16): a SIGPROC
// keyword of raw bytes was printed as it was (`unknown header keyword 'nch<NUL><BEL>'`), control
// bytes reaching the terminal. One helper (escape_for_message) writes every byte outside
// printable ASCII as \xNN, for SIGPROC, GUPPI RAW and PSRDADA alike.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fastpsr/accel_spectrum.hpp"
#include "fastpsr/byte_stream.hpp"
#include "fastpsr/channel_mask.hpp"
#include "fastpsr/dada.hpp"
#include "fastpsr/dm_plan.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/escape.hpp"
#include "fastpsr/guppi.hpp"
#include "fastpsr/presto_inf.hpp"
#include "fastpsr/sigproc.hpp"
#include "support/test_support.hpp"
#include "unit/formats/format_test_helpers.hpp"

using namespace fastpsr;
using namespace std::string_literals;

namespace {
void put_string(std::vector<std::uint8_t>& out, const std::string& s) {
  const auto n = static_cast<std::int32_t>(s.size());
  const auto* p = reinterpret_cast<const std::uint8_t*>(&n);
  out.insert(out.end(), p, p + sizeof n);
  out.insert(out.end(), s.begin(), s.end());
}

// Nothing but printable ASCII (what a terminal shows as it is).
bool printable(const std::string& s) {
  for (const char ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u >= 0x7f) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("message escaping: the helper writes bytes outside printable ASCII as hex") {
  CHECK(escape_for_message("nchans") == "nchans");
  CHECK(escape_for_message("nch\0\a"s) == "nch\\x00\\x07");
  CHECK(escape_for_message("\x1b[31mred\x7f\xff") == "\\x1b[31mred\\x7f\\xff");
  CHECK(escape_for_message("tab\there\r\n") == "tab\\x09here\\x0d\\x0a");
  CHECK(escape_for_message("a\\x07") == "a\\\\x07");  // a backslash in the text is doubled
  CHECK(escape_for_message("").empty());
}

TEST_CASE("message escaping: a SIGPROC keyword of raw bytes is escaped in the error") {
  std::vector<std::uint8_t> bytes;
  put_string(bytes, "HEADER_START");
  put_string(bytes, "nch\0\a"s);
  const std::string e = test::error_of([&] {
    auto src = memory_source(bytes, "raw.fil");
    (void)read_sigproc_header(*src);
  });
  CHECK(e == "unknown header keyword 'nch\\x00\\x07' at byte 16 [raw.fil]");
  CHECK(printable(e));
  // A token of the frequency table, and keywords given from the command line.
  std::vector<std::uint8_t> table;
  put_string(table, "HEADER_START");
  put_string(table, "FREQUENCY_START");
  put_string(table, "fch\x1b[2J");
  const std::string t = test::error_of([&] {
    auto src = memory_source(table, "t.fil");
    (void)read_sigproc_header(*src);
  });
  CHECK(t.find("unexpected 'fch\\x1b[2J' inside the frequency table") != std::string::npos);
  CHECK(printable(t));
  SigprocHeader h;
  CHECK(test::error_of([&] { sigproc_set_value(h, "nch\x07", "4"); }).find("keyword 'nch\\x07'") != std::string::npos);
  CHECK(test::error_of([&] { sigproc_set_value(h, "tsamp", "1\x07"); }).find("'1\\x07' is not a finite number") !=
        std::string::npos);
}

TEST_CASE("message escaping: GUPPI card values and PSRDADA values are escaped in errors") {
  std::string header =
      test::guppi_card("BLOCSIZE", "32") + test::guppi_card("NBITS", "'8\x07\x1b'") + test::guppi_card("END", "");
  header.replace(header.size() - 80, 80, std::string("END").append(77, ' '));
  const std::vector<std::uint8_t> bytes(header.begin(), header.end());
  auto src = memory_source(bytes, "g.raw");
  const auto h = read_guppi_header(*src);
  REQUIRE(h.has_value());
  const std::string e = test::error_of([&] { (void)h->get_int("NBITS", "g.raw"); });
  CHECK(e == "GUPPI header card NBITS has '8\\x07\\x1b', not an integer [g.raw]");
  CHECK(printable(test::error_of([&] { (void)h->get_double("NBITS", "g.raw"); })));

  DadaHeader d;
  d.set("HDR_VERSION", "1.0");
  d.set("NBIT", "8\x1b[0m");
  d.set("FREQ", "\x07MHz");
  d.set("HDR_SIZE", "4096");
  CHECK(test::error_of([&] { (void)d.get_int("NBIT", "d.dada"); }) ==
        "DADA header key NBIT has '8\\x1b[0m', not an integer [d.dada]");
  CHECK(test::error_of([&] { (void)d.get_double("FREQ", "d.dada"); }) ==
        "DADA header key FREQ has '\\x07MHz', not a number [d.dada]");
  d.set("NCHAN", "99999999999999999999\x07");
  CHECK(printable(test::error_of([&] { (void)d.get_int("NCHAN", "d.dada"); })));
  CHECK(test::error_of([] {
          (void)parse_dada_header("HDR_SIZE 4096\x07\n", "h.dada");
        }).find("HDR_SIZE has '4096\\x07', not an integer") != std::string::npos);
}

TEST_CASE("message escaping: values from .inf files, zaplists, DM lists and kill lists are escaped in errors") {
  // An .inf value that is no number.
  const std::string inf_error =
      test::error_of([] { (void)parse_inf(" Number of bins in the time series      =  \x07\x1b[2J\n", "a.inf"); });
  CHECK(inf_error.find("'\\x07\\x1b[2J'") != std::string::npos);
  CHECK(printable(inf_error));

  const test::TempDir dir;
  auto write_text = [&](const std::string& name, const std::string& text) {
    test::write_file(dir / name, std::vector<std::uint8_t>(text.begin(), text.end()));
    return (dir / name).string();
  };
  const std::string zap = write_text("z.zaplist", "10.0 0.1\n\x1b[31mred 1\n");
  const std::string zap_error = test::error_of([&] { (void)read_zaplist(zap, 100.0, 0.0); });
  CHECK(zap_error.find("\\x1b[31mred 1") != std::string::npos);
  CHECK(printable(zap_error));

  const std::string dms = write_text("dms.txt", "10\n2\x07\n");
  const std::string dm_error = test::error_of([&] { (void)read_dm_list(dms); });
  CHECK(dm_error.find("2\\x07") != std::string::npos);
  CHECK(printable(dm_error));

  const std::string kill_error = test::error_of([] { (void)parse_kill_channels("3,\x07", 16); });
  CHECK(kill_error.find("'\\x07'") != std::string::npos);
  CHECK(printable(kill_error));
}
