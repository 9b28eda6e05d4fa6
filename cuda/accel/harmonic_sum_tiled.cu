// SPDX-License-Identifier: MIT
// Harmonic sums with the sub-harmonic windows staged in shared memory (hs=tiled). A block owns a
// tile of `threads` rk (one a thread) times `Rows` z rows of the highest harmonic. The term h/H of
// the tile reads the plane only inside the window of columns [sub_rk(r_first), sub_rk(r_last)]
// and rows [sub_zi(z_first), sub_zi(z_last)] (both maps are monotonic): at most
// floor((threads - 1) h/H) + 2 columns (the window's pitch) by the term's widest band of rows.
// The block first copies the windows of all terms into shared memory (a fixed layout the host
// computes, TiledLayout), with asynchronous copies (f32) that are all in flight at once, then
// every point reads its terms from there: each plane value a tile needs crosses from L2 once, and
// a block waits for memory once instead of once per term. The sums run in the CPU backend's order
// (stage by stage, odd h ascending), so hits are bit-identical to hs=gather. Block order as in
// harmonic_sum.cu: the z bands of one rk tile are neighbours, so the windows they share come
// from L2.
#include <cuda_fp16.h>
#include <cuda_pipeline_primitives.h>

#include <algorithm>

#include "accel/accel_kernels.hpp"
#include "accel/harmonic_hits.cuh"
#include "accel/harmonic_terms.cuh"
#include "accel/plane_io.cuh"

namespace fastpsr::cuda::accel {
namespace {

// Plane values as the windows keep them: f32 copied asynchronously, f16 through registers (the
// asynchronous copy moves 4 bytes at least) and kept as half.
template <typename P>
struct WindowIo;

template <>
struct WindowIo<float> {
  static __device__ __forceinline__ void copy(float* shared, const float* global) {
    __pipeline_memcpy_async(shared, global, sizeof(float));
  }
  static __device__ __forceinline__ float value(float v) { return v; }
};

template <>
struct WindowIo<__half> {
  static __device__ __forceinline__ void copy(__half* shared, const __half* global) { *shared = __ldg(global); }
  static __device__ __forceinline__ float value(__half v) { return __half2float(v) * 256.0F; }
};

template <int Rows, typename P>
__global__ void harmonic_sum_tiled_kernel(const P* __restrict__ plane, const int* __restrict__ sub_zi,
                                          HarmonicGeometry g, TiledLayout layout, DeviceHit* __restrict__ hits,
                                          unsigned long long* __restrict__ counts, unsigned long long capacity) {
  extern __shared__ __align__(16) unsigned char window_bytes[];
  P* window = reinterpret_cast<P*>(window_bytes);
  __shared__ long long term_c0[kTiledMaxTerms];
  __shared__ int term_width[kTiledMaxTerms];
  __shared__ int term_row0[kTiledMaxTerms];
  __shared__ int term_rows[kTiledMaxTerms];
  __shared__ int term_pitch[kTiledMaxTerms];
  __shared__ int row_offset[kTiledMaxTerms][Rows];

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
  const int terms = (1 << (g.stages - 1)) - 1;

  // The windows: term t is odd h of stage s (harmonic_terms.cuh).
  for (int t = tid; t < terms; t += threads) {
    const auto [s, h] = sum_term(t);
    const int H = 1 << s;
    const int* rows_of_term = sub_zi + t * g.numz;
    const long long c0 = (r_first * h + (H >> 1)) >> s;
    const int width = static_cast<int>(((r_last * h + (H >> 1)) >> s) - c0 + 1);
    const int row0 = __ldg(rows_of_term + z_first);
    const int rows = __ldg(rows_of_term + z_last) - row0 + 1;
    const int pitch = static_cast<int>((static_cast<long long>(threads - 1) * h) >> s) + 2;
    if (width > pitch || rows * pitch > layout.offset[t + 1] - layout.offset[t]) __trap();  // host layout wrong
    term_c0[t] = c0;
    term_width[t] = width;
    term_row0[t] = row0;
    term_rows[t] = rows;
    term_pitch[t] = pitch;
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
      row_offset[t][r] = layout.offset[t] + (__ldg(rows_of_term + min(z_first + r, z_last)) - row0) * pitch;
    }
  }
  __syncthreads();
  for (int t = 0; t < terms; ++t) {
    if (tid < term_width[t]) {
      const TermView view = g.view[t + 1];
      const P* source = pl + view.origin + term_row0[t] * view.pitch + (term_c0[t] - g.plane_base) + tid;
      P* target = window + layout.offset[t] + tid;
      const int pitch = term_pitch[t];
      for (int j = 0; j < term_rows[t]; ++j) WindowIo<P>::copy(target + j * pitch, source + j * view.pitch);
    }
  }
  __pipeline_commit();

  // Meanwhile the highest harmonic's own powers.
  DeviceHit* my_hits = hits + blockIdx.y * capacity;
  unsigned long long* my_count = counts + blockIdx.y;
  float acc[Rows];
#pragma unroll
  for (int r = 0; r < Rows; ++r) {
    acc[r] = PlaneIo<P>::load(pl + g.view[0].origin + min(z_first + r, z_last) * g.view[0].pitch + (rk - g.plane_base));
  }
  emit_hits(acc, 0, g.powcut[0], rk, valid, z_first, g.numz, my_hits, my_count, capacity);
  __pipeline_wait_prior(0);
  __syncthreads();

  int t = 0;
  for (int s = 1; s < g.stages; ++s) {
    const int H = 1 << s;
    for (int h = 1; h < H; h += 2, ++t) {
      const int column = static_cast<int>(((rk * h + (H >> 1)) >> s) - term_c0[t]);
#pragma unroll
      for (int r = 0; r < Rows; ++r) acc[r] += WindowIo<P>::value(window[row_offset[t][r] + column]);
    }
    emit_hits(acc, s, g.powcut[s], rk, valid, z_first, g.numz, my_hits, my_count, capacity);
  }
}

template <typename P, int Rows>
cudaError_t launch_rows(const P* plane, const int* sub_zi, const HarmonicGeometry& g, const TiledLayout& layout,
                        DeviceHit* hits, unsigned long long* counts, unsigned long long capacity, int threads,
                        int batch, cudaStream_t stream) {
  const auto kernel = harmonic_sum_tiled_kernel<Rows, P>;
  const std::size_t smem = static_cast<std::size_t>(layout.offset[(1 << (g.stages - 1)) - 1]) * sizeof(P);
  cudaError_t status =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (status != cudaSuccess) return status;
  const long long tiles = (g.rk_hi - g.rk_lo + threads - 1) / threads;
  const dim3 grid(static_cast<unsigned>(tiles * ((g.numz + Rows - 1) / Rows)), static_cast<unsigned>(batch));
  kernel<<<grid, threads, smem, stream>>>(plane, sub_zi, g, layout, hits, counts, capacity);
  return cudaGetLastError();
}

template <typename P>
cudaError_t launch_typed(const P* plane, const int* sub_zi, const HarmonicGeometry& g, const TiledLayout& layout,
                         DeviceHit* hits, unsigned long long* counts, unsigned long long capacity, int threads,
                         int rows, int batch, cudaStream_t stream) {
  switch (rows) {
    case 1:
      return launch_rows<P, 1>(plane, sub_zi, g, layout, hits, counts, capacity, threads, batch, stream);
    case 2:
      return launch_rows<P, 2>(plane, sub_zi, g, layout, hits, counts, capacity, threads, batch, stream);
    case 4:
      return launch_rows<P, 4>(plane, sub_zi, g, layout, hits, counts, capacity, threads, batch, stream);
    case 8:
      return launch_rows<P, 8>(plane, sub_zi, g, layout, hits, counts, capacity, threads, batch, stream);
    case 16:
      return launch_rows<P, 16>(plane, sub_zi, g, layout, hits, counts, capacity, threads, batch, stream);
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
                                       const HarmonicGeometry& g, const TiledLayout& layout, DeviceHit* hits,
                                       unsigned long long* counts, unsigned long long capacity, int threads, int rows,
                                       int batch, cudaStream_t stream) {
  if (g.stages < 1 || g.stages > 6 || threads < 32) return cudaErrorInvalidValue;
  if (format == PlaneFormat::f16) {
    return launch_typed(static_cast<const __half*>(plane), sub_zi, g, layout, hits, counts, capacity, threads, rows,
                        batch, stream);
  }
  return launch_typed(static_cast<const float*>(plane), sub_zi, g, layout, hits, counts, capacity, threads, rows, batch,
                      stream);
}

}  // namespace fastpsr::cuda::accel
