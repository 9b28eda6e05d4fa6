// SPDX-License-Identifier: MIT
#include "fastpsr/dada.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "fastpsr/error.hpp"
#include "fastpsr/escape.hpp"

namespace fastpsr {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

constexpr std::size_t kMaxHeader = std::size_t{1} << 24;

// The integer cards fastpsr reads, with the values a header may give them (formats.md §7.1).
// Each range keeps products of them (bytes per time sample, a byte offset over it) far from
// int64's range; what a tool can process is narrower and checked where it is used.
struct IntCard {
  const char* key;
  long long lo;
  long long hi;
};
constexpr long long kMaxBytes = 1LL << 62;
constexpr IntCard kIntCards[] = {
    {"HDR_SIZE", 1, static_cast<long long>(kMaxHeader)},
    {"NBIT", 1, 64},
    {"NDIM", 1, 4},  // 1 real, 2 complex, 4 coherence products
    {"NPOL", 1, 4},
    {"NCHAN", 1, 1LL << 30},
    {"OBS_OFFSET", 0, kMaxBytes},
    {"RESOLUTION", 1, kMaxBytes},
    {"FILE_SIZE", 0, kMaxBytes},
    {"FILE_NUMBER", 0, kMaxBytes},
};
// Values in one time sample, NCHAN·NPOL·NDIM: at most what a SIGPROC header may hold.
constexpr long long kMaxValuesPerSample = 1LL << 30;

const IntCard* int_card(const std::string& key) {
  for (const auto& c : kIntCards) {
    if (key == c.key) return &c;
  }
  return nullptr;
}

// The whole value as a decimal integer (a sign allowed; "1e11" and "16x" are not). A value past
// long long's range is `overflow`, not saturated as strtoll leaves it.
enum class IntText { ok, not_integer, overflow };
IntText parse_int(const std::string& v, long long& out) {
  errno = 0;
  char* end = nullptr;
  out = std::strtoll(v.c_str(), &end, 10);
  if (end == v.c_str() || *end != '\0') return IntText::not_integer;
  return errno == ERANGE ? IntText::overflow : IntText::ok;
}

}  // namespace

std::optional<std::string> DadaHeader::get(const std::string& key) const {
  for (const auto& [k, v] : entries) {
    if (k == key) return v;
  }
  return std::nullopt;
}

void DadaHeader::set(const std::string& key, const std::string& value) {
  for (auto& [k, v] : entries) {
    if (k == key) {
      v = value;
      return;
    }
  }
  entries.emplace_back(key, value);
}

double DadaHeader::get_double_or(const std::string& key, double fallback, const std::string& source) const {
  const auto v = get(key);
  if (!v) return fallback;
  char* end = nullptr;
  const double d = std::strtod(v->c_str(), &end);
  if (end == v->c_str()) {
    throw Error(
        ErrorCode::format,
        fmt::format("DADA header key {} has '{}', not a number", escape_for_message(key), escape_for_message(*v)),
        source);
  }
  return d;
}

double DadaHeader::get_double(const std::string& key, const std::string& source) const {
  if (!get(key)) throw Error(ErrorCode::format, fmt::format("DADA header has no {} key", key), source);
  return get_double_or(key, 0.0, source);
}

long long DadaHeader::get_int_or(const std::string& key, long long fallback, const std::string& source) const {
  const auto v = get(key);
  if (!v) return fallback;
  long long n = 0;
  const IntText parsed = parse_int(*v, n);
  if (parsed == IntText::not_integer) {
    throw Error(
        ErrorCode::format,
        fmt::format("DADA header key {} has '{}', not an integer", escape_for_message(key), escape_for_message(*v)),
        source);
  }
  const IntCard* card = int_card(key);
  if (parsed == IntText::overflow || (card != nullptr && (n < card->lo || n > card->hi))) {
    throw Error(
        ErrorCode::format,
        card != nullptr
            ? fmt::format("PSRDADA {} {} is out of range ({} to {})", key, escape_for_message(*v), card->lo, card->hi)
            : fmt::format("PSRDADA {} {} is out of range", escape_for_message(key), escape_for_message(*v)),
        source);
  }
  return n;
}

long long DadaHeader::get_int(const std::string& key, const std::string& source) const {
  if (!get(key)) throw Error(ErrorCode::format, fmt::format("DADA header has no {} key", key), source);
  return get_int_or(key, 0, source);
}

bool looks_like_dada(std::span<const std::uint8_t> b) {
  const std::string_view s(reinterpret_cast<const char*>(b.data()), std::min<std::size_t>(b.size(), 4096));
  auto has_key_line = [&](std::string_view key) {
    for (std::size_t p = s.find(key); p != std::string_view::npos; p = s.find(key, p + 1)) {
      const bool at_line_start = p == 0 || s[p - 1] == '\n';
      const bool followed = p + key.size() < s.size() && (s[p + key.size()] == ' ' || s[p + key.size()] == '\t');
      if (at_line_start && followed) return true;
    }
    return false;
  };
  return has_key_line("HDR_VERSION") || has_key_line("HDR_SIZE");
}

DadaHeader parse_dada_header(std::string_view text, const std::string& name) {
  const auto nul = text.find('\0');
  if (nul != std::string_view::npos) text = text.substr(0, nul);
  DadaHeader h;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto eol = text.find('\n', pos);
    std::string_view ln = text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    if (const auto hash = ln.find('#'); hash != std::string_view::npos) ln = ln.substr(0, hash);
    if (ln.empty() || ln.front() == ' ' || ln.front() == '\t') continue;  // keys start a line
    const auto sep = ln.find_first_of(" \t");
    if (sep == std::string_view::npos) continue;
    h.set(std::string(ln.substr(0, sep)), std::string(trim(ln.substr(sep + 1))));
  }
  if (!h.get("HDR_SIZE") && !h.get("HDR_VERSION")) {
    throw Error(ErrorCode::format, "not a DADA header: no HDR_SIZE or HDR_VERSION key", name);
  }
  const std::string size_text = h.get("HDR_SIZE").value_or("4096");
  long long size = 0;
  const IntText parsed = parse_int(size_text, size);
  if (parsed == IntText::not_integer) {
    throw Error(ErrorCode::format,
                fmt::format("DADA header key HDR_SIZE has '{}', not an integer", escape_for_message(size_text)), name);
  }
  if (parsed == IntText::overflow || size <= 0 || static_cast<std::size_t>(size) > kMaxHeader) {
    throw Error(ErrorCode::format,
                fmt::format("absurd DADA HDR_SIZE {} (1 to {} bytes)", escape_for_message(size_text), kMaxHeader),
                name);
  }
  h.hdr_size = static_cast<std::size_t>(size);
  return h;
}

void check_dada_int_cards(const DadaHeader& h, const std::string& source) {
  for (const auto& card : kIntCards) {
    if (h.get(card.key)) (void)h.get_int(card.key, source);
  }
  // Each factor is at most 2^30 now, so the product cannot overflow.
  const long long values =
      h.get_int_or("NCHAN", 1, source) * h.get_int_or("NPOL", 1, source) * h.get_int_or("NDIM", 1, source);
  if (values > kMaxValuesPerSample) {
    throw Error(ErrorCode::format,
                fmt::format("PSRDADA NCHAN {} x NPOL {} x NDIM {} is more than {} values a time sample",
                            h.get_int_or("NCHAN", 1, source), h.get_int_or("NPOL", 1, source),
                            h.get_int_or("NDIM", 1, source), kMaxValuesPerSample),
                source);
  }
}

DadaHeader read_dada_header(ByteSource& src) {
  // HDR_SIZE is found in the first 4096 bytes; the block may be larger.
  const auto first = src.peek(4096);
  if (first.empty()) throw Error(ErrorCode::format, "empty file: no DADA header", src.name());
  const std::string head(reinterpret_cast<const char*>(first.data()), first.size());
  DadaHeader h = parse_dada_header(head, src.name());
  if (const auto size = src.size(); size && *size < src.position() + h.hdr_size) {
    throw Error(ErrorCode::format, fmt::format("file is shorter than its header (HDR_SIZE {})", h.hdr_size), src.name());
  }
  std::vector<char> block(h.hdr_size);
  src.read_exact(block.data(), block.size(), "DADA header");
  DadaHeader full = parse_dada_header(std::string_view(block.data(), block.size()), src.name());
  check_dada_int_cards(full, src.name());
  return full;
}

std::vector<std::uint8_t> encode_dada_header(const DadaHeader& hin) {
  DadaHeader h = hin;
  h.set("HDR_SIZE", std::to_string(h.hdr_size));
  if (!h.get("HDR_VERSION")) h.entries.insert(h.entries.begin(), {"HDR_VERSION", "1.0"});
  std::string text;
  for (const auto& [k, v] : h.entries) text += fmt::format("{:<12} {}\n", k, v);
  if (text.size() >= h.hdr_size) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("DADA header text is {} bytes, more than HDR_SIZE {}", text.size(), h.hdr_size));
  }
  std::vector<std::uint8_t> out(h.hdr_size, 0);
  std::memcpy(out.data(), text.data(), text.size());
  return out;
}

}  // namespace fastpsr
