// SPDX-License-Identifier: MIT
#pragma once
/// The run-time backend choice (design.md: `--device auto|cpu|gpu[:N]`). `auto` takes GPU 0
/// when there is one and says so; `gpu` where there is none is an error, never a fallback.
#include "fastpsr/device.hpp"

namespace fastpsr {

/// True when this build contains the CUDA backend.
bool built_with_cuda() noexcept;
/// Number of usable GPUs (0 in a CPU-only build).
int gpu_count() noexcept;
/// Resolves a --device value; throws Error(unsupported|resource) for an unusable GPU request.
DeviceChoice resolve_device(const DeviceSpec& spec);
/// Creates the context of a chosen GPU (the driver's start: a few hundred ms on a GPU host), so
/// that a backend made later, on any thread, finds it ready. Nothing for the CPU.
void prepare_device_context(const DeviceChoice& device);

}  // namespace fastpsr
