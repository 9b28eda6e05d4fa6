// SPDX-License-Identifier: MIT
#pragma once
// The inner dedispersion kernel of the CPU backend and its per-ISA entry points.
//
// Input rows are channel-major (one row per kept channel, time contiguous), already
// downsampled and offset to unsigned values. For a block of NDM DMs and NV vectors of time
// the accumulators stay in registers while the kernel walks the channels: each step is one
// unaligned vector load and one add per accumulator (SIMD over time, registers over DMs).
// Integer lanes wrap only if a group holds too many channels, so the caller sets `group`
// to the most channels whose sum fits the lane; partial sums of groups are added into wider
// totals. Float input is accumulated in double.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace fastpsr::cpu::dedisp_detail {

/// Row element / total types the backend uses.
enum class RowType { u16_total_u32, u16_total_u64, u32_total_u64, f32_total_f64 };

struct KernelArgs {
  const void* rows = nullptr;              ///< nk rows; element k*row_len + t is channel k, sample t
  const std::uint32_t* offsets = nullptr;  ///< [dm * nk + k] = k * row_len + delay[dm][k]
  std::size_t nk = 0;                      ///< kept channels
  std::size_t group = 0;                   ///< channels per lane-safe partial sum
  std::size_t dm_begin = 0;                ///< first DM of this task
  std::size_t dm_end = 0;                  ///< one past the last DM (offsets exist up to a multiple of kDmBlock)
  std::size_t ndms = 0;                    ///< DMs with output rows (rows >= ndms are padding)
  std::size_t t_begin = 0;                 ///< first output sample, as a row position
  std::size_t t_end = 0;                   ///< one past the last output sample, as a row position
  float* out = nullptr;                    ///< out[dm * out_stride + (t - t_begin) + out_col]
  std::size_t out_stride = 0;
  std::size_t out_col = 0;
  std::int64_t bias = 0;  ///< subtracted from every integer total (signed input)
};

/// DMs per register block and the most time samples one kernel step computes (the rows are
/// padded by this much so that the last step may read past the data).
inline constexpr std::size_t kDmBlock = 4;
inline constexpr std::size_t kMaxStepSamples = 256;

using KernelFn = void (*)(const KernelArgs&);

struct KernelVariant {
  std::string_view isa;  ///< "avx512", "avx2", "generic"
  KernelFn fn = nullptr;
  std::size_t step_samples = 0;  ///< time samples per kernel step
};

/// The kernel for `type` compiled for `isa` ("avx512", "avx2" or "generic"); the caller checks
/// that the CPU supports it.
KernelVariant kernel_for(RowType type, std::string_view isa);

}  // namespace fastpsr::cpu::dedisp_detail
