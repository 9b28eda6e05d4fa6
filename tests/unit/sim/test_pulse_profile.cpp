// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "fastpsr/error.hpp"
#include "fastpsr/sim/pulse_profile.hpp"
#include "fastpsr/sim/scattered_gaussian.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;
using namespace fastpsr::sim;

namespace {

// Reference averages, in double, written without the tables.
// Boxcar: the mean of a unit step over the trapezoid kernel of two boxes is a second difference
// of the step's second integral R(y) = max(y, 0)^2 / 2, summed over the periodic images.
double boxcar_reference(double duty, double phase, double a, double b) {
  auto ramp2 = [](double y) { return y > 0 ? y * y / 2 : 0.0; };
  auto step_mean = [&](double edge) {  // mean over the kernel of 1[phi + x >= edge]
    const double s = (a + b) / 2;
    const double t = (a - b) / 2;
    const double x = phase - edge;
    return (ramp2(x + s) - ramp2(x + t) - ramp2(x - t) + ramp2(x - s)) / (a * b);
  };
  phase -= std::floor(phase);
  double v = 0.0;
  for (int k = -3; k <= 3; ++k) v += step_mean(0.5 - duty / 2 + k) - step_mean(0.5 + duty / 2 + k);
  return v;
}

// Any shape: composite Simpson over both boxes of the analytic profile.
double simpson_reference(const PulseProfile& p, double phase, double a, double b, int nb = 200) {
  auto simpson = [](auto&& f, double lo, double hi, int n) {
    const double h = (hi - lo) / n;
    double s = f(lo) + f(hi);
    for (int i = 1; i < n; ++i) s += (i % 2 == 1 ? 4.0 : 2.0) * f(lo + i * h);
    return s * h / 3.0;
  };
  return simpson(
             [&](double u) {
               return simpson([&](double v) { return p.exact(phase + u + v); }, -a / 2, a / 2, 200) / a;
             },
             -b / 2, b / 2, nb) /
         b;
}

}  // namespace

TEST_CASE("profile: shapes have unit peak, the documented width, and the right area") {
  for (double duty : {0.001, 0.04, 0.25}) {
    CAPTURE(duty);
    const PulseProfile box(ProfileShape::boxcar, duty);
    CHECK(box.mean() == doctest::Approx(duty).epsilon(1e-12));
    CHECK(box.exact(0.5) == 1.0);
    const PulseProfile g(ProfileShape::gaussian, duty);
    CHECK(g.exact(0.5) == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(g.exact(0.5 + duty / 2) == doctest::Approx(0.5).epsilon(duty > 0.2 ? 0.02 : 1e-6));  // FWHM
    CHECK(
        g.mean() ==
        doctest::Approx(duty / (2 * std::sqrt(2 * std::numbers::ln2)) * std::sqrt(2 * std::numbers::pi)).epsilon(1e-4));
    const PulseProfile vm(ProfileShape::von_mises, duty);
    CHECK(vm.exact(0.5) == 1.0);
    CHECK(vm.exact(0.5 - duty / 2) == doctest::Approx(0.5).epsilon(1e-12));  // FWHM exactly
    CHECK(vm.value(0.5 + duty / 4) == doctest::Approx(vm.exact(0.5 + duty / 4)).epsilon(1e-4));
  }
  CHECK_THROWS_AS(PulseProfile(ProfileShape::boxcar, 0.0), Error);
  CHECK_THROWS_AS(PulseProfile(ProfileShape::boxcar, 1.0), Error);
  CHECK_THROWS_AS(PulseProfile(ProfileShape::gaussian, 0.6), Error);
  CHECK_THROWS_AS(PulseProfile(ProfileShape::von_mises, 1e-6), Error);
  CHECK(parse_profile_shape("vonmises") == ProfileShape::von_mises);
  CHECK_THROWS_AS(parse_profile_shape("sinc"), Error);
}

TEST_CASE("profile: box averages equal double-precision references") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  for (int trial = 0; trial < 6; ++trial) {
    const double duty = 0.01 + 0.2 * uni(gen);
    const double a = 0.002 + 0.05 * uni(gen);
    const double b = 0.002 + 0.05 * uni(gen);
    CAPTURE(duty);
    CAPTURE(a);
    CAPTURE(b);
    const PulseProfile box(ProfileShape::boxcar, duty);
    const PulseProfile gauss(ProfileShape::gaussian, duty);
    const PulseProfile vm(ProfileShape::von_mises, duty);
    for (int j = 0; j < 4; ++j) {
      const double phase = 0.5 + (uni(gen) - 0.5) * (duty + a + b) * 1.2 + std::floor(uni(gen) * 1e6);
      CAPTURE(phase);
      // The boxcar table's edges are ramps one cell h wide; smoothed by the kernel K they err by
      // about K' h^2 / 24 per edge, K' <= 1 / (a b).
      const double cell = 1.0 / static_cast<double>(box.nodes());
      CHECK(std::abs(box.smoothed(phase, a, b) - boxcar_reference(duty, phase, a, b)) < cell * cell / (a * b) + 1e-12);
      CHECK(gauss.smoothed(phase, a, b) == doctest::Approx(simpson_reference(gauss, phase, a, b)).epsilon(1e-4));
      CHECK(vm.smoothed(phase, a, b) == doctest::Approx(simpson_reference(vm, phase, a, b)).epsilon(1e-4));
      // One box, and none.
      CHECK(gauss.smoothed(phase, a, 0.0) ==
            doctest::Approx(simpson_reference(gauss, phase, a, 1e-7, 2)).epsilon(1e-4));
      CHECK(vm.smoothed(phase, 0.0, 0.0) == doctest::Approx(vm.exact(phase)).epsilon(1e-4));
      // The sample average from boundary integrals equals the centred box average (checked at
      // a small phase: far from 0 both lose ~1e-10 cycles to rounding of their arguments).
      const double centre = phase - std::floor(phase);
      const double p0 = centre - a / 2;
      const double p1 = centre + a / 2;
      for (const PulseProfile* p : {&box, &gauss, &vm}) {
        CHECK(p->mean() + (p->swept_integral(p1, b) - p->swept_integral(p0, b)) / (p1 - p0) ==
              doctest::Approx(p->smoothed(centre, a, b)).epsilon(1e-9).scale(1e-3));
      }
    }
    // Outside the support the smoothed profile vanishes.
    for (const PulseProfile* p : {&box, &gauss, &vm}) {
      const double half = p->support_half_width(a, b);
      if (half >= 0.5) continue;
      const double outside = 0.5 + half + (0.5 - half) * uni(gen);
      CHECK(std::abs(p->smoothed(outside, a, b)) < 1e-9);
    }
  }
}

TEST_CASE("scattered gaussian: pdf, cdf and second integral are consistent") {
  for (double tau : {0.0, 1e-4, 2e-3, 0.05}) {
    CAPTURE(tau);
    const ScatteredGaussian g(1e-3, tau);
    // Numerical integrals of the pdf and cdf (Simpson).
    const double lo = -g.before();
    const int n = 20000;
    const double h = (g.after() - lo) / n;
    double area = 0.0;
    double integral_cdf = 0.0;
    for (int i = 0; i <= n; ++i) {
      const double w = (i == 0 || i == n) ? 1.0 : (i % 2 == 1 ? 4.0 : 2.0);
      area += w * g.pdf(lo + i * h);
      integral_cdf += w * g.cdf(lo + i * h);
    }
    area *= h / 3;
    integral_cdf *= h / 3;
    CHECK(area == doctest::Approx(1.0).epsilon(1e-6));
    CHECK(g.cdf(g.after()) == doctest::Approx(1.0).epsilon(1e-9));
    CHECK(g.second_integral(g.after()) - g.second_integral(lo) == doctest::Approx(integral_cdf).epsilon(1e-6));
    // The mean of the EMG is tau: G(t) -> t - tau far after the pulse.
    CHECK(g.second_integral(g.after() + 1.0) == doctest::Approx(g.after() + 1.0 - tau).epsilon(1e-9));
    // Box averages against Simpson of the pdf.
    for (double t : {-1e-3, 0.0, 5e-4, 3e-3}) {
      const double a = 2e-4;
      const double b = 7e-4;
      double ref = 0.0;
      const int m = 200;
      for (int i = 0; i <= m; ++i) {
        for (int j = 0; j <= m; ++j) {
          const double wi = (i == 0 || i == m) ? 1.0 : (i % 2 == 1 ? 4.0 : 2.0);
          const double wj = (j == 0 || j == m) ? 1.0 : (j % 2 == 1 ? 4.0 : 2.0);
          ref += wi * wj * g.pdf(t - a / 2 + a * i / m - b / 2 + b * j / m);
        }
      }
      ref /= 9.0 * m * m;
      CHECK(g.smoothed(t, a, b) == doctest::Approx(ref).epsilon(1e-5));
    }
  }
  // No overflow for tau << sigma or far from the pulse.
  const ScatteredGaussian narrow_tail(1e-3, 1e-9);
  CHECK(std::isfinite(narrow_tail.pdf(-5e-3)));
  CHECK(narrow_tail.pdf(0.0) == doctest::Approx(1.0 / (1e-3 * std::sqrt(2 * std::numbers::pi))).epsilon(1e-5));
  CHECK(erfcx(30.0) == doctest::Approx(1.0 / (30.0 * std::sqrt(std::numbers::pi)) * (1 - 1.0 / 1800)).epsilon(1e-6));
}
