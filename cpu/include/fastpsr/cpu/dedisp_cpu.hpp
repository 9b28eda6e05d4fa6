// SPDX-License-Identifier: MIT
#pragma once
#include <map>
#include <memory>
#include <string>

#include "fastpsr/dedisp.hpp"

namespace fastpsr::cpu {

/// The SIMD dedisperser on its own worker threads (integer accumulation for nbits <= 16; an
/// exact two-stage subband sum where the delays split, as prepsubband -nsub rounds them).
std::unique_ptr<Dedisperser> make_dedisperser(const DedispPlan& plan, const DedispOptions& options);
/// Throws Error(invalid_argument) for an unknown key or a malformed value of
/// DedispOptions::cpu_config (not for a level this CPU lacks: make_dedisperser checks that). The
/// GPU path calls it too, so that a mistyped --cpu-config fails wherever dedisp runs.
void check_dedisp_cpu_config(const std::map<std::string, std::string>& config);

}  // namespace fastpsr::cpu
