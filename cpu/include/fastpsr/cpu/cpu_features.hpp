// SPDX-License-Identifier: MIT
#pragma once
/// Run-time CPU feature checks, for choosing SIMD variants (never #ifdef inside functions).
#include <functional>
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
/// Checks the value of `--cpu-config isa=` (dedisp, ppf): one of "avx512", "avx2", "generic"
/// (Error(invalid_argument) otherwise) that `runs` says this CPU runs (Error(unsupported)
/// otherwise, naming the CPU's features). Each backend has its own idea of what a level needs.
void check_cpu_isa(const std::string& value, const std::function<bool(const std::string&)>& runs);
/// The first half of check_cpu_isa: the value is a level's name (Error(invalid_argument)
/// otherwise), whatever this CPU runs.
void check_cpu_isa_name(const std::string& value);

}  // namespace fastpsr::cpu
