// SPDX-License-Identifier: MIT
#include "support/fold.hpp"

#include <algorithm>
#include <cmath>

namespace fastpsr::test {

FoldedProfile fold(const float* data, std::size_t nsamples, std::size_t nchans, std::size_t stride, int nbins,
                   const std::function<double(std::size_t, std::size_t)>& phase) {
  FoldedProfile p;
  p.sum.assign(static_cast<std::size_t>(nbins), 0.0);
  p.count.assign(static_cast<std::size_t>(nbins), 0.0);
  for (std::size_t c = 0; c < nchans; ++c) {
    for (std::size_t k = 0; k < nsamples; ++k) {
      const double ph = phase(k, c);
      const auto bin =
          std::min(static_cast<std::size_t>((ph - std::floor(ph)) * nbins), static_cast<std::size_t>(nbins - 1));
      p.sum[bin] += static_cast<double>(data[k * stride + c]);
      p.count[bin] += 1.0;
    }
  }
  return p;
}

namespace {

std::vector<double> template_shape(const FoldedProfile& t) {
  double total = 0.0;
  double n = 0.0;
  for (std::size_t j = 0; j < t.sum.size(); ++j) {
    total += t.sum[j];
    n += t.count[j];
  }
  std::vector<double> u(t.sum.size(), 0.0);
  for (std::size_t j = 0; j < u.size(); ++j) u[j] = t.count[j] > 0 ? t.sum[j] / t.count[j] - total / n : 0.0;
  return u;
}

}  // namespace

double matched_filter_snr(const FoldedProfile& data, const FoldedProfile& tmpl, double variance) {
  const auto u = template_shape(tmpl);
  double total = 0.0;
  double n = 0.0;
  for (std::size_t j = 0; j < data.sum.size(); ++j) {
    total += data.sum[j];
    n += data.count[j];
  }
  double num = 0.0;
  double den = 0.0;
  for (std::size_t j = 0; j < u.size(); ++j) {
    num += u[j] * (data.sum[j] - data.count[j] * total / n);
    den += data.count[j] * u[j] * u[j];
  }
  return num / std::sqrt(variance * den);
}

double template_snr(const FoldedProfile& tmpl, double variance) {
  const auto u = template_shape(tmpl);
  double den = 0.0;
  for (std::size_t j = 0; j < u.size(); ++j) den += tmpl.count[j] * u[j] * u[j];
  return std::sqrt(den / variance);
}

}  // namespace fastpsr::test
