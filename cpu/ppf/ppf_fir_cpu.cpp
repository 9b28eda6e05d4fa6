// SPDX-License-Identifier: MIT
#include "ppf_fir_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "fastpsr/cpu/cpu_features.hpp"

namespace fastpsr::cpu {
namespace {

// acc[e] += w[e] · x[e] over a row of n floats. The FMA variant rounds once per tap (fused),
// the baseline one twice; each variant is used for a whole run, so output stays bit-identical
// however the input is split into pushes.
template <bool UseFma, typename In>
[[gnu::always_inline]] inline void accumulate_row(float* __restrict acc, const float* __restrict w,
                                                  const In* __restrict x, std::size_t n) {
  if constexpr (UseFma) {
    for (std::size_t e = 0; e < n; ++e) acc[e] = std::fma(w[e], static_cast<float>(x[e]), acc[e]);
  } else {
    for (std::size_t e = 0; e < n; ++e) acc[e] += w[e] * static_cast<float>(x[e]);
  }
}

// Always inlined, so that the AVX2 variant's copy is compiled for AVX2.
template <bool UseFma, typename In>
[[gnu::always_inline]] inline void fir_block_impl(const FirBlock& b) {
  const auto* in = static_cast<const In*>(b.in);
  const std::size_t row = static_cast<std::size_t>(b.nchans) * static_cast<std::size_t>(b.npol) * 2;  // floats
  const std::size_t per_chan = static_cast<std::size_t>(b.npol) * 2;
  for (int c0 = 0; c0 < b.nchans; c0 += b.block_channels) {
    const int c1 = std::min(b.nchans, c0 + b.block_channels);
    const std::size_t e0 = static_cast<std::size_t>(c0) * per_chan;
    const std::size_t len = static_cast<std::size_t>(c1 - c0) * per_chan;
    for (int s = 0; s < b.nspectra; ++s) std::memset(b.out + s * row + e0, 0, len * sizeof(float));
    // Taps outer, spectra inner: one coefficient row serves S_B spectra from L1.
    for (int t = 0; t < b.ntaps; ++t) {
      const float* w = b.coeffx + static_cast<std::size_t>(t) * row + e0;
      for (int s = 0; s < b.nspectra; ++s) {
        accumulate_row<UseFma>(b.out + static_cast<std::size_t>(s) * row + e0, w,
                               in + static_cast<std::size_t>(s + t) * row + e0, len);
      }
    }
    for (int s = 0; s < b.nspectra; ++s) {
      float* o = b.out + static_cast<std::size_t>(s) * row + e0;
      for (int c = c0; c < c1; ++c) {
        const float pr = b.phase[2 * c];
        const float pi = b.phase[2 * c + 1];
        for (int p = 0; p < b.npol; ++p, o += 2) {
          const float re = o[0];
          const float im = o[1];
          o[0] = re * pr - im * pi;
          o[1] = re * pi + im * pr;
        }
      }
    }
  }
}

template <typename In>
__attribute__((target("avx2,fma"))) void fir_block_avx2(const FirBlock& b) {
  fir_block_impl<true, In>(b);
}

template <typename In>
void fir_block_baseline(const FirBlock& b) {
  fir_block_impl<false, In>(b);
}

bool use_avx2() {
  static const bool yes = cpu_features().avx2 && cpu_features().fma;
  return yes;
}

template <typename In>
void dispatch(const FirBlock& b) {
  if (use_avx2()) {
    fir_block_avx2<In>(b);
  } else {
    fir_block_baseline<In>(b);
  }
}

}  // namespace

void fir_block(VoltageType type, const FirBlock& b) {
  switch (type) {
    case VoltageType::ci8:
      dispatch<std::int8_t>(b);
      return;
    case VoltageType::ci16:
      dispatch<std::int16_t>(b);
      return;
    case VoltageType::cf32:
      dispatch<float>(b);
      return;
  }
}

const char* fir_variant_name() { return use_avx2() ? "avx2+fma" : "sse2"; }

}  // namespace fastpsr::cpu
