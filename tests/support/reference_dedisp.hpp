// SPDX-License-Identifier: MIT
#pragma once
/// The plain double-precision dedispersion reference every backend is compared with.
#include <cstdint>
#include <vector>

#include "fastpsr/dedisp.hpp"

namespace fastpsr::test {

/// Unpacks `nin` input samples (packed at the plan's nbits) and returns the DM-time output of
/// the definition in dedisp.hpp, summed in double and rounded once to float32:
/// ndms rows of `nout` samples, where nout = nin / D - plan.max_delay (none if negative).
/// With `zero_pad`, the input is extended by zeros and every DM gets nin / D - min_dm_max_delay samples.
std::vector<float> reference_dedisperse(const DedispPlan& plan, const std::vector<std::uint8_t>& packed,
                                        std::size_t nin, std::size_t& nout, bool zero_pad = false);

}  // namespace fastpsr::test
