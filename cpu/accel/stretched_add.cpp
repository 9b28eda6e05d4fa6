// SPDX-License-Identifier: MIT
#include "fastpsr/cpu/stretched_add.hpp"

#include "fastpsr/cpu/cpu_features.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace fastpsr::cpu {

void stretched_add_scalar(float* acc, const float* row, const std::int32_t* idx, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) acc[i] += row[idx[i]];
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
  for (; i < n; ++i) acc[i] += row[idx[i]];
}

}  // namespace
#endif

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
