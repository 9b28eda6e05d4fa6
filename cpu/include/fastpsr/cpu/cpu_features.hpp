// SPDX-License-Identifier: MIT
#pragma once
/// Run-time CPU feature checks, for choosing SIMD variants (never #ifdef inside functions).
#include <string>

namespace fastpsr::cpu {

struct CpuFeatures {
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512bw = false;
};

/// Features of the machine running the program.
const CpuFeatures& cpu_features();
/// "avx2 fma" etc., for -v.
std::string describe_cpu_features();
/// OpenMP threads a parallel region gets by default.
int thread_count();

}  // namespace fastpsr::cpu
