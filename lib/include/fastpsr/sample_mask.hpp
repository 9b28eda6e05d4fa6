// SPDX-License-Identifier: MIT
#pragma once
/// An rfifind mask applied to packed SIGPROC spectra as PRESTO's -mask applies it: each masked
/// sample (a channel in an interval) takes the channel's padding value, so the band's level
/// stays and nothing of the interference is summed. Done to the raw spectra before any
/// dedisperser sees them, so the CPU and GPU backends take the same masked data.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fastpsr/presto_mask.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr {

class SampleMasker {
 public:
  /// `pad` holds a value per channel in rfifind's order (low to high frequency), from the .stats
  /// file; empty: each channel's mean over its unmasked samples of the first spectra masked.
  /// Error(invalid_argument) naming the mask when it is for another number of channels or
  /// another band (centres more than half a channel apart), or for data of another sample time
  /// (dtint not ptsperint samples of this file, to 0.1%).
  SampleMasker(PrestoMask mask, std::vector<float> pad, const SigprocHeader& header, std::string mask_path);

  /// Replaces the masked samples of `n` spectra (whole bytes each) whose first is sample `first`
  /// of the file (counted from its first sample, as rfifind counts). Samples after the mask's
  /// last interval have only the channels masked throughout replaced.
  void apply(std::uint8_t* spectra, std::size_t n, std::uint64_t first);

  /// Pads with these values (file order) from now on: PRESTO's padding while it clips is the
  /// clipper's running channel averages (TimeClipper::channel_levels), not the .stats values.
  void set_padding(const std::vector<double>& levels);
  /// Says (in describe()) that set_padding will give the padding: a clipper runs.
  void expect_clipper_padding() { pad_source_ = PadSource::clipper; }

  /// True when every sample of the n from `first` on has every channel masked (PRESTO skips its
  /// clipping for such a block).
  [[nodiscard]] bool wholly_masked(std::uint64_t first, std::size_t n);

  [[nodiscard]] std::uint64_t values_replaced() const { return replaced_; }
  [[nodiscard]] std::uint64_t values_seen() const { return seen_; }
  /// "obs_rfifind.mask: 12 intervals of 2400 samples, 40 channels masked throughout, ...".
  [[nodiscard]] std::string describe() const;

 private:
  const std::vector<std::uint32_t>& channels_of(std::uint64_t interval);
  void pad_from_data(const std::uint8_t* spectra, std::size_t n, std::uint64_t first);
  // Takes `values` (file order) as the padding, with their packed bit patterns.
  template <typename T>
  void use_padding(const std::vector<T>& values);
  [[nodiscard]] std::uint32_t file_channel(int mask_channel) const {
    return static_cast<std::uint32_t>(flipped_ ? nchans_ - 1 - mask_channel : mask_channel);
  }

  enum class PadSource { data, stats, clipper };

  PrestoMask mask_;
  std::string path_;
  int nchans_ = 0;
  int nbits_ = 8;
  bool is_signed_ = false;
  bool flipped_ = false;             // the file's channel 0 is the highest: file channel = nchans-1-mask's
  std::vector<float> pad_;           // per file channel
  std::vector<std::uint32_t> code_;  // pad_ packed as the file's samples (bit pattern)
  PadSource pad_source_ = PadSource::data;
  std::uint64_t cached_interval_ = UINT64_MAX;
  std::vector<std::uint32_t> cached_;  // file channels masked in cached_interval_
  std::vector<std::uint32_t> throughout_;
  std::uint64_t replaced_ = 0;
  std::uint64_t seen_ = 0;
};

/// The masker for `mask_path` and the data of `header`: the mask, and the padding values of the
/// .stats file beside it when there is one (else a warning: each channel's mean of the data is
/// used). Warns when the mask's start is more than an interval from the data's (tstart).
SampleMasker open_rfifind_mask(const std::string& mask_path, const SigprocHeader& header);

}  // namespace fastpsr
