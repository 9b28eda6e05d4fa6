// SPDX-License-Identifier: MIT
// The element-wise kernels around the FFTs: gathering overlap-save segments, expanding the power
// scale to plane columns, scaling the templates, and the cuFFT path's template products and
// powers (which the custom path fuses into its one kernel), plus reading the plane back as
// float for the tests.
#include <cuda_fp16.h>

#include <algorithm>

#include "accel/accel_kernels.hpp"
#include "accel/plane_io.cuh"

namespace fastpsr::cuda::accel {
namespace {

constexpr int kThreads = 256;

// Grids: one block row per (transform, segment, ...) item, its threads looping over the item's
// points, so that no thread divides 64-bit indices per element. gridDim.x carries the items (up
// to 2^31 - 1), gridDim.y the spectra of a batch where there are several.

__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ float norm2(float2 a) { return a.x * a.x + a.y * a.y; }

// Block (s, b): segment s of spectrum b.
__global__ void gather_segments_kernel(const float2* __restrict__ spectra, float2* __restrict__ segments,
                                       CorrelateGeometry g) {
  const long long s = blockIdx.x;
  const long long b = blockIdx.y;
  const float2* x = spectra + b * g.spectrum_stride;
  float2* out = segments + b * g.segment_stride() + s * g.fft_points;
  const long long first = g.first_bin + s * g.use;
  for (int k = static_cast<int>(threadIdx.x); k < g.fft_points; k += blockDim.x) {
    const long long bin = first + k;
    out[k] = bin >= 0 && bin < g.numbins ? __ldg(x + bin) : make_float2(0.0F, 0.0F);
  }
}

// Block (c, b): columns [c * chunk, (c + 1) * chunk) of spectrum b.
__global__ void expand_power_scale_kernel(const long long* __restrict__ offsets, const long long* __restrict__ starts,
                                          const float* __restrict__ factors, long long plane_base, long long plane_cols,
                                          int chunk, float* __restrict__ out) {
  const long long b = blockIdx.y;
  const long long first = offsets[b];
  const long long last = offsets[b + 1];
  const long long col0 = static_cast<long long>(blockIdx.x) * chunk;
  for (int i = static_cast<int>(threadIdx.x); i < chunk && col0 + i < plane_cols; i += blockDim.x) {
    const long long rk = plane_base + col0 + i;
    float f = 1.0F;
    if (last > first) {
      // The last start <= rk; rk before the first start takes the first factor (AccelPowerScale::at).
      long long lo = first;
      long long hi = last;
      while (hi - lo > 1) {
        const long long mid = lo + (hi - lo) / 2;
        if (starts[mid] <= rk) {
          lo = mid;
        } else {
          hi = mid;
        }
      }
      f = factors[starts[lo] <= rk ? lo : first];
    }
    out[b * plane_cols + col0 + i] = f;
  }
}

__global__ void scale_complex_kernel(float2* data, long long count, float scale) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float2 v = data[i];
    data[i] = make_float2(v.x * scale, v.y * scale);
  }
}

// Row order of the cuFFT path: 0 is z = 0; 2p-1 is +2p and 2p is -2p (p >= 1).
__device__ __forceinline__ int pair_of_row(int row) { return (row + 1) / 2; }
__device__ __forceinline__ bool minus_row(int row) { return row > 0 && row % 2 == 0; }

// Block t = (local row * phases + phase) * nseg + s: one transform of the products.
__global__ void multiply_templates_kernel(const float2* __restrict__ segments, const float2* __restrict__ templates,
                                          float2* __restrict__ products, CorrelateGeometry g, int row_begin) {
  const long long t = blockIdx.x;
  const long long s = t % g.nseg;
  const long long rp = t / g.nseg;
  const int phase = static_cast<int>(rp % g.phases);
  const int row = row_begin + static_cast<int>(rp / g.phases);
  const int m = g.fft_points;
  const float2* seg = segments + s * m;
  const float2* k_row = templates + (static_cast<long long>(pair_of_row(row)) * g.phases + phase) * m;
  float2* out = products + t * m;
  const bool minus = minus_row(row);
  for (int k = static_cast<int>(threadIdx.x); k < m; k += blockDim.x) {
    float2 x;
    if (minus) {  // the -z row correlates conj(S[-k]) with the z template
      x = __ldg(seg + ((m - k) & (m - 1)));
      x.y = -x.y;
    } else {
      x = __ldg(seg + k);
    }
    out[k] = cmul(x, __ldg(k_row + k));
  }
}

// Block (local row, segment): the good outputs of that row's transforms.
template <typename P>
__global__ void products_to_plane_kernel(const float2* __restrict__ products, const float* __restrict__ scale,
                                         P* __restrict__ plane, CorrelateGeometry g, int row_begin) {
  const long long item = blockIdx.x;
  const long long s = item % g.nseg;
  const int local_row = static_cast<int>(item / g.nseg);
  const int row = row_begin + local_row;
  const int zi = g.center_row + (minus_row(row) ? -pair_of_row(row) : pair_of_row(row));
  const long long transform = g.nseg * g.fft_points;  // one (row, phase)
  const float2* c = products + static_cast<long long>(local_row) * g.phases * transform + s * g.fft_points;
  P* out = plane + static_cast<long long>(zi) * g.plane_cols + 2 * s * g.use;
  const float* f = scale + 2 * s * g.use;
  for (int jj = static_cast<int>(threadIdx.x); jj < g.use; jj += blockDim.x) {
    const float2 fc = __ldg(reinterpret_cast<const float2*>(f + 2 * jj));
    if (g.phases == 2) {
      PlaneIo<P>::store2(out + 2 * jj, fc.x * norm2(c[jj]), fc.y * norm2(c[transform + jj]));
    } else {
      constexpr float quarter_pi = 0.785398163397448F;
      const float2 d = make_float2(quarter_pi * (c[jj].x - c[jj + 1].x), quarter_pi * (c[jj].y - c[jj + 1].y));
      PlaneIo<P>::store2(out + 2 * jj, fc.x * norm2(c[jj]), fc.y * norm2(d));
    }
  }
}

// Block (zi, chunk of columns).
template <typename P>
__global__ void plane_to_float_kernel(const P* __restrict__ plane, long long plane_cols, long long col0,
                                      long long width, int chunk, float* __restrict__ out) {
  const long long zi = blockIdx.y;
  const long long i0 = static_cast<long long>(blockIdx.x) * chunk;
  for (int i = static_cast<int>(threadIdx.x); i < chunk && i0 + i < width; i += blockDim.x) {
    out[zi * width + i0 + i] = PlaneIo<P>::load(plane + zi * plane_cols + col0 + i0 + i);
  }
}

constexpr int kChunk = 4096;  // columns per block of the column-wise kernels

unsigned chunks(long long n) { return static_cast<unsigned>((n + kChunk - 1) / kChunk); }

}  // namespace

cudaError_t launch_gather_segments(const void* spectra, void* segments, const CorrelateGeometry& g, int batch,
                                   cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(g.nseg), static_cast<unsigned>(batch));
  gather_segments_kernel<<<grid, kThreads, 0, stream>>>(static_cast<const float2*>(spectra),
                                                        static_cast<float2*>(segments), g);
  return cudaGetLastError();
}

cudaError_t launch_expand_power_scale(const long long* offsets, const long long* starts, const float* factors,
                                      long long plane_base, long long plane_cols, int batch, float* out,
                                      cudaStream_t stream) {
  const dim3 grid(chunks(plane_cols), static_cast<unsigned>(batch));
  expand_power_scale_kernel<<<grid, kThreads, 0, stream>>>(offsets, starts, factors, plane_base, plane_cols, kChunk,
                                                           out);
  return cudaGetLastError();
}

cudaError_t launch_scale_complex(void* data, long long count, float scale, cudaStream_t stream) {
  const long long blocks = std::min<long long>((count + kThreads - 1) / kThreads, 1LL << 20);
  scale_complex_kernel<<<static_cast<unsigned>(std::max<long long>(blocks, 1)), kThreads, 0, stream>>>(
      static_cast<float2*>(data), count, scale);
  return cudaGetLastError();
}

cudaError_t launch_multiply_templates(const void* segment_ffts, const void* templates, void* products,
                                      const CorrelateGeometry& g, int row_begin, int rows, cudaStream_t stream) {
  const long long transforms = static_cast<long long>(rows) * g.phases * g.nseg;
  multiply_templates_kernel<<<static_cast<unsigned>(transforms), kThreads, 0, stream>>>(
      static_cast<const float2*>(segment_ffts), static_cast<const float2*>(templates), static_cast<float2*>(products),
      g, row_begin);
  return cudaGetLastError();
}

cudaError_t launch_products_to_plane(const void* products, const float* scale, void* plane, PlaneFormat format,
                                     const CorrelateGeometry& g, int row_begin, int rows, cudaStream_t stream) {
  const auto items = static_cast<unsigned>(static_cast<long long>(rows) * g.nseg);
  const auto* c = static_cast<const float2*>(products);
  if (format == PlaneFormat::f16) {
    products_to_plane_kernel<<<items, kThreads, 0, stream>>>(c, scale, static_cast<__half*>(plane), g, row_begin);
  } else {
    products_to_plane_kernel<<<items, kThreads, 0, stream>>>(c, scale, static_cast<float*>(plane), g, row_begin);
  }
  return cudaGetLastError();
}

cudaError_t launch_plane_to_float(const void* plane, PlaneFormat format, long long plane_cols, int numz, long long col0,
                                  long long width, float* out, cudaStream_t stream) {
  const dim3 grid(chunks(width), static_cast<unsigned>(numz));
  if (format == PlaneFormat::f16) {
    plane_to_float_kernel<<<grid, kThreads, 0, stream>>>(static_cast<const __half*>(plane), plane_cols, col0, width,
                                                         kChunk, out);
  } else {
    plane_to_float_kernel<<<grid, kThreads, 0, stream>>>(static_cast<const float*>(plane), plane_cols, col0, width,
                                                         kChunk, out);
  }
  return cudaGetLastError();
}

}  // namespace fastpsr::cuda::accel
