// SPDX-License-Identifier: MIT
#pragma once
/// The time profile of a single pulse: a Gaussian of standard deviation sigma convolved with
/// the one-sided exponential exp(-t/tau)/tau of interstellar scattering (an exponentially
/// modified Gaussian), of unit area, with the Gaussian's peak at t = 0. tau = 0 is the plain
/// Gaussian. With x = t/sigma and T(t) = exp(sigma^2/(2 tau^2) - t/tau) Phi(x - sigma/tau):
///   pdf(t) = T(t) / tau,   cdf(t) = Phi(x) - T(t),
///   second_integral(t) = int_{-inf}^t cdf = sigma (x Phi(x) + phi(x)) - tau cdf(t),
/// all evaluated without overflow for any sigma/tau (T through erfcx where it matters).
namespace fastpsr::sim {

class ScatteredGaussian {
 public:
  /// Error(invalid_argument) unless sigma > 0 and tau >= 0.
  ScatteredGaussian(double sigma_s, double tau_s);
  [[nodiscard]] double pdf(double t) const;
  [[nodiscard]] double cdf(double t) const;
  [[nodiscard]] double second_integral(double t) const;
  /// Mean of the pdf over a box of width a convolved with a box of width b (s), centred on t.
  [[nodiscard]] double smoothed(double t, double a, double b) const;
  /// The pdf is below 1e-12 of its peak (or its area beyond is below 1e-12) outside
  /// [-before(), after()].
  [[nodiscard]] double before() const noexcept { return 7.5 * sigma_; }
  [[nodiscard]] double after() const noexcept { return 7.5 * sigma_ + 28.0 * tau_; }
  [[nodiscard]] double peak() const;
  [[nodiscard]] double sigma() const noexcept { return sigma_; }
  [[nodiscard]] double tau() const noexcept { return tau_; }

 private:
  [[nodiscard]] double tail(double t) const;  // T(t)
  double sigma_;
  double tau_;
};

/// exp(z^2) erfc(z) for z >= 0, accurate to 1e-12 relative.
double erfcx(double z);

}  // namespace fastpsr::sim
