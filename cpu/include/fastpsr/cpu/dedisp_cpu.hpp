// SPDX-License-Identifier: MIT
#pragma once
#include <memory>

#include "fastpsr/dedisp.hpp"

namespace fastpsr::cpu {

/// The SIMD dedisperser on its own worker threads (integer accumulation for nbits <= 16; an
/// exact two-stage subband sum where the delays split, as prepsubband -nsub rounds them).
std::unique_ptr<Dedisperser> make_dedisperser(const DedispPlan& plan, const DedispOptions& options);

}  // namespace fastpsr::cpu
