// SPDX-License-Identifier: MIT
#include "fastpsr/dedisp_backend.hpp"

#include "fastpsr/cpu/dedisp_cpu.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/tuning_keys.hpp"
#include "tuned_options.hpp"
#if FASTPSR_HAVE_CUDA
#include "fastpsr/cuda/dedisp_cuda.hpp"
#endif

namespace fastpsr {

std::unique_ptr<Dedisperser> make_dedisperser(const DedispPlan& plan, const DeviceChoice& device,
                                              const DedispOptions& options) {
  if (device.backend == Backend::cpu) return cpu::make_dedisperser(plan, options);
  cpu::check_dedisp_cpu_config(options.cpu_config);  // a mistyped --cpu-config fails on a GPU run too
#if FASTPSR_HAVE_CUDA
  return cuda::make_dedisperser(plan, detail::with_tuning("dedisp", dedisp_shape_key(plan), device, options),
                                device.gpu_index);
#else
  throw Error(ErrorCode::unsupported, "this build of fastpsr has no CUDA backend");
#endif
}

}  // namespace fastpsr
