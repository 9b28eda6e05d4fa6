// SPDX-License-Identifier: MIT
#pragma once
// Shared by the harmonic-sum kernels: the block's place in the grid, and hit compaction (each
// warp votes on every row of a stage and appends its hits with one atomic; the counter keeps
// counting past the capacity, so that the host sees an overflow and searches the range again;
// every lane of the warp must take part).
#include "accel/accel_kernels.hpp"

namespace fastpsr::cuda::accel {

/// The block's rk tile and z band of `Rows` rows: consecutive blocks take the z bands of one
/// tile (g.tiles_first false: the windows the bands share come from L2) or the rk tiles of one band
/// (true: the blocks in flight stream along a few rows).
struct TileBand {
  long long tile;
  int band;
};
template <int Rows>
__device__ __forceinline__ TileBand tile_and_band(const HarmonicGeometry& g) {
  const long long tiles = (g.rk_hi - g.rk_lo + blockDim.x - 1) / blockDim.x;
  const unsigned bands = static_cast<unsigned>((g.numz + Rows - 1) / Rows);
  if (g.tiles_first) {
    return {static_cast<long long>(blockIdx.x % static_cast<unsigned long long>(tiles)),
            static_cast<int>(blockIdx.x / static_cast<unsigned long long>(tiles))};
  }
  return {static_cast<long long>(blockIdx.x / bands), static_cast<int>(blockIdx.x % bands)};
}

template <int Rows>
__device__ __forceinline__ void emit_hits(const float (&acc)[Rows], int stage, float cut, long long rk, bool valid,
                                          int zi0, int numz, DeviceHit* __restrict__ hits,
                                          unsigned long long* __restrict__ count, unsigned long long capacity) {
  const unsigned lane = threadIdx.x & 31U;
  bool any = false;
#pragma unroll
  for (int r = 0; r < Rows; ++r) any = any || acc[r] > cut;
  if (__ballot_sync(0xffffffffU, valid && any) == 0) return;  // the common case: one vote a stage
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
    const bool hit = valid && zi0 + r < numz && acc[r] > cut;
    const unsigned mask = __ballot_sync(0xffffffffU, hit);
    if (mask == 0) continue;
    unsigned long long first = 0;
    const int leader = __ffs(static_cast<int>(mask)) - 1;
    if (static_cast<int>(lane) == leader) first = atomicAdd(count, static_cast<unsigned long long>(__popc(mask)));
    first = __shfl_sync(0xffffffffU, first, leader);
    if (hit) {
      const unsigned long long at = first + static_cast<unsigned>(__popc(mask & ((1U << lane) - 1U)));
      if (at < capacity) {
        hits[at] = DeviceHit{static_cast<int>(rk), static_cast<short>(zi0 + r), static_cast<short>(stage), acc[r]};
      }
    }
  }
}

}  // namespace fastpsr::cuda::accel
