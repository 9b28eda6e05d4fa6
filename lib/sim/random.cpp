// SPDX-License-Identifier: MIT
#include "fastpsr/sim/random.hpp"

#include <bit>
#include <cmath>

namespace fastpsr::sim {
namespace {

#define FASTPSR_INLINE [[gnu::always_inline]] inline

// Groups of 4 columns made per batch: wide enough for 8-lane vectors, small enough for registers.
constexpr std::size_t kBatch = 16;

// ln(u) for u in (0, 1]: u = m 2^e with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(s) with
// s = (m - 1) / (m + 1), |s| <= 0.1716, summed to s^9 (truncation error 6e-10). ln 2 is split
// so that e * ln2_hi is exact.
FASTPSR_INLINE float ln_unit(float u) {
  // Integer selects only: GCC turns a select between floating-point results into a branch
  // (it may not speculate an operation that could trap), and a branch stops vectorisation.
  const auto bits = std::bit_cast<std::uint32_t>(u);
  const std::uint32_t mantissa = bits & 0x007FFFFFU;
  const std::uint32_t above = mantissa > 0x003504F3U ? 1U : 0U;  // m > sqrt(2): use m / 2
  const float m = std::bit_cast<float>(mantissa | (0x3F800000U - (above << 23)));
  const auto e = static_cast<std::int32_t>(bits >> 23) - 127 + static_cast<std::int32_t>(above);
  const float s = (m - 1.0F) / (m + 1.0F);
  const float s2 = s * s;
  const float series = s2 * (1.0F / 3.0F + s2 * (1.0F / 5.0F + s2 * (1.0F / 7.0F + s2 * (1.0F / 9.0F))));
  const float ln_m = 2.0F * s + 2.0F * s * series;
  const auto ef = static_cast<float>(e);
  return ef * 0.693359375F + (ln_m + ef * -2.12194440e-4F);
}

// sin and cos of 2 pi u for u in [0, 1): reduced to x in [-pi/4, pi/4] by quadrant (exactly,
// since u has 24 bits), Taylor series to x^9 and x^10 (truncation below 2e-9).
FASTPSR_INLINE void sincos_turns(float u, float& sin_out, float& cos_out) {
  const auto q = static_cast<std::int32_t>(u * 4.0F + 0.5F);
  const float x = (u - static_cast<float>(q) * 0.25F) * 6.28318530717958647692F;
  const float x2 = x * x;
  const float s = x + x * x2 * (-1.0F / 6.0F + x2 * (1.0F / 120.0F + x2 * (-1.0F / 5040.0F + x2 * (1.0F / 362880.0F))));
  const float c =
      1.0F +
      x2 * (-0.5F + x2 * (1.0F / 24.0F + x2 * (-1.0F / 720.0F + x2 * (1.0F / 40320.0F + x2 * (-1.0F / 3628800.0F)))));
  const auto swap = 0U - static_cast<std::uint32_t>(q & 1);
  const auto sb = std::bit_cast<std::uint32_t>(s);
  const auto cb = std::bit_cast<std::uint32_t>(c);
  const std::uint32_t cq = (cb & ~swap) | (sb & swap);
  const std::uint32_t sq = (sb & ~swap) | (cb & swap);
  cos_out = std::bit_cast<float>(cq ^ (static_cast<std::uint32_t>((q + 1) & 2) << 30));
  sin_out = std::bit_cast<float>(sq ^ (static_cast<std::uint32_t>(q & 2) << 30));
}

FASTPSR_INLINE void box_muller_inline(std::uint32_t w0, std::uint32_t w1, float& z0, float& z1) {
  const auto k = static_cast<std::int32_t>(w0 >> 1);
  const float u0 = static_cast<float>(k) * 4.656612873077392578125e-10F + 2.3283064365386962890625e-10F;
  const float u1 = static_cast<float>(static_cast<std::int32_t>(w1 >> 8)) * 5.9604644775390625e-8F;
  const float r = std::sqrt(-2.0F * ln_unit(u0));
  float s = 0.0F;
  float c = 0.0F;
  sincos_turns(u1, s, c);
  z0 = r * c;
  z1 = r * s;
}

// Box-Muller over arrays: the loop the compiler vectorises.
FASTPSR_INLINE void box_muller_batch(const std::uint32_t (&w0)[kBatch], const std::uint32_t (&w1)[kBatch],
                                     float (&z0)[kBatch], float (&z1)[kBatch]) {
  for (std::size_t j = 0; j < kBatch; ++j) {
    float a = 0.0F;
    float b = 0.0F;
    box_muller_inline(w0[j], w1[j], a, b);
    z0[j] = a;
    z1[j] = b;
  }
}

FASTPSR_INLINE void philox_batch(const std::array<std::uint32_t, 2>& key, std::uint32_t group0, std::uint32_t stream,
                                 std::uint64_t row, std::uint32_t (&w)[4][kBatch]) {
  std::uint32_t c0[kBatch];
  std::uint32_t c1[kBatch];
  std::uint32_t c2[kBatch];
  std::uint32_t c3[kBatch];
  for (std::size_t j = 0; j < kBatch; ++j) {
    c0[j] = group0 + static_cast<std::uint32_t>(j);
    c1[j] = stream;
    c2[j] = static_cast<std::uint32_t>(row);
    c3[j] = static_cast<std::uint32_t>(row >> 32);
  }
  std::uint32_t k0 = key[0];
  std::uint32_t k1 = key[1];
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9U;
      k1 += 0xBB67AE85U;
    }
    for (std::size_t j = 0; j < kBatch; ++j) {
      const std::uint64_t p0 = static_cast<std::uint64_t>(0xD2511F53U) * c0[j];
      const std::uint64_t p1 = static_cast<std::uint64_t>(0xCD9E8D57U) * c2[j];
      const auto n0 = static_cast<std::uint32_t>(p1 >> 32) ^ c1[j] ^ k0;
      const auto n2 = static_cast<std::uint32_t>(p0 >> 32) ^ c3[j] ^ k1;
      c1[j] = static_cast<std::uint32_t>(p1);
      c3[j] = static_cast<std::uint32_t>(p0);
      c0[j] = n0;
      c2[j] = n2;
    }
  }
  for (std::size_t j = 0; j < kBatch; ++j) {
    w[0][j] = c0[j];
    w[1][j] = c1[j];
    w[2][j] = c2[j];
    w[3][j] = c3[j];
  }
}

template <bool Add>
FASTPSR_INLINE void normals_body(const std::array<std::uint32_t, 2>& key, std::uint32_t stream, std::uint64_t row,
                                 std::size_t n, float scale, float* out) {
  const std::size_t groups = (n + 3) / 4;
  for (std::size_t g0 = 0; g0 < groups; g0 += kBatch) {
    std::uint32_t w[4][kBatch];
    philox_batch(key, static_cast<std::uint32_t>(g0), stream, row, w);
    float z[4][kBatch];
    box_muller_batch(w[0], w[1], z[0], z[1]);
    box_muller_batch(w[2], w[3], z[2], z[3]);
    const std::size_t first = g0 * 4;
    const std::size_t count = n - first < 4 * kBatch ? n - first : 4 * kBatch;
    if (count == 4 * kBatch) {
      for (std::size_t j = 0; j < kBatch; ++j) {
        for (std::size_t i = 0; i < 4; ++i) {
          if constexpr (Add) {
            out[first + 4 * j + i] += scale * z[i][j];
          } else {
            out[first + 4 * j + i] = z[i][j];
          }
        }
      }
    } else {
      for (std::size_t v = 0; v < count; ++v) {
        if constexpr (Add) {
          out[first + v] += scale * z[v % 4][v / 4];
        } else {
          out[first + v] = z[v % 4][v / 4];
        }
      }
    }
  }
}

template <bool Add>
[[gnu::target("avx2")]] void normals_avx2(const std::array<std::uint32_t, 2>& key, std::uint32_t stream,
                                          std::uint64_t row, std::size_t n, float scale, float* out) {
  normals_body<Add>(key, stream, row, n, scale, out);
}

template <bool Add>
void normals_baseline(const std::array<std::uint32_t, 2>& key, std::uint32_t stream, std::uint64_t row, std::size_t n,
                      float scale, float* out) {
  normals_body<Add>(key, stream, row, n, scale, out);
}

bool use_avx2() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool yes = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return yes;
#else
  return false;
#endif
}

}  // namespace

std::array<float, 2> box_muller(std::uint32_t w0, std::uint32_t w1) noexcept {
  std::array<float, 2> z{};
  box_muller_inline(w0, w1, z[0], z[1]);
  return z;
}

double CounterRng::uniform(RandomStream stream, std::uint64_t index) const noexcept {
  const auto w = philox4x32_10({static_cast<std::uint32_t>(index), static_cast<std::uint32_t>(stream),
                                static_cast<std::uint32_t>(index >> 32), 0},
                               key_);
  const std::uint64_t bits = ((static_cast<std::uint64_t>(w[1]) << 32) | w[0]) >> 11;
  return static_cast<double>(bits) * 0x1.0p-53;
}

void CounterRng::normals(RandomStream stream, std::uint64_t row, std::size_t n, float* out) const {
  if (use_avx2()) {
    normals_avx2<false>(key_, static_cast<std::uint32_t>(stream), row, n, 1.0F, out);
  } else {
    normals_baseline<false>(key_, static_cast<std::uint32_t>(stream), row, n, 1.0F, out);
  }
}

void CounterRng::add_normals(RandomStream stream, std::uint64_t row, std::size_t n, float scale, float* out) const {
  if (use_avx2()) {
    normals_avx2<true>(key_, static_cast<std::uint32_t>(stream), row, n, scale, out);
  } else {
    normals_baseline<true>(key_, static_cast<std::uint32_t>(stream), row, n, scale, out);
  }
}

void normals_baseline_path(const CounterRng& rng, RandomStream stream, std::uint64_t row, std::size_t n, float* out) {
  normals_baseline<false>(rng.key(), static_cast<std::uint32_t>(stream), row, n, 1.0F, out);
}

const char* CounterRng::code_path() { return use_avx2() ? "avx2" : "baseline"; }

}  // namespace fastpsr::sim
