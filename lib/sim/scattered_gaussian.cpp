// SPDX-License-Identifier: MIT
#include "fastpsr/sim/scattered_gaussian.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "fastpsr/error.hpp"

namespace fastpsr::sim {
namespace {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }
double normal_pdf(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi); }

}  // namespace

double erfcx(double z) {
  if (z < 20.0) return std::exp(z * z) * std::erfc(z);
  // Asymptotic series; the first omitted term is below 3e-12 relative at z = 20.
  const double r = 1.0 / (z * z);
  return (1.0 - r / 2 * (1.0 - 1.5 * r * (1.0 - 2.5 * r * (1.0 - 3.5 * r)))) / (z * std::sqrt(std::numbers::pi));
}

ScatteredGaussian::ScatteredGaussian(double sigma_s, double tau_s) : sigma_(sigma_s), tau_(tau_s) {
  FASTPSR_EXPECTS(sigma_s > 0.0 && std::isfinite(sigma_s), "pulse width must be positive, got sigma = {} s", sigma_s);
  FASTPSR_EXPECTS(tau_s >= 0.0 && std::isfinite(tau_s), "scattering time must be >= 0, got {} s", tau_s);
}

double ScatteredGaussian::tail(double t) const {
  if (tau_ == 0.0) return 0.0;
  const double x = t / sigma_;
  const double ls = sigma_ / tau_;
  if (x >= ls) return std::exp(ls * (ls / 2 - x)) * normal_cdf(x - ls);
  return 0.5 * erfcx((ls - x) / std::numbers::sqrt2) * std::exp(-0.5 * x * x);
}

double ScatteredGaussian::pdf(double t) const {
  if (tau_ == 0.0) return normal_pdf(t / sigma_) / sigma_;
  return tail(t) / tau_;
}

double ScatteredGaussian::cdf(double t) const { return normal_cdf(t / sigma_) - tail(t); }

double ScatteredGaussian::second_integral(double t) const {
  const double x = t / sigma_;
  return sigma_ * (x * normal_cdf(x) + normal_pdf(x)) - tau_ * cdf(t);
}

double ScatteredGaussian::smoothed(double t, double a, double b) const {
  if (b > a) std::swap(a, b);
  // Widths too small for a difference of integrals to resolve are treated as zero.
  const double w = sigma_ + tau_;
  if (a < 1e-9 * w) return pdf(t);
  if (b < std::max(1e-9 * w, 3e-9 * w * w / a)) return (cdf(t + a / 2) - cdf(t - a / 2)) / a;
  const double s = (a + b) / 2;
  const double d = (a - b) / 2;
  return (second_integral(t + s) - second_integral(t + d) - second_integral(t - d) + second_integral(t - s)) / (a * b);
}

double ScatteredGaussian::peak() const {
  if (tau_ == 0.0) return pdf(0.0);
  // The maximum lies between the Gaussian's peak and tau later; golden-section search.
  double lo = 0.0;
  double hi = std::min(tau_, 3 * sigma_) + sigma_;
  const double g = (std::sqrt(5.0) - 1.0) / 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * (sigma_ + tau_); ++i) {
    const double m1 = hi - g * (hi - lo);
    const double m2 = lo + g * (hi - lo);
    if (pdf(m1) < pdf(m2)) {
      lo = m1;
    } else {
      hi = m2;
    }
  }
  return pdf((lo + hi) / 2);
}

}  // namespace fastpsr::sim
