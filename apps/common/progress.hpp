// SPDX-License-Identifier: MIT
#pragma once
/// A progress line on stderr, shown only when stderr is a terminal and the tool is not quiet.
#include <chrono>
#include <cstdint>
#include <string>

namespace fastpsr::app {

class Progress {
 public:
  /// `total` in the caller's units (samples, DM trials...); 0 when unknown (a pipe).
  Progress(std::string label, std::uint64_t total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void update(std::uint64_t done);
  void finish();

 private:
  void draw(bool final);
  std::string label_;
  std::uint64_t total_;
  std::uint64_t done_ = 0;
  bool enabled_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace fastpsr::app
