// SPDX-License-Identifier: MIT
// The integer-add ceiling: long chains of independent 32-bit adds, written as PTX adds so the
// compiler front end cannot fold them algebraically. Form 2: a += b; b += a (one add each).
// Form 3: a = a + b + c; ... (two adds each, which the assembler fuses into one IADD3).
#include <cuda_runtime.h>

#include <cstdint>

#include "roofline/int_add_kernel.hpp"

namespace fastpsr::cuda {
namespace {

__device__ __forceinline__ std::uint32_t add(std::uint32_t x, std::uint32_t y) {
  std::uint32_t r;
  asm("add.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y));
  return r;
}

constexpr int kChains = 8;

template <int Form>
__global__ void int_add_kernel(std::uint32_t* out, int iters, std::uint32_t seed) {
  const std::uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
  std::uint32_t a[kChains], b[kChains], c[kChains];
#pragma unroll
  for (int j = 0; j < kChains; ++j) {
    a[j] = seed ^ (id * 2654435761U + static_cast<std::uint32_t>(j));
    b[j] = a[j] * 40503U + 1U;
    c[j] = b[j] ^ 0x9E3779B9U;
  }
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < kChains; ++j) {
      if constexpr (Form == 2) {
        a[j] = add(a[j], b[j]);
        b[j] = add(b[j], a[j]);
      } else {
        a[j] = add(add(a[j], b[j]), c[j]);
        b[j] = add(add(b[j], c[j]), a[j]);
        c[j] = add(add(c[j], a[j]), b[j]);
      }
    }
  }
  std::uint32_t r = 0;
#pragma unroll
  for (int j = 0; j < kChains; ++j) r ^= a[j] ^ b[j] ^ c[j];
  out[id] = r;  // keeps every chain alive
}

}  // namespace

double int_adds_per_thread_iteration(int form) { return form == 2 ? 2.0 * kChains : 6.0 * kChains; }

cudaError_t launch_int_add_kernel(int form, unsigned blocks, unsigned threads, int iters, std::uint32_t* out,
                                  cudaStream_t stream) {
  if (form == 2) {
    int_add_kernel<2><<<blocks, threads, 0, stream>>>(out, iters, 12345U);
  } else {
    int_add_kernel<3><<<blocks, threads, 0, stream>>>(out, iters, 12345U);
  }
  return cudaGetLastError();
}

}  // namespace fastpsr::cuda
