// SPDX-License-Identifier: MIT
#pragma once
// The CPU ceilings the dedispersion bench compares with, measured on the machine running it.

namespace fastpsr::bench {

struct CpuCeilings {
  double add_u16_per_s = 0;       ///< 16-bit lane adds per second, registers only, all threads
  double load_add_u16_per_s = 0;  ///< 16-bit lane adds whose operand is loaded from L1, all threads
  double copy_bytes_per_s = 0;    ///< large memory copy, bytes read + written per second, all threads
  const char* isa = "";
};

/// Measures the ceilings with `threads` OpenMP threads (0 = default).
CpuCeilings measure_cpu_ceilings(int threads);

}  // namespace fastpsr::bench
