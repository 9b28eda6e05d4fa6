// SPDX-License-Identifier: MIT
#include "fastpsr/sim/pulse_profile.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "fast_floor.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr::sim {
namespace {

constexpr double kMinDuty = 1.0 / 65536.0;
constexpr std::size_t kMinNodes = 4096;
constexpr std::size_t kMaxNodes = std::size_t{1} << 21;
// ln(1e12): the smooth shapes are cut where they fall below 1e-12 of the peak.
constexpr double kLnCut = 27.631021115928547;
// Window widths below these are treated as zero: a difference of running integrals over a
// narrower window would lose more to rounding than the window changes the value.
constexpr double kMinWidth = 1e-9;
constexpr double kMinWidthProduct = 1e-10;

double frac(double x) { return detail::fraction(x); }

}  // namespace

ProfileShape parse_profile_shape(std::string_view text) {
  if (text == "boxcar") return ProfileShape::boxcar;
  if (text == "gaussian") return ProfileShape::gaussian;
  if (text == "vonmises" || text == "von-mises") return ProfileShape::von_mises;
  throw Error(ErrorCode::invalid_argument, fmt::format("profile '{}' is not one of boxcar, gaussian, vonmises", text));
}

std::string_view to_string(ProfileShape s) {
  switch (s) {
    case ProfileShape::boxcar:
      return "boxcar";
    case ProfileShape::gaussian:
      return "gaussian";
    case ProfileShape::von_mises:
      return "vonmises";
  }
  return "?";
}

PulseProfile::PulseProfile(ProfileShape shape, double duty_cycle) : shape_(shape), duty_(duty_cycle) {
  const double max_duty = shape == ProfileShape::boxcar ? 1.0 : 0.5;
  FASTPSR_EXPECTS(
      duty_cycle >= kMinDuty && (duty_cycle < max_duty || (shape != ProfileShape::boxcar && duty_cycle == max_duty)),
      "pulse width {:g}% of the period is out of range for a {} profile ({:g}% to {}{:g}%)", 100.0 * duty_cycle,
      to_string(shape), 100.0 * kMinDuty, shape == ProfileShape::boxcar ? "below " : "", 100.0 * max_duty);
  // 128 nodes per duty cycle: the interpolant is within 3e-5 of a Gaussian of that FWHM.
  std::size_t n = kMinNodes;
  while (static_cast<double>(n) * duty_cycle < 128.0 && n < kMaxNodes) n *= 2;
  h_ = 1.0 / static_cast<double>(n);

  switch (shape) {
    case ProfileShape::boxcar:
      base_half_width_ = duty_cycle / 2 + h_;
      break;
    case ProfileShape::gaussian:
      sigma_ = duty_cycle / (2.0 * std::sqrt(2.0 * std::numbers::ln2));
      norm_ = 0.0;
      for (int k = -4; k <= 4; ++k) norm_ += std::exp(-0.5 * k * k / (sigma_ * sigma_));
      base_half_width_ = std::min(0.5, std::sqrt(2.0 * kLnCut) * sigma_ + h_);
      break;
    case ProfileShape::von_mises: {
      kappa_ = std::numbers::ln2 / (1.0 - std::cos(std::numbers::pi * duty_cycle));
      const double cos_cut = 1.0 - kLnCut / kappa_;
      base_half_width_ = cos_cut <= -1.0 ? 0.5 : std::min(0.5, std::acos(cos_cut) / (2 * std::numbers::pi) + h_);
      break;
    }
  }

  nodes_.resize(n + 1);
  double sum = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const double phi = static_cast<double>(j) * h_;
    double p = 0.0;
    if (shape == ProfileShape::boxcar) {
      // Cell average, so the tabulated area is exactly the duty cycle.
      const double w0 = 0.5 - duty_cycle / 2;
      const double w1 = 0.5 + duty_cycle / 2;
      for (int shift = -1; shift <= 1; ++shift) {
        const double lo = std::max(phi - h_ / 2 + shift, w0);
        const double hi = std::min(phi + h_ / 2 + shift, w1);
        if (hi > lo) p += (hi - lo) / h_;
      }
    } else {
      p = exact(phi);
    }
    nodes_[j].p = p;
    sum += p;
  }
  nodes_[n].p = nodes_[0].p;
  mean_ = sum / static_cast<double>(n);

  // Running integrals of the piecewise-linear interpolant, cell by cell (exact polynomials).
  double c = 0.0;
  double cbar = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const double pj = nodes_[j].p - mean_;
    const double dj = nodes_[j + 1].p - nodes_[j].p;
    nodes_[j].c = c;
    cbar += h_ * (c + h_ * (pj / 2 + dj / 6));
    c += h_ * (pj + dj / 2);
  }
  double g = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const double pj = nodes_[j].p - mean_;
    const double dj = nodes_[j + 1].p - nodes_[j].p;
    nodes_[j].c -= cbar;
    nodes_[j].g = g;
    g += h_ * (nodes_[j].c + h_ * (pj / 2 + dj / 6));
  }
  nodes_[n].c = nodes_[0].c;
  nodes_[n].g = nodes_[0].g;
}

double PulseProfile::exact(double phase) const {
  const double x = frac(phase) - 0.5;  // in [-1/2, 1/2)
  switch (shape_) {
    case ProfileShape::boxcar:
      return std::abs(x) <= duty_ / 2 ? 1.0 : 0.0;
    case ProfileShape::gaussian: {
      double s = 0.0;
      for (int k = -4; k <= 4; ++k) s += std::exp(-0.5 * (x - k) * (x - k) / (sigma_ * sigma_));
      return s / norm_;
    }
    case ProfileShape::von_mises:
      return std::exp(kappa_ * (std::cos(2 * std::numbers::pi * x) - 1.0));
  }
  return 0.0;
}

double PulseProfile::value(double phase) const {
  const double n = static_cast<double>(nodes_.size() - 1);
  const double x = frac(phase) * n;
  const auto j = std::min(static_cast<std::size_t>(x), nodes_.size() - 2);
  const double u = x - static_cast<double>(j);
  return nodes_[j].p + (nodes_[j + 1].p - nodes_[j].p) * u;
}

double PulseProfile::first_integral(double phase) const {
  const double n = static_cast<double>(nodes_.size() - 1);
  const double x = frac(phase) * n;
  const auto j = std::min(static_cast<std::size_t>(x), nodes_.size() - 2);
  const double u = x - static_cast<double>(j);
  const Node& a = nodes_[j];
  const double d = nodes_[j + 1].p - a.p;
  return a.c + h_ * u * ((a.p - mean_) + d * u / 2);
}

double PulseProfile::second_integral(double phase) const {
  const double n = static_cast<double>(nodes_.size() - 1);
  const double x = frac(phase) * n;
  const auto j = std::min(static_cast<std::size_t>(x), nodes_.size() - 2);
  const double u = x - static_cast<double>(j);
  const Node& a = nodes_[j];
  const double d = nodes_[j + 1].p - a.p;
  return a.g + h_ * u * (a.c + h_ * u * ((a.p - mean_) / 2 + d * u / 6));
}

double PulseProfile::box(double phase, double a) const {
  return mean_ + (first_integral(phase + a / 2) - first_integral(phase - a / 2)) / a;
}

double PulseProfile::smoothed(double phase, double a, double b) const {
  if (b > a) std::swap(a, b);
  if (a < kMinWidth) return value(phase);
  if (b < std::max(kMinWidth, kMinWidthProduct / a)) return box(phase, a);
  const double s = (a + b) / 2;
  const double t = (a - b) / 2;
  const double second =
      second_integral(phase + s) - second_integral(phase + t) - second_integral(phase - t) + second_integral(phase - s);
  return mean_ + second / (a * b);
}

double PulseProfile::swept_integral(double phase, double b) const {
  if (b < kMinWidth) return first_integral(phase);
  return (second_integral(phase + b / 2) - second_integral(phase - b / 2)) / b;
}

double PulseProfile::support_half_width(double a, double b) const { return base_half_width_ + (a + b) / 2; }

}  // namespace fastpsr::sim
