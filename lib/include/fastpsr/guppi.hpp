// SPDX-License-Identifier: MIT
#pragma once
/// GUPPI RAW / Breakthrough Listen RAW (formats.md §7.2): a sequence of blocks, each an ASCII
/// header of 80-character FITS-style cards ending in `END`, optional DIRECTIO padding to 512
/// bytes, then BLOCSIZE bytes of payload, channel-major [chan][time][pol][re, im].
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fastpsr/byte_stream.hpp"

namespace fastpsr {

struct GuppiHeader {
  /// Cards in order: keyword (trimmed) and value text (quotes removed, trimmed).
  std::vector<std::pair<std::string, std::string>> cards;
  std::size_t header_bytes = 0;  ///< cards + END + DIRECTIO padding: payload offset in the block

  [[nodiscard]] std::optional<std::string> get(const std::string& key) const;
  /// Typed access; Error(format) naming the key and `source` when absent (and no fallback) or
  /// not a number. Numbers may be quoted (some writers do).
  [[nodiscard]] double get_double(const std::string& key, const std::string& source) const;
  [[nodiscard]] double get_double_or(const std::string& key, double fallback, const std::string& source) const;
  [[nodiscard]] long long get_int(const std::string& key, const std::string& source) const;
  [[nodiscard]] long long get_int_or(const std::string& key, long long fallback, const std::string& source) const;
};

/// (Recognising a GUPPI RAW file: format_detect.hpp.)
/// Reads one block header (and its DIRECTIO padding) from `src`, leaving it at the payload.
/// nullopt at a clean end of data; Error(format) naming the source and byte offset for a
/// truncated or malformed header.
std::optional<GuppiHeader> read_guppi_header(ByteSource& src);

}  // namespace fastpsr
