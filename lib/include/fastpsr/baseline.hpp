// SPDX-License-Identifier: MIT
#pragma once
/// Baseline removal of a dedispersed time series, streamed: the median of each block of
/// `block` samples is subtracted from that block.
#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

namespace fastpsr {

struct BaselineSpec {
  enum class Kind { none, median, sigproc } kind = Kind::none;
  std::size_t block = 0;  ///< samples per block (median:N); sigproc: set from nchans
  /// "none", "median:N" or "sigproc" (= SIGPROC dedisperse's default: blocks of 32 * nchans
  /// samples). Throws Error(invalid_argument) otherwise.
  static BaselineSpec parse(std::string_view text, int nchans);
};

/// Subtracts block medians. The median of n samples is the ((n + 1) / 2)-th smallest (the lower
/// median for even n, as SIGPROC's nrselect(n/2) gives for its full blocks). At the end, a
/// partial block is handled as `sigproc_tail` says: false, its own median; true, SIGPROC's
/// rule, the previous block's median (0 when there was none).
class BlockMedianBaseline {
 public:
  using Emit = std::function<void(const float* data, std::size_t n)>;
  BlockMedianBaseline(std::size_t block, bool sigproc_tail);
  /// Appends n samples; each completed block is passed, baseline removed, to `emit`.
  void push(const float* x, std::size_t n, const Emit& emit);
  /// Passes the partial last block.
  void finish(const Emit& emit);

 private:
  void emit_block(const Emit& emit, float offset);
  std::size_t block_;
  bool sigproc_tail_;
  std::vector<float> buf_;
  std::vector<float> scratch_;
  float last_offset_ = 0.0f;
};

}  // namespace fastpsr
