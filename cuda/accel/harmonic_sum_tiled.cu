// SPDX-License-Identifier: MIT
// Harmonic sums with the sub-harmonic windows staged in shared memory (hs=tiled). A block owns a
// tile of `threads` rk (one a thread) times `Rows` z rows of the highest harmonic. For stage s the
// term h/H of the tile reads the plane only inside the window of columns
// [sub_rk(r_first), sub_rk(r_last)] and rows [sub_zi(z_first), sub_zi(z_last)] (both maps are
// monotonic), at most floor((threads - 1) h/H) + 2 columns (<= threads) by about Rows h/H + 2 rows.
// The block copies all windows of the stage into shared memory with coalesced row loads, many in
// flight per thread, and every point then reads its terms from there: each plane value a tile
// needs crosses from L2 once instead of once per point that uses it, and the gather's dependent
// index loads become per-block tables. The sums run in the CPU backend's order (stage by stage,
// odd h ascending), so hits are bit-identical to hs=gather. Block order as in harmonic_sum.cu:
// the z bands of one rk tile are neighbours, so the windows they share come from L2.
#include <cuda_fp16.h>

#include <algorithm>

#include "accel/accel_kernels.hpp"
#include "accel/harmonic_hits.cuh"
#include "accel/plane_io.cuh"

namespace fastpsr::cuda::accel {
namespace {

constexpr int kMaxTerms = 16;   // odd h of the last stage of 32 harmonics
constexpr int kLoadDepth = 16;  // window rows each thread has in flight

// One window row: where it starts in the plane (values from the spectrum's plane start), where in
// shared memory, and how many columns.
struct __align__(16) WindowRow {
  long long source;
  int target;
  int width;
};

template <int Rows, typename P>
__global__ void harmonic_sum_tiled_kernel(const P* __restrict__ plane, const int* __restrict__ sub_zi,
                                          HarmonicGeometry g, int window_floats, DeviceHit* __restrict__ hits,
                                          unsigned long long* __restrict__ counts, unsigned long long capacity) {
  extern __shared__ float window[];
  __shared__ long long term_c0[kMaxTerms];
  __shared__ int term_width[kMaxTerms];
  __shared__ int term_row0[kMaxTerms];
  __shared__ int term_rows[kMaxTerms];
  __shared__ int term_offset[kMaxTerms + 1];
  __shared__ int term_first_row[kMaxTerms + 1];
  __shared__ int row_offset[kMaxTerms][Rows];
  __shared__ WindowRow rows[kTiledMaxWindowRows];

  const int threads = static_cast<int>(blockDim.x);
  const int tid = static_cast<int>(threadIdx.x);
  const int bands = (g.numz + Rows - 1) / Rows;
  const int band = static_cast<int>(blockIdx.x % static_cast<unsigned>(bands));
  const long long tile = blockIdx.x / static_cast<unsigned>(bands);
  const long long r_first = g.rk_lo + tile * threads;
  const long long r_last = min(r_first + threads, g.rk_hi) - 1;
  const bool valid = r_first + tid <= r_last;
  const long long rk = valid ? r_first + tid : r_last;  // idle threads still take part in the votes
  const int z_first = band * Rows;
  const int z_last = min(z_first + Rows, g.numz) - 1;
  const P* pl = plane + blockIdx.y * g.plane_stride;
  DeviceHit* my_hits = hits + blockIdx.y * capacity;
  unsigned long long* my_count = counts + blockIdx.y;

  float acc[Rows];
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
    acc[r] = PlaneIo<P>::load(pl + min(z_first + r, z_last) * g.plane_cols + (rk - g.plane_base));
  }
  emit_hits(acc, 0, g.powcut[0], rk, valid, z_first, g.numz, my_hits, my_count, capacity);

  int term_base = 0;
  for (int s = 1; s < g.stages; ++s) {
    const int H = 1 << s;
    const int terms = H >> 1;
    // The stage's windows: one per odd h.
    if (tid < terms) {
      const int h = 2 * tid + 1;
      const int* rows_of_term = sub_zi + (term_base + tid) * g.numz;
      const long long c0 = (r_first * h + (H >> 1)) >> s;
      term_c0[tid] = c0;
      term_width[tid] = static_cast<int>(((r_last * h + (H >> 1)) >> s) - c0 + 1);
      term_row0[tid] = __ldg(rows_of_term + z_first);
      term_rows[tid] = __ldg(rows_of_term + z_last) - __ldg(rows_of_term + z_first) + 1;
    }
    __syncthreads();
    if (tid == 0) {
      int offset = 0;
      int first_row = 0;
      for (int t = 0; t < terms; ++t) {
        term_offset[t] = offset;
        term_first_row[t] = first_row;
        offset += term_width[t] * term_rows[t];
        first_row += term_rows[t];
      }
      term_offset[terms] = offset;
      term_first_row[terms] = first_row;
      if (offset > window_floats || first_row > kTiledMaxWindowRows) __trap();  // the host's bounds are wrong
    }
    __syncthreads();
    for (int i = tid; i < terms * Rows; i += threads) {
      const int t = i / Rows;
      const int r = i % Rows;
      const int row = __ldg(sub_zi + (term_base + t) * g.numz + min(z_first + r, z_last));
      row_offset[t][r] = term_offset[t] + (row - term_row0[t]) * term_width[t];
    }
    const int window_rows = term_first_row[terms];
    for (int i = tid; i < window_rows; i += threads) {
      int t = 0;
      while (term_first_row[t + 1] <= i) ++t;
      const int row = i - term_first_row[t];
      rows[i] = WindowRow{static_cast<long long>(term_row0[t] + row) * g.plane_cols + (term_c0[t] - g.plane_base),
                          term_offset[t] + row * term_width[t], term_width[t]};
    }
    __syncthreads();
    // Copy the windows: kLoadDepth rows in flight per thread, then their stores.
    for (int i0 = 0; i0 < window_rows; i0 += kLoadDepth) {
      float value[kLoadDepth];
#pragma unroll
      for (int k = 0; k < kLoadDepth; ++k) {
        value[k] = 0.0F;
        if (i0 + k < window_rows) {
          const WindowRow w = rows[i0 + k];
          if (tid < w.width) value[k] = PlaneIo<P>::load(pl + w.source + tid);
        }
      }
#pragma unroll
      for (int k = 0; k < kLoadDepth; ++k) {
        if (i0 + k < window_rows) {
          const WindowRow w = rows[i0 + k];
          if (tid < w.width) window[w.target + tid] = value[k];
        }
      }
    }
    __syncthreads();
    for (int t = 0; t < terms; ++t) {
      const int h = 2 * t + 1;
      const int column = static_cast<int>(((rk * h + (H >> 1)) >> s) - term_c0[t]);
#pragma unroll
      for (int r = 0; r < Rows; ++r) acc[r] += window[row_offset[t][r] + column];
    }
    emit_hits(acc, s, g.powcut[s], rk, valid, z_first, g.numz, my_hits, my_count, capacity);
    term_base += terms;
    __syncthreads();  // the next stage rewrites the tables and windows
  }
}

template <typename P, int Rows>
cudaError_t launch_rows(const P* plane, const int* sub_zi, const HarmonicGeometry& g, int window_floats,
                        DeviceHit* hits, unsigned long long* counts, unsigned long long capacity, int threads,
                        int batch, cudaStream_t stream) {
  const auto kernel = harmonic_sum_tiled_kernel<Rows, P>;
  const std::size_t smem = static_cast<std::size_t>(window_floats) * sizeof(float);
  cudaError_t status =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (status != cudaSuccess) return status;
  const long long tiles = (g.rk_hi - g.rk_lo + threads - 1) / threads;
  const dim3 grid(static_cast<unsigned>(tiles * ((g.numz + Rows - 1) / Rows)), static_cast<unsigned>(batch));
  kernel<<<grid, threads, smem, stream>>>(plane, sub_zi, g, window_floats, hits, counts, capacity);
  return cudaGetLastError();
}

template <typename P>
cudaError_t launch_typed(const P* plane, const int* sub_zi, const HarmonicGeometry& g, int window_floats,
                         DeviceHit* hits, unsigned long long* counts, unsigned long long capacity, int threads,
                         int rows, int batch, cudaStream_t stream) {
  switch (rows) {
    case 1:
      return launch_rows<P, 1>(plane, sub_zi, g, window_floats, hits, counts, capacity, threads, batch, stream);
    case 2:
      return launch_rows<P, 2>(plane, sub_zi, g, window_floats, hits, counts, capacity, threads, batch, stream);
    case 4:
      return launch_rows<P, 4>(plane, sub_zi, g, window_floats, hits, counts, capacity, threads, batch, stream);
    case 8:
      return launch_rows<P, 8>(plane, sub_zi, g, window_floats, hits, counts, capacity, threads, batch, stream);
    case 16:
      return launch_rows<P, 16>(plane, sub_zi, g, window_floats, hits, counts, capacity, threads, batch, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

// The stricter of the two plane formats' instances.
template <int Rows>
TiledKernelLimits limits_of() {
  cudaFuncAttributes f32{};
  cudaFuncAttributes f16{};
  if (cudaFuncGetAttributes(&f32, harmonic_sum_tiled_kernel<Rows, float>) != cudaSuccess ||
      cudaFuncGetAttributes(&f16, harmonic_sum_tiled_kernel<Rows, __half>) != cudaSuccess) {
    return {};
  }
  return {std::max(f32.sharedSizeBytes, f16.sharedSizeBytes), std::min(f32.maxThreadsPerBlock, f16.maxThreadsPerBlock)};
}

}  // namespace

TiledKernelLimits harmonic_sums_tiled_limits(int rows) {
  switch (rows) {
    case 1:
      return limits_of<1>();
    case 2:
      return limits_of<2>();
    case 4:
      return limits_of<4>();
    case 8:
      return limits_of<8>();
    case 16:
      return limits_of<16>();
    default:
      return {};
  }
}

cudaError_t launch_harmonic_sums_tiled(const void* plane, PlaneFormat format, const int* sub_zi,
                                       const HarmonicGeometry& g, int window_floats, DeviceHit* hits,
                                       unsigned long long* counts, unsigned long long capacity, int threads, int rows,
                                       int batch, cudaStream_t stream) {
  if (g.stages > 6 || threads < 32) return cudaErrorInvalidValue;
  if (format == PlaneFormat::f16) {
    return launch_typed(static_cast<const __half*>(plane), sub_zi, g, window_floats, hits, counts, capacity, threads,
                        rows, batch, stream);
  }
  return launch_typed(static_cast<const float*>(plane), sub_zi, g, window_floats, hits, counts, capacity, threads, rows,
                      batch, stream);
}

}  // namespace fastpsr::cuda::accel
