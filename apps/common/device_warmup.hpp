// SPDX-License-Identifier: MIT
#pragma once
/// A tool's --device resolved, and a GPU's context created, on a thread of its own: the driver's
/// start takes a few hundred ms on a GPU host, and meanwhile the tool opens its input, reads its
/// header (from a pipe: waits for the writer, which is starting too) and makes its plans.
#include <future>
#include <string>

#include "fastpsr/device.hpp"

namespace fastpsr::app {

class DeviceWarmup {
 public:
  /// Starts resolving `device_spec` (a --device value) and preparing the device it names.
  explicit DeviceWarmup(std::string device_spec);
  /// Waits for the context, whose errors are not reported here: the backend made on it meets
  /// them again and reports them with its own context.
  ~DeviceWarmup();
  DeviceWarmup(const DeviceWarmup&) = delete;
  DeviceWarmup& operator=(const DeviceWarmup&) = delete;
  DeviceWarmup(DeviceWarmup&&) = delete;
  DeviceWarmup& operator=(DeviceWarmup&&) = delete;

  /// The chosen device; waits for the choice only, not for the context. Rethrows the choice's
  /// error (a bad --device, a missing GPU). May be called from any thread, more than once.
  [[nodiscard]] DeviceChoice get() const { return choice_.get(); }

 private:
  std::promise<DeviceChoice> chosen_;
  std::shared_future<DeviceChoice> choice_;
  std::future<void> preparing_;
};

}  // namespace fastpsr::app
