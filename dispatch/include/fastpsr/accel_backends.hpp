// SPDX-License-Identifier: MIT
#pragma once
/// The run-time choice of the acceleration searcher's backend.
#include <memory>

#include "fastpsr/accel.hpp"
#include "fastpsr/device.hpp"

namespace fastpsr {

/// The FdotSearcher of the chosen backend (cpu::make_fdot_searcher or cuda::make_fdot_searcher).
/// Throws Error(unsupported) when the choice is a GPU and this build's CUDA backend has no
/// acceleration search.
std::unique_ptr<FdotSearcher> make_fdot_searcher(const AccelSearchProblem& problem, const AccelSearchOptions& options,
                                                 const DeviceChoice& device);
/// True when make_fdot_searcher can serve Backend::cuda in this build.
bool cuda_accel_available() noexcept;

}  // namespace fastpsr
