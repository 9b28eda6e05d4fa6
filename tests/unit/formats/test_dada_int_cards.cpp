// SPDX-License-Identifier: MIT
// PSRDADA integer cards out of range or past long long (QA pass 16): strtoll saturated
// 99999999999999999999 at 2^63 - 1, took "1e11" as 1 and let NBIT -8 through to the tools.
// Now each card fastpsr reads is a whole integer in its range, or an error naming the file and
// the card.
#include <doctest/doctest.h>

#include <string>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/dada.hpp"
#include "fastpsr/error.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {
DadaHeader base_header() {
  DadaHeader h;
  h.set("HDR_VERSION", "1.0");
  h.set("NCHAN", "4");
  h.set("NPOL", "2");
  h.set("NDIM", "2");
  h.set("NBIT", "8");
  h.set("TSAMP", "0.64");
  h.set("FREQ", "1400");
  h.set("BW", "64");
  return h;
}

std::string read_error(const DadaHeader& h) {
  auto bytes = encode_dada_header(h);
  bytes.insert(bytes.end(), 64, 0);
  return test::error_of([&] {
    auto src = memory_source(bytes, "x.dada");
    (void)read_dada_header(*src);
  });
}
}  // namespace

TEST_CASE("dada int cards: values out of range or past long long name the file and the card") {
  struct Case {
    const char* key;
    const char* value;
    const char* message;
  };
  const Case cases[] = {
      {"NCHAN", "99999999999999999999", "PSRDADA NCHAN 99999999999999999999 is out of range (1 to 1073741824)"},
      {"NCHAN", "-99999999999999999999", "PSRDADA NCHAN -99999999999999999999 is out of range"},
      {"NCHAN", "0", "PSRDADA NCHAN 0 is out of range (1 to 1073741824)"},
      {"NCHAN", "2147483648", "PSRDADA NCHAN 2147483648 is out of range"},
      {"NCHAN", "1e11", "DADA header key NCHAN has '1e11', not an integer"},
      {"NBIT", "-8", "PSRDADA NBIT -8 is out of range (1 to 64)"},
      {"NBIT", "0", "PSRDADA NBIT 0 is out of range"},
      {"NBIT", "65", "PSRDADA NBIT 65 is out of range"},
      {"NBIT", "8x", "DADA header key NBIT has '8x', not an integer"},
      {"NDIM", "0", "PSRDADA NDIM 0 is out of range (1 to 4)"},
      {"NDIM", "5", "PSRDADA NDIM 5 is out of range"},
      {"NPOL", "-2", "PSRDADA NPOL -2 is out of range (1 to 4)"},
      {"OBS_OFFSET", "-1", "PSRDADA OBS_OFFSET -1 is out of range (0 to 4611686018427387904)"},
      {"OBS_OFFSET", "18446744073709551616", "PSRDADA OBS_OFFSET 18446744073709551616 is out of range"},
      {"RESOLUTION", "0", "PSRDADA RESOLUTION 0 is out of range (1 to"},
      {"RESOLUTION", "9223372036854775808", "PSRDADA RESOLUTION 9223372036854775808 is out of range"},
      {"FILE_SIZE", "-1", "PSRDADA FILE_SIZE -1 is out of range (0 to"},
      {"FILE_SIZE", "99999999999999999999", "PSRDADA FILE_SIZE 99999999999999999999 is out of range"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.key);
    CAPTURE(c.value);
    auto h = base_header();
    h.set(c.key, c.value);
    const std::string e = read_error(h);
    CHECK(e.find(c.message) != std::string::npos);
    CHECK(e.find("[x.dada]") != std::string::npos);
  }
}

TEST_CASE("dada int cards: a product past 2^30 values a sample and HDR_SIZE past long long are refused") {
  auto h = base_header();
  h.set("NCHAN", "1073741824");
  CHECK(read_error(h).find("PSRDADA NCHAN 1073741824 x NPOL 2 x NDIM 2 is more than 1073741824 values a time "
                           "sample") != std::string::npos);
  h.set("NCHAN", "268435456");  // x 2 x 2 = 2^30: the limit itself
  CHECK(read_error(h) == "(no error)");
  CHECK(test::error_of([] { (void)parse_dada_header("HDR_SIZE 99999999999999999999\n", "h.dada"); }) ==
        "absurd DADA HDR_SIZE 99999999999999999999 (1 to 16777216 bytes) [h.dada]");
  CHECK(test::error_of([] {
          (void)parse_dada_header("HDR_SIZE 4096x\n", "h.dada");
        }).find("HDR_SIZE has '4096x', not an integer") != std::string::npos);
  // get_int itself refuses what strtoll would saturate, for a card outside the table too.
  DadaHeader any;
  any.set("NANT", "99999999999999999999");
  CHECK(test::error_of([&] { (void)any.get_int("NANT", "a.dada"); }) ==
        "PSRDADA NANT 99999999999999999999 is out of range [a.dada]");
  // Good headers read as before.
  CHECK(read_error(base_header()) == "(no error)");
  auto ok = base_header();
  ok.set("OBS_OFFSET", "0");
  ok.set("FILE_SIZE", "1600");
  ok.set("RESOLUTION", "16");
  CHECK(read_error(ok) == "(no error)");
}
