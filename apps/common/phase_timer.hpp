// SPDX-License-Identifier: MIT
#pragma once
// Wall-clock accounting of a tool's phases for its -v "time:" line (dedisp, ppf).
#include <chrono>
#include <utility>

namespace fastpsr::app {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// Runs f(), adding the seconds it took to `into` (also when it throws), and returns its result.
template <typename F>
decltype(auto) timed(double& into, F&& f) {
  struct Add {
    double& into;
    Clock::time_point t0 = Clock::now();
    ~Add() { into += seconds_since(t0); }
  } add{into};
  return std::forward<F>(f)();
}

}  // namespace fastpsr::app
