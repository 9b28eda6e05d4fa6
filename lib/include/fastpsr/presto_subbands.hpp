// SPDX-License-Identifier: MIT
#pragma once
/// PRESTO's subband files (prepsubband -sub; docs/formats-fastpsr.md): `<root>_DM<dm>.sub<NN>`, one file
/// per subband, lowest frequency first, each a plain run of int16 samples (native byte order:
/// little-endian here), described by one `<root>_DM<dm>.sub.inf`. That .inf describes the band
/// of the original channels (num_chan, freq = centre of the lowest channel, chan_wid), not the
/// subbands; its DM is the one the channels were shifted to within each subband.
///
/// PrestoSubbandReader reads such a set as a filterbank of nsub channels in rising frequency
/// order, channel j = subband j at the centre of its highest original channel, which is where
/// prepsubband references each subband (dispersion.c subband_delays: lofreq + (j + 1) * cps *
/// chan_wid - chan_wid). So the presto delay model applied to these channels gives exactly the
/// delays prepsubband applies to .sub input.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/presto_inf.hpp"
#include "fastpsr/spectra_source.hpp"

namespace fastpsr {

/// PRESTO's block of subband samples (presto.h SUBSBLOCKLEN): prepsubband reads .sub input in
/// blocks of this many samples, and -runavg and -clip work on those blocks.
inline constexpr std::size_t kPrestoSubbandBlock = 1024;

/// True when the file name ends in ".sub" and one or more digits (a PRESTO subband file).
bool is_presto_subband_name(std::string_view path);

/// `<root>.sub` of a subband file name ("obs_DM30.00.sub07" -> "obs_DM30.00.sub"): the .inf
/// beside it is that plus ".inf".
std::string presto_subband_inf_root(std::string_view path);

/// The name prepsubband -sub gives subband `index` of `nsub`: "<dm_root>.sub" and the index with
/// ceil(log10(nsub)) digits and at least one, zero-padded (32 subbands: sub00..sub31; 10:
/// sub0..sub9; 1: sub0).
std::string presto_subband_file_name(const std::string& dm_root, int index, int nsub);

class PrestoSubbandReader final : public SpectraSource {
 public:
  /// `files`: the subband files in any order (their numbers must run 0..n-1, one root, as the
  /// shell's `root.sub??` gives them; a `.sub.inf` among them is passed over). `run_avg`:
  /// subtract from each block of kPrestoSubbandBlock samples of a subband its mean over the block
  /// (prepsubband -runavg), blocks counted from the first sample read. Throws Error naming the
  /// file: a missing or malformed .sub.inf (or another set's among the files), a file missing
  /// from the set, a part of a larger set (names wider than prepsubband gives this count, or the
  /// next number's file beside them), files of different lengths or of an odd number of bytes, a
  /// subband count that does not divide num_chan.
  PrestoSubbandReader(const std::vector<std::string>& files, bool run_avg);

  [[nodiscard]] const SigprocHeader& header() const noexcept override { return header_; }
  [[nodiscard]] const std::string& name() const noexcept override { return name_; }
  [[nodiscard]] std::optional<std::uint64_t> nsamples() const noexcept override { return nsamples_; }
  [[nodiscard]] std::uint64_t position() const noexcept override { return position_; }
  std::size_t read_float(float* dst, std::size_t n) override;
  std::uint64_t skip(std::uint64_t n) override;

  /// Reads no more than the first `n` samples, as if the files ended there (so -runavg's last
  /// block takes no samples beyond a requested range). Before any read or skip.
  void limit_samples(std::uint64_t n);

  /// The .sub.inf as read: the band of the original channels, the DM of the subbands.
  [[nodiscard]] const PrestoInf& inf() const noexcept { return inf_; }
  [[nodiscard]] int nsub() const noexcept { return static_cast<int>(files_.size()); }
  /// The subband files, lowest frequency first.
  [[nodiscard]] const std::vector<std::string>& paths() const noexcept { return paths_; }

 private:
  bool fill_block();  // the next block of every subband; false at the end

  std::string name_;  // "<root>.sub00 .. sub31", for messages
  std::vector<std::string> paths_;
  std::vector<std::unique_ptr<ByteSource>> files_;
  PrestoInf inf_;
  SigprocHeader header_;
  std::uint64_t nsamples_ = 0;
  std::uint64_t position_ = 0;
  bool run_avg_ = false;
  bool started_ = false;       // a sample has been read: skip() then reads instead of seeking
  std::vector<float> block_;   // [sample][subband] of the current block
  std::size_t block_len_ = 0;  // samples in block_
  std::size_t block_pos_ = 0;  // samples of block_ handed out
  std::vector<std::int16_t> raw_;
};

}  // namespace fastpsr
