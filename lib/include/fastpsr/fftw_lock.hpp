// SPDX-License-Identifier: MIT
#pragma once
/// FFTW's planner is not thread-safe: every plan creation and destruction in the library holds
/// this mutex.
#include <mutex>

namespace fastpsr {

std::mutex& fftw_planner_mutex();

}  // namespace fastpsr
