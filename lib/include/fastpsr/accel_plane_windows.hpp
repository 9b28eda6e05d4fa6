// SPDX-License-Identifier: MIT
#pragma once
/// The block search (both backends): which plane points the harmonic sums of a block of rk read,
/// term by term, so that only those are computed and kept (PRESTO's default search, where its
/// -inmem keeps the whole plane). The definitions are accel.hpp's (sub_rk, sub_z).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace fastpsr {

/// A term of the harmonic sums: the plane at fraction h/H of the highest harmonic. Term 0 is the
/// highest harmonic itself (1/1); then stage s = 1, 2, ... adds its odd h/2^s, in that order.
struct SumTerm {
  int h = 1;
  int H = 1;
};
std::vector<SumTerm> sum_terms(int stages);

/// The plane points term `t` of the sums of rk in [a, b) and every z reads: rows (z indices)
/// [row_lo, row_hi] and columns (rk) [col_lo, col_hi). Exact: every such point is read by some
/// (rk, z), and no other.
struct PlaneWindow {
  std::int64_t col_lo = 0;
  std::int64_t col_hi = 0;
  int row_lo = 0;
  int row_hi = 0;
  [[nodiscard]] int rows() const noexcept { return row_hi - row_lo + 1; }
  [[nodiscard]] std::int64_t cols() const noexcept { return col_hi - col_lo; }
};
PlaneWindow term_window(const SumTerm& t, int zmax, std::int64_t a, std::int64_t b) noexcept;

/// The most columns term t's window takes for a block of `width` rk, wherever the block starts.
std::int64_t term_pitch(const SumTerm& t, std::int64_t width) noexcept;

/// Bytes of float32 windows for every term of blocks of `width` rk.
std::size_t block_window_bytes(const std::vector<SumTerm>& terms, int zmax, std::int64_t width) noexcept;

/// The widest block of whole `chunk`s (at most enough of them to cover `range` rk) for which
/// `fits(width)` holds, found by bisection: `fits` must hold for every width below one it holds
/// for (window bytes grow with the width). 0 where even one chunk does not fit.
std::int64_t widest_fitting_block(std::int64_t range, std::int64_t chunk,
                                  const std::function<bool(std::int64_t)>& fits);

/// One overlap-save segment a block needs: the plane rows to correlate (the union of the rows of
/// the terms whose windows it writes) and those terms (bit t of `terms`).
struct SegmentJob {
  std::int64_t segment = 0;
  int row_lo = 0;
  int row_hi = 0;
  std::uint64_t terms = 0;
};
/// The segments writing the windows, in segment order. Segment s writes the rk whose output
/// index o (rk for Fourier interpolation, floor(rk / 2) for interbinning) satisfies
/// floor((o - o_lo) / use) = s.
std::vector<SegmentJob> segment_jobs(const std::vector<PlaneWindow>& windows, std::int64_t o_lo, std::int64_t use,
                                     bool interbin);

}  // namespace fastpsr
