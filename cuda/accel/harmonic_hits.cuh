// SPDX-License-Identifier: MIT
#pragma once
// Hit compaction shared by the harmonic-sum kernels: each warp votes on every row of a stage and
// appends its hits with one atomic. The counter keeps counting past the capacity, so that the
// host sees an overflow and searches the range again. Every lane of the warp must take part.
#include "accel/accel_kernels.hpp"

namespace fastpsr::cuda::accel {

/// Appends one hit a lane (where `hit`) with one atomic a warp; every lane of the warp takes part.
__device__ __forceinline__ void emit_one(bool hit, float power, long long rk, int zi, int stage,
                                         DeviceHit* __restrict__ hits, unsigned long long* __restrict__ count,
                                         unsigned long long capacity) {
  const unsigned lane = threadIdx.x & 31U;
  const unsigned mask = __ballot_sync(0xffffffffU, hit);
  if (mask == 0) return;
  unsigned long long first = 0;
  const int leader = __ffs(static_cast<int>(mask)) - 1;
  if (static_cast<int>(lane) == leader) first = atomicAdd(count, static_cast<unsigned long long>(__popc(mask)));
  first = __shfl_sync(0xffffffffU, first, leader);
  if (hit) {
    const unsigned long long at = first + static_cast<unsigned>(__popc(mask & ((1U << lane) - 1U)));
    if (at < capacity) {
      hits[at] = DeviceHit{static_cast<int>(rk), static_cast<short>(zi), static_cast<short>(stage), power};
    }
  }
}

/// Whether any valid lane of the warp has a value above `cut` in any row (every lane takes part).
template <int Rows>
__device__ __forceinline__ bool warp_any_over(const float (&acc)[Rows], float cut, bool valid) {
  bool any = false;
#pragma unroll
  for (int r = 0; r < Rows; ++r) any = any || acc[r] > cut;
  return __ballot_sync(0xffffffffU, valid && any) != 0;
}

template <int Rows>
__device__ __forceinline__ void emit_hits(const float (&acc)[Rows], int stage, float cut, long long rk, bool valid,
                                          int zi0, int numz, DeviceHit* __restrict__ hits,
                                          unsigned long long* __restrict__ count, unsigned long long capacity) {
  if (!warp_any_over(acc, cut, valid)) return;  // the common case: one vote a stage
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
    emit_one(valid && zi0 + r < numz && acc[r] > cut, acc[r], rk, zi0 + r, stage, hits, count, capacity);
  }
}

}  // namespace fastpsr::cuda::accel
