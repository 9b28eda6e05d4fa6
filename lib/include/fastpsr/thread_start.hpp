// SPDX-License-Identifier: MIT
#pragma once
/// Starting a thread where the system may refuse one (too many threads or processes for the
/// user, no address space left for its stack): the std::system_error std::thread throws then
/// becomes Error(resource) that says what failed ("cannot start a thread: Resource temporarily
/// unavailable"), where the tools printed the bare errno text. Callers that hold other started
/// threads must stop and join them before the exception leaves (a joinable std::thread destroyed
/// in unwinding ends the process: QA pass 17 saw accelsearch abort with SIGABRT).
#include <fmt/format.h>

#include <system_error>
#include <thread>
#include <utility>

#include "fastpsr/error.hpp"

namespace fastpsr {

template <class F>
std::thread start_thread(F&& f) {
  try {
    return std::thread(std::forward<F>(f));
  } catch (const std::system_error& e) {
    throw Error(ErrorCode::resource, fmt::format("cannot start a thread: {}", e.code().message()));
  }
}

}  // namespace fastpsr
