// SPDX-License-Identifier: MIT
// Detection and integration on the GPU, so that only the integrated rows cross the bus; and a
// pseudo-random fill for the benchmark's device-resident input.
#include <cstdint>

#include "ppf_kernels.cuh"

namespace fastpsr::cuda::ppf {
namespace {

// blockIdx.x·blockDim.x + threadIdx.x: fine channel; blockIdx.y: row of the push, counted from
// the first row this chunk touches; blockIdx.z: coarse channel. The spectra of a row are summed in order, then added to
// the row (rows that span chunks are zeroed before the first chunk), so the result does not
// depend on where a push started.
template <int P>
__global__ void detect_kernel(DetectArgs a) {
  const int c = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (c >= a.nchans) return;
  const long long spr = a.spectra_per_row;
  const long long row = a.g0 / spr + blockIdx.y;
  const long long begin = max(a.g0, row * spr);
  const long long end = min(a.g0 + a.n, (row + 1) * spr);
  float acc[4] = {0.0F, 0.0F, 0.0F, 0.0F};
  const std::size_t C = static_cast<std::size_t>(a.nchans);
  const int f = static_cast<int>(blockIdx.z);
  const float2* spec = a.spec + static_cast<std::size_t>(f) * a.spec_coarse_stride;
  for (long long g = begin; g < end; ++g) {
    const std::size_t base = static_cast<std::size_t>(g - a.g0) * C + static_cast<std::size_t>(c);
    const float2 x = spec[base];
    const float xx = x.x * x.x + x.y * x.y;
    if constexpr (P == 1) {
      acc[0] += xx;
    } else {
      const float2 y = spec[base + a.spec_pol_stride];
      const float yy = y.x * y.x + y.y * y.y;
      switch (a.detection) {
        case 0:
          acc[0] += xx + yy;
          break;
        case 1:
          acc[0] += xx;
          break;
        case 2:
          acc[0] += yy;
          break;
        default:
          acc[0] += xx + yy;
          acc[1] += xx - yy;
          acc[2] += 2.0F * (x.x * y.x + x.y * y.y);
          acc[3] += 2.0F * (x.x * y.y - x.y * y.x);
          break;
      }
    }
  }
  const int f_out = a.descending ? a.ncoarse - 1 - f : f;
  float* dst = a.out + static_cast<std::size_t>(row) * a.row_floats + static_cast<std::size_t>(f_out) * C +
               static_cast<std::size_t>(c);
  const int nifs = (P == 2 && a.detection == 3) ? 4 : 1;
  for (int i = 0; i < nifs; ++i) dst[static_cast<std::size_t>(i) * a.if_stride] += acc[i];
}

__device__ __forceinline__ unsigned hash32(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

__global__ void fill_random_kernel(unsigned* dst, std::size_t nwords, unsigned seed, bool as_float) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < nwords; i += stride) {
    const unsigned h = hash32(static_cast<unsigned>(i) ^ hash32(seed + static_cast<unsigned>(i >> 32)));
    if (as_float) {
      dst[i] = __float_as_uint(static_cast<float>(h) * 4.656613e-10F - 1.0F);  // [-1, 1)
    } else {
      dst[i] = h;
    }
  }
}

}  // namespace

cudaError_t launch_detect(const DetectArgs& a, cudaStream_t stream) {
  if (a.n <= 0) return cudaSuccess;
  const long long first_row = a.g0 / a.spectra_per_row;
  const long long last_row = (a.g0 + a.n - 1) / a.spectra_per_row;
  const dim3 block(256);
  const dim3 grid(static_cast<unsigned>((a.nchans + 255) / 256), static_cast<unsigned>(last_row - first_row + 1),
                  static_cast<unsigned>(a.ncoarse));
  if (a.npol == 2) {
    detect_kernel<2><<<grid, block, 0, stream>>>(a);
  } else {
    detect_kernel<1><<<grid, block, 0, stream>>>(a);
  }
  return cudaGetLastError();
}

cudaError_t launch_fill_random(void* dst, std::size_t n, unsigned seed, bool as_float, cudaStream_t stream) {
  fill_random_kernel<<<1024, 256, 0, stream>>>(static_cast<unsigned*>(dst), n / 4, seed, as_float);
  return cudaGetLastError();
}

}  // namespace fastpsr::cuda::ppf
