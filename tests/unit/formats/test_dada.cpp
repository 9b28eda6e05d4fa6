// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include "fastpsr/dada.hpp"
#include "fastpsr/error.hpp"

using namespace fastpsr;

TEST_CASE("dada: a header round-trips through encode and read") {
  DadaHeader h;
  h.set("NBIT", "8");
  h.set("NDIM", "2");
  h.set("NPOL", "2");
  h.set("TSAMP", "0.0025");
  h.set("SOURCE", "J0437-4715");
  h.set("UTC_START", "2023-02-25-00:00:00");
  auto bytes = encode_dada_header(h);
  REQUIRE(bytes.size() == 4096);
  CHECK(looks_like_dada(bytes));
  bytes.push_back(42);  // first data byte
  auto src = memory_source(bytes, "x.dada");
  const DadaHeader r = read_dada_header(*src);
  CHECK(src->position() == 4096);
  CHECK(r.get_int("NBIT", "x") == 8);
  CHECK(r.get_double("TSAMP", "x") == 0.0025);
  CHECK(*r.get("SOURCE") == "J0437-4715");
  CHECK(*r.get("UTC_START") == "2023-02-25-00:00:00");
  CHECK(r.get_int_or("NCHAN", 1, "x") == 1);
}

TEST_CASE("dada: comments, missing keys and bad values") {
  const std::string text = "HDR_VERSION 1.0\nHDR_SIZE 4096   # the size\n# a comment\nNBIT eight\n";
  const DadaHeader h = parse_dada_header(text, "c.dada");
  CHECK(h.get_int("HDR_SIZE", "c") == 4096);
  CHECK_THROWS_WITH_AS((void)h.get_int("NBIT", "c.dada"), doctest::Contains("not an integer"), Error);
  CHECK_THROWS_WITH_AS((void)h.get_double("TSAMP", "c.dada"), doctest::Contains("no TSAMP key"), Error);
  CHECK_THROWS_WITH_AS(parse_dada_header("NBIT 8\n", "d.dada"), doctest::Contains("not a DADA header"), Error);
  CHECK_THROWS_WITH_AS(parse_dada_header("HDR_SIZE -5\n", "d.dada"), doctest::Contains("absurd"), Error);
}
