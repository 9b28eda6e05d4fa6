// SPDX-License-Identifier: MIT
#pragma once
/// Sample (un)packing for SIGPROC data (formats.md §1.6): nbits 1, 2, 4 are unsigned and packed
/// with the earliest sample in the least-significant bits; 8 is unsigned (or signed when the
/// header says so); 16 is unsigned little-endian; 32 is float32.
#include <cstddef>
#include <cstdint>

namespace fastpsr {

/// Unpacks n samples starting at sample 0 of `in` into float. `n * nbits` need not be a
/// multiple of 8; the trailing bits of the last byte are ignored.
void unpack_to_float(const std::uint8_t* in, float* out, std::size_t n, int nbits, bool is_signed);

/// Packs n values into nbits-wide samples: rounded to nearest (half away from zero) and clipped
/// to [0, 2^nbits - 1] for nbits <= 16 (to [-128, 127] when is_signed and nbits == 8);
/// nbits == 32 stores the floats unchanged. NaN packs as 0.
void pack_from_float(const float* in, std::uint8_t* out, std::size_t n, int nbits, bool is_signed = false);

/// Bytes holding n samples of nbits each, rounded up.
constexpr std::size_t packed_bytes(std::size_t n, int nbits) {
  return (n * static_cast<std::size_t>(nbits) + 7) / 8;
}

}  // namespace fastpsr
