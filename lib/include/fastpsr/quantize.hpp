// SPDX-License-Identifier: MIT
#pragma once
/// Scaling of a float time series to 8- or 16-bit unsigned samples (--nbits-out), streamed:
///   y = clamp(round(2^(n-1) + (x - median) * 2^n / (16 * sigma)), 0, 2^n - 1)
/// i.e. the median at mid-range and 16 sigma spanning the full range (+-8 sigma), where the
/// median and sigma = 1.4826 * MAD are measured on the first `warmup` samples of the series
/// (all of it when shorter) and then kept, so the result does not depend on the gulp size.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace fastpsr {

class SeriesQuantizer {
 public:
  using Emit = std::function<void(const std::uint8_t* bytes, std::size_t nsamples)>;
  static constexpr std::size_t kDefaultWarmup = 16384;
  explicit SeriesQuantizer(int nbits, std::size_t warmup = kDefaultWarmup);
  void push(const float* x, std::size_t n, const Emit& emit);
  void finish(const Emit& emit);
  /// The fitted median and sigma (valid once the warm-up is over or after finish()).
  [[nodiscard]] double median() const noexcept { return median_; }
  [[nodiscard]] double sigma() const noexcept { return sigma_; }

 private:
  void fit();
  void convert(const float* x, std::size_t n, const Emit& emit);
  int nbits_;
  std::size_t warmup_;
  bool fitted_ = false;
  double median_ = 0;
  double sigma_ = 1;
  std::vector<float> pending_;
  std::vector<std::uint8_t> bytes_;
};

}  // namespace fastpsr
