// SPDX-License-Identifier: MIT
#include "fastpsr/cpu/cpu_features.hpp"

#include <fmt/format.h>
#include <omp.h>

#include "fastpsr/error.hpp"

namespace fastpsr::cpu {

const CpuFeatures& cpu_features() {
  static const CpuFeatures f = [] {
    CpuFeatures c;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    c.avx2 = __builtin_cpu_supports("avx2") != 0;
    c.fma = __builtin_cpu_supports("fma") != 0;
    c.avx512f = __builtin_cpu_supports("avx512f") != 0;
    c.avx512bw = __builtin_cpu_supports("avx512bw") != 0;
#endif
    return c;
  }();
  return f;
}

std::string describe_cpu_features() {
  const auto& f = cpu_features();
  std::string s;
  if (f.avx2) s += "avx2 ";
  if (f.fma) s += "fma ";
  if (f.avx512f) s += "avx512f ";
  if (f.avx512bw) s += "avx512bw ";
  if (s.empty()) return "baseline";
  s.pop_back();
  return s;
}

int thread_count() { return omp_get_max_threads(); }

void check_cpu_isa_name(const std::string& value) {
  if (value != "avx512" && value != "avx2" && value != "generic") {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("--cpu-config isa={}: expected avx512, avx2 or generic", value));
  }
}

void check_cpu_isa(const std::string& value, const std::function<bool(const std::string&)>& runs) {
  check_cpu_isa_name(value);
  if (!runs(value)) {
    throw Error(ErrorCode::unsupported,
                fmt::format("--cpu-config isa={}: this CPU lacks it ({})", value, describe_cpu_features()));
  }
}

}  // namespace fastpsr::cpu
