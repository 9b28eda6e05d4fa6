// SPDX-License-Identifier: MIT
// Harmonic sums, thresholds and hit compaction in one pass over the plane (accel.hpp's
// definition, summed in the CPU backend's order). A thread owns one rk of the highest harmonic
// and `Rows` consecutive z rows of it; the sub-harmonic z row of a term is the same for the whole
// block, so a value shared by neighbouring rows (sub_z repeats for h/H < 1) is loaded once. Blocks
// take the z bands of one rk tile one after the other, so that the sub-harmonic windows the
// bands share are read from L2 (hs=gather; harmonic_sum_tiled.cu stages them in shared memory).
#include <cuda_fp16.h>

#include "accel/accel_kernels.hpp"
#include "accel/harmonic_hits.cuh"
#include "accel/plane_io.cuh"

namespace fastpsr::cuda::accel {
namespace {

// Up to 1024 threads a block (hs_threads): at most 64 registers a thread.
template <int Rows, typename P>
__global__ void __launch_bounds__(1024)
    harmonic_sum_kernel(const P* __restrict__ plane, const int* __restrict__ sub_zi, HarmonicGeometry g,
                        DeviceHit* __restrict__ hits, unsigned long long* __restrict__ counts,
                        unsigned long long capacity) {
  const int bands = (g.numz + Rows - 1) / Rows;
  const int band = static_cast<int>(blockIdx.x % static_cast<unsigned>(bands));
  const long long tile = blockIdx.x / static_cast<unsigned>(bands);
  const long long b = blockIdx.y;
  const long long rk_thread = g.rk_lo + tile * blockDim.x + threadIdx.x;
  const bool valid = rk_thread < g.rk_hi;
  const long long rk = valid ? rk_thread : g.rk_lo;  // idle threads still take part in the warp votes
  const P* pl = plane + b * g.plane_stride;
  const P* own = pl + g.view[0].origin + (rk - g.plane_base);
  DeviceHit* my_hits = hits + b * static_cast<long long>(capacity);
  unsigned long long* my_count = counts + b;
  const int zi0 = band * Rows;
  int zi[Rows];
  float acc[Rows];
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
    zi[r] = min(zi0 + r, g.numz - 1);
    acc[r] = PlaneIo<P>::load(own + zi[r] * g.view[0].pitch);
  }
  emit_hits(acc, 0, g.powcut[0], rk, valid, zi0, g.numz, my_hits, my_count, capacity);
  int term = 0;
  for (int s = 1; s < g.stages; ++s) {
    const int H = 1 << s;
    // Stage s adds the odd harmonics h/H; the even ones were added as (h/2)/(H/2) before.
    for (int h = 1; h < H; h += 2, ++term) {
      const long long srk = (rk * h + (H >> 1)) >> s;  // floor(rk h / H + 1/2)
      const TermView view = g.view[term + 1];
      const P* column = pl + view.origin + (srk - g.plane_base);
      const int* rows_of_term = sub_zi + term * g.numz;
      int previous = -1;
      float value = 0.0F;
#pragma unroll
      for (int r = 0; r < Rows; ++r) {
        const int row = __ldg(rows_of_term + zi[r]);  // the same in every thread of the block
        if (row != previous) {
          value = PlaneIo<P>::load(column + row * view.pitch);
          previous = row;
        }
        acc[r] += value;
      }
    }
    emit_hits(acc, s, g.powcut[s], rk, valid, zi0, g.numz, my_hits, my_count, capacity);
  }
}

template <typename P>
cudaError_t launch_typed(const P* plane, const int* sub_zi, const HarmonicGeometry& g, DeviceHit* hits,
                         unsigned long long* counts, unsigned long long capacity, int threads, int rows, int batch,
                         cudaStream_t stream) {
  const long long tiles = (g.rk_hi - g.rk_lo + threads - 1) / threads;
  auto grid = [&](int r) {
    return dim3(static_cast<unsigned>(tiles * ((g.numz + r - 1) / r)), static_cast<unsigned>(batch));
  };
  switch (rows) {
    case 1:
      harmonic_sum_kernel<1><<<grid(1), threads, 0, stream>>>(plane, sub_zi, g, hits, counts, capacity);
      break;
    case 2:
      harmonic_sum_kernel<2><<<grid(2), threads, 0, stream>>>(plane, sub_zi, g, hits, counts, capacity);
      break;
    case 4:
      harmonic_sum_kernel<4><<<grid(4), threads, 0, stream>>>(plane, sub_zi, g, hits, counts, capacity);
      break;
    case 8:
      harmonic_sum_kernel<8><<<grid(8), threads, 0, stream>>>(plane, sub_zi, g, hits, counts, capacity);
      break;
    case 16:
      harmonic_sum_kernel<16><<<grid(16), threads, 0, stream>>>(plane, sub_zi, g, hits, counts, capacity);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_harmonic_sums(const void* plane, PlaneFormat format, const int* sub_zi, const HarmonicGeometry& g,
                                 DeviceHit* hits, unsigned long long* counts, unsigned long long capacity, int threads,
                                 int rows, int batch, cudaStream_t stream) {
  if (format == PlaneFormat::f16) {
    return launch_typed(static_cast<const __half*>(plane), sub_zi, g, hits, counts, capacity, threads, rows, batch,
                        stream);
  }
  return launch_typed(static_cast<const float*>(plane), sub_zi, g, hits, counts, capacity, threads, rows, batch,
                      stream);
}

}  // namespace fastpsr::cuda::accel
