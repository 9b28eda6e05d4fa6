// SPDX-License-Identifier: MIT
#pragma once
/// PSRDADA ASCII headers (formats.md §7.1): `KEY value` lines in a block of HDR_SIZE bytes
/// (default 4096), NUL-padded, followed by the data. fastpsr writes NDIM=2 (complex) voltages
/// with ORDER "TFP" by default: time slowest, then channel, then polarisation, (re, im) innermost.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fastpsr/byte_stream.hpp"

namespace fastpsr {

struct DadaHeader {
  /// All keys in file order with their raw value text (the value may hold several words).
  std::vector<std::pair<std::string, std::string>> entries;
  std::size_t hdr_size = 4096;

  [[nodiscard]] std::optional<std::string> get(const std::string& key) const;
  /// Sets (or adds at the end) `key`.
  void set(const std::string& key, const std::string& value);
  /// Typed access; Error(format) naming the key when absent (and no fallback) or not a number.
  /// get_int/get_int_or take only a whole decimal integer ("1e11" and "16x" are not), refuse one
  /// past long long's range, and hold the cards of check_dada_int_cards to their ranges.
  [[nodiscard]] double get_double(const std::string& key, const std::string& source) const;
  [[nodiscard]] double get_double_or(const std::string& key, double fallback, const std::string& source) const;
  [[nodiscard]] long long get_int(const std::string& key, const std::string& source) const;
  [[nodiscard]] long long get_int_or(const std::string& key, long long fallback, const std::string& source) const;
};

/// True when the first bytes look like a DADA header (a HDR_VERSION or HDR_SIZE key line).
bool looks_like_dada(std::span<const std::uint8_t> first_bytes);
/// Reads the header block (HDR_SIZE bytes) from `src`, leaving it at the first data byte, and
/// checks its integer cards (check_dada_int_cards).
DadaHeader read_dada_header(ByteSource& src);
/// Error(format) naming `source` and the card when one of the integer cards NCHAN, NPOL, NDIM,
/// NBIT, OBS_OFFSET, RESOLUTION, FILE_SIZE, FILE_NUMBER that `h` holds is not a whole integer or
/// is out of its range (NCHAN 1 to 2^30, NPOL 1 to 4, NDIM 1 to 4, NBIT 1 to 64, byte counts 0
/// to 2^62, RESOLUTION from 1), or when NCHAN·NPOL·NDIM passes 2^30 values a time sample.
/// HDR_SIZE (1 to 16 MiB) is checked by parse_dada_header.
void check_dada_int_cards(const DadaHeader& h, const std::string& source);
/// Parses header text (up to the first NUL); `name` for messages.
DadaHeader parse_dada_header(std::string_view text, const std::string& name);
/// The header block: `KEY value` lines (keys padded to 12 columns, as PSRDADA writes them),
/// HDR_SIZE set, NUL-padded to hdr_size bytes. Error(invalid_argument) if it does not fit.
std::vector<std::uint8_t> encode_dada_header(const DadaHeader& h);

}  // namespace fastpsr
