// SPDX-License-Identifier: MIT
// Injected signals are found at the injected frequency and drift with the predicted sigma, and
// the real GBT pulsar is found.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "accel_pipeline_support.hpp"
#include "fastpsr/accel_stats.hpp"
#include "fastpsr/timeseries.hpp"

using namespace fastpsr;

namespace {

constexpr std::size_t kN = 1 << 17;
constexpr double kDt = 1e-3;
constexpr double kT = static_cast<double>(kN) * kDt;

// Unit-variance white noise plus a sinusoid whose phase (cycles) is phase(t).
template <typename Phase>
std::vector<float> series(std::uint64_t seed, double amplitude, Phase phase) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<float> x(kN);
  for (std::size_t i = 0; i < kN; ++i) {
    const double t = static_cast<double>(i) * kDt;
    x[i] = static_cast<float>(g(rng) + amplitude * std::cos(2.0 * M_PI * phase(t)));
  }
  return x;
}

// A sinusoid of amplitude a in unit noise has normalised power N a^2 / 4 at its matched point.
double amplitude_for_power(double p0) { return std::sqrt(4.0 * p0 / static_cast<double>(kN)); }

}  // namespace

TEST_CASE("accel injection: a constant-acceleration signal is found at its r and z with the predicted sigma") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const double r_avg = 20000.5;  // on the search grid, so that no interpolation loss applies
  const double z = 40.0;
  const double fdot = z / (kT * kT);
  const double f0 = r_avg / kT - 0.5 * fdot * kT;  // r is the mid-observation frequency
  const double p0 = 900.0;
  const auto x = series(seed, amplitude_for_power(p0), [&](double t) { return f0 * t + 0.5 * fdot * t * t; });
  AccelConfig c;
  c.zmax = 60;
  c.numharm = 1;
  // Without de-reddening: its 100-bin medians are raised by a signal drifting over 40 bins (which
  // lowers sigma by ~20% here, as in PRESTO); the 1024-bin block medians are barely affected.
  c.deredden = false;
  const auto run = test::run_accel(presto_realfft(x), kT, c, true, false);
  REQUIRE(!run.result.candidates.empty());
  const AccelCandidate& top = run.result.candidates[0];
  CHECK(top.r == doctest::Approx(r_avg).epsilon(0.5 / r_avg));
  CHECK(std::fabs(top.z - z) <= 2.0);
  // Prediction: the matched-filter power N (p0 + 1) in raw units (unit noise has N per bin),
  // times the block-median power factor the search applies there. This is what PRESTO, whose
  // normalisation ours equals, gives on this file; a bright drifting signal raises its block's
  // median, so it lies up to ~20% below p0 + 1 in normalised power. The measured power scatters
  // around it by sqrt(2 p0) (~2.4% in sigma here).
  const PreparedSpectrum spec = prepare_spectrum(presto_realfft(x), run.plan, true);
  const double factor = static_cast<double>(spec.power_scale().at(static_cast<std::int64_t>(2 * r_avg)));
  const double predicted_power = factor * static_cast<double>(kN) * (p0 + 1.0);
  const double predicted = candidate_sigma(predicted_power, 1, static_cast<double>(run.plan.numindep[0]));
  CAPTURE(predicted_power);
  CHECK(std::fabs(static_cast<double>(top.sigma) - predicted) <= 0.10 * predicted);
  // The optimisation refines r and z close to the truth.
  CHECK(top.hirs[0] == doctest::Approx(r_avg).epsilon(0.1 / r_avg));
  CHECK(top.hizs[0] == doctest::Approx(z).epsilon(0.05));
  // With the default de-reddening it is found at the same point.
  c.deredden = true;
  const auto dered = test::run_accel(presto_realfft(x), kT, c, true, false);
  REQUIRE(!dered.result.candidates.empty());
  CHECK(dered.result.candidates[0].r == top.r);
  CHECK(dered.result.candidates[0].z == top.z);
}

TEST_CASE("accel injection: a pulsar in a circular binary orbit is found at its mid-observation r and z") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const double f_psr = 97.3;
  const double pb = 10.0 * kT;  // orbit long against the observation: nearly constant acceleration
  const double omega = 2.0 * M_PI / pb;
  const double x_lt = 0.6;  // projected semi-major axis, light-seconds
  const double phi0 = 1.1;
  auto phase = [&](double t) { return f_psr * (t - x_lt * std::sin(omega * t + phi0)); };
  auto freq = [&](double t) { return f_psr * (1.0 - x_lt * omega * std::cos(omega * t + phi0)); };
  const double r_avg = phase(kT) - phase(0.0);  // cycles over the observation = mean frequency * T
  const double z = (freq(kT) - freq(0.0)) * kT;
  CAPTURE(r_avg);
  CAPTURE(z);
  const auto x = series(seed, amplitude_for_power(300.0), phase);
  AccelConfig c;
  c.zmax = 100;
  c.numharm = 1;
  // rednoise's de-reddening blocks (100 bins from 6 Hz), as this test was made with: PRESTO
  // accelsearch's own for a .dat, the default since QA pass 17, are ~6 ln(bin) bins long, and a
  // signal drifting over z ~ 22 bins raises their medians, so its sigma scatters around 10-12
  // (9.97 seen) instead of well above 10.
  c.dered_endwidth = 100;
  c.dered_endfreq_hz = 6.0;
  const auto run = test::run_accel(presto_realfft(x), kT, c, true, false);
  REQUIRE(!run.result.candidates.empty());
  const AccelCandidate& top = run.result.candidates[0];
  CHECK(std::fabs(top.r - r_avg) <= 0.5);
  CHECK(std::fabs(top.z - z) <= 2.0);
  CHECK(top.sigma > 10.0F);
  // PRESTO's .dat de-reddening (the default) finds it at the same r and z.
  AccelConfig defaults;
  defaults.zmax = 100;
  defaults.numharm = 1;
  const auto presto = test::run_accel(presto_realfft(x), kT, defaults, true, false);
  REQUIRE(!presto.result.candidates.empty());
  CHECK(std::fabs(presto.result.candidates[0].r - r_avg) <= 0.5);
  CHECK(std::fabs(presto.result.candidates[0].z - z) <= 2.0);
}

TEST_CASE("accel real data: PSR J1807-0847 in the GBT time series" * doctest::skip(!test::have_shared_data())) {
  const auto ts = read_timeseries((*test::shared_data_dir() / "real/GBT_J1807-0847.tim").string());
  std::vector<float> x = ts.samples;
  if (x.size() % 2 != 0) x.pop_back();
  const double T = static_cast<double>(x.size()) * ts.tsamp_s;
  AccelConfig c;
  c.zmax = 0;
  c.numharm = 16;
  const auto run = test::run_accel(presto_realfft(x), T, c, true, false);
  REQUIRE(!run.result.candidates.empty());
  const AccelCandidate& top = run.result.candidates[0];
  CHECK(top.r / T == doctest::Approx(6.108).epsilon(0.05 / 6.108));
  CHECK(top.sigma > 20.0F);
}
