// SPDX-License-Identifier: MIT
#include "fastpsr/guppi.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include "fastpsr/error.hpp"
#include "fastpsr/escape.hpp"

namespace fastpsr {
namespace {

constexpr std::size_t kCard = 80;
constexpr std::size_t kMaxCards = 16384;  // 1.3 MB of header: far beyond any real file

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\0')) s.remove_suffix(1);
  return s;
}

// FITS value text: a quoted string ('' is a quote inside), or a bare number/word; a '/' starts
// a comment outside quotes.
std::string card_value(std::string_view v) {
  v = trim(v);
  if (!v.empty() && v.front() == '\'') {
    std::string out;
    for (std::size_t i = 1; i < v.size(); ++i) {
      if (v[i] == '\'') {
        if (i + 1 < v.size() && v[i + 1] == '\'') {
          out += '\'';
          ++i;
          continue;
        }
        break;
      }
      out += v[i];
    }
    return std::string(trim(out));
  }
  if (const auto slash = v.find('/'); slash != std::string_view::npos) v = v.substr(0, slash);
  return std::string(trim(v));
}

bool printable_card(std::string_view s) {
  for (const char ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u >= 0x7f) return false;
  }
  return true;
}

}  // namespace

std::optional<std::string> GuppiHeader::get(const std::string& key) const {
  for (const auto& [k, v] : cards) {
    if (k == key) return v;
  }
  return std::nullopt;
}

double GuppiHeader::get_double_or(const std::string& key, double fallback, const std::string& source) const {
  const auto v = get(key);
  if (!v) return fallback;
  char* end = nullptr;
  const double d = std::strtod(v->c_str(), &end);
  if (end == v->c_str() || *end != '\0') {
    throw Error(
        ErrorCode::format,
        fmt::format("GUPPI header card {} has '{}', not a number", escape_for_message(key), escape_for_message(*v)),
        source);
  }
  return d;
}

double GuppiHeader::get_double(const std::string& key, const std::string& source) const {
  if (!get(key)) throw Error(ErrorCode::format, fmt::format("GUPPI header has no {} card", key), source);
  return get_double_or(key, 0.0, source);
}

long long GuppiHeader::get_int_or(const std::string& key, long long fallback, const std::string& source) const {
  const auto v = get(key);
  if (!v) return fallback;
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(v->c_str(), &end, 10);
  if (end == v->c_str() || *end != '\0') {
    throw Error(
        ErrorCode::format,
        fmt::format("GUPPI header card {} has '{}', not an integer", escape_for_message(key), escape_for_message(*v)),
        source);
  }
  if (errno == ERANGE) {
    throw Error(
        ErrorCode::format,
        fmt::format("GUPPI header card {} has '{}', out of range", escape_for_message(key), escape_for_message(*v)),
        source);
  }
  return n;
}

long long GuppiHeader::get_int(const std::string& key, const std::string& source) const {
  if (!get(key)) throw Error(ErrorCode::format, fmt::format("GUPPI header has no {} card", key), source);
  return get_int_or(key, 0, source);
}

std::optional<GuppiHeader> read_guppi_header(ByteSource& src) {
  const std::uint64_t start = src.position();
  GuppiHeader h;
  char card[kCard];
  for (std::size_t n = 0;; ++n) {
    const std::size_t got = src.read(card, kCard);
    if (got == 0 && n == 0) return std::nullopt;  // clean end: no further block
    if (got < kCard) {
      throw Error(ErrorCode::format,
                  fmt::format("GUPPI header of the block at byte {} ends early (no END card)", start), src.name());
    }
    const std::string_view text(card, kCard);
    if (trim(text.substr(0, 8)) == "END" && trim(text.substr(8)).empty()) break;
    if (n >= kMaxCards) {
      throw Error(ErrorCode::format, fmt::format("GUPPI header at byte {} has no END card in {} cards", start, n),
                  src.name());
    }
    if (text[8] != '=') {
      // Bytes that are no card text where a block's header should start: the previous block
      // was longer or shorter than its BLOCSIZE (or DIRECTIO) said.
      const bool binary = !printable_card(trim(text));
      throw Error(
          ErrorCode::format,
          fmt::format("GUPPI header card at byte {} is not 'KEYWORD = value': '{}'{}", src.position() - kCard,
                      escape_for_message(trim(text)),
                      binary && start > 0 ? " (binary data: is the previous block's BLOCSIZE or DIRECTIO right?)"
                      : binary            ? " (binary data: not a GUPPI RAW header)"
                                          : ""),
          src.name());
    }
    h.cards.emplace_back(std::string(trim(text.substr(0, 8))), card_value(text.substr(9)));
  }
  std::uint64_t bytes = src.position() - start;
  if (h.get_int_or("DIRECTIO", 0, src.name()) != 0) {
    const std::uint64_t padded = (bytes + 511) / 512 * 512;
    if (src.skip(padded - bytes) != padded - bytes) {
      throw Error(ErrorCode::format, fmt::format("GUPPI block at byte {} ends in its DIRECTIO padding", start),
                  src.name());
    }
    bytes = padded;
  }
  h.header_bytes = static_cast<std::size_t>(bytes);
  return h;
}

}  // namespace fastpsr
