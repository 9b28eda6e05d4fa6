// SPDX-License-Identifier: MIT
#pragma once
/// A stretch of an observation with no data, read as zeros: rows missing from a PSRFITS file
/// (its OFFS_SUB says where each row starts) or the time between two files of one observation,
/// which PRESTO's tools pad the same way.
#include <cstdint>
#include <vector>

namespace fastpsr {

struct SampleGap {
  std::uint64_t first = 0;  ///< the first padded sample, counted from the source's first sample
  std::uint64_t count = 0;  ///< padded samples
  friend bool operator==(const SampleGap&, const SampleGap&) = default;
};

/// `gaps` (in order, disjoint) shifted by `offset` samples, each joined to the previous one where
/// they touch: the gaps of a sequence of sources.
void append_gaps(std::vector<SampleGap>& into, const std::vector<SampleGap>& gaps, std::uint64_t offset);

}  // namespace fastpsr
