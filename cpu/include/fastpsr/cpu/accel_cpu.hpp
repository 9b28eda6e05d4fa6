// SPDX-License-Identifier: MIT
#pragma once
#include <memory>

#include "fastpsr/accel.hpp"

namespace fastpsr::cpu {

/// The FFTW + OpenMP searcher: overlap-save correlation of every template with the spectrum
/// (segments of options.fft_len points, auto when 0), powers stored as the whole f-fdot plane
/// (4 bytes per (rk, z) point from the lowest sub-harmonic needed up to rk_end), then harmonic
/// sums and thresholds fused in one pass that writes only hits. Throws Error(invalid_argument)
/// for a bad problem or an FFT length shorter than twice the widest template.
std::unique_ptr<FdotSearcher> make_fdot_searcher(const AccelSearchProblem& problem, const AccelSearchOptions& options);

}  // namespace fastpsr::cpu
