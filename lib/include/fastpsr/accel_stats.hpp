// SPDX-License-Identifier: MIT
#pragma once
/// Statistics of normalised powers: chi^2 tail probabilities, the Gaussian tail and its inverse,
/// and PRESTO's candidate sigma and power thresholds (formats.md §5.2), in double precision,
/// without GSL.
#include <cstdint>

namespace fastpsr {

/// Regularised lower and upper incomplete gamma functions P(a, x), Q(a, x) = 1 - P(a, x),
/// a > 0, x >= 0; relative accuracy ~1e-14. Q underflows to 0 far in the tail: use log_gamma_q.
double gamma_p(double a, double x);
double gamma_q(double a, double x);
/// ln Q(a, x), finite far into the tail (x up to ~1e300).
double log_gamma_q(double a, double x);

/// Upper tail of the chi^2 distribution with `dof` degrees of freedom: Q(dof/2, chi2/2).
double chi2_q(double chi2, double dof);
/// The chi2 with chi2_q(chi2, dof) == q, 0 < q <= 1 (GSL's gsl_cdf_chisq_Qinv).
double chi2_q_inverse(double q, double dof);
/// The same from ln q (finite, <= 0), for tails where q itself underflows.
double chi2_q_inverse_log(double log_q, double dof);

/// Upper tail of the standard normal, Q(x) = P(X > x) (GSL's gsl_cdf_ugaussian_Q).
double gaussian_q(double x);
/// ln Q(x), finite far beyond where Q(x) underflows (x > ~37.5).
double log_gaussian_q(double x);
/// Its inverse: x with gaussian_q(x) == p, 0 < p < 1 (GSL's gsl_cdf_ugaussian_Qinv); full double
/// precision. p <= 0 gives +inf, p >= 1 gives -inf.
double gaussian_q_inverse(double p);

/// PRESTO's chi2_logp: ln of the chi^2 tail probability, switching to the asymptotic incomplete
/// gamma expansion (A&S 6.5.32 over 6.1.41) when chi2 > 1200 or (dof > 30 and chi2 > 100).
double chi2_logp(double chi2, double dof);
/// Equivalent Gaussian sigma of a natural-log probability (A&S 26.2.23 below ln p = -600),
/// clamped at 0.
double equivalent_gaussian_sigma(double logp);
/// PRESTO's candidate_sigma: sigma of `power` summed over `numsum` normalised powers, after
/// multiplying the probability by `numtrials`. power <= 0 gives 0.
double candidate_sigma(double power, int numsum, double numtrials);
/// PRESTO's power_for_sigma: the summed power of `numsum` harmonics whose sigma, after
/// `numtrials` trials, is `sigma`.
double power_for_sigma(double sigma, int numsum, double numtrials);

/// PRESTO's number of independent trials for a stage of `numharm` harmonics (truncated like the
/// long long it stores), for a search of r in [rlo, rhi] with numz z values (and numw w values;
/// numw 0 for none).
std::int64_t accel_numindep(double rlo, double rhi, int numz, int numw, int numharm);

}  // namespace fastpsr
