// SPDX-License-Identifier: MIT
#include "fastpsr/backends.hpp"

#include <omp.h>

#include "fastpsr/error.hpp"
#if FASTPSR_HAVE_CUDA
#include "fastpsr/cuda/runtime.hpp"
#endif

namespace fastpsr {

bool built_with_cuda() noexcept { return FASTPSR_HAVE_CUDA != 0; }

int gpu_count() noexcept {
#if FASTPSR_HAVE_CUDA
  return cuda::device_count();
#else
  return 0;
#endif
}

DeviceChoice resolve_device(const DeviceSpec& spec) {
  DeviceChoice cpu;
  cpu.backend = Backend::cpu;
  cpu.description = fmt::format("CPU ({} thread{})", omp_get_max_threads(), omp_get_max_threads() == 1 ? "" : "s");
  if (spec.kind == DeviceSpec::Kind::cpu) return cpu;
#if FASTPSR_HAVE_CUDA
  const int n = cuda::device_count();
  if (spec.kind == DeviceSpec::Kind::automatic) {
    if (n == 0) {
      cpu.description += " (no GPU: " + cuda::no_device_reason() + ")";
      return cpu;
    }
  }
  const auto props = cuda::device_properties(spec.index);  // throws for a missing GPU
  DeviceChoice gpu;
  gpu.backend = Backend::cuda;
  gpu.gpu_index = spec.index;
  gpu.automatic = spec.kind == DeviceSpec::Kind::automatic;
  gpu.model = fmt::format("{}, sm_{}{}, {} SMs", props.name, props.sm_major, props.sm_minor, props.multiprocessors);
  gpu.description =
      fmt::format("GPU {}: {} (sm_{}{}, {} SMs, {:.1f} GiB)", spec.index, props.name, props.sm_major, props.sm_minor,
                  props.multiprocessors, static_cast<double>(props.global_memory_bytes) / (1024.0 * 1024.0 * 1024.0));
  return gpu;
#else
  if (spec.kind == DeviceSpec::Kind::automatic) {
    cpu.description += " (this build has no CUDA backend)";
    return cpu;
  }
  throw Error(ErrorCode::unsupported, "--device gpu: this build of fastpsr has no CUDA backend");
#endif
}

void prepare_device_context(const DeviceChoice& device) {
  if (device.backend == Backend::cpu) return;
#if FASTPSR_HAVE_CUDA
  cuda::prepare_device(device.gpu_index);
#endif
}

}  // namespace fastpsr
