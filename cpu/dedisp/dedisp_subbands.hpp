// SPDX-License-Identifier: MIT
#pragma once
// The two-stage (subband) path of the CPU backend. Where the plan's delays split as
//   delay[i][kept[k]] = dm_delay[i][g] + chan_delay[k]   for every DM i and channel k of subband g
// (exactly what prepsubband -nsub N rounding gives), the channel sum can be done in two exact
// integer stages: stage 1 sums each subband's channels, shifted by chan_delay, once for all
// DMs; stage 2 is the ordinary dedispersion kernel over the subband rows with dm_delay. The
// integer sums are the same, so the output is bit-identical to the direct sum, with
// nk + ndms * nsub adds per sample instead of ndms * nk.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "dedisp_kernels.hpp"
#include "dedisp_rows.hpp"
#include "fastpsr/dedisp.hpp"

namespace fastpsr::cpu::dedisp_detail {

struct SubbandSplit {
  std::vector<std::size_t> first;         ///< nsub + 1 entries: subband g is kept channels [first[g], first[g + 1])
  std::vector<std::uint32_t> chan_delay;  ///< per kept channel: delay within its subband (0 for the least delayed)
  std::vector<std::int32_t> dm_delay;     ///< [i * nsub + g]: delay of subband g at DM i
  std::size_t max_chan_delay = 0;
  std::int32_t max_dm_delay = 0;
  [[nodiscard]] std::size_t nsub() const noexcept { return first.size() - 1; }
};

/// The coarsest split of the kept channels (in order) into runs of at most `max_channels`
/// whose delays differ by the same amount at every DM of the plan. Exact for any plan: runs of
/// one channel always qualify.
SubbandSplit find_subband_split(const DedispPlan& plan, const std::vector<int>& kept, std::size_t max_channels);

/// Stage 1, streamed: appends downsampled input samples and writes the subband samples they
/// complete (subband sample t needs channel samples up to t + max_chan_delay) into the rows
/// of the stage-2 kernel. The last max_chan_delay samples' packed spectra are carried to the
/// next call. Each thread unpacks a chunk of time of all channels into its own staging rows
/// (sized for L2), then sums them into the subband rows, so the channel rows never reach memory.
/// Where all channels' staging rows would pass 16 MiB (millions of channels), a thread unpacks
/// and sums them a block of whole subbands at a time.
class SubbandStage {
 public:
  /// `in.kept` must outlive the stage. elem_bytes: 2 or 4, the subband rows' element (the sums
  /// of a subband must fit it). chunk: subband samples per staging block (0: from the cache size).
  /// block_channels: kept channels staged at once, in whole subbands (at least one subband; 0:
  /// all that fit 16 MiB of staging rows).
  SubbandStage(const InputFormat& in, SubbandSplit split, std::size_t elem_bytes, std::string_view isa,
               std::size_t chunk, std::size_t block_channels = 0);

  /// Subband samples that appending n_ds more downsampled samples completes.
  [[nodiscard]] std::size_t completes(std::size_t n_ds) const noexcept;
  /// Appends n_ds downsampled samples (n_ds * downsample packed spectra; nullptr: zeros) and
  /// writes the completes(n_ds) subband samples they complete at position `pos` of the rows of
  /// `dst` (nsub rows), on the threads of `team`. Returns that count.
  std::size_t append(const std::uint8_t* packed, std::size_t n_ds, const RowsTarget& dst, std::size_t pos,
                     WorkerTeam& team);

  [[nodiscard]] const SubbandSplit& split() const noexcept { return split_; }
  /// Downsampled channel samples appended so far.
  [[nodiscard]] std::uint64_t channel_samples() const noexcept { return nchan_; }
  [[nodiscard]] std::size_t chunk() const noexcept { return chunk_; }
  /// Blocks of subbands staged at once (1: all channels at once).
  [[nodiscard]] std::size_t blocks() const noexcept { return blocks_.size() - 1; }
  [[nodiscard]] std::size_t host_bytes(int threads) const noexcept;

 private:
  struct Scratch {                      // one per thread, kept between calls
    std::vector<std::uint8_t> spectra;  // a chunk's packed input where it starts in the carried samples
    std::vector<std::uint32_t> rows;    // staging rows (storage in 4-byte words)
  };
  void run_chunk(const std::uint8_t* packed, std::size_t a, std::size_t b, const RowsTarget& dst, std::size_t pos,
                 Scratch& scratch) const;
  // Staging row: a chunk and the delays within a subband; + 32: no power-of-two row stride.
  [[nodiscard]] std::size_t staging_row_len() const noexcept { return chunk_ + split_.max_chan_delay + 32; }

  InputFormat in_;
  SubbandSplit split_;
  std::size_t elem_bytes_;   // subband rows
  std::size_t stage_bytes_;  // staging (channel) rows: 1 where the samples fit a byte, else elem_bytes_
  SubbandSumFn sum_;
  std::size_t chunk_;
  std::size_t spb_;                  // packed bytes of one downsampled sample
  std::vector<std::uint8_t> carry_;  // packed spectra of the channel samples not yet summed
  std::size_t ncarry_ = 0;           // downsampled samples in carry_
  std::uint64_t nchan_ = 0;          // downsampled channel samples appended
  std::uint64_t nsub_done_ = 0;      // subband samples written
  std::vector<Scratch> scratch_;
  std::vector<std::size_t> blocks_;           // block b: subbands [blocks_[b], blocks_[b + 1])
  std::vector<std::vector<int>> block_kept_;  // with several blocks: each one's kept channels
  std::size_t staging_rows_ = 0;              // channels of the largest block
};

}  // namespace fastpsr::cpu::dedisp_detail
