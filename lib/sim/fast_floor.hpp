// SPDX-License-Identifier: MIT
#pragma once
// floor() without a libm call: the baseline x86-64 target has no rounding instruction, so
// std::floor is a function call, and the inner loops of the simulator call it per value.
#include <cstdint>

namespace fastpsr::sim::detail {

/// floor(x) for |x| < 2^62 (the phases and sample positions of the simulator).
inline double fast_floor(double x) {
  const auto t = static_cast<double>(static_cast<std::int64_t>(x));
  return t > x ? t - 1.0 : t;
}

/// x - floor(x), in [0, 1).
inline double fraction(double x) { return x - fast_floor(x); }

}  // namespace fastpsr::sim::detail
