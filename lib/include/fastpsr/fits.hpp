// SPDX-License-Identifier: MIT
#pragma once
/// The little of FITS that search-mode PSRFITS needs, without cfitsio: headers of 80-character
/// cards in 2880-byte blocks, the size of each HDU's data, and binary-table column layouts.
/// Values are big-endian in the file; the table readers below convert them.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fastpsr/byte_stream.hpp"

namespace fastpsr {

inline constexpr std::size_t kFitsBlock = 2880;
inline constexpr std::size_t kFitsCard = 80;

struct FitsCard {
  std::string key;    ///< keyword, trailing spaces removed
  std::string value;  ///< value text: a string without its quotes (trailing spaces removed), or the number/logical
  bool is_string = false;
};

struct FitsHeader {
  std::vector<FitsCard> cards;     ///< cards with a value (COMMENT, HISTORY and blank cards are left out)
  std::uint64_t header_bytes = 0;  ///< blocks read for this header

  [[nodiscard]] const FitsCard* find(std::string_view key) const;
  /// A string value; nullopt when absent.
  [[nodiscard]] std::optional<std::string> text(std::string_view key) const;
  /// A numeric value; nullopt when absent or not a number (PSRFITS writers put '*' for "unset").
  [[nodiscard]] std::optional<double> number(std::string_view key) const;
  /// A whole-number value; nullopt when absent or not a whole number.
  [[nodiscard]] std::optional<std::int64_t> integer(std::string_view key) const;
  /// Size of the data that follow this header, padded to whole blocks (BITPIX, NAXISn, PCOUNT,
  /// GCOUNT). Error(format) naming `source` for absurd values.
  [[nodiscard]] std::uint64_t data_bytes_padded(const std::string& source) const;
};

/// Parses header cards from `bytes` (whole blocks) up to the END card. Error(format) naming
/// `source` when there is no END card in `bytes`.
FitsHeader parse_fits_header(std::span<const std::uint8_t> bytes, const std::string& source);
/// Reads one header (block by block, at most 1000 blocks) from `src`, leaving it at the data.
FitsHeader read_fits_header(ByteSource& src);

/// One column of a binary table (TTYPEn/TFORMn).
struct FitsColumn {
  std::string name;
  char type = 'B';           ///< TFORM letter: L X B I J K A E D C M P Q
  std::uint64_t repeat = 1;  ///< elements (bits for X)
  std::uint64_t offset = 0;  ///< byte offset in the row
  std::uint64_t bytes = 0;   ///< bytes in the row
  double zero = 0.0;         ///< TZEROn
  double scale = 1.0;        ///< TSCALn
};

/// The columns of a BINTABLE header. Error(format) when TFORMs are malformed or their widths do
/// not add up to NAXIS1.
std::vector<FitsColumn> fits_table_columns(const FitsHeader& h, const std::string& source);

/// Converts `count` big-endian elements of type D (double) or E (float) from `src` to double.
void fits_read_reals(const std::uint8_t* src, char type, std::size_t count, double* out);

}  // namespace fastpsr
