// SPDX-License-Identifier: MIT
#pragma once
/// The run-time choice of the acceleration searcher's backend.
#include <complex>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "fastpsr/accel.hpp"
#include "fastpsr/device.hpp"

namespace fastpsr {

/// The FdotSearcher of the chosen backend (cpu::make_fdot_searcher or cuda::make_fdot_searcher).
/// Throws Error(unsupported) when the choice is a GPU and this build's CUDA backend has no
/// acceleration search.
std::unique_ptr<FdotSearcher> make_fdot_searcher(const AccelSearchProblem& problem, const AccelSearchOptions& options,
                                                 const DeviceChoice& device);
/// True when make_fdot_searcher can serve Backend::cuda in this build.
bool cuda_accel_available() noexcept;

/// The real FFT of a time series in PRESTO's packing (presto_realfft's contract).
using RealFft = std::function<std::vector<std::complex<float>>(std::span<const float>)>;
/// The real FFT for trials searched on `device`: cuFFT on that GPU (presto_realfft_cuda) unless
/// `host` is set, FFTW on the host (presto_realfft) for the CPU backend or with `host`. The GPU's
/// float32 rounding differs from FFTW's in the last bits, as its correlations already do.
RealFft make_real_fft(const DeviceChoice& device, bool host = false);

}  // namespace fastpsr
