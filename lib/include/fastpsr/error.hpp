// SPDX-License-Identifier: MIT
#pragma once
/// The one error type of the library. Library code never calls exit(); it throws
/// fastpsr::Error, and the tools' common wrapper (apps/common) turns it into a message
/// `tool: error: <file>: <what>` and an exit status.
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace fastpsr {

enum class ErrorCode {
  invalid_argument,  ///< a value given by the caller (or user) is out of range: exit 2 in tools
  io,                ///< open/read/write/rename failed
  format,            ///< a file's content is malformed or inconsistent
  unsupported,       ///< valid input this build or backend cannot handle
  resource,          ///< out of memory (host or device), no device
  device,            ///< a CUDA/cuFFT call failed
  internal,          ///< a broken invariant: a bug
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message, std::string path = {})
      : std::runtime_error(std::move(message)), code_(code), path_(std::move(path)) {}
  [[nodiscard]] ErrorCode code() const noexcept { return code_; }
  /// The file the error is about; empty when it is about no file.
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  ErrorCode code_;
  std::string path_;
};

/// Thrown when writing to a pipe whose reader has gone (EPIPE): tools end quietly with 0.
class BrokenPipe : public Error {
 public:
  explicit BrokenPipe(std::string path) : Error(ErrorCode::io, "broken pipe", std::move(path)) {}
};

[[noreturn]] inline void throw_error(ErrorCode code, std::string message, std::string path = {}) {
  throw Error(code, std::move(message), std::move(path));
}

}  // namespace fastpsr

/// Precondition check: throws fastpsr::Error(invalid_argument) with a formatted message.
/// Use: FASTPSR_EXPECTS(nchans > 0, "nchans must be positive, got {}", nchans);
#define FASTPSR_EXPECTS(cond, ...)                                                        \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      throw ::fastpsr::Error(::fastpsr::ErrorCode::invalid_argument, fmt::format(__VA_ARGS__)); \
    }                                                                                     \
  } while (0)

/// Invariant check for our own logic: a failure is a bug.
#define FASTPSR_ASSERT(cond)                                                                 \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      throw ::fastpsr::Error(::fastpsr::ErrorCode::internal,                                 \
                             fmt::format("internal error: {} ({}:{})", #cond, __FILE__, __LINE__)); \
    }                                                                                        \
  } while (0)
