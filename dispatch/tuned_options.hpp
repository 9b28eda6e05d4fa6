// SPDX-License-Identifier: MIT
#pragma once
// The dispatchers' one use of the tuning database: once the GPU is chosen (its model is part of
// the key), the options' --gpu-config keys are put over the tuned entry and -v says which
// configuration runs and why. Private to dispatch/.
#include <string>
#include <string_view>

#include "fastpsr/device.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/tuning.hpp"

namespace fastpsr::detail {

template <typename Options>
Options with_tuning(std::string_view algorithm, const std::string& shape, const DeviceChoice& device,
                    const Options& options) {
  const TunedConfig t = tuned_gpu_config(algorithm, shape, device.model, options.gpu_config, options.use_tuning);
  log_verbose("{}", t.describe());
  Options o = options;
  o.gpu_config = t.config;
  return o;
}

}  // namespace fastpsr::detail
