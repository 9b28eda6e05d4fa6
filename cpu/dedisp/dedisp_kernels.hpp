// SPDX-License-Identifier: MIT
#pragma once
// The inner dedispersion kernel of the CPU backend and its per-ISA entry points.
//
// Input rows are channel-major (one row per kept channel, time contiguous), already
// downsampled and offset to unsigned values. A task (DM tile x time tile) is done in passes
// over blocks of channels, so that a block's row segments stay in L1/L2 while every DM of the
// tile reads them. Within a pass, for NDM DMs and NV vectors of time the accumulators stay in
// registers while the kernel walks the block's channels: each step is one unaligned vector
// load and one add per accumulator (SIMD over time, registers over DMs). Integer lanes wrap
// only if a block holds too many channels, so the block is at most `group` channels (the most
// whose sum fits the lane); pass results are added into wider totals in a per-thread buffer.
// Float input is accumulated in double.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fastpsr::cpu::dedisp_detail {

/// Row element / total types the backend uses.
enum class RowType { u16_total_u32, u16_total_u64, u32_total_u64, f32_total_f64 };

struct KernelArgs {
  const void* rows = nullptr;  ///< nk rows; element k*row_len + t is channel k, sample t
  /// Row offsets in DM blocks of the variant's dm_block DMs: offsets[(b * nk + k) * dm_block + d]
  /// = k * row_len + delay of DM b * dm_block + d in channel k. The DM count is padded to a
  /// whole block (padding DMs repeat the last one; their output is not stored).
  const std::uint32_t* offsets = nullptr;
  std::size_t nk = 0;          ///< kept channels
  std::size_t group = 0;       ///< channels per lane-safe partial sum
  std::size_t chan_block = 0;  ///< channels walked per pass over the task (<= group): their rows stay in cache
  std::size_t dm_begin = 0;    ///< first DM of this task (a multiple of dm_block)
  std::size_t dm_end = 0;      ///< one past the last DM (a multiple of dm_block)
  std::size_t ndms = 0;        ///< DMs with output rows (DMs >= ndms are padding)
  std::size_t t_begin = 0;     ///< first output sample, as a row position
  std::size_t t_end = 0;       ///< one past the last output sample, as a row position
  float* out = nullptr;        ///< out[dm * out_stride + (t - t_begin) + out_col]
  std::size_t out_stride = 0;
  std::size_t out_col = 0;
  std::int64_t bias = 0;  ///< subtracted from every integer total (signed input)
};

/// The most time samples one kernel step computes: rows are padded by this much so that the
/// last step may read past the data.
inline constexpr std::size_t kMaxStepSamples = 256;

using KernelFn = void (*)(const KernelArgs&);

struct KernelVariant {
  std::string_view isa;  ///< "avx512", "avx2", "generic"
  KernelFn fn = nullptr;
  std::size_t dm_block = 0;      ///< DMs accumulated in registers at once
  std::size_t step_samples = 0;  ///< time samples per kernel step
};

/// The kernel for `type` compiled for `isa` ("avx512", "avx2" or "generic") with `dm_block`
/// DMs per register block (0: the variant's default; else one of 1, 4, 8, 16); the caller checks
/// that the CPU supports the ISA.
KernelVariant kernel_for(RowType type, std::string_view isa, std::size_t dm_block = 0);

/// Stage 1 of the two-stage (subband) path, on unsigned integer rows:
/// out[g * out_row_len + t] = sum over the rows k of subband g (first[g] <= k < first[g + 1]) of
/// rows[(k - first_row) * row_len + shift[k] + t], for t < n. The caller makes sure that the sums fit.
struct SubbandSumArgs {
  const void* rows = nullptr;  ///< channel rows (uint8, uint16 or uint32) first_row, first_row + 1, ...
  std::size_t row_len = 0;
  std::size_t first_row = 0;           ///< the channel (kept index) of rows' first row
  const std::size_t* first = nullptr;  ///< nsub + 1 kept-channel indices
  std::size_t nsub = 0;
  const std::uint32_t* shift = nullptr;  ///< per row: its delay within its subband
  void* out = nullptr;                   ///< nsub rows (uint16 or uint32)
  std::size_t out_row_len = 0;
  std::size_t n = 0;
};

using SubbandSumFn = void (*)(const SubbandSumArgs&);

/// The stage-1 sum from channel rows of `in_bytes` to subband rows of `out_bytes` (1 -> 2,
/// 2 -> 2 or 4 -> 4) compiled for `isa`.
SubbandSumFn subband_sum_for(std::size_t in_bytes, std::size_t out_bytes, std::string_view isa);

}  // namespace fastpsr::cpu::dedisp_detail
