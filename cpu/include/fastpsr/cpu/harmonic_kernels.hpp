// SPDX-License-Identifier: MIT
#pragma once
/// The inner loops of the CPU harmonic sums (fdot_searcher_cpu.cpp), with an AVX2 path chosen at
/// run time and a plain one that is their reference in the tests.
///
/// stretched_add: acc[i] += row[idx[i]] for i < n, where idx is a
/// "stretched" index, idx[i] = sub_rk(a + i, h, H) - lo with h < H, so it rises by 0 or 1 per
/// step and 8 consecutive indices span at most 8 values. Scalar code reads it as a gather; the
/// AVX2 path loads those (at most) 8 values with one unaligned load and places them with one
/// lane permutation (vpermps), 8 outputs at a time. The same float adds in the same order as the
/// scalar loop, so the bits are the same.
#include <cstddef>
#include <cstdint>

namespace fastpsr::cpu {

/// Plain loop, for any index (the reference of the tests).
void stretched_add_scalar(float* acc, const float* row, const std::int32_t* idx, std::size_t n) noexcept;

/// The fastest path this CPU has. Requires idx[i + 7] - idx[i] <= 7 wherever i + 7 < n, and
/// `row` readable up to row[idx[n - 1] + 7] (callers pad their rows by kStretchedPad floats).
void stretched_add(float* acc, const float* row, const std::int32_t* idx, std::size_t n) noexcept;

/// Floats a row must be readable past its last indexed value.
inline constexpr std::size_t kStretchedPad = 8;

/// The threshold test of a stage: writes every i < n with acc[i] > cut to `above`, in increasing
/// order, and returns how many (NaN is never above). Hits are rare, so the AVX2 path compares 8
/// values at once and looks at single values only in blocks that have one.
std::size_t indices_above_scalar(const float* acc, std::size_t n, float cut, std::uint32_t* above) noexcept;
std::size_t indices_above(const float* acc, std::size_t n, float cut, std::uint32_t* above) noexcept;

}  // namespace fastpsr::cpu
