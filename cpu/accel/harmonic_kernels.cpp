// SPDX-License-Identifier: MIT
#include "fastpsr/cpu/harmonic_kernels.hpp"

#include "fastpsr/cpu/cpu_features.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fastpsr::cpu {

void stretched_add_scalar(float* acc, const float* row, const std::int32_t* idx, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) acc[i] += row[idx[i]];
}

std::size_t indices_above_scalar(const float* acc, std::size_t n, float cut, std::uint32_t* above) noexcept {
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (acc[i] > cut) above[count++] = static_cast<std::uint32_t>(i);
  }
  return count;
}

#if defined(__x86_64__)
namespace {

// Per 8 outputs: the first index, the other 7 relative to it (0..7, the permutation), one load
// of 8 floats from the first index on, vpermps, one add.
__attribute__((target("avx2"))) void stretched_add_avx2(float* acc, const float* row, const std::int32_t* idx,
                                                        std::size_t n) noexcept {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const std::int32_t base = idx[i];
    const __m256i rel =
        _mm256_sub_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx + i)), _mm256_set1_epi32(base));
    const __m256 v = _mm256_permutevar8x32_ps(_mm256_loadu_ps(row + base), rel);
    _mm256_storeu_ps(acc + i, _mm256_add_ps(_mm256_loadu_ps(acc + i), v));
  }
  stretched_add_scalar(acc + i, row, idx + i, n - i);
}

__attribute__((target("avx2"))) std::size_t indices_above_avx2(const float* acc, std::size_t n, float cut,
                                                               std::uint32_t* above) noexcept {
  const __m256 c = _mm256_set1_ps(cut);
  std::size_t count = 0;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    // Ordered greater-than: false for NaN, as the scalar test.
    auto mask = static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(acc + i), c, _CMP_GT_OQ)));
    while (mask != 0) {
      above[count++] = static_cast<std::uint32_t>(i) + static_cast<std::uint32_t>(__builtin_ctz(mask));
      mask &= mask - 1;
    }
  }
  for (; i < n; ++i) {
    if (acc[i] > cut) above[count++] = static_cast<std::uint32_t>(i);
  }
  return count;
}

}  // namespace
#endif

std::size_t indices_above(const float* acc, std::size_t n, float cut, std::uint32_t* above) noexcept {
#if defined(__x86_64__)
  if (cpu_features().avx2) return indices_above_avx2(acc, n, cut, above);
#endif
  return indices_above_scalar(acc, n, cut, above);
}

void stretched_add(float* acc, const float* row, const std::int32_t* idx, std::size_t n) noexcept {
#if defined(__x86_64__)
  if (cpu_features().avx2) {
    stretched_add_avx2(acc, row, idx, n);
    return;
  }
#endif
  stretched_add_scalar(acc, row, idx, n);
}

}  // namespace fastpsr::cpu
