// SPDX-License-Identifier: MIT
// Injected signals through the CPU dedisperser: a dispersed single pulse and a pulsar are
// recovered at the injected DM with the S/N the radiometer arithmetic predicts, and the
// peak-versus-DM-error curve follows the smearing formula (Cordes & McLaughlin 2003, eq. 12).
// The injection is done here (a dispersed boxcar or Gaussian per channel) until the
// fake-pulsar library is available to the tests.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "fastpsr/cpu/dedisp_cpu.hpp"
#include "fastpsr/dedisp.hpp"
#include "support/dedisp_checks.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

// Dedisperses `packed` at `dms` and returns each DM's samples with full data.
std::vector<std::vector<float>> dedisperse(const DedispInput& in, const std::vector<std::uint8_t>& packed,
                                           std::size_t nin, const std::vector<double>& dms) {
  DedispProblem p;
  p.input = in;
  p.dms = dms;
  const DedispPlan plan = make_dedisp_plan(p);
  auto dd = cpu::make_dedisperser(plan, {});
  const auto got = test::run_streaming(*dd, packed, nin, {dd->gulp_samples()});
  std::vector<std::vector<float>> out;
  for (std::size_t i = 0; i < dms.size(); ++i) {
    const auto valid = static_cast<std::size_t>(plan.valid_samples(i, nin));
    out.emplace_back(got.data.begin() + static_cast<long>(i * got.ncols),
                     got.data.begin() + static_cast<long>(i * got.ncols + valid));
  }
  return out;
}

// Arrival delay (s) of channel c relative to the top channel, PRESTO's constant.
double delay_s(const DedispInput& in, int c, double dm) {
  return dm_delay_s(DelayModel::presto, dm, in.chan_freq_mhz[static_cast<std::size_t>(c)], in.chan_freq_mhz[0]);
}

// 8-bit noise, mean 100, sigma 10, plus `signal(c, t)`, rounded and clipped.
template <class Signal>
std::vector<std::uint8_t> noisy_8bit(std::mt19937_64& rng, const DedispInput& in, std::size_t nin, Signal signal) {
  std::normal_distribution<double> g(100.0, 10.0);
  std::vector<std::uint8_t> packed(nin * static_cast<std::size_t>(in.nchans));
  for (std::size_t t = 0; t < nin; ++t) {
    for (int c = 0; c < in.nchans; ++c) {
      const double v = std::round(g(rng) + signal(c, t));
      packed[t * static_cast<std::size_t>(in.nchans) + static_cast<std::size_t>(c)] =
          static_cast<std::uint8_t>(std::clamp(v, 0.0, 255.0));
    }
  }
  return packed;
}

// Boxcar S/N of a window of w samples starting at `at`, noise sigma known.
double boxcar_snr(const std::vector<float>& x, std::size_t at, std::size_t w, double mean, double sigma) {
  double s = 0;
  for (std::size_t i = at; i < at + w; ++i) s += static_cast<double>(x[i]) - mean;
  return s / (sigma * std::sqrt(static_cast<double>(w)));
}

double best_boxcar_snr(const std::vector<float>& x, std::size_t w, double mean, double sigma) {
  double best = -1e300;
  for (std::size_t at = 0; at + w <= x.size(); ++at) best = std::max(best, boxcar_snr(x, at, w, mean, sigma));
  return best;
}

}  // namespace

TEST_CASE("injection: a dispersed single pulse is found at its DM with the predicted S/N") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const DedispInput in = test::make_band(64, 8, 1500.0, -2.0, 256e-6);
  const double dm0 = 150.0;
  const std::size_t t0 = 3000;
  const std::size_t width = 8;
  const double amp = 12.0;  // per channel and sample, in units where the noise sigma is 10
  const std::size_t nin = 8000;
  const auto packed = noisy_8bit(rng, in, nin, [&](int c, std::size_t t) {
    const auto arrive = t0 + static_cast<std::size_t>(std::llround(delay_s(in, c, dm0) / in.tsamp_s));
    return t >= arrive && t < arrive + width ? amp : 0.0;
  });
  std::vector<double> dms;
  for (int k = -20; k <= 20; ++k) dms.push_back(dm0 + 2.5 * k);
  const auto out = dedisperse(in, packed, nin, dms);
  // Noise of the sum: 64 channels of sigma 10 (plus rounding, 1/12), mean 64 * 100.
  const double sigma = std::sqrt(64.0 * (100.0 + 1.0 / 12.0));
  const double mean = 64.0 * 100.0;
  const double expected = amp * 64.0 * width / (sigma * std::sqrt(static_cast<double>(width)));
  std::size_t best = 0;
  std::vector<double> snr;
  for (const auto& x : out) snr.push_back(best_boxcar_snr(x, width, mean, sigma));
  best = static_cast<std::size_t>(std::max_element(snr.begin(), snr.end()) - snr.begin());
  INFO("best DM " << dms[best] << ", S/N " << snr[best] << ", expected " << expected);
  CHECK(dms[best] == dm0);
  CHECK(snr[best] == doctest::Approx(expected).epsilon(0.15));
  // At the injected DM the pulse sits where it was injected (referenced to the top channel).
  CHECK(boxcar_snr(out[20], t0, width, mean, sigma) == doctest::Approx(snr[20]));
  // Far from the DM the pulse is smeared out.
  CHECK(snr.front() < 0.4 * expected);
  CHECK(snr.back() < 0.4 * expected);
}

TEST_CASE("injection: a pulsar folds to the predicted S/N at its DM and fades away from it") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const DedispInput in = test::make_band(64, 8, 1400.0, -1.0, 128e-6);
  const double dm0 = 60.0;
  const std::size_t period = 389;  // samples (49.8 ms)
  const std::size_t width = 10;
  const double amp = 1.5;
  const std::size_t nin = 40000;
  const auto packed = noisy_8bit(rng, in, nin, [&](int c, std::size_t t) {
    const auto d = static_cast<std::size_t>(std::llround(delay_s(in, c, dm0) / in.tsamp_s));
    if (t < d) return 0.0;
    return (t - d) % period < width ? amp : 0.0;
  });
  const std::vector<double> dms{0.0, 30.0, 50.0, 58.0, 60.0, 62.0, 70.0, 90.0};
  const auto out = dedisperse(in, packed, nin, dms);
  const double sigma = std::sqrt(64.0 * (100.0 + 1.0 / 12.0));
  std::vector<double> snr;
  double expected = 0;
  for (std::size_t i = 0; i < dms.size(); ++i) {
    const auto& x = out[i];
    const std::size_t nper = x.size() / period;
    std::vector<double> profile(period, 0.0);
    for (std::size_t k = 0; k < nper * period; ++k) profile[k % period] += static_cast<double>(x[k]);
    double mean = 0;
    for (double v : profile) mean += v;
    mean /= static_cast<double>(period);
    const double bin_sigma = sigma * std::sqrt(static_cast<double>(nper));
    double best = -1e300;
    for (std::size_t at = 0; at < period; ++at) {
      double s = 0;
      for (std::size_t j = 0; j < width; ++j) s += profile[(at + j) % period] - mean;
      best = std::max(best, s / (bin_sigma * std::sqrt(static_cast<double>(width))));
    }
    snr.push_back(best);
    if (dms[i] == dm0) {
      // All on-pulse samples: nper pulses of `width` samples, 64 channels of `amp`, minus the
      // share the profile mean takes.
      expected = amp * 64.0 * static_cast<double>(width * nper) * (1.0 - static_cast<double>(width) / period) /
                 (bin_sigma * std::sqrt(static_cast<double>(width)));
    }
  }
  const auto best = static_cast<std::size_t>(std::max_element(snr.begin(), snr.end()) - snr.begin());
  INFO("S/N by DM: " << snr[0] << " " << snr[1] << " " << snr[2] << " " << snr[3] << " " << snr[4] << " " << snr[5]
                     << " " << snr[6] << " " << snr[7] << "; expected " << expected);
  CHECK(dms[best] == dm0);
  CHECK(snr[best] == doctest::Approx(expected).epsilon(0.15));
  CHECK(snr[0] < 0.3 * expected);
}

TEST_CASE("injection: peak versus DM error follows the smearing formula within 10%") {
  // Noise-free Gaussian pulse (FWHM 40 samples) in a narrow band, so that the sweep across
  // the band is close to linear in time, as the formula assumes.
  const DedispInput in = test::make_band(256, 32, 1432.0, -0.25, 64e-6);
  const double dm0 = 120.0;
  const double fwhm_s = 40 * in.tsamp_s;
  const double t0_s = 0.2;
  const std::size_t nin = 8000;
  std::vector<std::uint8_t> packed(nin * in.bytes_per_sample());
  for (std::size_t t = 0; t < nin; ++t) {
    for (int c = 0; c < in.nchans; ++c) {
      const double dt = (static_cast<double>(t) + 0.5) * in.tsamp_s - (t0_s + delay_s(in, c, dm0));
      const auto v = static_cast<float>(std::exp(-4.0 * std::log(2.0) * dt * dt / (fwhm_s * fwhm_s)));
      std::memcpy(packed.data() + (t * 256 + static_cast<std::size_t>(c)) * 4, &v, 4);
    }
  }
  const std::vector<double> errors{0.0, 2.0, 4.0, 8.0, 16.0, 24.0, 32.0, 48.0, 64.0, 96.0};
  std::vector<double> dms;
  for (double e : errors) dms.push_back(dm0 + e);
  for (double e : errors) {
    if (e > 0) dms.push_back(dm0 - e);
  }
  const auto out = dedisperse(in, packed, nin, dms);
  auto peak = [](const std::vector<float>& x) { return static_cast<double>(*std::max_element(x.begin(), x.end())); };
  const double p0 = peak(out[0]);
  double lowest = 1.0;
  // Smearing across the band by a DM error: the delay difference between the band edges.
  const double f_hi = in.chan_freq_mhz.front() + 0.125;
  const double f_lo = in.chan_freq_mhz.back() - 0.125;
  for (std::size_t i = 1; i < dms.size(); ++i) {
    const double err = std::fabs(dms[i] - dm0);
    const double smear_s = dm_constant(DelayModel::presto) * err * (1.0 / (f_lo * f_lo) - 1.0 / (f_hi * f_hi));
    const double zeta = std::sqrt(std::log(2.0)) * smear_s / fwhm_s;
    const double predicted = std::sqrt(M_PI) / 2.0 * std::erf(zeta) / zeta;
    CAPTURE(dms[i]);
    CAPTURE(predicted);
    CHECK(peak(out[i]) / p0 == doctest::Approx(predicted).epsilon(0.10));
    lowest = std::min(lowest, predicted);
  }
  CHECK(lowest < 0.3);  // the curve is followed well down its fall
}
