// SPDX-License-Identifier: MIT
#include "ppf_fir_cpu.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <type_traits>

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

// Register tiles (AVX2: kRows spectra × kLanes floats; AVX-512: kRows × kLanes512). The
// accumulators stay in registers over all taps, and so do the converted input rows: spectrum r
// takes input row t + r at tap t, so from one tap to the next the rows a tile needs shift by one,
// and a window of kRows converted rows moves along them. A tap then converts one new input row
// and loads one coefficient row for kRows FMAs a register. (Converting or loading an operand for
// each FMA bound the tiles before: on the Zen 5 development VM a core converts ~10 int8 and
// loads ~1.2 zmm a cycle against two FMAs; the window made the AVX-512 FIR 1.6-1.9x faster.)
// Each accumulator takes its taps in the order t = 0, 1, … with one rounding a tap (FMA), as
// accumulate_row<true>: tiles of either width and rows give the same bits.
constexpr int kRows = 4;
constexpr std::size_t kLanes = 16;

template <typename In>
__attribute__((target("avx2,fma"), always_inline)) inline __m256 load8(const In* x) {
  if constexpr (std::is_same_v<In, std::int8_t>) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(x))));
  } else if constexpr (std::is_same_v<In, std::int16_t>) {
    return _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x))));
  } else {
    return _mm256_loadu_ps(x);
  }
}

// v · (pr + i·pi) for the (re, im) pairs of v, pr and pi repeated over each pair, by one
// vfmaddsub: re' = re·pr − im·pi and im' = im·pr + re·pi, each rounded once after the product
// im·pi (re·pi). rotate1 does the same to one pair, so that the tiles and the rows round alike,
// NaNs included. (Written as products and a sum, the rounding was the compiler's choice: GCC
// fuses such code into vfmaddsub in some loop versions and not in others.)
__attribute__((target("avx2,fma"), always_inline)) inline __m256 rotate8(__m256 v, __m256 pr, __m256 pi) {
  const __m256 swapped = _mm256_permute_ps(v, 0xB1);  // (im, re) pairs
  return _mm256_fmaddsub_ps(v, pr, _mm256_mul_ps(swapped, pi));
}

__attribute__((target("avx2,fma"))) void rotate1(float* o, float pr, float pi) {
  const __m128 v = _mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(o)));
  const __m128 swapped = _mm_permute_ps(v, 0xB1);
  const __m128 r = _mm_fmaddsub_ps(v, _mm_set1_ps(pr), _mm_mul_ps(swapped, _mm_set1_ps(pi)));
  _mm_store_sd(reinterpret_cast<double*>(o), _mm_castps_pd(r));
}

// The tile also applies the phase before its single store (px: the phase's real parts
// repeated over (P, re/im) at this tile's floats, its imaginary parts `row` floats on), which a
// separate pass over the output had taken half as long as the FIR itself.
template <typename In>
__attribute__((target("avx2,fma"))) void fir_tile_avx2(float* out, std::size_t row, const float* w0, std::size_t wrow,
                                                       const In* x0, int ntaps, const float* px, std::size_t pol_gap) {
  __m256 acc[kRows][2];
  __m256 win[kRows][2];  // win[r]: input row t + r, converted
  for (int r = 0; r < kRows; ++r) {
    acc[r][0] = acc[r][1] = _mm256_setzero_ps();
    const In* x = x0 + static_cast<std::size_t>(r) * row;
    win[r][0] = load8(x);
    win[r][1] = load8(x + 8);
  }
  for (int t = 0; t < ntaps; ++t) {
    if (t > 0) {
      for (int r = 0; r + 1 < kRows; ++r) {
        win[r][0] = win[r + 1][0];
        win[r][1] = win[r + 1][1];
      }
      const In* x = x0 + static_cast<std::size_t>(t + kRows - 1) * row;
      win[kRows - 1][0] = load8(x);
      win[kRows - 1][1] = load8(x + 8);
    }
    const float* w = w0 + static_cast<std::size_t>(t) * wrow;
    const __m256 wa = _mm256_loadu_ps(w);
    const __m256 wb = _mm256_loadu_ps(w + 8);
    for (int r = 0; r < kRows; ++r) {
      acc[r][0] = _mm256_fmadd_ps(wa, win[r][0], acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(wb, win[r][1], acc[r][1]);
    }
  }
  const __m256 pra = _mm256_loadu_ps(px);
  const __m256 prb = _mm256_loadu_ps(px + 8);
  const __m256 pia = _mm256_loadu_ps(px + row);
  const __m256 pib = _mm256_loadu_ps(px + row + 8);
  for (int r = 0; r < kRows; ++r) {
    const __m256 a = rotate8(acc[r][0], pra, pia);
    const __m256 b = rotate8(acc[r][1], prb, pib);
    float* o = out + static_cast<std::size_t>(r) * row;
    if (pol_gap == 0) {
      _mm256_storeu_ps(o, a);
      _mm256_storeu_ps(o + 8, b);
    } else {  // 4 channels (x, y) -> x of the 4, y of the 4
      const __m256d ad = _mm256_castps_pd(a);
      const __m256d bd = _mm256_castps_pd(b);
      _mm256_storeu_ps(o, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_unpacklo_pd(ad, bd), 0xD8)));
      _mm256_storeu_ps(o + pol_gap, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_unpackhi_pd(ad, bd), 0xD8)));
    }
  }
}

// The AVX-512 tile: the same kRows spectra, twice the floats (two 16-float registers a row), so
// that an instruction converts or multiplies 16 floats where the AVX2 tile's does 8. Each float
// gets the same FMAs in the same order and the same vfmaddsub rotation as in the AVX2 tile.
constexpr std::size_t kLanes512 = 32;

// GCC 12's avx512fintrin.h gives the unmasked conversions and permutes an undefined pass-through
// operand by self-initialisation, which -Wuninitialized reports wherever they are inlined.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

template <typename In>
__attribute__((target("avx512f"), always_inline)) inline __m512 load16(const In* x) {
  if constexpr (std::is_same_v<In, std::int8_t>) {
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x))));
  } else if constexpr (std::is_same_v<In, std::int16_t>) {
    return _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x))));
  } else {
    return _mm512_loadu_ps(x);
  }
}

__attribute__((target("avx512f"), always_inline)) inline __m512 rotate16(__m512 v, __m512 pr, __m512 pi) {
  const __m512 swapped = _mm512_permute_ps(v, 0xB1);
  return _mm512_fmaddsub_ps(v, pr, _mm512_mul_ps(swapped, pi));
}

template <typename In>
__attribute__((target("avx512f"))) void fir_tile_avx512(float* out, std::size_t row, const float* w0, std::size_t wrow,
                                                        const In* x0, int ntaps, const float* px, std::size_t pol_gap) {
  __m512 acc[kRows][2];
  __m512 win[kRows][2];  // win[r]: input row t + r, converted
  for (int r = 0; r < kRows; ++r) {
    acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    const In* x = x0 + static_cast<std::size_t>(r) * row;
    win[r][0] = load16(x);
    win[r][1] = load16(x + 16);
  }
  for (int t = 0; t < ntaps; ++t) {
    if (t > 0) {
      for (int r = 0; r + 1 < kRows; ++r) {
        win[r][0] = win[r + 1][0];
        win[r][1] = win[r + 1][1];
      }
      const In* x = x0 + static_cast<std::size_t>(t + kRows - 1) * row;
      win[kRows - 1][0] = load16(x);
      win[kRows - 1][1] = load16(x + 16);
    }
    const float* w = w0 + static_cast<std::size_t>(t) * wrow;
    const __m512 wa = _mm512_loadu_ps(w);
    const __m512 wb = _mm512_loadu_ps(w + 16);
    for (int r = 0; r < kRows; ++r) {
      acc[r][0] = _mm512_fmadd_ps(wa, win[r][0], acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(wb, win[r][1], acc[r][1]);
    }
  }
  const __m512 pra = _mm512_loadu_ps(px);
  const __m512 prb = _mm512_loadu_ps(px + 16);
  const __m512 pia = _mm512_loadu_ps(px + row);
  const __m512 pib = _mm512_loadu_ps(px + row + 16);
  for (int r = 0; r < kRows; ++r) {
    const __m512 a = rotate16(acc[r][0], pra, pia);
    const __m512 b = rotate16(acc[r][1], prb, pib);
    float* o = out + static_cast<std::size_t>(r) * row;
    if (pol_gap == 0) {
      _mm512_storeu_ps(o, a);
      _mm512_storeu_ps(o + 16, b);
    } else {  // 8 channels (x, y) -> x of the 8, y of the 8
      const __m512i even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
      const __m512i odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
      const __m512d ad = _mm512_castps_pd(a);
      const __m512d bd = _mm512_castps_pd(b);
      _mm512_storeu_ps(o, _mm512_castpd_ps(_mm512_permutex2var_pd(ad, even, bd)));
      _mm512_storeu_ps(o + pol_gap, _mm512_castpd_ps(_mm512_permutex2var_pd(ad, odd, bd)));
    }
  }
}

#pragma GCC diagnostic pop

// Where float e of a spectrum in input order ([C][P][2]) goes in the FIR's output: the same
// place, or with split_polarisations, [P][C][2].
inline std::size_t out_offset(const FirBlock& b, std::size_t row, std::size_t e) {
  if (!b.split_polarisations) return e;
  return (e / 2 % 2) * (row / 2) + e / 4 * 2 + e % 2;
}

// out[s][c] *= phase[c] for spectra [s0, s1) and channels [ca, cb) (where no tile did it). With
// UseFma by rotate1, the operations of the tiles' rotate8; else plain products and sums (the
// baseline variant has no FMA to fuse them into).
template <bool UseFma>
[[gnu::always_inline]] inline void rotate_rows(const FirBlock& b, std::size_t row, int s0, int s1, int ca, int cb) {
  for (int s = s0; s < s1; ++s) {
    for (int c = ca; c < cb; ++c) {
      const float pr = b.phase[2 * c];
      const float pi = b.phase[2 * c + 1];
      for (int p = 0; p < b.npol; ++p) {
        float* o = b.out + static_cast<std::size_t>(s) * row +
                   out_offset(b, row, static_cast<std::size_t>(c) * 2 * b.npol + 2 * p);
        if constexpr (UseFma) {
          rotate1(o, pr, pi);
        } else {
          const float re = o[0];
          const float im = o[1];
          o[0] = re * pr - im * pi;
          o[1] = re * pi + im * pr;
        }
      }
    }
  }
}

// Spectra [s0, s1) × floats [e0, e0 + len) row by row (the edges the tiles leave): taps
// outer, spectra inner. The same operations in the same order as a tile, so an element gets
// the same bits whichever path computes it.
template <bool UseFma, typename In>
[[gnu::always_inline]] inline void fir_rows(const FirBlock& b, std::size_t row, std::size_t e0, std::size_t len, int s0,
                                            int s1) {
  const auto* in = static_cast<const In*>(b.in);
  // Runs of floats that stay together in the output: all of them, or with split_polarisations
  // one (channel, polarisation) pair each (e0 and len are whole channels).
  const std::size_t run = b.split_polarisations ? 2 : len;
  for (int s = s0; s < s1; ++s) {
    for (std::size_t e = e0; e < e0 + len; e += run) {
      std::memset(b.out + static_cast<std::size_t>(s) * row + out_offset(b, row, e), 0, run * sizeof(float));
    }
  }
  for (int t = 0; t < b.ntaps; ++t) {
    const float* w = b.coeffx + static_cast<std::size_t>(t) * b.coeff_stride;
    for (int s = s0; s < s1; ++s) {
      for (std::size_t e = e0; e < e0 + len; e += run) {
        accumulate_row<UseFma>(b.out + static_cast<std::size_t>(s) * row + out_offset(b, row, e), w + e,
                               in + static_cast<std::size_t>(s + t) * row + e, run);
      }
    }
  }
}

// The column of register tiles at floats [e, e + lanes) for spectra [0, s_tiles).
template <FirIsa Isa, typename In>
[[gnu::always_inline]] inline void tile_column(const FirBlock& b, std::size_t row, std::size_t e, int s_tiles) {
  const auto* in = static_cast<const In*>(b.in);
  const std::size_t pol_gap = b.split_polarisations ? row / 2 : 0;
  const std::size_t out_e = b.split_polarisations ? e / 2 : e;  // the column's first float of polarisation 0
  for (int s = 0; s < s_tiles; s += kRows) {
    float* out = b.out + static_cast<std::size_t>(s) * row + out_e;
    const In* x = in + static_cast<std::size_t>(s) * row + e;
    if constexpr (Isa == FirIsa::avx512) {
      fir_tile_avx512(out, row, b.coeffx + e, b.coeff_stride, x, b.ntaps, b.phasex + e, pol_gap);
    } else {
      fir_tile_avx2(out, row, b.coeffx + e, b.coeff_stride, x, b.ntaps, b.phasex + e, pol_gap);
    }
  }
}

// Always inlined, so that each variant's copy is compiled for its instruction set.
template <FirIsa Isa, typename In>
[[gnu::always_inline]] inline void fir_block_impl(const FirBlock& b) {
  constexpr bool kFma = Isa != FirIsa::baseline;
  const std::size_t row = static_cast<std::size_t>(b.nchans) * static_cast<std::size_t>(b.npol) * 2;  // floats
  const std::size_t per_chan = static_cast<std::size_t>(b.npol) * 2;
  const int s_tiles = b.nspectra - b.nspectra % kRows;
  for (int c0 = 0; c0 < b.nchans; c0 += b.block_channels) {
    const int c1 = std::min(b.nchans, c0 + b.block_channels);
    const std::size_t e0 = static_cast<std::size_t>(c0) * per_chan;
    const std::size_t len = static_cast<std::size_t>(c1 - c0) * per_chan;
    // Register tiles where the variant has them: AVX-512 ones (32 floats), then AVX2 ones (16
    // floats) over what is left; row by row for the rest.
    std::size_t len_tiles = 0;
    if constexpr (Isa == FirIsa::avx512) {
      for (; len_tiles + kLanes512 <= len; len_tiles += kLanes512) {
        tile_column<Isa, In>(b, row, e0 + len_tiles, s_tiles);
      }
    }
    if constexpr (kFma) {
      for (; len_tiles + kLanes <= len; len_tiles += kLanes) {
        tile_column<FirIsa::avx2, In>(b, row, e0 + len_tiles, s_tiles);
      }
      if (s_tiles < b.nspectra) fir_rows<kFma, In>(b, row, e0, len_tiles, s_tiles, b.nspectra);
    }
    if (len_tiles < len) fir_rows<kFma, In>(b, row, e0 + len_tiles, len - len_tiles, 0, b.nspectra);
    // The phase where no tile applied it (16 or 32 floats are whole channels).
    const int c_tiles = c0 + static_cast<int>(len_tiles / per_chan);
    rotate_rows<kFma>(b, row, s_tiles, b.nspectra, c0, c_tiles);
    rotate_rows<kFma>(b, row, 0, b.nspectra, c_tiles, c1);
  }
}

template <typename In>
__attribute__((target("avx512f,avx2,fma"))) void fir_block_avx512(const FirBlock& b) {
  fir_block_impl<FirIsa::avx512, In>(b);
}

template <typename In>
__attribute__((target("avx2,fma"))) void fir_block_avx2(const FirBlock& b) {
  fir_block_impl<FirIsa::avx2, In>(b);
}

template <typename In>
void fir_block_baseline(const FirBlock& b) {
  fir_block_impl<FirIsa::baseline, In>(b);
}

template <typename In>
void dispatch(const FirBlock& b) {
  switch (b.isa) {
    case FirIsa::avx512:
      fir_block_avx512<In>(b);
      return;
    case FirIsa::avx2:
      fir_block_avx2<In>(b);
      return;
    case FirIsa::baseline:
      fir_block_baseline<In>(b);
      return;
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

bool fir_isa_supported(FirIsa isa) {
  const CpuFeatures& f = cpu_features();
  switch (isa) {
    case FirIsa::avx512:
      return f.avx512f && f.avx2 && f.fma;
    case FirIsa::avx2:
      return f.avx2 && f.fma;
    case FirIsa::baseline:
      return true;
  }
  return false;
}

FirIsa best_fir_isa() {
  for (FirIsa isa : {FirIsa::avx512, FirIsa::avx2}) {
    if (fir_isa_supported(isa)) return isa;
  }
  return FirIsa::baseline;
}

const char* fir_isa_name(FirIsa isa) {
  switch (isa) {
    case FirIsa::avx512:
      return "avx512";
    case FirIsa::avx2:
      return "avx2";
    case FirIsa::baseline:
      return "generic";
  }
  return "?";
}

FirIsa fir_isa_named(const std::string& name) {
  for (FirIsa isa : {FirIsa::avx512, FirIsa::avx2, FirIsa::baseline}) {
    if (name == fir_isa_name(isa)) return isa;
  }
  return FirIsa::baseline;
}

}  // namespace fastpsr::cpu
