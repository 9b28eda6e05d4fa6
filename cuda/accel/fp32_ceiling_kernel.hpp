// SPDX-License-Identifier: MIT
#pragma once
// Launcher of the FP32 FMA ceiling kernel (C++17; see fp32_ceiling_kernel.cu).
#include <cuda_runtime_api.h>

namespace fastpsr::cuda::accel {

/// Runs `blocks` x `threads` threads of `iterations` dependent-chain FMA steps each.
cudaError_t launch_fma_chains(float* sink, int blocks, int threads, int iterations, cudaStream_t stream);
/// FMAs one thread of launch_fma_chains performs.
long long fma_chains_per_thread(int iterations);

}  // namespace fastpsr::cuda::accel
