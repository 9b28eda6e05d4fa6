// SPDX-License-Identifier: MIT
#include "fastpsr/accel_stats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "fastpsr/error.hpp"

namespace fastpsr {
namespace {
// ln Gamma(x) by lgamma_r: lgamma (std::lgamma) also writes the global signgam, a data race when
// several threads compute sigmas (the candidate optimisation, the trial pipeline's stages).
double log_gamma(double x) {
  int sign = 0;
  return ::lgamma_r(x, &sign);
}
}  // namespace

namespace {

constexpr double kEps = 1e-16;
constexpr int kMaxIterations = 100000;

// P(a, x) by its power series, for x < a + 1; returns the sum and ln of its prefactor.
double gamma_series(double a, double x, double& log_prefactor) {
  double term = 1.0 / a;
  double sum = term;
  for (int n = 1; n < kMaxIterations; ++n) {
    term *= x / (a + n);
    sum += term;
    if (std::fabs(term) < std::fabs(sum) * kEps) break;
  }
  log_prefactor = -x + a * std::log(x) - log_gamma(a);
  return sum;
}

// Q(a, x) by its continued fraction (modified Lentz), for x >= a + 1.
double gamma_fraction(double a, double x, double& log_prefactor) {
  constexpr double tiny = 1e-300;
  double b = x + 1.0 - a;
  double c = 1.0 / tiny;
  double d = 1.0 / b;
  double h = d;
  for (int i = 1; i < kMaxIterations; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < kEps) break;
  }
  log_prefactor = -x + a * std::log(x) - log_gamma(a);
  return h;
}

void check_gamma_args(double a, double x) {
  FASTPSR_EXPECTS(a > 0.0 && x >= 0.0 && std::isfinite(a), "incomplete gamma: need a > 0 and x >= 0, got a={} x={}", a,
                  x);
}

// Acklam's rational approximation of the lower-tail normal quantile (relative error < 1.2e-9),
// refined below with Halley steps against erfc.
double normal_quantile_estimate(double p) {
  static constexpr std::array<double, 6> a{-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                                           1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr std::array<double, 5> b{-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                           6.680131188771972e+01, -1.328068155288572e+01};
  static constexpr std::array<double, 6> c{-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                           -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr std::array<double, 4> d{7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                           3.754408661907416e+00};
  constexpr double p_low = 0.02425;
  if (p < p_low) {
    const double q = std::sqrt(-2.0 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  }
  if (p > 1.0 - p_low) return -normal_quantile_estimate(1.0 - p);
  const double q = p - 0.5;
  const double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

}  // namespace

double gamma_p(double a, double x) {
  check_gamma_args(a, x);
  if (x == 0.0) return 0.0;
  double lp = 0.0;
  if (x < a + 1.0) {
    const double s = gamma_series(a, x, lp);
    return std::exp(std::log(s) + lp);
  }
  const double h = gamma_fraction(a, x, lp);
  return -std::expm1(std::log(h) + lp);
}

double gamma_q(double a, double x) { return std::exp(log_gamma_q(a, x)); }

// ln Q(m, x) for a whole m by the finite sum Q = e^-x sum_{k<m} x^k/k!: exact, no iteration
// (the sigma of every search hit goes through here). Summed from its largest end: forwards
// from k = 0 when x <= m, else backwards from k = m-1, so that nothing overflows.
double log_gamma_q_whole(int m, double x) {
  if (x <= m) {
    double t = 1.0;
    double sum = 1.0;
    for (int k = 1; k < m; ++k) {
      t *= x / k;
      sum += t;
    }
    return -x + std::log(sum);
  }
  double u = 1.0;
  double sum = 1.0;
  for (int j = 1; j < m; ++j) {
    u *= (m - j) / x;
    sum += u;
  }
  return -x + (m - 1) * std::log(x) - log_gamma(static_cast<double>(m)) + std::log(sum);
}

double log_gamma_q(double a, double x) {
  check_gamma_args(a, x);
  if (x == 0.0) return 0.0;
  if (a == std::floor(a) && a <= 64.0) return log_gamma_q_whole(static_cast<int>(a), x);
  double lp = 0.0;
  if (x < a + 1.0) {
    const double s = gamma_series(a, x, lp);
    return std::log1p(-std::exp(std::log(s) + lp));
  }
  const double h = gamma_fraction(a, x, lp);
  return std::log(h) + lp;
}

double chi2_q(double chi2, double dof) { return gamma_q(0.5 * dof, 0.5 * chi2); }

double chi2_q_inverse(double q, double dof) {
  FASTPSR_EXPECTS(q > 0.0 && q <= 1.0 && dof > 0.0, "chi2_q_inverse: need 0 < q <= 1 and dof > 0, got q={} dof={}", q,
                  dof);
  return chi2_q_inverse_log(std::log(q), dof);
}

double chi2_q_inverse_log(double log_q, double dof) {
  FASTPSR_EXPECTS(log_q <= 0.0 && std::isfinite(log_q) && dof > 0.0,
                  "chi2_q_inverse_log: need a finite ln q <= 0 and dof > 0, got ln q={} dof={}", log_q, dof);
  if (log_q == 0.0) return 0.0;
  const double a = 0.5 * dof;
  const double target = log_q;
  // In the gamma variable x = chi2/2: bracket the root of f(x) = ln Q(a, x) - ln q (decreasing in x), then Newton with
  // bisection.
  double lo = 0.0;
  double hi = std::max(1.0, a);
  while (log_gamma_q(a, hi) > target) {
    lo = hi;
    hi *= 2.0;
  }
  double x = 0.5 * (lo + hi);
  for (int i = 0; i < 200; ++i) {
    const double lq = log_gamma_q(a, x);
    const double f = lq - target;
    if (f > 0.0) {
      lo = x;
    } else {
      hi = x;
    }
    // d/dx ln Q(a, x) = -x^(a-1) e^-x / (Gamma(a) Q)
    const double dlq = -std::exp((a - 1.0) * std::log(x) - x - log_gamma(a) - lq);
    double next = x - f / dlq;
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::fabs(next - x) <= 1e-15 * x) return 2.0 * next;
    x = next;
  }
  return 2.0 * x;
}

double gaussian_q(double x) { return 0.5 * std::erfc(x / std::sqrt(2.0)); }

double log_gaussian_q(double x) {
  // erfc stays a normal double up to x ~ 37.5; beyond, the asymptotic series of the Mills ratio,
  // Q(x) = phi(x) / x * (1 - 1/x^2 + 3/x^4 - 15/x^6 + ...), whose terms fall below 1e-13 by the
  // sixth at x >= 37.
  if (x < 37.0) return std::log(gaussian_q(x));
  const double y = 1.0 / (x * x);
  const double series = 1.0 - y * (1.0 - 3.0 * y * (1.0 - 5.0 * y * (1.0 - 7.0 * y * (1.0 - 9.0 * y))));
  return -0.5 * x * x - std::log(x) - 0.5 * std::log(2.0 * M_PI) + std::log(series);
}

double gaussian_q_inverse(double p) {
  if (p <= 0.0) return std::numeric_limits<double>::infinity();
  if (p >= 1.0) return -std::numeric_limits<double>::infinity();
  // Work on the lower tail: Phi(x) = p_lower, result is -x for the upper tail.
  double x = normal_quantile_estimate(p);
  {  // one Halley step takes Acklam's 1e-9 to full precision
    const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
    const double u = e * std::sqrt(2.0 * M_PI) * std::exp(0.5 * x * x);
    x -= u / (1.0 + 0.5 * x * u);
  }
  return -x;
}

namespace {

// A&S 6.5.32: ln Gamma(a, z) for large z (the series terminates for integer a: then exact).
double log_asymptotic_incomplete_gamma(double a, double z) {
  double sum = 1.0;
  double term = 1.0;
  double part = 1.0;
  for (int i = 1; std::fabs(part) > 1e-15; ++i) {
    term *= (a - i);
    part = term / std::pow(z, i);
    sum += part;
  }
  return (a - 1.0) * std::log(z) - z + std::log(sum);
}

// A&S 6.1.41: Stirling's series for ln Gamma(z) with four correction terms.
double log_asymptotic_gamma(double z) {
  const double y = 1.0 / (z * z);
  const double base = (z - 0.5) * std::log(z) - z + 0.91893853320467267;
  return base + (((-5.9523809523809529e-4 * y + 7.9365079365079365079365e-4) * y - 2.7777777777777777777778e-3) * y +
                 8.3333333333333333333333e-2) /
                    z;
}

}  // namespace

double chi2_logp(double chi2, double dof) {
  if (chi2 <= 0.0) return -std::numeric_limits<double>::infinity();
  if (chi2 > 1200.0 || (dof > 30.0 && chi2 > 100.0)) {
    return log_asymptotic_incomplete_gamma(0.5 * dof, 0.5 * chi2) - log_asymptotic_gamma(0.5 * dof);
  }
  return std::log(chi2_q(chi2, dof));
}

double equivalent_gaussian_sigma(double logp) {
  double x = 0.0;
  if (logp < -600.0) {
    const double t = std::sqrt(-2.0 * logp);
    const double num = 2.515517 + t * (0.802853 + t * 0.010328);
    const double den = 1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308));
    x = t - num / den;
  } else {
    x = gaussian_q_inverse(std::exp(logp));
  }
  return x < 0.0 ? 0.0 : x;
}

double candidate_sigma(double power, int numsum, double numtrials) {
  if (power <= 0.0) return 0.0;
  double logp = chi2_logp(2.0 * power, 2.0 * numsum);
  logp += std::log(numtrials);
  return equivalent_gaussian_sigma(logp);
}

double power_for_sigma(double sigma, int numsum, double numtrials) {
  const double q = gaussian_q(sigma) / numtrials;
  if (q >= std::numeric_limits<double>::min()) return 0.5 * chi2_q_inverse(q, 2.0 * numsum);
  // Far in the tail (sigma above ~37, or fewer with many trials) q is no longer a normal double;
  // the same root from ln q, which PRESTO's GSL call cannot give (it fails there).
  return 0.5 * chi2_q_inverse_log(log_gaussian_q(sigma) - std::log(numtrials), 2.0 * numsum);
}

std::int64_t accel_numindep(double rlo, double rhi, int numz, int numw, int numharm) {
  const double dz = 2.0;  // PRESTO's ACCEL_DZ
  double n = 0.0;
  if (numz == 1 && numw == 0) {
    n = (rhi - rlo) / numharm;
  } else if (numz > 1 && numw == 0) {
    // The numz+1 covers the little search beyond +-zmax (PRESTO's comment).
    n = (rhi - rlo) * (numz + 1) * (dz / 6.95) / numharm;
  } else {
    n = (rhi - rlo) * (numz + 1) * (dz / 6.95) * (numw + 1) * (20.0 / 44.2) / numharm;
  }
  return static_cast<std::int64_t>(n);
}

}  // namespace fastpsr
