// SPDX-License-Identifier: MIT
#include "common/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include "fastpsr/log.hpp"

namespace fastpsr::app {

Progress::Progress(std::string label, std::uint64_t total)
    : label_(std::move(label)),
      total_(total),
      enabled_(::isatty(STDERR_FILENO) == 1 && verbosity() >= Verbosity::normal),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

Progress::~Progress() { finish(); }

void Progress::update(std::uint64_t done) {
  done_ = done;
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  draw(false);
}

void Progress::finish() {
  if (!enabled_ || finished_) return;
  finished_ = true;
  draw(true);
  std::fputc('\n', stderr);
}

void Progress::draw(bool final) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (total_ > 0) {
    const double frac = static_cast<double>(done_) / static_cast<double>(total_);
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(frac * kWidth);
    const double eta = frac > 0 ? elapsed * (1.0 - frac) / frac : 0.0;
    std::fprintf(stderr, "\r%s [%-*s] %5.1f%%  %.0f s%s", label_.c_str(), kWidth,
                 std::string(static_cast<std::size_t>(filled), '#').c_str(), 100.0 * frac,
                 final ? elapsed : eta, final ? " total" : " left ");
  } else {
    std::fprintf(stderr, "\r%s %llu  %.0f s", label_.c_str(), static_cast<unsigned long long>(done_), elapsed);
  }
  std::fflush(stderr);
}

}  // namespace fastpsr::app
