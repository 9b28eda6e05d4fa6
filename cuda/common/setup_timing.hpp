// SPDX-License-Identifier: MIT
#pragma once
// Host-side timing of a CUDA backend's set-up, for its describe() (-v): the context, the pinned
// buffers, the engine.
#include <chrono>

#include "fastpsr/cuda/runtime.hpp"

namespace fastpsr::cuda {

using SetupClock = std::chrono::steady_clock;

inline double ms_since(SetupClock::time_point t0) {
  return std::chrono::duration<double, std::milli>(SetupClock::now() - t0).count();
}

/// Makes `device` current, which creates its context on first use (often the largest part of a
/// backend's set-up), and returns the milliseconds it took. A backend calls it from its first
/// member's initialiser, so that its streams and events belong to `device`.
inline double time_context(int device) {
  const auto t0 = SetupClock::now();
  prepare_device(device);
  return ms_since(t0);
}

}  // namespace fastpsr::cuda
