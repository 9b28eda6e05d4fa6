// SPDX-License-Identifier: MIT
#pragma once
#include <map>
#include <memory>
#include <string>

#include "fastpsr/ppf.hpp"

namespace fastpsr::cpu {

/// The OpenMP + SIMD channeliser: the FIR blocked over channels and spectra (ppf_fir_cpu),
/// FFTW batched in-place plans of a fixed batch (so every spectrum goes through the same plan
/// and the output does not depend on how the input was split), detection and integration on
/// the same cache-resident block. Throws Error(resource) when FFTW cannot make a plan.
std::unique_ptr<Channeliser> make_channeliser(const ChanneliserPlan& plan, const ChanneliserOptions& options);
/// Throws Error(invalid_argument) for an unknown key or value of ChanneliserOptions::cpu_config
/// (not for a level this CPU lacks: make_channeliser checks that). The GPU path calls it too, so
/// that a mistyped --cpu-config fails wherever the channeliser runs.
void check_ppf_cpu_config(const std::map<std::string, std::string>& config);

/// Benchmark support (bench/ppf): the PPF over `nspectra` filtered spectra per coarse channel
/// of pseudo-random input already in memory (the push copy excluded), median of `repeats` runs,
/// and the FIR and FFT stages timed alone over the same blocks.
struct PpfCpuTiming {
  double total_ms = 0.0;
  double fir_ms = 0.0;
  double fft_ms = 0.0;
  std::size_t rows = 0;
  std::string config;
};
PpfCpuTiming benchmark_cpu_ppf(const ChanneliserPlan& plan, const ChanneliserOptions& options, std::size_t nspectra,
                               int repeats);
/// Host memory copy bandwidth with `threads` threads (0: all), bytes read plus written per
/// second, median of `repeats` copies of `bytes`.
double measure_host_copy_bandwidth(std::size_t bytes, int repeats, int threads);

}  // namespace fastpsr::cpu
