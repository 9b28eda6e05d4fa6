// SPDX-License-Identifier: MIT
#include "dedisp_subbands.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "fastpsr/error.hpp"

namespace fastpsr::cpu::dedisp_detail {

SubbandSplit find_subband_split(const DedispPlan& plan, const std::vector<int>& kept, std::size_t max_channels) {
  const std::size_t nk = kept.size();
  const std::size_t ndms = plan.ndms();
  const auto nchans = static_cast<std::size_t>(plan.nchans());
  auto delay = [&](std::size_t i, std::size_t k) {
    return plan.delays[i * nchans + static_cast<std::size_t>(kept[k])];
  };
  // Channel k may join the run of k0 when its delays differ from k0's by the same amount at
  // every DM, i.e. when its column of delays relative to DM 0 equals k0's. That relation is an
  // equality, and every channel of a run has k0's column, so comparing k with k - 1 is the same
  // test: one pass over the table in its row order (DM-major). Column by column it was a strided
  // walk down ndms rows per channel: 2.5 s of a meerkat plan's set-up (10223 DMs x 4096 channels).
  std::vector<std::uint8_t> same_as_previous(nk, 1);
  if (nk > 0) same_as_previous[0] = 0;
  std::vector<std::int32_t> at_dm0(nk);
  for (std::size_t k = 0; k < nk; ++k) at_dm0[k] = delay(0, k);
  for (std::size_t i = 1; i < ndms; ++i) {
    const std::int32_t* row = plan.delays.data() + i * nchans;
    std::int32_t previous = nk > 0 ? row[kept[0]] - at_dm0[0] : 0;
    for (std::size_t k = 1; k < nk; ++k) {
      const std::int32_t relative = row[kept[k]] - at_dm0[k];
      same_as_previous[k] &= static_cast<std::uint8_t>(relative == previous);
      previous = relative;
    }
  }
  SubbandSplit s;
  s.first.push_back(0);
  std::size_t k0 = 0;
  for (std::size_t k = 1; k <= nk; ++k) {
    const bool same = k < nk && k - k0 < max_channels && same_as_previous[k] != 0;
    if (!same) {
      s.first.push_back(k);
      k0 = k;
    }
  }
  const std::size_t nsub = s.nsub();
  s.chan_delay.resize(nk);
  s.dm_delay.resize(ndms * nsub);
  std::vector<int> lowest(nsub);  // per subband: the plan channel of its least delayed member
  for (std::size_t g = 0; g < nsub; ++g) {
    // The least delayed channel is the same at every DM: the differences do not depend on it.
    std::size_t lo = s.first[g];
    for (std::size_t k = s.first[g]; k < s.first[g + 1]; ++k) {
      if (delay(0, k) < delay(0, lo)) lo = k;
    }
    for (std::size_t k = s.first[g]; k < s.first[g + 1]; ++k) {
      s.chan_delay[k] = static_cast<std::uint32_t>(delay(0, k) - delay(0, lo));
      s.max_chan_delay = std::max<std::size_t>(s.max_chan_delay, s.chan_delay[k]);
    }
    lowest[g] = kept[lo];
  }
  for (std::size_t i = 0; i < ndms; ++i) {  // in the table's row order, like the pass above
    const std::int32_t* row = plan.delays.data() + i * nchans;
    std::int32_t* out = s.dm_delay.data() + i * nsub;
    for (std::size_t g = 0; g < nsub; ++g) {
      out[g] = row[lowest[g]];
      s.max_dm_delay = std::max(s.max_dm_delay, out[g]);
    }
  }
  return s;
}

namespace {
// Staging rows per thread: about this many bytes, so that they stay in L2 between the unpack
// and the sum.
constexpr std::size_t kStagingBytes = std::size_t{256} << 10;
constexpr std::size_t kChunkAlign = 64;  // the unpack's time block
// Staging rows per thread at most, where the chunk cannot shrink further (millions of channels:
// 4,194,304 took 384 MiB a thread), by staging blocks of subbands one after the other.
constexpr std::size_t kMaxStagingBytes = std::size_t{16} << 20;
}  // namespace

SubbandStage::SubbandStage(const InputFormat& in, SubbandSplit split, std::size_t elem_bytes, std::string_view isa,
                           std::size_t chunk, std::size_t block_channels)
    : in_(in),
      split_(std::move(split)),
      elem_bytes_(elem_bytes),
      // uint8 staging where the downsampled samples fit: half the bytes to transpose and keep.
      stage_bytes_(in.nbits <= 8 && ((std::size_t{1} << in.nbits) - 1) * in.downsample <= 0xFFu && elem_bytes == 2
                       ? 1
                       : elem_bytes),
      sum_(subband_sum_for(stage_bytes_, elem_bytes, isa)),
      spb_(in.bytes_per_sample * in.downsample) {
  const std::size_t nk = in_.kept->size();
  if (chunk == 0) {
    chunk = kStagingBytes / (std::max<std::size_t>(nk, 1) * stage_bytes_);
    // The carried samples are unpacked again by every chunk: keep that a small part.
    chunk = std::max(chunk, 4 * split_.max_chan_delay);
  }
  chunk_ = std::max(kChunkAlign, (chunk + kChunkAlign - 1) / kChunkAlign * kChunkAlign);
  carry_.resize(split_.max_chan_delay * spb_);
  // Blocks of whole subbands of at most block_channels kept channels (a wider subband alone).
  const std::size_t row_bytes = staging_row_len() * stage_bytes_;
  const std::size_t limit =
      block_channels > 0 ? block_channels : std::max<std::size_t>(1, kMaxStagingBytes / row_bytes);
  const std::size_t nsub = split_.nsub();
  blocks_.push_back(0);
  for (std::size_t g = 0; g < nsub; ++g) {
    if (g > blocks_.back() && split_.first[g + 1] - split_.first[blocks_.back()] > limit) blocks_.push_back(g);
  }
  blocks_.push_back(nsub);
  for (std::size_t b = 0; b + 1 < blocks_.size(); ++b) {
    staging_rows_ = std::max(staging_rows_, split_.first[blocks_[b + 1]] - split_.first[blocks_[b]]);
  }
  if (blocks_.size() > 2) {
    for (std::size_t b = 0; b + 1 < blocks_.size(); ++b) {
      const auto from = static_cast<std::ptrdiff_t>(split_.first[blocks_[b]]);
      const auto to = static_cast<std::ptrdiff_t>(split_.first[blocks_[b + 1]]);
      block_kept_.emplace_back(in_.kept->begin() + from, in_.kept->begin() + to);
    }
  }
}

std::size_t SubbandStage::completes(std::size_t n_ds) const noexcept {
  const std::uint64_t n = nchan_ + n_ds;
  const std::uint64_t done = n > split_.max_chan_delay ? n - split_.max_chan_delay : 0;
  return static_cast<std::size_t>(done - nsub_done_);
}

std::size_t SubbandStage::host_bytes(int threads) const noexcept {
  const std::size_t staging = staging_rows_ * staging_row_len() * stage_bytes_;
  const std::size_t temp = (chunk_ + split_.max_chan_delay) * spb_;
  std::size_t tables = split_.dm_delay.size() * sizeof(std::int32_t) +
                       split_.chan_delay.size() * sizeof(std::uint32_t) + split_.first.size() * sizeof(std::size_t);
  for (const auto& kept : block_kept_) tables += kept.size() * sizeof(int);
  return tables + carry_.size() + static_cast<std::size_t>(std::max(threads, 1)) * (staging + temp);
}

// Subband samples [a, b) of this call: unpack channel samples [a, b + max_chan_delay) of the
// call's input (the carried samples, then `packed`) into this thread's staging rows, sum them.
void SubbandStage::run_chunk(const std::uint8_t* packed, std::size_t a, std::size_t b, const RowsTarget& dst,
                             std::size_t pos, Scratch& scratch) const {
  const std::size_t need = b - a + split_.max_chan_delay;
  const std::uint8_t* src = nullptr;
  std::vector<std::uint8_t>& temp = scratch.spectra;
  if (a >= ncarry_ && packed != nullptr) {
    src = packed + (a - ncarry_) * spb_;
  } else {
    temp.resize(need * spb_);
    const std::size_t from_carry = a < ncarry_ ? std::min(ncarry_, a + need) - a : 0;
    if (from_carry > 0) std::memcpy(temp.data(), carry_.data() + a * spb_, from_carry * spb_);
    const std::size_t rest = need - from_carry;
    if (rest > 0) {
      std::uint8_t* to = temp.data() + from_carry * spb_;
      if (packed != nullptr) {
        std::memcpy(to, packed + (a + from_carry - ncarry_) * spb_, rest * spb_);
      } else {
        std::memset(to, 0, rest * spb_);  // all-zero bytes are the value 0 in every integer format
      }
    }
    src = temp.data();
  }
  const std::size_t row_len = staging_row_len();
  std::vector<std::uint32_t>& staging = scratch.rows;
  staging.resize((staging_rows_ * row_len * stage_bytes_ + 3) / 4);
  for (std::size_t block = 0; block + 1 < blocks_.size(); ++block) {
    const std::size_t g0 = blocks_[block];
    const std::size_t g1 = blocks_[block + 1];
    InputFormat in = in_;
    if (!block_kept_.empty()) in.kept = &block_kept_[block];
    append_rows(in, src, need, RowsTarget{staging.data(), row_len, stage_bytes_, false}, 0, nullptr);
    SubbandSumArgs s;
    s.rows = staging.data();
    s.row_len = row_len;
    s.first_row = split_.first[g0];
    s.first = split_.first.data() + g0;
    s.nsub = g1 - g0;
    s.shift = split_.chan_delay.data();
    s.out = static_cast<std::uint8_t*>(dst.rows) + (g0 * dst.row_len + pos + a) * elem_bytes_;
    s.out_row_len = dst.row_len;
    s.n = b - a;
    sum_(s);
  }
}

std::size_t SubbandStage::append(const std::uint8_t* packed, std::size_t n_ds, const RowsTarget& dst, std::size_t pos,
                                 WorkerTeam& team) {
  FASTPSR_ASSERT(dst.elem_bytes == elem_bytes_ && ncarry_ == nchan_ - nsub_done_);
  const std::size_t m = completes(n_ds);
  const std::size_t nchunks = (m + chunk_ - 1) / chunk_;
  if (scratch_.size() < team.size()) scratch_.resize(team.size());
  team.run_dynamic(nchunks, [&](std::size_t j, std::size_t thread) {
    const std::size_t a = j * chunk_;
    run_chunk(packed, a, std::min(m, a + chunk_), dst, pos, scratch_[thread]);
  });
  // Carry the samples of this call's input from m on: the next subband samples need them.
  const std::size_t keep = ncarry_ + n_ds - m;
  FASTPSR_ASSERT(keep <= split_.max_chan_delay);
  std::size_t filled = 0;
  std::size_t from = m - std::min(m, ncarry_);  // first sample of `packed` to carry
  if (m < ncarry_) {
    filled = ncarry_ - m;
    std::memmove(carry_.data(), carry_.data() + m * spb_, filled * spb_);
  }
  if (keep > filled) {
    if (packed != nullptr) {
      std::memcpy(carry_.data() + filled * spb_, packed + from * spb_, (keep - filled) * spb_);
    } else {
      std::memset(carry_.data() + filled * spb_, 0, (keep - filled) * spb_);
    }
  }
  ncarry_ = keep;
  nchan_ += n_ds;
  nsub_done_ += m;
  return m;
}

}  // namespace fastpsr::cpu::dedisp_detail
