// SPDX-License-Identifier: MIT
#include "fastpsr/sim/quantise.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <numbers>

#include "fastpsr/error.hpp"

namespace fastpsr::sim {
namespace {

// Round half away from zero, clipped to [0, max]. Clipping and the comparison with 1/2 are done
// on the bit patterns (non-negative floats order like their bits as integers): GCC turns
// floating-point selects into branches, which stop vectorisation. The conversion is signed
// (unsigned ones do not vectorise either).
inline std::int32_t level_of(float x, float offset, float scale, std::int32_t max_bits) {
  std::int32_t bits = std::bit_cast<std::int32_t>(offset + scale * x);
  bits = bits < 0 ? 0 : bits;
  bits = bits > max_bits ? max_bits : bits;
  const float y = std::bit_cast<float>(bits);
  const auto r = static_cast<std::int32_t>(y);
  const float frac = y - static_cast<float>(r);
  return r + (std::bit_cast<std::int32_t>(frac) >= std::bit_cast<std::int32_t>(0.5F) ? 1 : 0);
}

template <int Bits>
void quantise_bits(const float* in, std::size_t n, OutputScale s, std::uint8_t* out) {
  const auto offset = static_cast<float>(s.offset);
  const auto scale = static_cast<float>(s.scale);
  if constexpr (Bits == 32) {
    if (s.offset == 0.0 && s.scale == 1.0) {
      std::memcpy(out, in, n * sizeof(float));
      return;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const float y = offset + scale * in[i];
      std::memcpy(out + 4 * i, &y, sizeof y);
    }
  } else {
    constexpr std::int32_t kMax = std::bit_cast<std::int32_t>(static_cast<float>((1U << Bits) - 1U));
    if constexpr (Bits == 16) {
      for (std::size_t i = 0; i < n; ++i) {
        const auto v = static_cast<std::uint32_t>(level_of(in[i], offset, scale, kMax));
        out[2 * i] = static_cast<std::uint8_t>(v);
        out[2 * i + 1] = static_cast<std::uint8_t>(v >> 8);
      }
    } else {
      constexpr std::size_t kPerByte = 8 / Bits;
      const std::size_t bytes = n / kPerByte;
      for (std::size_t b = 0; b < bytes; ++b) {
        std::uint32_t byte = 0;
        for (std::size_t j = 0; j < kPerByte; ++j) {
          byte |= static_cast<std::uint32_t>(level_of(in[b * kPerByte + j], offset, scale, kMax)) << (j * Bits);
        }
        out[b] = static_cast<std::uint8_t>(byte);
      }
    }
  }
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }
double normal_pdf(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi); }

}  // namespace

OutputScale default_output_scale(int nbits) {
  switch (nbits) {
    case 32:
      return {0.0, 1.0};
    case 16:
      return {32767.5, 2048.0};
    case 8:
      return {127.5, 31.875};
    case 4:
      return {7.5, 1.875};
    case 2:
      return {1.5, 1.0 / 0.9816};
    case 1:
      return {0.5, 1.0};
    default:
      throw Error(ErrorCode::invalid_argument, fmt::format("nbits must be 1, 2, 4, 8, 16 or 32, got {}", nbits));
  }
}

void quantise(const float* in, std::size_t n, int nbits, OutputScale scale, std::uint8_t* out) {
  FASTPSR_EXPECTS((n * static_cast<std::size_t>(nbits)) % 8 == 0, "{} samples of {} bits are not whole bytes", n,
                  nbits);
  switch (nbits) {
    case 1:
      quantise_bits<1>(in, n, scale, out);
      return;
    case 2:
      quantise_bits<2>(in, n, scale, out);
      return;
    case 4:
      quantise_bits<4>(in, n, scale, out);
      return;
    case 8:
      quantise_bits<8>(in, n, scale, out);
      return;
    case 16:
      quantise_bits<16>(in, n, scale, out);
      return;
    case 32:
      quantise_bits<32>(in, n, scale, out);
      return;
    default:
      throw Error(ErrorCode::invalid_argument, fmt::format("nbits must be 1, 2, 4, 8, 16 or 32, got {}", nbits));
  }
}

Moments quantised_noise_moments(int nbits, OutputScale s) {
  (void)default_output_scale(nbits);  // validates nbits
  if (nbits == 32) return {s.offset, std::abs(s.scale)};
  const int levels = 1 << nbits;
  double mean = 0.0;
  double second = 0.0;
  double below = 0.0;  // P(level < k)
  for (int k = 0; k < levels; ++k) {
    const double upper = k == levels - 1 ? 1.0 : normal_cdf((k + 0.5 - s.offset) / s.scale);
    const double p = upper - below;
    mean += k * p;
    second += static_cast<double>(k) * k * p;
    below = upper;
  }
  return {mean, std::sqrt(second - mean * mean)};
}

double quantisation_efficiency(int nbits, OutputScale s) {
  if (nbits == 32) return 1.0;
  const Moments m = quantised_noise_moments(nbits, s);
  const int levels = 1 << nbits;
  double slope = 0.0;  // d(mean)/d(shift of the noise), levels per sigma
  for (int k = 0; k + 1 < levels; ++k) slope += normal_pdf((k + 0.5 - s.offset) / s.scale);
  return slope / m.rms;
}

}  // namespace fastpsr::sim
