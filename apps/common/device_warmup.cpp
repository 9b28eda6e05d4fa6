// SPDX-License-Identifier: MIT
#include "common/device_warmup.hpp"

#include <exception>
#include <utility>

#include "fastpsr/backends.hpp"

namespace fastpsr::app {

DeviceWarmup::DeviceWarmup(std::string device_spec) : choice_(chosen_.get_future().share()) {
  preparing_ = std::async(std::launch::async, [this, spec = std::move(device_spec)] {
    DeviceChoice device;
    try {
      device = resolve_device(parse_device_spec(spec));
    } catch (...) {
      chosen_.set_exception(std::current_exception());
      return;
    }
    chosen_.set_value(device);
    prepare_device_context(device);
  });
}

DeviceWarmup::~DeviceWarmup() {
  if (preparing_.valid()) preparing_.wait();
}

}  // namespace fastpsr::app
