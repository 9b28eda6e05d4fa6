// SPDX-License-Identifier: MIT
#pragma once
/// FASTPSR_CUDA_TRY: host (.cpp) code wraps every CUDA runtime call in it; a failure throws
/// fastpsr::Error(device) naming the call and CUDA's message. Not for .cu files (no fmt there).
#include <cuda_runtime_api.h>

#include "fastpsr/error.hpp"

#define FASTPSR_CUDA_TRY(call)                                                                          \
  do {                                                                                                  \
    const cudaError_t fastpsr_cuda_status_ = (call);                                                    \
    if (fastpsr_cuda_status_ != cudaSuccess) {                                                          \
      (void)cudaGetLastError();                                                                         \
      throw ::fastpsr::Error(fastpsr_cuda_status_ == cudaErrorMemoryAllocation                          \
                                 ? ::fastpsr::ErrorCode::resource                                       \
                                 : ::fastpsr::ErrorCode::device,                                        \
                             fmt::format("CUDA error in {}: {} ({}:{})", #call,                         \
                                         cudaGetErrorString(fastpsr_cuda_status_), __FILE__, __LINE__)); \
    }                                                                                                   \
  } while (0)
