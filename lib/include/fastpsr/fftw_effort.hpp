// SPDX-License-Identifier: MIT
#pragma once
/// How hard the CPU paths' FFTW planner tries (the tools' --fftw option).
#include <optional>
#include <string_view>

namespace fastpsr {

/// estimate: a plan from FFTW's heuristics, the same in every run; measure / patient: the
/// fastest of the algorithms FFTW times, which can differ from run to run (and so round
/// differently) unless kept as wisdom (fastpsr/cpu/fftw_planning.hpp).
enum class FftwEffort { estimate, measure, patient };

/// "estimate", "measure" or "patient"; nothing for anything else.
std::optional<FftwEffort> parse_fftw_effort(std::string_view name) noexcept;

}  // namespace fastpsr
