// SPDX-License-Identifier: MIT
#include "fastpsr/accel_backends.hpp"

#include <atomic>
#include <memory>

#include "fastpsr/cpu/accel_cpu.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/presto_fft.hpp"
#include "fastpsr/tuning_keys.hpp"
#include "tuned_options.hpp"
#if FASTPSR_HAVE_CUDA && __has_include("fastpsr/cuda/accel_cuda.hpp")
#include "fastpsr/cuda/accel_cuda.hpp"
#define FASTPSR_HAVE_CUDA_ACCEL 1
#else
#define FASTPSR_HAVE_CUDA_ACCEL 0
#endif

namespace fastpsr {

bool cuda_accel_available() noexcept { return FASTPSR_HAVE_CUDA_ACCEL != 0; }

std::unique_ptr<FdotSearcher> make_fdot_searcher(const AccelSearchProblem& problem, const AccelSearchOptions& options,
                                                 const DeviceChoice& device) {
  if (device.backend == Backend::cpu) return cpu::make_fdot_searcher(problem, options);
#if FASTPSR_HAVE_CUDA_ACCEL
  try {
    return cuda::make_fdot_searcher(
        problem, detail::with_tuning("accel", accel_shape_key(problem, options.gpu_config), device, options),
        device.gpu_index);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::resource || !device.automatic) throw;
    log_warning("{}: searching on the CPU instead (--device auto; in blocks if the plane is larger than "
                "--plane-memory)",
                e.what());
    return cpu::make_fdot_searcher(problem, options);
  }
#else
  throw Error(ErrorCode::unsupported, "this build has no GPU acceleration search (use --device cpu)");
#endif
}

RealFft make_real_fft(const DeviceChoice& device, bool host) {
  if (host || device.backend == Backend::cpu) return [](std::span<const float> x) { return presto_realfft(x); };
#if FASTPSR_HAVE_CUDA_ACCEL
  // Device memory short (the searcher's plane beside several trials' buffers on a small GPU):
  // that trial is transformed on the host instead, said once.
  // One RealFftCuda for the run: its workspaces (plans, buffers) serve trial after trial.
  auto fft = std::make_shared<cuda::RealFftCuda>(device.gpu_index);
  return [gpu = device.gpu_index, fft](std::span<const float> x) {
    try {
      return fft->transform(x);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::resource) throw;
      static std::atomic<bool> said{false};
      if (!said.exchange(true)) {
        log_warning("GPU {}: no device memory for a time series' FFT ({}): FFTW on the host for such trials", gpu,
                    e.what());
      }
      return presto_realfft(x);
    }
  };
#else
  throw Error(ErrorCode::unsupported, "this build has no GPU acceleration search (use --device cpu)");
#endif
}

}  // namespace fastpsr
