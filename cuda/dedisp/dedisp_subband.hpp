// SPDX-License-Identifier: MIT
#pragma once
/// The subband kernel's plan: exact two-stage dedispersion with shared partial sums, in plain C++
/// that compiles for the device and the host (the unit tests emulate the kernel with it).
///
/// Why: the staged kernel reads one 32-bit shared-memory word (4 samples) per DM, channel and
/// word of output, so shared-memory bandwidth (32 words per clock and SM) caps it at half the
/// packed-add ceiling. Reusing a loaded word across DMs in registers needs a run-time register
/// index (the delay differences of adjacent DMs jump by one sample from channel to channel with
/// the rounding of each delay), which costs a warp-uniform indirect branch per DM and channel:
/// measured slower than the loads it saves. This kernel shares the work in shared memory instead.
///
/// Units: the kept channels, G at a time (a "unit"; the last may have fewer). For DM m and unit
/// u with channels c_0..c_{n-1}: D = min_g delay[m][c_g] and the pattern p_g = delay[m][c_g] - D.
///   out[m][t] = sum over units of Y_{u,p}[t + D],  Y_{u,p}[x] = sum_g x_D[x + p_g][c_g],
/// which is the definition reordered (integer sums are exact in any order). Adjacent DMs share
/// few patterns per unit (rounding makes p_g take one of two values, and the choices of one DM
/// are fixed by one fractional part, so at most G patterns for nearly equal DMs), so a block
/// builds each pattern row Y once in shared memory (phase A: G loads per position) and its B DMs
/// each read one Y position per unit (phase B) instead of G channel words. Y positions are pairs
/// (all, hi) of the Lanes4 partial sums of the unit's channels (dedisp_tiling.hpp): all = sum of
/// the words mod 2^32, hi = sum of their odd bytes in 16-bit lanes, so phase B adds them straight
/// into the Lanes4 accumulators; flushing counts channels as in the staged kernel.
///
/// Records (int32) per (DM block, unit), record_ints apart:
///   [0] patterns P, [1] Y positions (sum of the rows' lengths), [2..3] unused;
///   then per channel g < G: base (smallest delay over the block's DMs), span (largest - base);
///   then per pattern p < max_patterns: Y offset (positions), length W_p, and per channel g the
///   staged word a_pg where row p starts (phase A reads staged[g][a_pg + i] for position i);
///   then, from the next multiple of 4 ints (vector loads), per DM of the block the byte offset
///   8 * (Y offset + D - first D of its pattern).
/// Channel rows are staged exactly as by the staged kernel (row_window of base and span).
///
/// Measured (H100, apertif 2048 DMs x 1024 channels, 16 s; bench/results/raw/2026-11-22-h100-
/// dedisp_gpu-subband-*): bit-exact, but SLOWER than the staged kernel, so it is opt-in
/// (--gpu-config subband=4|8|16): best 60.2 ms (17.2% of the packed-add ceiling, subband=4,
/// 32x8 threads, 4x4 items, 16 channels per stage) against 40.9 ms (25.3%) staged; subband=8
/// 69.1 ms. Patterns are shared less than hoped: 9.1 per unit of 8 channels and block of 32
/// DMs on average (3.9 for units of 4), so phase A builds ~1300 Y positions per unit and block
/// for 32 x 128 DM-words; shared-memory words per sample-add fall only from 0.25 to ~0.16, and
/// the kernel is instruction-issue bound (Nsight Compute: SM throughput 55%, 5.7 cycles between
/// a warp's instructions, 16 warps per SM at 128 registers).
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "dedisp/dedisp_tiling.hpp"

namespace fastpsr::cuda::subband {

constexpr int kHeader = 4;
/// Record layout offsets for G channels per unit and at most `max_patterns` patterns.
FASTPSR_HD int chan_entry(int g) { return kHeader + 2 * g; }
FASTPSR_HD int pattern_entry(int G, int p) { return kHeader + 2 * G + p * (2 + G); }
FASTPSR_HD int dm_entry(int G, int max_patterns) { return (pattern_entry(G, max_patterns) + 3) & ~3; }
FASTPSR_HD int record_ints(int G, int max_patterns, int dms_per_block) {
  return dm_entry(G, max_patterns) + ((dms_per_block + 3) & ~3);
}

/// Channels of unit `u` (G per unit, the last one may hold fewer).
FASTPSR_HD int unit_channels(int u, int G, int nkept) { return nkept - u * G < G ? nkept - u * G : G; }

/// Phase A: the row pointers of pattern entry `e` (pattern_entry) for the unit's staged rows,
/// `row_pitch` words apart; the rows past the unit's `nch` channels read `zero_row` (row_pitch
/// zero words), so that the position loop has no branch per channel.
template <int G>
FASTPSR_HD void pattern_rows(const std::uint32_t* rows, int row_pitch, const std::int32_t* e, int nch,
                             const std::uint32_t* zero_row, const std::uint32_t* (&row)[G]) {
  FASTPSR_UNROLL
  for (int g = 0; g < G; ++g) row[g] = g < nch ? rows + g * row_pitch + e[2 + g] : zero_row;
}

/// Phase A for one Y position: the Lanes4 partial sums (all, hi) of the G rows at position i.
template <int G>
FASTPSR_HD void build_position(const std::uint32_t* const (&row)[G], int i, std::uint32_t& all, std::uint32_t& hi) {
  all = 0;
  hi = 0;
  FASTPSR_UNROLL
  for (int g = 0; g < G; ++g) {
    const std::uint32_t w = row[g][i];
    all += w;
    hi += tiling::Lanes4::odd_bytes(w);
  }
}

/// Phase A work is dealt to the warps in pieces of this many positions (two per lane, so that
/// a lane has 2 G independent loads in flight).
constexpr int kPiece = 64;

/// The accumulators of one phase-B thread: items_dm DMs x items_time words of Lanes4 sums.
template <int T, int MD>
struct ThreadTile {
  tiling::Lanes4::Partial part[MD][T];
  tiling::Lanes4::Total total[MD][T];
  int since_flush = 0;  ///< channels summed into part since the last flush

  FASTPSR_HD void flush_all() {
    FASTPSR_UNROLL
    for (int j = 0; j < MD; ++j) {
      FASTPSR_UNROLL
      for (int k = 0; k < T; ++k) tiling::Lanes4::flush(total[j][k], part[j][k]);
    }
    since_flush = 0;
  }

  /// Adds unit `q`'s Y pairs: `y` points at its Y region (pairs of words), `offsets` at the
  /// byte offsets of this thread's MD DMs; `word0` = tile_word(thread_x, 0, T). `nch` channels.
  FASTPSR_HD void add_unit(const std::uint32_t* y, const std::int32_t* offsets, int word0, int nch, int flush_chans) {
    if (since_flush + nch > flush_chans) flush_all();
    std::int32_t o[MD];
    tiling::load_offsets<MD>(offsets, o);
    FASTPSR_UNROLL
    for (int j = 0; j < MD; ++j) {
      const std::uint32_t* p = tiling::at_byte(y, o[j]) + 2 * word0;
      FASTPSR_UNROLL
      for (int k = 0; k < T; ++k) {
        std::uint32_t all, hi;
        load_pair(p + 64 * k, all, hi);
        part[j][k].all += all;
        part[j][k].hi += hi;
      }
    }
    since_flush += nch;
  }

  /// Two units at once (three-operand adds), when both fit before the next flush.
  FASTPSR_HD void add_units2(const std::uint32_t* ya, const std::int32_t* oa_p, const std::uint32_t* yb,
                             const std::int32_t* ob_p, int word0, int nch) {
    std::int32_t oa[MD], ob[MD];
    tiling::load_offsets<MD>(oa_p, oa);
    tiling::load_offsets<MD>(ob_p, ob);
    FASTPSR_UNROLL
    for (int j = 0; j < MD; ++j) {
      const std::uint32_t* pa = tiling::at_byte(ya, oa[j]) + 2 * word0;
      const std::uint32_t* pb = tiling::at_byte(yb, ob[j]) + 2 * word0;
      FASTPSR_UNROLL
      for (int k = 0; k < T; ++k) {
        std::uint32_t a_all, a_hi, b_all, b_hi;
        load_pair(pa + 64 * k, a_all, a_hi);
        load_pair(pb + 64 * k, b_all, b_hi);
        part[j][k].all += a_all + b_all;
        part[j][k].hi += a_hi + b_hi;
      }
    }
    since_flush += nch;
  }

  /// Phase B of one stage: adds units [0, nu) of the stage (unit index first_unit + uu, Y region
  /// `y + uu * 2 * y_pitch`, record `records + uu * record` with the DM offsets at `dm_entry`,
  /// this thread's first DM at `dm0`), two at a time where no flush falls between them.
  template <int G>
  FASTPSR_HD void add_stage(const std::uint32_t* y, int y_pitch, const std::int32_t* records, int record, int dm_entry,
                            int dm0, int first_unit, int nu, int nkept, int word0, int flush_chans) {
    int uu = 0;
    for (; uu + 1 < nu; uu += 2) {
      const int na = unit_channels(first_unit + uu, G, nkept);
      const int nb = unit_channels(first_unit + uu + 1, G, nkept);
      if (since_flush + na + nb > flush_chans) break;
      add_units2(y + uu * 2 * y_pitch, records + uu * record + dm_entry + dm0, y + (uu + 1) * 2 * y_pitch,
                 records + (uu + 1) * record + dm_entry + dm0, word0, na + nb);
    }
    for (; uu < nu; ++uu) {
      add_unit(y + uu * 2 * y_pitch, records + uu * record + dm_entry + dm0, word0,
               unit_channels(first_unit + uu, G, nkept), flush_chans);
    }
  }

  /// One 8-byte shared-memory load on the device (the pair is 8-byte aligned).
  FASTPSR_HD static void load_pair(const std::uint32_t* p, std::uint32_t& all, std::uint32_t& hi) {
#if defined(__CUDA_ARCH__)
    const uint2 v = *reinterpret_cast<const uint2*>(p);
    all = v.x;
    hi = v.y;
#else
    all = p[0];
    hi = p[1];
#endif
  }
};

// ---- host-side planning ----------------------------------------------------------------------

/// Records of every (DM block, unit) and the sizes the kernel's shared memory depends on.
struct UnitRecords {
  std::vector<std::int32_t> ints;  ///< [(block * units + unit) * record + ...]
  int G = 1;
  int units = 0;
  int blocks = 0;
  int record = 0;        ///< ints per record
  int max_patterns = 0;  ///< over all records
  int max_span = 0;      ///< largest channel span (staged row length = tile + span)
  int y_pitch = 0;       ///< Y positions a unit's region needs (largest sum of row lengths, even)
  double mean_patterns = 0.0;
  double mean_positions = 0.0;  ///< mean Y positions per (block, unit)
};

/// `delays[dm * nchans + chan]`, the kept channels in order; DMs `dms_per_block` at a time,
/// channels G at a time, for time tiles of `tile_words` words.
inline UnitRecords make_unit_records(const std::vector<std::int32_t>& delays, std::size_t ndms, int nchans,
                                     const std::vector<int>& kept, int dms_per_block, int G, int tile_words) {
  UnitRecords ur;
  ur.G = G;
  const int nkept = static_cast<int>(kept.size());
  ur.units = (nkept + G - 1) / G;
  ur.blocks = static_cast<int>((ndms + static_cast<std::size_t>(dms_per_block) - 1) / dms_per_block);
  auto delay = [&](std::size_t m, int k) {
    return delays[m * static_cast<std::size_t>(nchans) + static_cast<std::size_t>(kept[static_cast<std::size_t>(k)])];
  };
  struct Pattern {
    std::int64_t first = 0, last = 0;  // smallest and largest D of its DMs
    std::int64_t offset = 0;           // Y positions before its row
    int index = 0;                     // rows are numbered in order of first use
  };
  // First pass: patterns per (block, unit), to size the records.
  std::vector<std::map<std::vector<std::int32_t>, Pattern>> found(static_cast<std::size_t>(ur.blocks) *
                                                                  static_cast<std::size_t>(ur.units));
  std::int64_t y_pitch = 0;
  double positions = 0.0, patterns = 0.0;
  for (int b = 0; b < ur.blocks; ++b) {
    const std::size_t m0 = static_cast<std::size_t>(b) * static_cast<std::size_t>(dms_per_block);
    const std::size_t m1 = std::min(ndms, m0 + static_cast<std::size_t>(dms_per_block));
    for (int u = 0; u < ur.units; ++u) {
      const int nch = unit_channels(u, G, nkept);
      auto& pats = found[static_cast<std::size_t>(b) * ur.units + u];
      std::vector<std::vector<std::int32_t>> seen;
      for (std::size_t m = m0; m < m1; ++m) {
        std::int32_t d = INT32_MAX;
        for (int g = 0; g < nch; ++g) d = std::min(d, delay(m, u * G + g));
        std::vector<std::int32_t> p(static_cast<std::size_t>(nch));
        for (int g = 0; g < nch; ++g) p[static_cast<std::size_t>(g)] = delay(m, u * G + g) - d;
        auto [it, fresh] = pats.try_emplace(p, Pattern{d, d, 0});
        if (fresh) seen.push_back(p);
        it->second.first = std::min<std::int64_t>(it->second.first, d);
        it->second.last = std::max<std::int64_t>(it->second.last, d);
      }
      // Rows in order of first use, so that adjacent DMs read nearby rows.
      std::int64_t off = 0;
      for (std::size_t i = 0; i < seen.size(); ++i) {
        Pattern& pt = pats[seen[i]];
        pt.offset = off;
        pt.index = static_cast<int>(i);
        off += pt.last - pt.first + tile_words;
      }
      y_pitch = std::max(y_pitch, off);
      positions += static_cast<double>(off);
      patterns += static_cast<double>(seen.size());
      ur.max_patterns = std::max(ur.max_patterns, static_cast<int>(seen.size()));
    }
  }
  const double n = static_cast<double>(found.size());
  ur.mean_patterns = n > 0 ? patterns / n : 0.0;
  ur.mean_positions = n > 0 ? positions / n : 0.0;
  // Clamped: a pitch this large never fits shared memory, and the engine checks it.
  ur.y_pitch = static_cast<int>(std::min<std::int64_t>((y_pitch + 1) & ~std::int64_t{1}, INT32_MAX / 16));
  ur.record = record_ints(G, ur.max_patterns, dms_per_block);
  ur.ints.assign(found.size() * static_cast<std::size_t>(ur.record), 0);
  for (int b = 0; b < ur.blocks; ++b) {
    const std::size_t m0 = static_cast<std::size_t>(b) * static_cast<std::size_t>(dms_per_block);
    const std::size_t m1 = std::min(ndms, m0 + static_cast<std::size_t>(dms_per_block));
    for (int u = 0; u < ur.units; ++u) {
      const int nch = unit_channels(u, G, nkept);
      const auto& pats = found[static_cast<std::size_t>(b) * ur.units + u];
      std::int32_t* rec = ur.ints.data() + (static_cast<std::size_t>(b) * ur.units + u) * ur.record;
      std::vector<std::int32_t> base(static_cast<std::size_t>(nch));
      for (int g = 0; g < nch; ++g) {
        std::int32_t lo = INT32_MAX, hi = 0;
        for (std::size_t m = m0; m < m1; ++m) {
          lo = std::min(lo, delay(m, u * G + g));
          hi = std::max(hi, delay(m, u * G + g));
        }
        base[static_cast<std::size_t>(g)] = lo;
        rec[chan_entry(g)] = lo;
        rec[chan_entry(g) + 1] = hi - lo;
        ur.max_span = std::max(ur.max_span, hi - lo);
      }
      rec[0] = static_cast<std::int32_t>(pats.size());
      std::int64_t total = 0;
      for (const auto& [p, pt] : pats) {
        std::int32_t* e = rec + pattern_entry(G, pt.index);
        e[0] = static_cast<std::int32_t>(pt.offset);
        e[1] = static_cast<std::int32_t>(pt.last - pt.first + tile_words);
        total += e[1];
        for (int g = 0; g < nch; ++g) {
          const std::int32_t bg = base[static_cast<std::size_t>(g)];
          e[2 + g] = static_cast<std::int32_t>(pt.first + p[static_cast<std::size_t>(g)] - bg + (bg & 3));
        }
      }
      rec[1] = static_cast<std::int32_t>(std::min<std::int64_t>(total, INT32_MAX));
      for (std::size_t m = m0; m < m1; ++m) {
        std::int32_t d = INT32_MAX;
        for (int g = 0; g < nch; ++g) d = std::min(d, delay(m, u * G + g));
        std::vector<std::int32_t> p(static_cast<std::size_t>(nch));
        for (int g = 0; g < nch; ++g) p[static_cast<std::size_t>(g)] = delay(m, u * G + g) - d;
        const Pattern& pt = pats.at(p);
        const std::int64_t bytes = 8 * (pt.offset + d - pt.first);
        rec[dm_entry(G, ur.max_patterns) + static_cast<int>(m - m0)] =
            static_cast<std::int32_t>(std::min<std::int64_t>(bytes, INT32_MAX));
      }
    }
  }
  return ur;
}

}  // namespace fastpsr::cuda::subband
