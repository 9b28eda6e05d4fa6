// SPDX-License-Identifier: MIT
#include "fastpsr/accel_backends.hpp"

#include "fastpsr/cpu/accel_cpu.hpp"
#include "fastpsr/error.hpp"
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
  return cuda::make_fdot_searcher(
      problem, detail::with_tuning("accel", accel_shape_key(problem, options.gpu_config), device, options),
      device.gpu_index);
#else
  throw Error(ErrorCode::unsupported, "this build has no GPU acceleration search (use --device cpu)");
#endif
}

RealFft make_real_fft(const DeviceChoice& device, bool host) {
  if (host || device.backend == Backend::cpu) return [](std::span<const float> x) { return presto_realfft(x); };
#if FASTPSR_HAVE_CUDA_ACCEL
  return [gpu = device.gpu_index](std::span<const float> x) { return cuda::presto_realfft_cuda(x, gpu); };
#else
  throw Error(ErrorCode::unsupported, "this build has no GPU acceleration search (use --device cpu)");
#endif
}

}  // namespace fastpsr
