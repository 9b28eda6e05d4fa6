// SPDX-License-Identifier: MIT
#pragma once
#include <memory>

#include "fastpsr/dedisp.hpp"

namespace fastpsr::cpu {

/// The OpenMP + SIMD dedisperser (integer accumulation for nbits <= 16).
std::unique_ptr<Dedisperser> make_dedisperser(const DedispPlan& plan, const DedispOptions& options);

}  // namespace fastpsr::cpu
