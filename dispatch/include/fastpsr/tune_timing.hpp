// SPDX-License-Identifier: MIT
#pragma once
/// Timing of one GPU configuration on synthetic data of a problem's shape, for `tune`: the
/// kernels alone (CUDA events), median of `repeats` after a warm-up. Each call builds the
/// backend's objects from scratch, so a configuration passes the backend's own checks (device
/// limits included) or throws Error(invalid_argument|resource) as the tools would. Throws
/// Error(unsupported) in a build without CUDA.
#include <cstddef>
#include <string>

#include "fastpsr/accel.hpp"
#include "fastpsr/dedisp.hpp"
#include "fastpsr/ppf.hpp"
#include "fastpsr/tuner.hpp"

namespace fastpsr {

/// Prep + dedispersion kernels for one gulp of `n_out` output samples per DM (random 8-bit input).
ConfigTiming time_dedisp_config(const DedispPlan& plan, const GpuConfig& config, int gpu, std::size_t n_out,
                                int repeats);
/// Segments + correlation + harmonic sums per spectrum (random noise spectra, searched in the
/// configuration's batches).
ConfigTiming time_accel_config(const AccelSearchProblem& problem, const GpuConfig& config, int gpu, int repeats);
/// The whole device-resident PPF over `nspectra` filtered spectra per coarse channel.
ConfigTiming time_ppf_config(const ChanneliserPlan& plan, const GpuConfig& config, int gpu, std::size_t nspectra,
                             int repeats);

}  // namespace fastpsr
