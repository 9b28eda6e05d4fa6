// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "fastpsr/accel_stats.hpp"
#include "fastpsr/error.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {
// ln Q(M, x) for integer M by the closed form e^-x sum_{k<M} x^k/k!, summed in logs.
double log_q_integer(int m, double x) {
  double best = -INFINITY;
  std::vector<double> terms;
  for (int k = 0; k < m; ++k) {
    terms.push_back(k * std::log(x) - std::lgamma(k + 1.0));
    best = std::max(best, terms.back());
  }
  double s = 0.0;
  for (double t : terms) s += std::exp(t - best);
  return -x + best + std::log(s);
}
}  // namespace

TEST_CASE("accel stats: Gaussian tail and its inverse against known values") {
  CHECK(gaussian_q(1.96) == doctest::Approx(0.024997895148220435).epsilon(1e-13));
  CHECK(gaussian_q(0.0) == doctest::Approx(0.5).epsilon(1e-15));
  CHECK(gaussian_q_inverse(0.025) == doctest::Approx(1.959963984540054).epsilon(1e-13));
  CHECK(gaussian_q_inverse(1e-10) == doctest::Approx(6.361340902404056).epsilon(1e-12));
  CHECK(gaussian_q_inverse(0.5) == doctest::Approx(0.0).epsilon(1e-15));
  CHECK(gaussian_q_inverse(0.9) == doctest::Approx(-1.2815515655446004).epsilon(1e-12));
  for (double p : {0.4, 0.1, 1e-3, 1e-7, 1e-20, 1e-100, 1e-300}) {
    CAPTURE(p);
    CHECK(gaussian_q(gaussian_q_inverse(p)) == doctest::Approx(p).epsilon(1e-12));
  }
  CHECK(std::isinf(gaussian_q_inverse(0.0)));
}

TEST_CASE("accel stats: incomplete gamma against closed forms") {
  for (double x : {0.01, 0.3, 1.0, 2.5, 7.0, 30.0, 120.0}) {
    CAPTURE(x);
    // Q(1/2, x) = erfc(sqrt x); Q(a+1, x) = Q(a, x) + x^a e^-x / Gamma(a+1).
    const double q05 = std::erfc(std::sqrt(x));
    const double q15 = q05 + std::exp(0.5 * std::log(x) - x - std::lgamma(1.5));
    const double q25 = q15 + std::exp(1.5 * std::log(x) - x - std::lgamma(2.5));
    CHECK(gamma_q(0.5, x) == doctest::Approx(q05).epsilon(1e-12));
    CHECK(gamma_q(1.5, x) == doctest::Approx(q15).epsilon(1e-12));
    CHECK(gamma_q(2.5, x) == doctest::Approx(q25).epsilon(1e-12));
    CHECK(gamma_p(2.5, x) + gamma_q(2.5, x) == doctest::Approx(1.0).epsilon(1e-14));
  }
  CHECK(chi2_q(10.0, 2.0) == doctest::Approx(std::exp(-5.0)).epsilon(1e-14));
  CHECK(chi2_q(10.0, 4.0) == doctest::Approx(6.0 * std::exp(-5.0)).epsilon(1e-14));
  for (int m : {1, 2, 8, 32}) {
    for (double x : {0.5, 5.0, 40.0, 300.0, 5000.0, 1e6}) {
      CAPTURE(m);
      CAPTURE(x);
      CHECK(log_gamma_q(m, x) == doctest::Approx(log_q_integer(m, x)).epsilon(1e-12));
    }
  }
}

TEST_CASE("accel stats: chi2 inverse is the inverse") {
  for (double dof : {2.0, 4.0, 16.0, 64.0}) {
    for (double q : {0.5, 1e-3, 1e-9, 1e-30}) {
      CAPTURE(dof);
      CAPTURE(q);
      const double x = chi2_q_inverse(q, dof);
      CHECK(std::log(chi2_q(x, dof)) == doctest::Approx(std::log(q)).epsilon(1e-12));
    }
  }
  // 2 dof: Q = e^{-x/2} exactly.
  CHECK(chi2_q_inverse(1e-6, 2.0) == doctest::Approx(-2.0 * std::log(1e-6)).epsilon(1e-13));
}

TEST_CASE("accel stats: thresholds far in the tail, where Q(sigma) underflows") {
  // ln Q against the exact value where erfc is still a normal double, and continuous across the
  // switch to the asymptotic series at 37.
  for (double x : {5.0, 20.0, 30.0, 36.9}) {
    CAPTURE(x);
    CHECK(log_gaussian_q(x) == doctest::Approx(std::log(gaussian_q(x))).epsilon(1e-12));
  }
  CHECK(log_gaussian_q(37.0) == doctest::Approx(std::log(gaussian_q(37.0))).epsilon(1e-12));
  CHECK(log_gaussian_q(40.0) < log_gaussian_q(37.0));
  CHECK(gaussian_q(40.0) < std::numeric_limits<double>::min());  // where the old threshold failed
  // The threshold power of a sigma the old code could not invert (q = 0): its sigma is the sigma
  // asked for, to the accuracy of the A&S form equivalent_gaussian_sigma uses beyond ln p = -600
  // (~5e-4 absolute).
  for (double sigma : {38.0, 40.0, 60.0, 100.0}) {
    for (int numsum : {1, 8, 32}) {
      for (double trials : {1.0, 1e9}) {
        CAPTURE(sigma);
        CAPTURE(numsum);
        CAPTURE(trials);
        const double p = power_for_sigma(sigma, numsum, trials);
        REQUIRE(std::isfinite(p));
        CHECK(candidate_sigma(p, numsum, trials) == doctest::Approx(sigma).epsilon(2e-5));
      }
    }
  }
  // Below the underflow the threshold is the one of before, bit for bit (PRESTO's hits).
  CHECK(power_for_sigma(6.0, 8, 1e7) == 0.5 * chi2_q_inverse(gaussian_q(6.0) / 1e7, 16.0));
  CHECK(chi2_q_inverse_log(std::log(1e-6), 2.0) == chi2_q_inverse(1e-6, 2.0));
  CHECK_THROWS_AS((void)chi2_q_inverse_log(0.5, 2.0), Error);
}

TEST_CASE("accel stats: sigma and thresholds follow PRESTO's definitions") {
  // Single trial, 1 harmonic: P = -ln p for 2 dof, so sigma = Qinv(e^-P).
  CHECK(candidate_sigma(10.0, 1, 1.0) == doctest::Approx(gaussian_q_inverse(std::exp(-10.0))).epsilon(1e-12));
  CHECK(candidate_sigma(0.0, 4, 10.0) == 0.0);
  CHECK(candidate_sigma(0.5, 1, 1e6) == 0.0);  // a negative sigma is clamped
  for (int numsum : {1, 2, 8, 32}) {
    for (double trials : {1.0, 1e4, 6e7}) {
      CAPTURE(numsum);
      CAPTURE(trials);
      const double p = power_for_sigma(3.0, numsum, trials);
      CHECK(candidate_sigma(p, numsum, trials) == doctest::Approx(3.0).epsilon(1e-9));
    }
  }
  // Above chi2 = 1200 PRESTO switches to A&S asymptotic forms: continuous with the exact tail to
  // well below the printed precision.
  const double below = candidate_sigma(599.99, 1, 100.0);
  const double above = candidate_sigma(600.01, 1, 100.0);
  CHECK(above - below == doctest::Approx(0.00058).epsilon(0.05));
  CHECK(accel_numindep(2, 16383, 1, 0, 8) == 2047);
  CHECK(accel_numindep(134, 1048575, 201, 0, 1) == static_cast<std::int64_t>((1048575.0 - 134) * 202 * (2 / 6.95)));
}

TEST_CASE("accel stats: sigmas of PRESTO's .txtcand lines are reproduced" * doctest::skip(!test::have_shared_data())) {
  // Each line: power (%.2f), sigma (%.4f), numharm, r, f, z, w. The trials come from the
  // search: -zmax 0/200, rlo = floor(T), rhi = numbins - 1 (fhi above Nyquist).
  struct Case {
    const char* file;
    double rlo, rhi;
    int numz;
  };
  const auto dir = *test::shared_data_dir() / "peer-outputs";
  int checked = 0;
  for (const Case& c : {Case{"small/small_DM62.50_red_ACCEL_0.txtcand", 2, 16383, 1},
                        Case{"small/small_DM62.50_red_ACCEL_200.txtcand", 2, 16383, 201},
                        Case{"iso/iso_DM62.50_ACCEL_200.txtcand", 134, 1048575, 201}}) {
    std::ifstream in(dir / c.file);
    REQUIRE(in.good());
    std::string line;
    while (std::getline(in, line)) {
      double power = 0, sigma = 0;
      int numharm = 0;
      std::istringstream ss(line);
      ss >> power >> sigma >> numharm;
      const auto trials = static_cast<double>(accel_numindep(c.rlo, c.rhi, c.numz, 0, numharm));
      // The power is printed to 0.005: allow the sigma that rounding can move.
      const double s_lo = candidate_sigma(power - 0.005, numharm, trials);
      const double s_hi = candidate_sigma(power + 0.005, numharm, trials);
      CAPTURE(line);
      // PRESTO keeps sigma in a float: allow its rounding too.
      const double tol = 6e-5 + 1.2e-7 * sigma;
      CHECK(sigma >= s_lo - tol);
      CHECK(sigma <= s_hi + tol);
      ++checked;
    }
  }
  CHECK(checked > 1000);
}
