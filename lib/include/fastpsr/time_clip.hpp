// SPDX-License-Identifier: MIT
#pragma once
/// PRESTO's time-domain clipping (prepsubband and prepdata -clip, 6 sigma unless -noclip; its
/// clip_times): per block of spectra, the zero-DM series (each spectrum's sum over channels) is
/// compared with a running mean and deviation, and every spectrum further than sigma deviations
/// from the mean is replaced by the running average of each channel. The running values follow
/// the block's "good" spectra (within 3 deviations of the block's median), 0.9 old + 0.1 new a
/// block. Done on the packed spectra before any dedisperser, in double precision.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fastpsr {

class TimeClipper {
 public:
  /// PRESTO's block for SIGPROC filterbanks (sigproc_fb.c: 2400 spectra a subint).
  static constexpr std::size_t kPrestoBlock = 2400;

  /// `sigma` > 0; spectra of `nchans` samples of `nbits` (whole bytes each).
  TimeClipper(double sigma, int nchans, int nbits, bool is_signed);

  /// Clips one block of n >= 1 spectra in place; returns how many were replaced.
  std::size_t clip_block(std::uint8_t* spectra, std::size_t n);
  /// Sets n spectra to the channels' running levels (packed as the file's samples): PRESTO's
  /// padding of a gap in the data while it clips. Leaves them as they are before the first block.
  void fill_with_levels(std::uint8_t* spectra, std::size_t n);

  /// The running average of each channel (file order) after the last block: PRESTO's padding
  /// for masked samples while it clips. Empty before the first block.
  [[nodiscard]] const std::vector<double>& channel_levels() const noexcept { return chan_running_; }
  [[nodiscard]] std::uint64_t spectra_clipped() const noexcept { return clipped_; }
  [[nodiscard]] std::uint64_t spectra_seen() const noexcept { return seen_; }
  [[nodiscard]] std::uint64_t blocks() const noexcept { return blocks_; }
  [[nodiscard]] double sigma() const noexcept { return sigma_; }

 private:
  void pack_levels();  // the running levels as the file's samples, into packed_levels_
  double sigma_;
  int nchans_;
  int nbits_;
  bool is_signed_;
  double running_avg_ = 0.0;
  double running_std_ = 0.0;
  std::vector<double> chan_running_;
  std::vector<float> row_;                   // one spectrum unpacked (or the levels, to pack)
  std::vector<double> zero_dm_;              // the block's zero-DM series
  std::vector<double> scratch_;              // sorted copies, good points
  std::vector<double> chan_now_;             // the good spectra's channel sums, then means (the block's levels)
  std::vector<std::uint8_t> packed_levels_;  // one spectrum of the running levels, packed
  std::uint64_t clipped_ = 0;
  std::uint64_t seen_ = 0;
  std::uint64_t blocks_ = 0;
};

/// Mean and sample variance (n - 1) of n >= 1 values, by PRESTO's avg_var recurrence (AS 52).
void running_mean_variance(const double* x, std::size_t n, double& mean, double& variance);

}  // namespace fastpsr
