// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <string>

#include "fastpsr/error.hpp"
#include "fastpsr/fits.hpp"

using namespace fastpsr;

namespace {

std::vector<std::uint8_t> block(const std::vector<std::string>& cards) {
  std::string text;
  for (auto c : cards) {
    c.resize(80, ' ');
    text += c;
  }
  text.resize((text.size() + 2879) / 2880 * 2880, ' ');
  return {text.begin(), text.end()};
}

}  // namespace

TEST_CASE("fits: cards with strings, quotes, numbers, logicals and '*' placeholders") {
  const auto b = block({"XTENSION= 'BINTABLE'           / a comment",
                        "BITPIX  =                    8",
                        "NAXIS   =                    2",
                        "NAXIS1  =                   22",
                        "NAXIS2  =                    3",
                        "PCOUNT  =                    0",
                        "GCOUNT  =                    1",
                        "TFIELDS =                    3",
                        "TTYPE1  = 'A       '",
                        "TFORM1  = '2D      '",
                        "TTYPE2  = 'B'",
                        "TFORM2  = 'E'",
                        "TTYPE3  = 'C'",
                        "TFORM3  = '12X'",
                        "TZERO3  =                  -128",
                        "OBSERVER= 'O''Brien '",
                        "NCHNOFFS= '*       '",
                        "TBIN    =             1.25D-04",
                        "SIMPLE  =                    T",
                        "COMMENT   not a value card",
                        "END"});
  const FitsHeader h = parse_fits_header(b, "t.fits");
  CHECK(h.header_bytes == 2880);
  CHECK(h.text("XTENSION") == "BINTABLE");
  CHECK(h.text("OBSERVER") == "O'Brien");
  CHECK_FALSE(h.number("NCHNOFFS"));
  CHECK(h.number("TBIN") == 1.25e-4);
  CHECK(h.integer("NAXIS1") == 22);
  CHECK_FALSE(h.integer("TBIN"));
  CHECK(h.text("SIMPLE") == "T");
  CHECK(h.find("COMMENT") == nullptr);
  CHECK(h.data_bytes_padded("t.fits") == 2880);  // 66 bytes, padded to a block
  const auto cols = fits_table_columns(h, "t.fits");
  REQUIRE(cols.size() == 3);
  CHECK(cols[0].name == "A");
  CHECK(cols[0].type == 'D');
  CHECK(cols[0].repeat == 2);
  CHECK(cols[0].bytes == 16);
  CHECK(cols[1].offset == 16);
  CHECK(cols[1].bytes == 4);
  CHECK(cols[2].type == 'X');
  CHECK(cols[2].bytes == 2);
  CHECK(cols[2].zero == -128.0);
}

TEST_CASE("fits: malformed headers and tables are errors") {
  CHECK_THROWS_WITH_AS(parse_fits_header(block({"SIMPLE  =                    T"}), "x"), doctest::Contains("END"),
                       Error);
  const auto bad_width = parse_fits_header(
      block({"NAXIS1  =                   21", "TFIELDS =                    1", "TFORM1  = '5J'", "END"}), "x");
  CHECK_THROWS_WITH_AS(fits_table_columns(bad_width, "x"), doctest::Contains("NAXIS1 says 21"), Error);
  const auto bad_form = parse_fits_header(
      block({"NAXIS1  =                   21", "TFIELDS =                    1", "TFORM1  = '5Z'", "END"}), "x");
  CHECK_THROWS_WITH_AS(fits_table_columns(bad_form, "x"), doctest::Contains("unreadable TFORM1"), Error);
  const auto huge =
      parse_fits_header(block({"BITPIX  =                    8", "NAXIS   =                    2",
                               "NAXIS1  =      999999999999999", "NAXIS2  =      999999999999999", "END"}),
                        "x");
  CHECK_THROWS_WITH_AS((void)huge.data_bytes_padded("x"), doctest::Contains("absurd"), Error);
}

TEST_CASE("fits: big-endian reals") {
  const std::uint8_t d[8] = {0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18};  // pi
  const std::uint8_t e[4] = {0xc0, 0x00, 0x00, 0x00};                          // -2
  double out = 0;
  fits_read_reals(d, 'D', 1, &out);
  CHECK(out == 3.141592653589793);
  fits_read_reals(e, 'E', 1, &out);
  CHECK(out == -2.0);
}
