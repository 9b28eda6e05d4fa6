// SPDX-License-Identifier: MIT
#pragma once
/// Plain folding and matched-filter S/N for tests of injected pulsars: the double-precision
/// yardstick against which fake-pulsar's documented S/N (and later search tools) are checked.
#include <cstddef>
#include <functional>
#include <vector>

namespace fastpsr::test {

/// A folded profile: per bin the sum of the values folded into it and their number.
struct FoldedProfile {
  std::vector<double> sum;
  std::vector<double> count;
};

/// Folds data[k * stride + c] (k < nsamples, c < nchans) into nbins bins of the phase
/// phase(k, c) (cycles; only its fraction matters).
FoldedProfile fold(const float* data, std::size_t nsamples, std::size_t nchans, std::size_t stride, int nbins,
                   const std::function<double(std::size_t k, std::size_t c)>& phase);

/// The matched-filter S/N of `data` against the noise-free `tmpl` folded the same way, for data
/// whose values have noise variance `variance`: sum_j u_j (F_j - n_j mean(F)) /
/// sqrt(variance sum_j n_j u_j^2), with u_j = T_j / n_j - mean(T). Its mean is sqrt(sum_j n_j u_j^2 /
/// variance) (what template_snr returns) and its standard deviation 1.
double matched_filter_snr(const FoldedProfile& data, const FoldedProfile& tmpl, double variance);
/// The S/N the template itself reaches with noise of `variance`.
double template_snr(const FoldedProfile& tmpl, double variance);

}  // namespace fastpsr::test
