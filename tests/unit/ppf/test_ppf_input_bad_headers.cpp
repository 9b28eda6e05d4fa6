// SPDX-License-Identifier: MIT
// Voltage input whose header values are corrupt or hostile (QA pass 16, P6-P10): a PKTIDX or
// PKTSIZE jump that would ask for billions of zero samples, a BLOCSIZE or OBSNCHAN far beyond
// the file, NaN/inf frequencies, times and epochs, integers that overflow, binary bytes where a
// header card should be. Each is an Error naming the file and the card, before any large buffer.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/dada.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/ppf_input.hpp"
#include "support/test_support.hpp"
#include "unit/formats/format_test_helpers.hpp"

using namespace fastpsr;

namespace {

// Reads of any size (the pipe source cuts them to 7 bytes by default).
constexpr std::size_t kWholeReads = std::numeric_limits<std::size_t>::max();

std::string card(const std::string& k, const std::string& v) { return test::guppi_card(k, v); }

// One GUPPI block: 2 coarse channels, 2 polarisations of 8 bits, 4 samples of 8 bytes (32 bytes)
// of which OVERLAP 1 repeats; PKTSIZE 8 makes one packet one sample. `cards` replaces or adds
// cards ("" as the value leaves a card out); `payload` is the number of payload bytes written.
std::vector<std::uint8_t> guppi_block(long long pktidx, const std::map<std::string, std::string>& cards = {},
                                      std::size_t payload = 32) {
  std::vector<std::pair<std::string, std::string>> all = {
      {"BLOCSIZE", "32"},    {"OBSNCHAN", "2"}, {"NPOL", "4"},    {"NBITS", "8"},   {"OBSFREQ", "1500.0"},
      {"OBSBW", "-200.0"},   {"TBIN", "1e-8"},  {"OVERLAP", "1"}, {"PKTSIZE", "8"}, {"PKTIDX", std::to_string(pktidx)},
      {"STT_IMJD", "58000"}, {"STT_SMJD", "0"}};
  for (const auto& [k, v] : cards) {
    auto it = std::find_if(all.begin(), all.end(), [&](const auto& kv) { return kv.first == k; });
    if (it == all.end()) {
      all.emplace_back(k, v);
    } else {
      it->second = v;
    }
  }
  std::string h;
  for (const auto& [k, v] : all) {
    if (!v.empty()) h += card(k, v);
  }
  h += std::string("END").append(77, ' ');
  std::vector<std::uint8_t> out(h.begin(), h.end());
  for (std::size_t i = 0; i < payload; ++i) out.push_back(static_cast<std::uint8_t>(i + 1));
  return out;
}

std::vector<std::uint8_t> join(std::initializer_list<std::vector<std::uint8_t>> blocks) {
  std::vector<std::uint8_t> out;
  for (const auto& b : blocks) out.insert(out.end(), b.begin(), b.end());
  return out;
}

// Reads every sample (2 coarse channels of 4-byte samples) in chunks of 64; returns the count.
std::size_t read_all_samples(VoltageReader& r) {
  std::vector<std::uint8_t> buf(64 * 2 * 4);
  std::size_t total = 0;
  for (;;) {
    const std::size_t n = r.read(buf.data(), 64);
    total += n;
    if (n < 64) return total;
  }
}

std::string open_error(const std::vector<std::uint8_t>& file) {
  return test::error_of([&] {
    auto r = open_voltage_reader(memory_source(file, "h.raw"), std::nullopt);
    (void)read_all_samples(*r);
  });
}

}  // namespace

TEST_CASE("ppf input: a GUPPI PKTIDX jump past 64 blocks and the file's length is an error, not endless zeros") {
  // Within the limit: filled with zeros, as before (3 + 100 + 3 samples).
  {
    auto r = open_voltage_reader(memory_source(join({guppi_block(0), guppi_block(103)}), "ok.raw"), std::nullopt);
    CHECK(read_all_samples(*r) == 106);
  }
  // One corrupt PKTIDX: 1e8 samples of zeros asked for by a 1.3 KB file.
  const std::string e = open_error(join({guppi_block(0), guppi_block(100000000)}));
  CHECK(e.find("GUPPI block 1: PKTIDX 100000000 is 99999997 samples past the expected sample 3") != std::string::npos);
  CHECK(e.find("corrupt PKTIDX or PKTSIZE") != std::string::npos);
  CHECK(e.find("[h.raw]") != std::string::npos);
  // Gaps that each fit but together pass the limit: the file's length, 8-byte samples of its
  // 1072-byte blocks (above 64 blocks of 3 samples).
  CHECK(open_error(join({guppi_block(0), guppi_block(203), guppi_block(406)})) == "(no error)");
  CHECK(open_error(join({guppi_block(0), guppi_block(253), guppi_block(506), guppi_block(759)}))
            .find("PKTIDX 759 is 250 samples past the expected sample 509: more than ppf fills with zeros for "
                  "dropped blocks (at most 536 samples in all here") != std::string::npos);
  // A pipe: the same limits, from the bytes read so far.
  const std::string p = test::error_of([] {
    auto r = open_voltage_reader(test::pipe_source(join({guppi_block(0), guppi_block(4000000000000000)}), kWholeReads),
                                 std::nullopt);
    (void)read_all_samples(*r);
  });
  CHECK(p.find("PKTIDX 4000000000000000 is 3999999999999997 samples past") != std::string::npos);
  // Sample numbers past 2^62 (pktidx × PKTSIZE × 8 overflowed a signed 64-bit product), a
  // PKTSIZE of 9e18 and a negative PKTIDX.
  CHECK(open_error(join({guppi_block(0), guppi_block(9000000000000000000)}))
            .find("PKTIDX 9000000000000000000 with PKTSIZE 8 is out of range") != std::string::npos);
  CHECK(open_error(join({guppi_block(0, {{"PKTSIZE", "9000000000000000000"}}),
                         guppi_block(5, {{"PKTSIZE", "9000000000000000000"}})}))
            .find("PKTIDX 5 with PKTSIZE 9000000000000000000 is out of range") != std::string::npos);
  CHECK(open_error(join({guppi_block(0), guppi_block(-5)})).find("PKTIDX -5 is negative") != std::string::npos);
  CHECK(open_error(guppi_block(0, {{"PKTSIZE", "-8"}})).find("PKTSIZE -8 is negative") != std::string::npos);
}

TEST_CASE("ppf input: a GUPPI BLOCSIZE beyond the file is refused before its payload is allocated") {
  // 2^62 bytes claimed by a small file: "truncated", not an allocation of 4 EiB.
  const auto huge = guppi_block(0, {{"BLOCSIZE", "4611686018427387904"}});
  CHECK(open_error(huge).find("GUPPI block 0 is truncated: its payload of BLOCSIZE 4611686018427387904 bytes") !=
        std::string::npos);
  // A pipe's buffer grows with the bytes that arrive.
  const std::string p = test::error_of([&] {
    auto r = open_voltage_reader(test::pipe_source(huge, kWholeReads), std::nullopt);
    (void)read_all_samples(*r);
  });
  CHECK(p.find("GUPPI block 0 is truncated") != std::string::npos);
  // In a later block: the blocks before are the data, with a warning, as for a cut recording.
  auto r = open_voltage_reader(
      memory_source(join({guppi_block(0), guppi_block(3, {{"BLOCSIZE", "4611686018427387904"}})}), "later.raw"),
      std::nullopt);
  CHECK(read_all_samples(*r) == 3);
  CHECK(read_all_samples(*r) == 0);  // and stays at its end
  // OBSNCHAN beyond 1e6 (or 2^32 + 1, which an int cast made 1) is out of range.
  CHECK(open_error(guppi_block(0, {{"OBSNCHAN", "4294967297"}})).find("GUPPI OBSNCHAN 4294967297 is out of range") !=
        std::string::npos);
  CHECK(open_error(guppi_block(0, {{"OBSNCHAN", "3000000000"}})).find("OBSNCHAN 3000000000 is out of range") !=
        std::string::npos);
  CHECK(open_error(guppi_block(0, {{"OBSNCHAN", "100000000"}})).find("OBSNCHAN 100000000 is out of range") !=
        std::string::npos);
}

TEST_CASE("ppf input: GUPPI cards that are NaN, inf, negative or overflow are named") {
  struct Case {
    const char* key;
    const char* value;
    const char* message;
  };
  const Case cases[] = {
      {"OBSFREQ", "nan", "GUPPI OBSFREQ nan is not a finite number"},
      {"OBSFREQ", "inf", "GUPPI OBSFREQ inf is not a finite number"},
      {"OBSFREQ", "-356", "GUPPI OBSFREQ -356 MHz is not a positive frequency"},
      {"OBSFREQ", "0", "GUPPI OBSFREQ 0 MHz is not a positive frequency"},
      {"TBIN", "inf", "GUPPI TBIN inf is not a finite number"},
      {"STT_SMJD", "nan", "GUPPI STT_SMJD nan is not a finite number"},
      {"STT_OFFS", "-inf", "GUPPI STT_OFFS -inf is not a finite number"},
      {"STT_IMJD", "99999999999999999999", "GUPPI header card STT_IMJD has '99999999999999999999', out of range"},
      {"OVERLAP", "-5", "GUPPI OVERLAP -5 is negative"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.key);
    CAPTURE(c.value);
    const std::string e = open_error(guppi_block(0, {{c.key, c.value}}));
    CHECK(e.find(c.message) != std::string::npos);
    CHECK(e.find("[h.raw]") != std::string::npos);
  }
}

TEST_CASE("ppf input: binary bytes where a GUPPI card should be are escaped and blamed on BLOCSIZE") {
  // Block 0 says BLOCSIZE 24 but holds 32 bytes: the next "header" starts inside the payload.
  const auto file = join({guppi_block(0, {{"BLOCSIZE", "24"}, {"OVERLAP", "0"}}, 32), guppi_block(3)});
  const std::string e = open_error(file);
  CHECK(e.find("is not 'KEYWORD = value'") != std::string::npos);
  CHECK(e.find("\\x19\\x1a") != std::string::npos);
  CHECK(e.find("previous block's BLOCSIZE") != std::string::npos);
  CHECK(std::none_of(e.begin(), e.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x20; }));
}

TEST_CASE("ppf input: PSRDADA BW, FREQ, TSAMP and MJD_START that are NaN, inf or not positive are named") {
  struct Case {
    const char* key;
    const char* value;
    const char* message;
  };
  const Case cases[] = {
      {"BW", "nan", "PSRDADA BW nan is not a finite number"},
      {"BW", "inf", "PSRDADA BW inf is not a finite number"},
      {"FREQ", "nan", "PSRDADA FREQ nan is not a finite number"},
      {"FREQ", "inf", "PSRDADA FREQ inf is not a finite number"},
      {"FREQ", "-1400", "PSRDADA FREQ -1400 MHz is not a positive frequency"},
      {"TSAMP", "inf", "PSRDADA TSAMP inf is not a finite number"},
      {"MJD_START", "nan", "PSRDADA MJD_START nan is not a finite number"},
      {"PICOSECONDS", "inf", "PSRDADA PICOSECONDS inf is not a finite number"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.key);
    CAPTURE(c.value);
    DadaHeader h;
    h.set("HDR_VERSION", "1.0");
    h.set("NCHAN", "1");
    h.set("NPOL", "1");
    h.set("NBIT", "8");
    h.set("NDIM", "2");
    h.set("TSAMP", "1");
    h.set("FREQ", "1400");
    h.set("BW", "1");
    h.set("UTC_START", "2000-01-01-12:00:00");
    h.set(c.key, c.value);
    auto bytes = encode_dada_header(h);
    bytes.insert(bytes.end(), 64, 1);
    const std::string e =
        test::error_of([&] { (void)open_voltage_reader(memory_source(bytes, "h.dada"), std::nullopt); });
    CHECK(e.find(c.message) != std::string::npos);
    CHECK(e.find("[h.dada]") != std::string::npos);
  }
}
