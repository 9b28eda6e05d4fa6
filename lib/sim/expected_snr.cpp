// SPDX-License-Identifier: MIT
// The S/N a search must recover from a simulated filterbank (formulas in
// filterbank_simulator.hpp and docs/fake-pulsar.md).
#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>

#include "fastpsr/error.hpp"
#include "simulator_impl.hpp"

namespace fastpsr::sim {
namespace {

// The ideally dedispersed channel sum q(phi) on a grid of `m` phases, zero outside
// [1/2 - half, 1/2 + half]; returns the grid values and the index range that may be non-zero.
struct PhaseGrid {
  std::size_t m = 0;
  std::size_t lo = 0;     // first grid index evaluated
  std::vector<double> q;  // values at indices lo, lo + 1, ...
};

PhaseGrid channel_sum(const detail::PulsarSignal& p, const Observation& obs) {
  double half = 0.0;
  for (int c = 0; c < obs.nchans; ++c) {
    if (p.channel_amplitude(c) != 0.0) half = std::max(half, p.support_half_width(c));
  }
  half = std::min(half, 0.5);
  const double narrowest = p.profile().duty_cycle();
  // Resolve the narrowest feature with >= 1024 points (0.1% on a boxcar's square integral).
  std::size_t m = 4096;
  while (static_cast<double>(m) * narrowest < 1024.0 && m < (std::size_t{1} << 20)) m *= 2;
  PhaseGrid g;
  g.m = m;
  const auto lo = static_cast<std::size_t>(std::floor((0.5 - half) * static_cast<double>(m)));
  const auto hi = std::min(m, static_cast<std::size_t>(std::ceil((0.5 + half) * static_cast<double>(m))) + 1);
  g.lo = half >= 0.5 ? 0 : lo;
  const std::size_t end = half >= 0.5 ? m : hi;
  g.q.assign(end - g.lo, 0.0);
  for (int c = 0; c < obs.nchans; ++c) {
    const double a = p.channel_amplitude(c);
    if (a == 0.0) continue;
    const double half_c = p.support_half_width(c);
    for (std::size_t j = g.lo; j < end; ++j) {
      const double phi = static_cast<double>(j) / static_cast<double>(m);
      if (half_c >= 0.5 || std::abs(phi - 0.5) <= half_c) g.q[j - g.lo] += a * p.recorded_profile(c, phi);
    }
  }
  return g;
}

}  // namespace

double FilterbankSimulator::expected_fold_snr(std::size_t pulsar) const {
  const auto& p = impl_->pulsars.at(pulsar);
  const Observation& obs = impl_->config.obs;
  const PhaseGrid g = channel_sum(p, obs);
  double sum = 0.0;
  double sum2 = 0.0;
  for (double v : g.q) {
    sum += v;
    sum2 += v * v;
  }
  const auto m = static_cast<double>(g.m);
  const double variance = std::max(0.0, sum2 / m - (sum / m) * (sum / m));
  return std::sqrt(static_cast<double>(obs.nsamples) * obs.nifs / obs.nchans * variance);
}

std::vector<double> FilterbankSimulator::expected_harmonic_powers(std::size_t pulsar, int nharm) const {
  FASTPSR_EXPECTS(nharm >= 1, "number of harmonics must be >= 1, got {}", nharm);
  const auto& p = impl_->pulsars.at(pulsar);
  const Observation& obs = impl_->config.obs;
  const PhaseGrid g = channel_sum(p, obs);
  std::vector<double> out(static_cast<std::size_t>(nharm));
  const double scale = static_cast<double>(obs.nsamples) * obs.nifs / obs.nchans;
  for (int h = 1; h <= nharm; ++h) {
    std::complex<double> c{0.0, 0.0};
    for (std::size_t j = 0; j < g.q.size(); ++j) {
      const double phi = static_cast<double>(g.lo + j) / static_cast<double>(g.m);
      c += g.q[j] * std::polar(1.0, -2.0 * std::numbers::pi * h * phi);
    }
    c /= static_cast<double>(g.m);
    out[static_cast<std::size_t>(h - 1)] = scale * std::norm(c);
  }
  return out;
}

double FilterbankSimulator::expected_single_pulse_snr(std::size_t pulse) const {
  const auto& p = impl_->pulses.at(pulse);
  const Observation& obs = impl_->config.obs;
  const double t0 = -p.span_before();
  const double t1 = p.span_after();
  const auto& spec = impl_->config.pulses.at(pulse);
  const double sigma = spec.width_s / (2.0 * std::sqrt(2.0 * std::numbers::ln2));
  const double dt = std::max(std::min(sigma, obs.tsamp_s) / 16.0, (t1 - t0) / 40000.0);
  double sum2 = 0.0;
  for (double t = t0; t <= t1; t += dt) {
    double s = 0.0;
    for (int c = 0; c < obs.nchans; ++c) {
      const double f = p.channel_fluence(c);
      if (f != 0.0) s += f * p.recorded_shape(c, t);
    }
    sum2 += s * s * dt;
  }
  return std::sqrt(static_cast<double>(obs.nifs) / obs.nchans * sum2 / obs.tsamp_s);
}

double sigma_from_log_tail(double log_p) {
  FASTPSR_EXPECTS(log_p <= 0.0, "a probability cannot exceed 1 (log p = {})", log_p);
  // log of the upper Gaussian tail Q(s), and its derivative -phi(s)/Q(s); asymptotic beyond 30.
  auto log_q = [](double s) {
    if (s < 30.0) return std::log(0.5 * std::erfc(s / std::numbers::sqrt2));
    const double r = 1.0 / (s * s);
    return -0.5 * s * s - std::log(s * std::sqrt(2.0 * std::numbers::pi)) + std::log(1.0 - r + 3.0 * r * r);
  };
  auto log_phi = [](double s) { return -0.5 * s * s - 0.5 * std::log(2.0 * std::numbers::pi); };
  double s = log_p > -0.7 ? 0.0 : std::sqrt(-2.0 * log_p);
  for (int i = 0; i < 100; ++i) {
    const double lq = log_q(s);
    const double step = (lq - log_p) / (-std::exp(log_phi(s) - lq));
    s -= step;
    if (std::abs(step) < 1e-12 * std::max(1.0, std::abs(s))) break;
  }
  return s;
}

double summed_power_sigma(double summed_power, int nharm) {
  FASTPSR_EXPECTS(nharm >= 1, "number of harmonics must be >= 1, got {}", nharm);
  if (summed_power <= 0.0) return -std::numeric_limits<double>::infinity();
  // P(Gamma(n, 1) >= x) = exp(-x) sum_{k<n} x^k / k!, summed in log space.
  double log_term = 0.0;  // log(x^k / k!)
  double log_sum = 0.0;
  const double lx = std::log(summed_power);
  for (int k = 1; k < nharm; ++k) {
    log_term += lx - std::log(static_cast<double>(k));
    const double hi = std::max(log_sum, log_term);
    log_sum = hi + std::log(std::exp(log_sum - hi) + std::exp(log_term - hi));
  }
  return sigma_from_log_tail(std::min(0.0, -summed_power + log_sum));
}

}  // namespace fastpsr::sim
