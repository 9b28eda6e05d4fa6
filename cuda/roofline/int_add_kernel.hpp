// SPDX-License-Identifier: MIT
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

namespace fastpsr::cuda {

/// Adds per thread and loop iteration of the integer-add kernel of `form` (2 or 3).
double int_adds_per_thread_iteration(int form);
/// Launches it: `out` holds blocks * threads words.
cudaError_t launch_int_add_kernel(int form, unsigned blocks, unsigned threads, int iters, std::uint32_t* out,
                                  cudaStream_t stream);

}  // namespace fastpsr::cuda
