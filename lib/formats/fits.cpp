// SPDX-License-Identifier: MIT
#include "fastpsr/fits.hpp"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "fastpsr/error.hpp"
#include "fastpsr/escape.hpp"

namespace fastpsr {
namespace {

constexpr std::size_t kMaxHeaderBlocks = 1000;
// No PSRFITS file comes near this; it keeps every size computed from a header far from overflow.
constexpr std::uint64_t kMaxDataBytes = std::uint64_t{1} << 50;

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// A card "KEYWORD = value / comment": a quoted string (with '' for a quote) or a bare token.
std::optional<FitsCard> parse_card(std::string_view card) {
  FitsCard c;
  c.key = std::string(trim(card.substr(0, 8)));
  if (c.key.empty() || card.size() < 10 || card[8] != '=' || card[9] != ' ') return std::nullopt;
  std::string_view rest = card.substr(10);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (!rest.empty() && rest.front() == '\'') {
    c.is_string = true;
    for (std::size_t i = 1; i < rest.size(); ++i) {
      if (rest[i] != '\'') {
        c.value.push_back(rest[i]);
      } else if (i + 1 < rest.size() && rest[i + 1] == '\'') {
        c.value.push_back('\'');
        ++i;
      } else {
        break;
      }
    }
    while (!c.value.empty() && c.value.back() == ' ') c.value.pop_back();
  } else {
    c.value = std::string(trim(rest.substr(0, rest.find('/'))));
  }
  return c;
}

bool parse_double(const std::string& s, double& out) {
  if (s.empty()) return false;
  std::string t = s;
  for (char& ch : t) {
    if (ch == 'D' || ch == 'd') ch = 'E';  // Fortran exponents
  }
  char* end = nullptr;
  out = std::strtod(t.c_str(), &end);
  return end != t.c_str() && *end == '\0' && std::isfinite(out);
}

std::uint64_t element_bytes(char type) {
  switch (type) {
    case 'L':
    case 'B':
    case 'A':
      return 1;
    case 'I':
      return 2;
    case 'J':
    case 'E':
      return 4;
    case 'K':
    case 'D':
    case 'C':
    case 'P':
      return 8;
    case 'M':
    case 'Q':
      return 16;
    default:
      return 0;
  }
}

template <typename T>
T load_big_endian(const std::uint8_t* p) {
  using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  U u = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) u = static_cast<U>((u << 8) | p[i]);
  return std::bit_cast<T>(u);
}

}  // namespace

const FitsCard* FitsHeader::find(std::string_view key) const {
  for (const auto& c : cards) {
    if (c.key == key) return &c;
  }
  return nullptr;
}

std::optional<std::string> FitsHeader::text(std::string_view key) const {
  const FitsCard* c = find(key);
  if (c == nullptr) return std::nullopt;
  return c->value;
}

std::optional<double> FitsHeader::number(std::string_view key) const {
  const FitsCard* c = find(key);
  double v = 0.0;
  if (c == nullptr || !parse_double(c->value, v)) return std::nullopt;
  return v;
}

std::optional<std::int64_t> FitsHeader::integer(std::string_view key) const {
  const auto v = number(key);
  if (!v || *v != std::floor(*v) || std::fabs(*v) > 9.0e15) return std::nullopt;
  return static_cast<std::int64_t>(*v);
}

std::uint64_t FitsHeader::data_bytes_padded(const std::string& source) const {
  const auto bitpix = integer("BITPIX");
  const auto naxis = integer("NAXIS");
  if (!bitpix || !naxis || *naxis < 0 || *naxis > 999) {
    throw Error(ErrorCode::format, "FITS header without valid BITPIX and NAXIS", source);
  }
  if (*bitpix != 8 && *bitpix != 16 && *bitpix != 32 && *bitpix != 64 && *bitpix != -32 && *bitpix != -64) {
    throw Error(ErrorCode::format, fmt::format("FITS BITPIX {} is not a FITS value", *bitpix), source);
  }
  if (*naxis == 0) return 0;
  std::uint64_t n = 1;
  for (std::int64_t i = 1; i <= *naxis; ++i) {
    const auto len = integer(fmt::format("NAXIS{}", i));
    if (!len || *len < 0 || static_cast<std::uint64_t>(*len) > kMaxDataBytes) {
      throw Error(ErrorCode::format, fmt::format("FITS NAXIS{} missing or absurd", i), source);
    }
    if (*len != 0 && n > kMaxDataBytes / static_cast<std::uint64_t>(*len)) {
      throw Error(ErrorCode::format, "FITS data size is absurd", source);
    }
    n *= static_cast<std::uint64_t>(*len);
  }
  const std::int64_t pcount = integer("PCOUNT").value_or(0);
  const std::int64_t gcount = integer("GCOUNT").value_or(1);
  if (pcount < 0 || gcount < 0 || static_cast<std::uint64_t>(pcount) > kMaxDataBytes ||
      static_cast<std::uint64_t>(gcount) > 1000000) {
    throw Error(ErrorCode::format, "FITS PCOUNT or GCOUNT is absurd", source);
  }
  const std::uint64_t elements = (n + static_cast<std::uint64_t>(pcount)) * static_cast<std::uint64_t>(gcount);
  const std::uint64_t bytes = elements * static_cast<std::uint64_t>(std::abs(*bitpix) / 8);
  if (bytes > kMaxDataBytes) throw Error(ErrorCode::format, "FITS data size is absurd", source);
  return (bytes + kFitsBlock - 1) / kFitsBlock * kFitsBlock;
}

FitsHeader parse_fits_header(std::span<const std::uint8_t> bytes, const std::string& source) {
  FitsHeader h;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  for (std::size_t at = 0; at + kFitsCard <= text.size(); at += kFitsCard) {
    const std::string_view card = text.substr(at, kFitsCard);
    if (trim(card.substr(0, 8)) == "END") {
      h.header_bytes = (at / kFitsBlock + 1) * kFitsBlock;
      return h;
    }
    if (auto c = parse_card(card)) h.cards.push_back(std::move(*c));
  }
  throw Error(ErrorCode::format, "FITS header without an END card", source);
}

FitsHeader read_fits_header(ByteSource& src) {
  std::vector<std::uint8_t> bytes;
  for (std::size_t block = 0; block < kMaxHeaderBlocks; ++block) {
    const std::size_t old = bytes.size();
    bytes.resize(old + kFitsBlock);
    if (src.read(bytes.data() + old, kFitsBlock) != kFitsBlock) {
      throw Error(ErrorCode::format,
                  fmt::format("the file ends inside a FITS header (no END card; {} bytes into it)", old), src.name());
    }
    const std::string_view added(reinterpret_cast<const char*>(bytes.data() + old), kFitsBlock);
    for (std::size_t at = 0; at < kFitsBlock; at += kFitsCard) {
      if (trim(added.substr(at, 8)) == "END") return parse_fits_header(bytes, src.name());
    }
  }
  throw Error(ErrorCode::format, fmt::format("FITS header without an END card in {} blocks", kMaxHeaderBlocks),
              src.name());
}

std::vector<FitsColumn> fits_table_columns(const FitsHeader& h, const std::string& source) {
  const auto nfields = h.integer("TFIELDS");
  const auto width = h.integer("NAXIS1");
  if (!nfields || *nfields < 0 || *nfields > 999 || !width || *width < 0) {
    throw Error(ErrorCode::format, "binary table without valid TFIELDS and NAXIS1", source);
  }
  std::vector<FitsColumn> cols;
  std::uint64_t offset = 0;
  for (std::int64_t i = 1; i <= *nfields; ++i) {
    FitsColumn c;
    c.name = h.text(fmt::format("TTYPE{}", i)).value_or("");
    const std::string form = h.text(fmt::format("TFORM{}", i)).value_or("");
    std::size_t p = 0;
    std::uint64_t repeat = 0;
    bool digits = false;
    while (p < form.size() && form[p] >= '0' && form[p] <= '9') {
      repeat = repeat * 10 + static_cast<std::uint64_t>(form[p] - '0');
      digits = true;
      if (repeat > kMaxDataBytes)
        throw Error(ErrorCode::format, fmt::format("absurd TFORM{} '{}'", i, escape_for_message(form)), source);
      ++p;
    }
    if (p >= form.size() || (element_bytes(form[p]) == 0 && form[p] != 'X')) {
      throw Error(ErrorCode::format, fmt::format("unreadable TFORM{} '{}'", i, escape_for_message(form)), source);
    }
    c.type = form[p];
    c.repeat = digits ? repeat : 1;
    c.bytes = c.type == 'X' ? (c.repeat + 7) / 8 : c.repeat * element_bytes(c.type);
    c.offset = offset;
    c.zero = h.number(fmt::format("TZERO{}", i)).value_or(0.0);
    c.scale = h.number(fmt::format("TSCAL{}", i)).value_or(1.0);
    offset += c.bytes;
    if (offset > kMaxDataBytes) throw Error(ErrorCode::format, "binary table row is absurdly wide", source);
    cols.push_back(std::move(c));
  }
  if (offset != static_cast<std::uint64_t>(*width)) {
    throw Error(ErrorCode::format,
                fmt::format("binary table columns add up to {} bytes but NAXIS1 says {}", offset, *width), source);
  }
  return cols;
}

void fits_read_reals(const std::uint8_t* src, char type, std::size_t count, double* out) {
  if (type == 'D') {
    for (std::size_t i = 0; i < count; ++i) out[i] = load_big_endian<double>(src + 8 * i);
  } else if (type == 'E') {
    for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<double>(load_big_endian<float>(src + 4 * i));
  } else {
    throw Error(ErrorCode::internal, fmt::format("fits_read_reals on type {}", type));
  }
}

}  // namespace fastpsr
