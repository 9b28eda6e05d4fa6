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

/// Gets the backend ready ahead of make_dedisperser(): a GPU's context is created (a few
/// hundred ms), the CPU needs nothing. Meant for a thread of its own while the input is opened.
void prepare_dedisp_device(const DeviceChoice& device);

}  // namespace fastpsr
