// SPDX-License-Identifier: MIT
// The element-wise kernels around the FFTs: gathering overlap-save segments, expanding the power
// scale to plane columns, scaling the templates, and the cuFFT path's template products and
// powers (which the custom path fuses into its one kernel), plus reading the plane back as
// float for the tests.
#include <cuda_fp16.h>

#include "accel/accel_kernels.hpp"
#include "accel/plane_io.cuh"

namespace fastpsr::cuda::accel {
namespace {

constexpr int kThreads = 256;

// Enough blocks to fill any current GPU; the kernels loop over the rest (grid-stride).
unsigned blocks_for(long long total) {
  const long long blocks = (total + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < (1LL << 20) ? (blocks > 0 ? blocks : 1) : (1LL << 20));
}

__device__ __forceinline__ long long first_index() {
  return static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ long long index_stride() { return static_cast<long long>(gridDim.x) * blockDim.x; }

__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__device__ __forceinline__ float norm2(float2 a) { return a.x * a.x + a.y * a.y; }

__global__ void gather_segments_kernel(const float2* __restrict__ spectra, float2* __restrict__ segments,
                                       CorrelateGeometry g, long long total) {
  const long long per_spectrum = g.segment_stride();
  for (long long i = first_index(); i < total; i += index_stride()) {
    const long long b = i / per_spectrum;
    const long long r = i - b * per_spectrum;
    const long long s = r / g.fft_points;
    const long long bin = g.first_bin + s * g.use + (r - s * g.fft_points);
    float2 v = make_float2(0.0F, 0.0F);
    if (bin >= 0 && bin < g.numbins) v = __ldg(spectra + b * g.spectrum_stride + bin);
    segments[i] = v;
  }
}

__global__ void expand_power_scale_kernel(const long long* __restrict__ offsets, const long long* __restrict__ starts,
                                          const float* __restrict__ factors, long long plane_base, long long plane_cols,
                                          float* __restrict__ out, long long total) {
  for (long long i = first_index(); i < total; i += index_stride()) {
    const long long b = i / plane_cols;
    const long long rk = plane_base + (i - b * plane_cols);
    const long long first = offsets[b];
    long long lo = first;
    long long hi = offsets[b + 1];
    float f = 1.0F;
    if (hi > lo) {
      // The last start <= rk; rk before the first start takes the first factor (AccelPowerScale::at).
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
    out[i] = f;
  }
}

__global__ void scale_complex_kernel(float2* data, long long count, float scale) {
  for (long long i = first_index(); i < count; i += index_stride()) {
    const float2 v = data[i];
    data[i] = make_float2(v.x * scale, v.y * scale);
  }
}

// Row order of the cuFFT path: 0 is z = 0; 2p-1 is +2p and 2p is -2p (p >= 1).
__device__ __forceinline__ int pair_of_row(int row) { return (row + 1) / 2; }
__device__ __forceinline__ bool minus_row(int row) { return row > 0 && row % 2 == 0; }

__global__ void multiply_templates_kernel(const float2* __restrict__ segments, const float2* __restrict__ templates,
                                          float2* __restrict__ products, CorrelateGeometry g, int row_begin,
                                          long long total) {
  const int m = g.fft_points;
  for (long long i = first_index(); i < total; i += index_stride()) {
    const int k = static_cast<int>(i % m);
    long long t = i / m;
    const long long s = t % g.nseg;
    t /= g.nseg;
    const int phase = static_cast<int>(t % g.phases);
    const int row = row_begin + static_cast<int>(t / g.phases);
    const float2* seg = segments + s * m;
    float2 x = __ldg(seg + k);
    if (minus_row(row)) {  // the -z row correlates conj(S[-k]) with the z template
      x = __ldg(seg + ((m - k) & (m - 1)));
      x.y = -x.y;
    }
    products[i] = cmul(x, __ldg(templates + (static_cast<long long>(pair_of_row(row)) * g.phases + phase) * m + k));
  }
}

template <typename P>
__global__ void products_to_plane_kernel(const float2* __restrict__ products, const float* __restrict__ scale,
                                         P* __restrict__ plane, CorrelateGeometry g, int row_begin, long long total) {
  const long long transform = static_cast<long long>(g.nseg) * g.fft_points;  // one (row, phase)
  for (long long i = first_index(); i < total; i += index_stride()) {
    const int jj = static_cast<int>(i % g.use);
    const long long t = i / g.use;
    const long long s = t % g.nseg;
    const int local_row = static_cast<int>(t / g.nseg);
    const int row = row_begin + local_row;
    const int zi = g.center_row + (minus_row(row) ? -pair_of_row(row) : pair_of_row(row));
    const float2* c = products + static_cast<long long>(local_row) * g.phases * transform + s * g.fft_points + jj;
    const long long col = 2 * (s * g.use + jj);
    P* out = plane + static_cast<long long>(zi) * g.plane_cols + col;
    const float2 f = __ldg(reinterpret_cast<const float2*>(scale + col));
    if (g.phases == 2) {
      PlaneIo<P>::store2(out, f.x * norm2(c[0]), f.y * norm2(c[transform]));
    } else {
      constexpr float quarter_pi = 0.785398163397448F;
      const float2 d = make_float2(quarter_pi * (c[0].x - c[1].x), quarter_pi * (c[0].y - c[1].y));
      PlaneIo<P>::store2(out, f.x * norm2(c[0]), f.y * norm2(d));
    }
  }
}

template <typename P>
__global__ void plane_to_float_kernel(const P* __restrict__ plane, long long plane_cols, long long col0,
                                      long long width, float* __restrict__ out, long long total) {
  for (long long i = first_index(); i < total; i += index_stride()) {
    const long long zi = i / width;
    out[i] = PlaneIo<P>::load(plane + zi * plane_cols + col0 + (i - zi * width));
  }
}

}  // namespace

cudaError_t launch_gather_segments(const void* spectra, void* segments, const CorrelateGeometry& g, int batch,
                                   cudaStream_t stream) {
  const long long total = g.segment_stride() * batch;
  gather_segments_kernel<<<blocks_for(total), kThreads, 0, stream>>>(static_cast<const float2*>(spectra),
                                                                     static_cast<float2*>(segments), g, total);
  return cudaGetLastError();
}

cudaError_t launch_expand_power_scale(const long long* offsets, const long long* starts, const float* factors,
                                      long long plane_base, long long plane_cols, int batch, float* out,
                                      cudaStream_t stream) {
  const long long total = plane_cols * batch;
  expand_power_scale_kernel<<<blocks_for(total), kThreads, 0, stream>>>(offsets, starts, factors, plane_base,
                                                                        plane_cols, out, total);
  return cudaGetLastError();
}

cudaError_t launch_scale_complex(void* data, long long count, float scale, cudaStream_t stream) {
  scale_complex_kernel<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<float2*>(data), count, scale);
  return cudaGetLastError();
}

cudaError_t launch_multiply_templates(const void* segment_ffts, const void* templates, void* products,
                                      const CorrelateGeometry& g, int row_begin, int rows, cudaStream_t stream) {
  const long long total = static_cast<long long>(rows) * g.phases * g.nseg * g.fft_points;
  multiply_templates_kernel<<<blocks_for(total), kThreads, 0, stream>>>(
      static_cast<const float2*>(segment_ffts), static_cast<const float2*>(templates), static_cast<float2*>(products),
      g, row_begin, total);
  return cudaGetLastError();
}

cudaError_t launch_products_to_plane(const void* products, const float* scale, void* plane, PlaneFormat format,
                                     const CorrelateGeometry& g, int row_begin, int rows, cudaStream_t stream) {
  const long long total = static_cast<long long>(rows) * g.nseg * g.use;
  const auto* c = static_cast<const float2*>(products);
  if (format == PlaneFormat::f16) {
    products_to_plane_kernel<<<blocks_for(total), kThreads, 0, stream>>>(c, scale, static_cast<__half*>(plane), g,
                                                                         row_begin, total);
  } else {
    products_to_plane_kernel<<<blocks_for(total), kThreads, 0, stream>>>(c, scale, static_cast<float*>(plane), g,
                                                                         row_begin, total);
  }
  return cudaGetLastError();
}

cudaError_t launch_plane_to_float(const void* plane, PlaneFormat format, long long plane_cols, int numz, long long col0,
                                  long long width, float* out, cudaStream_t stream) {
  const long long total = static_cast<long long>(numz) * width;
  if (format == PlaneFormat::f16) {
    plane_to_float_kernel<<<blocks_for(total), kThreads, 0, stream>>>(static_cast<const __half*>(plane), plane_cols,
                                                                      col0, width, out, total);
  } else {
    plane_to_float_kernel<<<blocks_for(total), kThreads, 0, stream>>>(static_cast<const float*>(plane), plane_cols,
                                                                      col0, width, out, total);
  }
  return cudaGetLastError();
}

}  // namespace fastpsr::cuda::accel
