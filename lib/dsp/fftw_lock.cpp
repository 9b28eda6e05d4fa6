// SPDX-License-Identifier: MIT
#include "fastpsr/fftw_lock.hpp"

namespace fastpsr {

std::mutex& fftw_planner_mutex() {
  static std::mutex m;
  return m;
}

}  // namespace fastpsr
