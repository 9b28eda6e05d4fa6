// SPDX-License-Identifier: MIT
#pragma once
/// The run-time choice of dedispersion backend: apps call this and never see CUDA headers.
#include <memory>

#include "fastpsr/dedisp.hpp"
#include "fastpsr/device.hpp"

namespace fastpsr {

/// A streaming dedisperser for `plan` on the backend `device` chose (resolve_device()).
/// Throws Error(unsupported) when the build lacks that backend, Error(resource) when the GPU
/// cannot hold even the smallest gulp, Error(invalid_argument) for a bad --cpu-config/--gpu-config.
std::unique_ptr<Dedisperser> make_dedisperser(const DedispPlan& plan, const DeviceChoice& device,
                                              const DedispOptions& options);

}  // namespace fastpsr
