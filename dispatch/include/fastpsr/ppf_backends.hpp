// SPDX-License-Identifier: MIT
#pragma once
/// The run-time backend choice for the PPF channeliser (backends.hpp: `--device`).
#include <memory>

#include "fastpsr/device.hpp"
#include "fastpsr/ppf.hpp"

namespace fastpsr {

/// A channeliser on the chosen backend: the CPU one, or the CUDA one on GPU `device.gpu_index`.
/// Throws Error(unsupported) for a CUDA choice in a build without CUDA, Error(invalid_argument)
/// for a bad --gpu-config, Error(resource) when memory runs short.
std::unique_ptr<Channeliser> make_channeliser(const ChanneliserPlan& plan, const ChanneliserOptions& options,
                                              const DeviceChoice& device);

}  // namespace fastpsr
