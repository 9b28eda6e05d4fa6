// SPDX-License-Identifier: MIT
#include "fastpsr/ppf_backends.hpp"

#include "fastpsr/cpu/ppf_cpu.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/tuning_keys.hpp"
#include "tuned_options.hpp"
#if FASTPSR_HAVE_CUDA
#include "fastpsr/cuda/ppf_cuda.hpp"
#endif

namespace fastpsr {

std::unique_ptr<Channeliser> make_channeliser(const ChanneliserPlan& plan, const ChanneliserOptions& options,
                                              const DeviceChoice& device) {
  if (device.backend == Backend::cpu) return cpu::make_channeliser(plan, options);
  cpu::check_ppf_cpu_config(options.cpu_config);  // a mistyped --cpu-config fails on a GPU run too
#if FASTPSR_HAVE_CUDA
  return cuda::make_channeliser(plan, detail::with_tuning("ppf", ppf_shape_key(plan), device, options),
                                device.gpu_index);
#else
  throw Error(ErrorCode::unsupported, "this build of fastpsr has no CUDA backend");
#endif
}

}  // namespace fastpsr
