// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "fastpsr/error.hpp"
#include "fastpsr/sim/phase_model.hpp"
#include "fastpsr/sim/source_spec.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;
using namespace fastpsr::sim;

namespace {

constexpr double kC = 299792458.0;

// Composite Simpson integral of the model's apparent frequency over [0, t].
double integrated_frequency(const PhaseModel& m, double t, int n = 20000) {
  const double h = t / n;
  double s = m.apparent_frequency(0.0) + m.apparent_frequency(t);
  for (int i = 1; i < n; ++i) s += (i % 2 == 1 ? 4.0 : 2.0) * m.apparent_frequency(i * h);
  return s * h / 3.0;
}

// Second derivative of the phase by central differences: the apparent fdot a search sees.
double phase_curvature(const PhaseModel& m, double t, double h) {
  return (m.phase(t + h) - 2.0 * m.phase(t) + m.phase(t - h)) / (h * h);
}

}  // namespace

TEST_CASE("phase model: spin polynomial is the integral of its frequency") {
  SpinModel s;
  s.f_hz = 211.123456789;
  s.fdot = -3.7e-5;
  s.t_ref_s = 300.0;
  s.phase0 = 0.25;
  const PhaseModel m(s, std::nullopt, PhaseLaw::integrated);
  CHECK(m.phase(0.0) == doctest::Approx(0.25));
  for (double t : {1.0, 123.4, 600.0}) {
    CAPTURE(t);
    CHECK(m.phase(t) - m.phase(0.0) == doctest::Approx(integrated_frequency(m, t)).epsilon(1e-12));
    CHECK(m.apparent_frequency(t) == doctest::Approx(s.f_hz + s.fdot * (t - s.t_ref_s)).epsilon(1e-14));
  }
  CHECK(phase_curvature(m, 200.0, 1.0) == doctest::Approx(s.fdot).epsilon(1e-6));
}

TEST_CASE("phase model: accn, pdot, fdot and z give the documented fdot and epoch") {
  const double tobs = 600.0;
  PulsarOptions o;
  o.period_ms = 4.0;
  o.accn = 10.0;  // away from us: the period grows
  PulsarSpec a = make_pulsar_spec(o, tobs);
  const double f = 250.0;
  CHECK(a.spin.fdot == doctest::Approx(-10.0 * f / kC).epsilon(1e-14));
  const PhaseModel ma(a.spin, a.orbit, a.law);
  CHECK(ma.apparent_frequency(tobs / 2) == doctest::Approx(f).epsilon(1e-15));  // period given at the middle
  CHECK(phase_curvature(ma, tobs / 2, 10.0) == doctest::Approx(a.spin.fdot).epsilon(1e-5));
  // PRESTO's z = fdot T^2 is what a search over the whole observation finds.
  const double z = a.spin.fdot * tobs * tobs;
  CHECK(z < 0.0);
  o.accn.reset();
  o.z = z;
  const PulsarSpec fromz = make_pulsar_spec(o, tobs);
  CHECK(fromz.spin.fdot == doctest::Approx(a.spin.fdot).epsilon(1e-14));
  o.z.reset();
  o.pdot = 1e-15;
  const PulsarSpec p = make_pulsar_spec(o, tobs);
  CHECK(p.spin.fdot == doctest::Approx(-1e-15 * f * f).epsilon(1e-12));
  CHECK(p.spin.t_ref_s == 0.0);  // SIGPROC's -pdot: period at the start
  o.fdot = 1e-6;
  CHECK_THROWS_WITH_AS(make_pulsar_spec(o, tobs), doctest::Contains("at most one"), Error);
}

TEST_CASE("phase model: Kepler's equation and the Roemer delay") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    KeplerOrbit o;
    o.pb_s = 3600.0 * (0.5 + 20 * uni(gen));
    o.x_lts = 0.1 + 5 * uni(gen);
    o.ecc = 0.95 * uni(gen);
    o.omega_rad = 2 * std::numbers::pi * uni(gen);
    o.t_peri_s = o.pb_s * uni(gen);
    CAPTURE(o.ecc);
    for (int j = 0; j < 10; ++j) {
      const double t = 1e5 * (uni(gen) - 0.3);
      const double e = o.eccentric_anomaly(t);
      double m = 2 * std::numbers::pi * (t - o.t_peri_s) / o.pb_s;
      m -= 2 * std::numbers::pi * std::floor(m / (2 * std::numbers::pi) + 0.5);
      CHECK(e - o.ecc * std::sin(e) == doctest::Approx(m).epsilon(1e-12).scale(1.0));
      const double h = 1e-3 * o.pb_s / 1000;
      const double dr = (o.roemer_delay_s(t + h) - o.roemer_delay_s(t - h)) / (2 * h);
      CHECK(o.velocity_over_c(t) == doctest::Approx(dr).epsilon(1e-6).scale(1e-9));
      // The same velocity in the (true anomaly) form SIGPROC uses.
      const double nu = 2 * std::atan(std::sqrt((1 + o.ecc) / (1 - o.ecc)) * std::tan(e / 2));
      const double v = 2 * std::numbers::pi / o.pb_s * o.x_lts / std::sqrt(1 - o.ecc * o.ecc) *
                       (std::cos(o.omega_rad + nu) + o.ecc * std::cos(o.omega_rad));
      CHECK(o.velocity_over_c(t) == doctest::Approx(v).epsilon(1e-9).scale(1e-9));
    }
  }
}

TEST_CASE("phase model: a binary's phase is the integral of the Doppler-shifted frequency") {
  KeplerOrbit o;
  o.pb_s = 1800.0;
  o.x_lts = 1.2;
  o.ecc = 0.4;
  o.omega_rad = 1.0;
  o.t_peri_s = 300.0;
  SpinModel s;
  s.f_hz = 322.5;
  s.fdot = 1e-8;
  const PhaseModel m(s, o, PhaseLaw::integrated);
  CHECK(m.emission_time(0.0) == 0.0);
  for (double t : {100.0, 1000.0, 4000.0}) {
    CAPTURE(t);
    CHECK(m.phase(t) - m.phase(0.0) == doctest::Approx(integrated_frequency(m, t, 200000)).epsilon(1e-12));
    // Light travel: t = te + R(te) - R(0).
    const double te = m.emission_time(t);
    CHECK(te + o.roemer_delay_s(te) - o.roemer_delay_s(0.0) == doctest::Approx(t).epsilon(1e-15));
  }
  // The apparent frequency repeats with the orbit and swings by the orbital velocity.
  CHECK(m.apparent_frequency(500.0 + o.pb_s) / m.apparent_frequency(500.0) ==
        doctest::Approx(1.0 + s.fdot * o.pb_s / s.f_hz).epsilon(1e-12));
}

TEST_CASE("phase model: circular orbit amplitude and SIGPROC's mass-function orbit") {
  const KeplerOrbit o = KeplerOrbit::from_masses(3600.0, 0.0, 90.0, 0.0, 0.25, 1.4, 1.4);
  // Kepler's third law with GM_sun = 1.32712440018e20.
  const double a = std::cbrt(1.32712440018e20 * 2.8 * 3600.0 * 3600.0 / (4 * std::numbers::pi * std::numbers::pi));
  CHECK(o.x_lts == doctest::Approx(a / 2 / kC).epsilon(1e-12));
  CHECK(o.t_peri_s == 900.0);
  SpinModel s;
  s.f_hz = 1.0 / 3.9283e-3;
  const PhaseModel m(s, o, PhaseLaw::integrated);
  double fmin = 1e300;
  double fmax = 0.0;
  for (int i = 0; i < 36000; ++i) {
    const double f = m.apparent_frequency(i * 0.1);
    fmin = std::min(fmin, f);
    fmax = std::max(fmax, f);
  }
  const double k = 2 * std::numbers::pi * o.x_lts / o.pb_s;  // v/c amplitude
  CHECK(fmax == doctest::Approx(s.f_hz / (1 - k)).epsilon(1e-8));
  CHECK(fmin == doctest::Approx(s.f_hz / (1 + k)).epsilon(1e-8));
  // At the start (bphase 0.25, omega 0) the pulsar is at a node, accelerating away from us.
  CHECK(std::abs(o.velocity_over_c(0.0)) < 1e-12);
  CHECK(phase_curvature(m, 60.0, 1.0) < 0.0);
  CHECK_THROWS_AS(KeplerOrbit::from_masses(3600.0, 1.0, 90.0, 0.0, 0.0, 1.4, 1.4), Error);
  CHECK_THROWS_AS(KeplerOrbit::from_masses(3600.0, 0.0, 90.0, 0.0, 0.0, 0.0, 1.4), Error);
  CHECK_THROWS_AS(KeplerOrbit::from_masses(3600.0, 0.0, 200.0, 0.0, 0.0, 1.4, 1.4), Error);  // sin i < 0
}

TEST_CASE("phase model: SIGPROC's law t f(t) doubles the apparent fdot") {
  SpinModel s;
  s.f_hz = 250.0;
  s.fdot = -2e-4;
  s.t_ref_s = 50.0;
  const PhaseModel physical(s, std::nullopt, PhaseLaw::integrated);
  const PhaseModel sigproc(s, std::nullopt, PhaseLaw::sigproc);
  CHECK(phase_curvature(physical, 70.0, 1.0) == doctest::Approx(s.fdot).epsilon(1e-6));
  CHECK(phase_curvature(sigproc, 70.0, 1.0) == doctest::Approx(2 * s.fdot).epsilon(1e-6));
  CHECK(sigproc.phase(30.0) == doctest::Approx(30.0 * physical.apparent_frequency(30.0)).epsilon(1e-15));
}
