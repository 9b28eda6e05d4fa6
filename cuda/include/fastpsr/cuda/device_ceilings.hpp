// SPDX-License-Identifier: MIT
#pragma once
/// The device's own ceilings, measured on it (benchmarks.md "Limits"): the floors every GPU
/// benchmark reports its fraction of. No CUDA types here.
#include <string>

namespace fastpsr::cuda {

struct DeviceCeilings {
  double copy_bytes_per_s = 0.0;   ///< device-to-device copy, bytes read + written per second
  double int_add2_per_s = 0.0;     ///< 32-bit integer adds/s, chains of two-operand adds
  double int_add3_per_s = 0.0;     ///< 32-bit integer adds/s, chains of three-operand sums (IADD3)
  double int_adds_per_s = 0.0;     ///< the larger of the two
  double sample_adds_per_s = 0.0;  ///< packed-add ceiling: 2 x int_adds_per_s (two 16-bit lanes a word)
  std::string device;
};

/// Measures the ceilings of GPU `device` (about a second). Throws Error(device) on a CUDA error.
DeviceCeilings measure_device_ceilings(int device);

}  // namespace fastpsr::cuda
