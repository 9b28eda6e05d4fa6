// SPDX-License-Identifier: MIT
#pragma once
/// Periodic pulse profiles of unit peak, centred on rotational phase 1/2 (as SIGPROC's fake
/// puts its pulse), and their averages over the phase spans a sample and a channel cover.
///
/// Shapes, for a duty cycle d (fraction of the period, 0 < d < 1; <= 1/2 for the smooth ones):
///   boxcar     p = 1 for |phi - 1/2| <= d/2, else 0 (SIGPROC fake's pulse; d is the full width)
///   gaussian   p = sum_k exp(-(phi - 1/2 - k)^2 / (2 s^2)) / norm, s = d / (2 sqrt(2 ln 2))
///              (d is the FWHM; the wrapped sum is normalised to peak 1)
///   vonmises   p = exp(kappa (cos(2 pi (phi - 1/2)) - 1)), kappa = ln 2 / (1 - cos(pi d))
///              (d is the FWHM exactly)
///
/// Internally the profile is its piecewise-linear interpolant on N = 2^k >= 128/d nodes (at most
/// 2^21, at least 4096; for the
/// boxcar the node values are cell averages, so its area is exactly d). The first and second
/// running integrals of that interpolant are exact piecewise polynomials, so averages over one
/// or two box windows (sample integration, intra-channel dispersion smearing) are exact
/// differences of them, whatever the window widths.
#include <string_view>
#include <vector>

namespace fastpsr::sim {

enum class ProfileShape { boxcar, gaussian, von_mises };

/// "boxcar", "gaussian" or "vonmises" (also "von-mises"); Error(invalid_argument) otherwise.
ProfileShape parse_profile_shape(std::string_view text);
std::string_view to_string(ProfileShape s);

class PulseProfile {
 public:
  /// Error(invalid_argument) when the duty cycle is out of range or below 2^-16.
  PulseProfile(ProfileShape shape, double duty_cycle);

  [[nodiscard]] ProfileShape shape() const noexcept { return shape_; }
  [[nodiscard]] double duty_cycle() const noexcept { return duty_; }
  /// Mean over one period (the area of the unit-peak profile).
  [[nodiscard]] double mean() const noexcept { return mean_; }
  /// The analytic shape at `phase` (cycles, any real number).
  [[nodiscard]] double exact(double phase) const;
  /// The tabulated profile at `phase`.
  [[nodiscard]] double value(double phase) const;
  /// The profile averaged over a box of width a convolved with a box of width b (cycles, >= 0),
  /// centred on `phase`: the mean of p over a sample of a cycles in a channel whose dispersion
  /// smearing spans b cycles. Widths of zero give value().
  [[nodiscard]] double smoothed(double phase, double a, double b) const;
  /// The running integral of (p - mean) averaged over a box of width b centred on `phase`.
  /// The mean of p over a sample spanning phases [phi0, phi1] in a channel whose dispersion
  /// sweep spans b cycles is mean() + (swept_integral(phi1, b) - swept_integral(phi0, b)) /
  /// (phi1 - phi0): consecutive samples share a boundary, so each needs one new evaluation.
  [[nodiscard]] double swept_integral(double phase, double b) const;
  /// Half-width (cycles) around phase 1/2 outside of which smoothed(., a, b) is zero (below
  /// 1e-12 of the peak for the smooth shapes); >= 1/2 means the whole period.
  [[nodiscard]] double support_half_width(double a, double b) const;
  /// Number of nodes of the table.
  [[nodiscard]] std::size_t nodes() const noexcept { return nodes_.size() - 1; }

 private:
  struct Node {
    double p;  // profile value
    double c;  // first running integral of (p - mean), minus its own mean
    double g;  // running integral of c
  };
  [[nodiscard]] double first_integral(double phase) const;
  [[nodiscard]] double second_integral(double phase) const;
  [[nodiscard]] double box(double phase, double a) const;

  ProfileShape shape_;
  double duty_;
  double mean_ = 0.0;
  double sigma_ = 0.0;  // gaussian
  double kappa_ = 0.0;  // von Mises
  double norm_ = 1.0;   // gaussian wrap normalisation
  double base_half_width_ = 0.0;
  double h_ = 0.0;           // node spacing, cycles
  std::vector<Node> nodes_;  // N + 1 nodes; the last repeats the first
};

}  // namespace fastpsr::sim
