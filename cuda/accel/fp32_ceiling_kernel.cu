// SPDX-License-Identifier: MIT
// The FP32 FMA ceiling (benchmarks.md "Limits"): a long FMA-only kernel with independent chains
// per thread, so that issue rate, not latency, limits it.
#include "accel/fp32_ceiling_kernel.hpp"

namespace fastpsr::cuda::accel {
namespace {

constexpr int kChains = 8;

__global__ void fma_chains_kernel(float* out, int iterations, float a, float b) {
  float x[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) x[c] = static_cast<float>(threadIdx.x + c);
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = fmaf(x[c], a, b);
  }
  float sum = 0.0F;
#pragma unroll
  for (int c = 0; c < kChains; ++c) sum += x[c];
  if (sum == 1.2345F) out[0] = sum;  // keeps the chains alive; a and b make this never true
}

}  // namespace

cudaError_t launch_fma_chains(float* sink, int blocks, int threads, int iterations, cudaStream_t stream) {
  fma_chains_kernel<<<blocks, threads, 0, stream>>>(sink, iterations, 0.999999F, 1e-7F);
  return cudaGetLastError();
}

long long fma_chains_per_thread(int iterations) { return static_cast<long long>(kChains) * iterations; }

}  // namespace fastpsr::cuda::accel
