// SPDX-License-Identifier: MIT
#pragma once
#include <memory>

#include "fastpsr/dedisp.hpp"

namespace fastpsr::cuda {

/// The CUDA dedisperser on GPU `device` (packed integer accumulation for nbits <= 8,
/// pipelined upload/compute/download). Throws Error(resource) when the GPU lacks memory even
/// for the smallest gulp, Error(invalid_argument) for a bad --gpu-config.
std::unique_ptr<Dedisperser> make_dedisperser(const DedispPlan& plan, const DedispOptions& options, int device);

}  // namespace fastpsr::cuda
