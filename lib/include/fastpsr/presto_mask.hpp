// SPDX-License-Identifier: MIT
#pragma once
/// PRESTO's rfifind masks (`<root>_rfifind.mask`) and the channel averages of the statistics file
/// beside them (`<root>_rfifind.stats`), which PRESTO's -mask puts in place of masked samples.
/// Layout (native byte order, little-endian on every machine PRESTO runs on): doubles timesigma,
/// freqsigma, mjd, dtint, lofreq, dfreq; int32 numchan, numint, ptsperint; int32 count and the
/// channels masked in every interval; int32 count and the intervals masked in every channel;
/// int32 numint counts of channels masked per interval; then, for each interval whose count is
/// neither 0 nor numchan (all channels, no list), that many channel numbers. Channel 0 is the
/// lowest frequency (rfifind's order, whatever the file's).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fastpsr {

struct PrestoMask {
  double time_sigma = 0.0;
  double freq_sigma = 0.0;
  double mjd = 0.0;         ///< of the first sample of the data rfifind read
  double interval_s = 0.0;  ///< dtint: seconds in an interval
  double lofreq_mhz = 0.0;  ///< centre of the lowest channel
  double dfreq_mhz = 0.0;   ///< channel width (positive)
  int nchans = 0;
  int nintervals = 0;
  int samples_per_interval = 0;  ///< ptsperint
  std::vector<int> zap_chans;    ///< masked in every interval (rfifind's order)
  std::vector<int> zap_ints;     ///< every channel masked
  /// Channels masked in each interval (rfifind's order), nintervals lists; an interval whose
  /// count was numchan holds every channel.
  std::vector<std::vector<int>> chans;
};

/// Reads an rfifind .mask. Error(io) naming the path if it cannot be read; Error(format) naming it
/// for a file that is short, long, or holds counts or channel numbers out of range.
PrestoMask read_presto_mask(const std::string& path);

/// The statistics file PRESTO reads beside a mask: the mask's name with its last suffix replaced
/// by ".stats" (obs_rfifind.mask -> obs_rfifind.stats), or nullopt if the name has no suffix.
std::optional<std::string> rfifind_stats_path(const std::string& mask_path);

/// PRESTO's padding values from an rfifind .stats file (int32 numchan, numint, ptsperint, lobin,
/// numbetween; float32 numint x numchan powers, then averages, then standard deviations): for
/// each channel (rfifind's order) the mean of the middle 80% of its interval averages, sorted.
/// Error(format) naming the file for one whose sizes do not match `nchans` or its length.
std::vector<float> read_rfifind_pad_values(const std::string& stats_path, int nchans);

}  // namespace fastpsr
