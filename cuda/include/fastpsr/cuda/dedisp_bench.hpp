// SPDX-License-Identifier: MIT
#pragma once
/// Kernel-only timing of the CUDA dedisperser, for bench/dedisp_gpu and the tuner: the prep
/// and dedispersion kernels of one gulp on random input, timed with CUDA events. No CUDA types.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fastpsr/dedisp.hpp"

namespace fastpsr::cuda {

struct DedispKernelTiming {
  std::string config;       ///< the resolved --gpu-config string
  std::string description;  ///< DedispEngine::describe()
  int registers = 0;
  std::size_t shared_bytes = 0;
  std::size_t n_out = 0;   ///< output samples per DM of the timed gulp
  double prep_ms = 0.0;    ///< median over repeats
  double kernel_ms = 0.0;  ///< median over repeats
  double kernel_min_ms = 0.0;
};

/// Times the kernels for one gulp that produces `n_out` output samples per DM (fewer when the
/// device lacks memory: see n_out) from random input (seeded), `repeats` times each.
/// Throws like make_dedisperser for a bad configuration.
DedispKernelTiming time_dedisp_kernels(const DedispPlan& plan, const DedispOptions& options, int device,
                                       std::size_t n_out, int repeats, std::uint64_t seed);

}  // namespace fastpsr::cuda
