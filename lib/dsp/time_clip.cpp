// SPDX-License-Identifier: MIT
#include "fastpsr/time_clip.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr {

void running_mean_variance(const double* x, std::size_t n, double& mean, double& variance) {
  FASTPSR_EXPECTS(n >= 1, "the mean of no values");
  mean = x[0];
  variance = 0.0;
  double count = 1.0;
  for (std::size_t i = 1; i < n; ++i) {
    const double next = count + 1.0;
    const double step = (x[i] - mean) / next;
    variance += next * count * step * step;
    mean += step;
    count = next;
  }
  if (n > 1) variance /= count - 1.0;
}

namespace {

// The median of n >= 1 values (the mean of the middle two for even n, as GSL's, which PRESTO
// calls); reorders `v`.
double median_of(std::vector<double>& v, std::size_t n) {
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.begin() + static_cast<std::ptrdiff_t>(n));
  const double upper = *mid;
  if (n % 2 != 0) return upper;
  const double lower = *std::max_element(v.begin(), mid);
  return 0.5 * (lower + upper);
}

}  // namespace

TimeClipper::TimeClipper(double sigma, int nchans, int nbits, bool is_signed)
    : sigma_(sigma), nchans_(nchans), nbits_(nbits), is_signed_(is_signed) {
  FASTPSR_EXPECTS(sigma > 0.0 && std::isfinite(sigma), "clipping sigma {} must be above 0", sigma);
  FASTPSR_EXPECTS(nchans >= 1 && (static_cast<std::size_t>(nchans) * static_cast<std::size_t>(nbits)) % 8 == 0,
                  "{} channels of {} bits are not whole bytes", nchans, nbits);
  row_.resize(static_cast<std::size_t>(nchans));
  chan_now_.resize(static_cast<std::size_t>(nchans));
  packed_levels_.resize(packed_bytes(static_cast<std::size_t>(nchans), nbits));
}

std::size_t TimeClipper::clip_block(std::uint8_t* spectra, std::size_t n) {
  FASTPSR_EXPECTS(n >= 1, "a clipping block of no spectra");
  const auto nc = static_cast<std::size_t>(nchans_);
  const std::size_t row_bytes = packed_bytes(nc, nbits_);
  // The zero-DM series, its mean, deviation and median.
  zero_dm_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    unpack_to_float(spectra + i * row_bytes, row_.data(), nc, nbits_, is_signed_);
    double sum = 0.0;
    for (const float v : row_) sum += static_cast<double>(v);
    zero_dm_[i] = sum;
  }
  double mean = 0.0;
  double variance = 0.0;
  running_mean_variance(zero_dm_.data(), n, mean, variance);
  double deviation = std::sqrt(variance);
  scratch_.assign(zero_dm_.begin(), zero_dm_.end());
  const double median = median_of(scratch_, n);
  // Mean and deviation again over the spectra within 3 deviations of the median (strong
  // interference left out), and each channel's mean over those spectra. A block whose sums are
  // all equal (deviation 0) is all good: PRESTO finds none good there, and in a first block
  // that leaves running values of 0, which clip and zero every spectrum.
  const double lo = median - 3.0 * deviation;
  const double hi = median + 3.0 * deviation;
  std::fill(chan_now_.begin(), chan_now_.end(), 0.0);
  scratch_.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const bool good = (zero_dm_[i] > lo && zero_dm_[i] < hi) || (deviation == 0.0 && zero_dm_[i] == median);
    if (!good) continue;
    scratch_.push_back(zero_dm_[i]);
    unpack_to_float(spectra + i * row_bytes, row_.data(), nc, nbits_, is_signed_);
    for (std::size_t c = 0; c < nc; ++c) chan_now_[c] += static_cast<double>(row_[c]);
  }
  if (scratch_.empty()) {  // nothing good in this block: the running values stand
    mean = running_avg_;
    deviation = running_std_;
    if (!chan_running_.empty()) chan_now_ = chan_running_;  // else the zeros above
  } else {
    running_mean_variance(scratch_.data(), scratch_.size(), mean, variance);
    deviation = std::sqrt(variance);
    for (auto& c : chan_now_) c /= static_cast<double>(scratch_.size());
  }
  if (blocks_ > 0) {
    running_avg_ = 0.9 * running_avg_ + 0.1 * mean;
    running_std_ = 0.9 * running_std_ + 0.1 * deviation;
    for (std::size_t c = 0; c < nc; ++c) chan_running_[c] = 0.9 * chan_running_[c] + 0.1 * chan_now_[c];
  } else {
    running_avg_ = mean;
    running_std_ = deviation;
    chan_running_ = chan_now_;
  }
  ++blocks_;
  seen_ += n;
  // Spectra beyond sigma running deviations take the channels' running levels.
  const double trigger = sigma_ * running_std_;
  std::size_t replaced = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(std::fabs(zero_dm_[i] - running_avg_) > trigger)) continue;
    if (replaced == 0) pack_levels();  // once a block
    std::memcpy(spectra + i * row_bytes, packed_levels_.data(), row_bytes);
    ++replaced;
  }
  clipped_ += replaced;
  return replaced;
}

void TimeClipper::pack_levels() {
  std::copy(chan_running_.begin(), chan_running_.end(), row_.begin());
  pack_from_float(row_.data(), packed_levels_.data(), static_cast<std::size_t>(nchans_), nbits_, is_signed_);
}

void TimeClipper::fill_with_levels(std::uint8_t* spectra, std::size_t n) {
  if (blocks_ == 0 || n == 0) return;
  pack_levels();
  for (std::size_t i = 0; i < n; ++i) {
    std::memcpy(spectra + i * packed_levels_.size(), packed_levels_.data(), packed_levels_.size());
  }
}

}  // namespace fastpsr
