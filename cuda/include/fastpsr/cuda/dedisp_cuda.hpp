// SPDX-License-Identifier: MIT
#pragma once
/// The CUDA dedisperser (design: cuda/dedisp/dedisp_tiling.hpp, docs/ARCHITECTURE.md).
///
/// Output is bit-identical to the CPU backend and the double-precision reference for integer
/// input (nbits 1, 2, 4, 8 unsigned or signed, 16): samples are summed exactly in integers, four
/// 8-bit values or two 16-bit values per 32-bit word ("lanes"), flushed into 32-bit sums before a
/// 16-bit lane can overflow; float input is summed in float over at most `flush_chans` channels
/// and in double beyond (error <= 1e-6 of the sum of |terms|).
///
/// `options.gpu_config` (--gpu-config key=value,...), all optional:
///   threads_time (32..1024, multiple of 32), threads_dm (1..32): the block;
///   items_time (1, 2, 4), items_dm (1, 2, 4, 8): words and DMs per thread;
///   chans_per_stage (1..256), stages (1..3): shared-memory staging of channel rows;
///   lanes (0 = automatic, 4, 2, 1), flush_chans (channels per 16-bit lane flush);
///   gulp (input samples per push), pipeline (2..4 gulps in flight), max_device_mb (budget).
/// Keys not given are chosen for the device and the plan; describe() prints the result in the
/// same key=value form.
#include <memory>

#include "fastpsr/cuda/runtime.hpp"
#include "fastpsr/dedisp.hpp"

namespace fastpsr::cuda {

/// The CUDA dedisperser on GPU `device` (packed integer accumulation for nbits <= 8,
/// pipelined upload/compute/download). Throws Error(resource) when the GPU lacks memory even
/// for the smallest gulp, Error(invalid_argument) for a bad --gpu-config or one the device
/// cannot run (threads, registers, shared memory), Error(unsupported) for input it cannot sum
/// exactly (nbits other than 1, 2, 4, 8, 16, 32; signed other than 8-bit; 16-bit sums that
/// could pass 2^32).
std::unique_ptr<Dedisperser> make_dedisperser(const DedispPlan& plan, const DedispOptions& options, int device);

// prepare_device(device) (runtime.hpp) creates the context ahead of make_dedisperser().

}  // namespace fastpsr::cuda
