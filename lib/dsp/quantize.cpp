// SPDX-License-Identifier: MIT
#include "fastpsr/quantize.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "fastpsr/error.hpp"

namespace fastpsr {
namespace {

double median_of(std::vector<float> v) {
  const auto k = (v.size() + 1) / 2 - 1;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(k), v.end());
  return static_cast<double>(v[k]);
}

}  // namespace

SeriesQuantizer::SeriesQuantizer(int nbits, std::size_t warmup) : nbits_(nbits), warmup_(warmup) {
  FASTPSR_EXPECTS(nbits == 8 || nbits == 16, "output samples can be scaled to 8 or 16 bits, not {}", nbits);
  FASTPSR_EXPECTS(warmup > 0, "the scaling needs at least one sample");
}

void SeriesQuantizer::fit() {
  fitted_ = true;
  if (pending_.empty()) return;
  median_ = median_of(pending_);
  std::vector<float> dev(pending_.size());
  for (std::size_t i = 0; i < dev.size(); ++i) {
    dev[i] = static_cast<float>(std::fabs(static_cast<double>(pending_[i]) - median_));
  }
  const double mad = median_of(std::move(dev));
  sigma_ = mad > 0.0 ? 1.4826 * mad : 1.0;
}

void SeriesQuantizer::convert(const float* x, std::size_t n, const Emit& emit) {
  const double top = std::ldexp(1.0, nbits_) - 1.0;
  const double mid = std::ldexp(1.0, nbits_ - 1);
  const double gain = std::ldexp(1.0, nbits_) / (16.0 * sigma_);
  const std::size_t width = static_cast<std::size_t>(nbits_) / 8;
  bytes_.resize(n * width);
  for (std::size_t i = 0; i < n; ++i) {
    double y = std::round(mid + (static_cast<double>(x[i]) - median_) * gain);
    if (!(y >= 0.0)) y = 0.0;  // also NaN
    y = std::min(y, top);
    if (width == 1) {
      bytes_[i] = static_cast<std::uint8_t>(y);
    } else {
      const auto v = static_cast<std::uint16_t>(y);  // little-endian, as SIGPROC reads 16-bit data
      std::memcpy(bytes_.data() + 2 * i, &v, 2);
    }
  }
  emit(bytes_.data(), n);
}

void SeriesQuantizer::push(const float* x, std::size_t n, const Emit& emit) {
  if (fitted_) {
    convert(x, n, emit);
    return;
  }
  pending_.insert(pending_.end(), x, x + n);
  if (pending_.size() < warmup_) return;
  std::vector<float> all;
  all.swap(pending_);
  pending_.assign(all.begin(), all.begin() + static_cast<long>(warmup_));
  fit();
  convert(all.data(), all.size(), emit);
  pending_.clear();
  pending_.shrink_to_fit();
}

void SeriesQuantizer::finish(const Emit& emit) {
  if (fitted_) return;
  fit();
  if (!pending_.empty()) convert(pending_.data(), pending_.size(), emit);
  pending_.clear();
}

}  // namespace fastpsr
