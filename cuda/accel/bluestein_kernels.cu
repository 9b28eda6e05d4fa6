// SPDX-License-Identifier: MIT
// The real FFT's Bluestein kernels (bluestein_kernels.hpp says why and what each computes).
#include <cuComplex.h>

#include "accel/bluestein_kernels.hpp"

namespace fastpsr::cuda::accel {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(long long count) { return static_cast<unsigned>((count + kThreads - 1) / kThreads); }

__device__ float2 cmul(float2 a, float2 b) { return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

__device__ float2 conj2(float2 a) { return make_float2(a.x, -a.y); }

// exp(-i pi t / m) for an integer t in [0, 2m): sincospi keeps the phase exact.
__device__ float2 unit_phase(long long t, long long m) {
  double s = 0.0;
  double c = 0.0;
  sincospi(static_cast<double>(t) / static_cast<double>(m), &s, &c);
  return make_float2(static_cast<float>(c), static_cast<float>(-s));
}

// w_j = exp(-i pi j^2 / m); j^2 < 2^62 for the lengths cuFFT takes (m < 2^30).
__device__ float2 chirp(long long j, long long m) { return unit_phase((j * j) % (2 * m), m); }

__global__ void premultiply_kernel(const float2* __restrict__ z, long long m, float2* __restrict__ a, long long M) {
  for (long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; j < M;
       j += static_cast<long long>(gridDim.x) * blockDim.x) {
    a[j] = j < m ? cmul(z[j], chirp(j, m)) : make_float2(0.0F, 0.0F);
  }
}

__global__ void filter_kernel(long long m, float2* __restrict__ b, long long M) {
  for (long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; j < M;
       j += static_cast<long long>(gridDim.x) * blockDim.x) {
    float2 v = make_float2(0.0F, 0.0F);
    if (j < m) {
      v = conj2(chirp(j, m));
    } else if (j > M - m) {
      v = conj2(chirp(M - j, m));
    }
    b[j] = v;
  }
}

__global__ void multiply_kernel(float2* __restrict__ a, const float2* __restrict__ B, long long M, float scale) {
  for (long long j = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; j < M;
       j += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float2 p = cmul(a[j], B[j]);
    a[j] = make_float2(p.x * scale, p.y * scale);
  }
}

__global__ void real_finish_kernel(const float2* __restrict__ c, long long m, float2* __restrict__ out) {
  for (long long k = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; k < m;
       k += static_cast<long long>(gridDim.x) * blockDim.x) {
    const float2 zk = cmul(c[k], chirp(k, m));
    if (k == 0) {
      // E_0 = Re Z_0, O_0 = Im Z_0: X_0 = E_0 + O_0, the Nyquist bin X_m = E_0 - O_0.
      out[0] = make_float2(zk.x + zk.y, zk.x - zk.y);
      continue;
    }
    const float2 zc = conj2(cmul(c[m - k], chirp(m - k, m)));  // conj(Z_(m-k))
    const float2 even = make_float2(0.5F * (zk.x + zc.x), 0.5F * (zk.y + zc.y));
    // (Z_k - conj(Z_(m-k))) / 2i = (d.y, -d.x) / 2 for d = Z_k - conj(Z_(m-k)).
    const float2 odd = make_float2(0.5F * (zk.y - zc.y), -0.5F * (zk.x - zc.x));
    const float2 t = cmul(unit_phase(k, m), odd);
    out[k] = make_float2(even.x + t.x, even.y + t.y);
  }
}

unsigned grid_for(long long count) {
  // Grid-stride loops: enough blocks to fill any GPU, capped so the index arithmetic stays cheap.
  const unsigned want = blocks_for(count);
  return want < 65535U ? (want > 0 ? want : 1U) : 65535U;
}

}  // namespace

cudaError_t launch_bluestein_premultiply(const void* z, long long m, void* a, long long M, cudaStream_t stream) {
  premultiply_kernel<<<grid_for(M), kThreads, 0, stream>>>(static_cast<const float2*>(z), m, static_cast<float2*>(a),
                                                           M);
  return cudaGetLastError();
}

cudaError_t launch_bluestein_filter(long long m, void* b, long long M, cudaStream_t stream) {
  filter_kernel<<<grid_for(M), kThreads, 0, stream>>>(m, static_cast<float2*>(b), M);
  return cudaGetLastError();
}

cudaError_t launch_bluestein_multiply(void* a, const void* B, long long M, float scale, cudaStream_t stream) {
  multiply_kernel<<<grid_for(M), kThreads, 0, stream>>>(static_cast<float2*>(a), static_cast<const float2*>(B), M,
                                                        scale);
  return cudaGetLastError();
}

cudaError_t launch_bluestein_real_finish(const void* c, long long m, void* out, cudaStream_t stream) {
  real_finish_kernel<<<grid_for(m), kThreads, 0, stream>>>(static_cast<const float2*>(c), m, static_cast<float2*>(out));
  return cudaGetLastError();
}

}  // namespace fastpsr::cuda::accel
