// SPDX-License-Identifier: MIT
#include "fastpsr/bitpack.hpp"

#include <array>
#include <cmath>
#include <cstring>

#include "fastpsr/error.hpp"

namespace fastpsr {
namespace {

// For sub-byte data a byte expands to 8/nbits floats; one table lookup per byte.
template <int Bits>
struct ByteTable {
  static constexpr int kPerByte = 8 / Bits;
  std::array<std::array<float, kPerByte>, 256> v{};
  constexpr ByteTable() {
    for (int b = 0; b < 256; ++b) {
      for (int k = 0; k < kPerByte; ++k) v[b][k] = static_cast<float>((b >> (k * Bits)) & ((1 << Bits) - 1));
    }
  }
};

template <int Bits>
void unpack_sub_byte(const std::uint8_t* in, float* out, std::size_t n) {
  static constexpr ByteTable<Bits> table;
  constexpr int per = ByteTable<Bits>::kPerByte;
  const std::size_t whole = n / per;
  for (std::size_t i = 0; i < whole; ++i) std::memcpy(out + i * per, table.v[in[i]].data(), sizeof(float) * per);
  for (std::size_t k = whole * per; k < n; ++k) out[k] = table.v[in[whole]][k - whole * per];
}

float round_clip(float x, float lo, float hi) {
  if (!(x == x)) return 0.0F;  // NaN
  const float r = std::round(x);
  return r < lo ? lo : (r > hi ? hi : r);
}

}  // namespace

void unpack_to_float(const std::uint8_t* in, float* out, std::size_t n, int nbits, bool is_signed) {
  if (n == 0) return;  // empty buffers may be null, which memcpy/memset must not see
  switch (nbits) {
    case 1: unpack_sub_byte<1>(in, out, n); return;
    case 2: unpack_sub_byte<2>(in, out, n); return;
    case 4: unpack_sub_byte<4>(in, out, n); return;
    case 8:
      if (is_signed) {
        const auto* s = reinterpret_cast<const std::int8_t*>(in);
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(s[i]);
      } else {
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(in[i]);
      }
      return;
    case 16:
      for (std::size_t i = 0; i < n; ++i) {
        std::uint16_t v;
        std::memcpy(&v, in + 2 * i, 2);
        out[i] = static_cast<float>(v);
      }
      return;
    case 32: std::memcpy(out, in, n * sizeof(float)); return;
    default: throw Error(ErrorCode::unsupported, fmt::format("cannot unpack {}-bit samples", nbits));
  }
}

void pack_from_float(const float* in, std::uint8_t* out, std::size_t n, int nbits, bool is_signed) {
  if (n == 0) return;  // empty buffers may be null, which memcpy/memset must not see
  switch (nbits) {
    case 1:
    case 2:
    case 4: {
      const int per = 8 / nbits;
      const auto hi = static_cast<float>((1 << nbits) - 1);
      std::memset(out, 0, packed_bytes(n, nbits));
      for (std::size_t i = 0; i < n; ++i) {
        const auto v = static_cast<unsigned>(round_clip(in[i], 0.0F, hi));
        out[i / per] = static_cast<std::uint8_t>(out[i / per] | (v << ((i % per) * nbits)));
      }
      return;
    }
    case 8:
      if (is_signed) {
        for (std::size_t i = 0; i < n; ++i) {
          out[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(round_clip(in[i], -128.0F, 127.0F)));
        }
      } else {
        for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(round_clip(in[i], 0.0F, 255.0F));
      }
      return;
    case 16:
      for (std::size_t i = 0; i < n; ++i) {
        const auto v = static_cast<std::uint16_t>(round_clip(in[i], 0.0F, 65535.0F));
        std::memcpy(out + 2 * i, &v, 2);
      }
      return;
    case 32: std::memcpy(out, in, n * sizeof(float)); return;
    default: throw Error(ErrorCode::unsupported, fmt::format("cannot pack {}-bit samples", nbits));
  }
}

}  // namespace fastpsr
