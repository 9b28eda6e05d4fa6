// SPDX-License-Identifier: MIT
#include "fastpsr/fftw_effort.hpp"

namespace fastpsr {

std::optional<FftwEffort> parse_fftw_effort(std::string_view name) noexcept {
  if (name == "estimate") return FftwEffort::estimate;
  if (name == "measure") return FftwEffort::measure;
  if (name == "patient") return FftwEffort::patient;
  return std::nullopt;
}

}  // namespace fastpsr
