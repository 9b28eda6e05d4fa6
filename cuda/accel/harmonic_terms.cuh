// SPDX-License-Identifier: MIT
#pragma once
// The terms of the harmonic sums in the order every kernel keeps them: stage s (H = 2^s harmonics)
// adds its odd harmonics h = 1, 3, ..., H - 1 (the even ones are the previous stages' terms), and
// term t = 2^(s-1) - 1 + (h - 1) / 2 numbers them across stages (t = 0: 1/2, 1: 1/4, 2: 3/4, ...).

namespace fastpsr::cuda::accel {

struct SumTerm {
  int stage;     ///< s: the term is h / 2^s
  int harmonic;  ///< h, odd
};

/// The stage and harmonic of term t.
__device__ __forceinline__ SumTerm sum_term(int t) {
  const int s = 32 - __clz(t + 1);
  return {s, 2 * (t + 1 - (1 << (s - 1))) + 1};
}

/// The term number of odd harmonic h of stage s.
__host__ __device__ constexpr int sum_term_index(int s, int h) { return (1 << (s - 1)) - 1 + (h - 1) / 2; }

}  // namespace fastpsr::cuda::accel
