// SPDX-License-Identifier: MIT
#include "fastpsr/format_detect.hpp"

#include <algorithm>
#include <cstring>

#include "fastpsr/dada.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/presto_subbands.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr {
namespace {

constexpr std::size_t kCard = 80;

std::string_view as_text(std::span<const std::uint8_t> b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

bool has_suffix(std::string_view name, std::string_view suffix) {
  if (name.size() <= suffix.size()) return false;
  const auto tail = name.substr(name.size() - suffix.size());
  return std::equal(tail.begin(), tail.end(), suffix.begin(),
                    [](char a, char b) { return a == b || (a >= 'A' && a <= 'Z' && a - 'A' + 'a' == b); });
}

// True when `text` holds 80-character header cards up to an END card, and `wanted` is the key of
// one of them. Used for FITS (key FITSTYPE, value PSRFITS) and GUPPI RAW (key BLOCSIZE).
bool card_header_has(std::string_view text, std::string_view wanted_key, std::string_view wanted_value) {
  for (std::size_t at = 0; at + kCard <= text.size(); at += kCard) {
    const std::string_view card = text.substr(at, kCard);
    std::string_view key = card.substr(0, 8);
    while (!key.empty() && key.back() == ' ') key.remove_suffix(1);
    if (key == "END") return false;
    if (key == wanted_key && card[8] == '=') {
      return wanted_value.empty() || card.substr(9).find(wanted_value) != std::string_view::npos;
    }
  }
  return false;
}

// A GUPPI RAW block starts with a card: an upper-case keyword padded to 8, '=' in column 9.
bool looks_like_cards(std::string_view text) {
  if (text.size() < kCard || text[8] != '=') return false;
  for (std::size_t i = 0; i < 8; ++i) {
    const char c = text[i];
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == ' ';
    if (!ok) return false;
  }
  return true;
}

FileFormat sigproc_kind(std::span<const std::uint8_t> bytes, std::string_view name) {
  try {
    auto src = memory_source(std::vector<std::uint8_t>(bytes.begin(), bytes.end()), std::string(name));
    return read_sigproc_header(*src).is_time_series() ? FileFormat::sigproc_timeseries : FileFormat::sigproc_filterbank;
  } catch (const Error&) {
    // A header the reader rejects: let the reader say why, under the likelier kind.
    return has_suffix(name, ".tim") ? FileFormat::sigproc_timeseries : FileFormat::sigproc_filterbank;
  }
}

}  // namespace

std::string_view format_name(FileFormat f) {
  switch (f) {
    case FileFormat::sigproc_filterbank:
      return "SIGPROC filterbank";
    case FileFormat::sigproc_timeseries:
      return "SIGPROC time series";
    case FileFormat::presto_dat:
      return "PRESTO .dat time series";
    case FileFormat::presto_sdat:
      return "PRESTO .sdat time series";
    case FileFormat::presto_fft:
      return "PRESTO .fft spectrum";
    case FileFormat::presto_inf:
      return "PRESTO .inf";
    case FileFormat::presto_sub:
      return "PRESTO subband file";
    case FileFormat::psrfits:
      return "PSRFITS";
    case FileFormat::dada:
      return "PSRDADA";
    case FileFormat::guppi_raw:
      return "GUPPI RAW";
    case FileFormat::presto_mask:
      return "PRESTO rfifind mask";
    case FileFormat::unknown:
      break;
  }
  return "unknown";
}

FileFormat detect_format(std::span<const std::uint8_t> first_bytes, std::string_view file_name) {
  const auto bytes = first_bytes.first(std::min(first_bytes.size(), kDetectBytes));
  const std::string_view text = as_text(bytes);
  if (looks_like_sigproc(bytes)) return sigproc_kind(bytes, file_name);
  if (text.starts_with("SIMPLE  =")) {
    return card_header_has(text, "FITSTYPE", "PSRFITS") ? FileFormat::psrfits : FileFormat::unknown;
  }
  if (looks_like_cards(text) && card_header_has(text, "BLOCSIZE", "")) return FileFormat::guppi_raw;
  if (looks_like_dada(bytes)) return FileFormat::dada;
  if (text.starts_with(" Data file name without suffix")) return FileFormat::presto_inf;
  if (has_suffix(file_name, ".inf")) return FileFormat::presto_inf;
  if (has_suffix(file_name, ".dat")) return FileFormat::presto_dat;
  if (has_suffix(file_name, ".sdat")) return FileFormat::presto_sdat;
  if (has_suffix(file_name, ".fft")) return FileFormat::presto_fft;
  if (is_presto_subband_name(file_name)) return FileFormat::presto_sub;
  if (has_suffix(file_name, ".mask")) return FileFormat::presto_mask;
  return FileFormat::unknown;
}

bool starts_with_header_card(std::span<const std::uint8_t> first_bytes) {
  return looks_like_cards(as_text(first_bytes));
}

FileFormat detect_format(ByteSource& src) {
  const auto first = src.peek(kDetectBytes);
  if (first.empty()) throw Error(ErrorCode::format, "empty file", src.name());
  const FileFormat f = detect_format(first, src.name());
  if (f == FileFormat::unknown) {
    throw Error(ErrorCode::format,
                "unknown format: not SIGPROC (.fil/.tim), PRESTO (.dat/.sdat/.fft/.inf/.sub<NN>/.mask), PSRFITS, "
                "PSRDADA or GUPPI RAW",
                src.name());
  }
  return f;
}

}  // namespace fastpsr
