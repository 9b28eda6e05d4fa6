// SPDX-License-Identifier: MIT
#include <algorithm>
#include <cmath>
#include <numbers>

#include "fastpsr/error.hpp"
#include "signals.hpp"

namespace fastpsr::sim::detail {
namespace {

const double kFwhmPerSigma = 2.0 * std::sqrt(2.0 * std::numbers::ln2);

// First and last sample (inclusive) whose centre lies in [t0, t1], clipped to [first, end).
std::pair<std::int64_t, std::int64_t> sample_range(double t0, double t1, double tsamp, std::uint64_t first,
                                                   std::size_t n) {
  const auto lo = std::max(static_cast<double>(first), std::ceil(t0 / tsamp - 0.5));
  const auto hi = std::min(static_cast<double>(first + n) - 1.0, std::floor(t1 / tsamp - 0.5));
  return {static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)};
}

}  // namespace

SinglePulseSignal::SinglePulseSignal(const SinglePulseSpec& spec, const SimConfig& config)
    : obs_(config.obs),
      spec_(spec),
      delays_(channel_delays(config.obs, config.delay_model, spec.dm)),
      weight_(spectral_weights(config.obs, spec.spectral_index, spec.fmin_mhz, spec.fmax_mhz)) {
  FASTPSR_EXPECTS(spec.dm >= 0.0 && std::isfinite(spec.dm), "single pulse DM must be >= 0, got {}", spec.dm);
  FASTPSR_EXPECTS(spec.width_s > 0.0, "single pulse width must be positive, got {} ms", 1e3 * spec.width_s);
  FASTPSR_EXPECTS(spec.scatter_s >= 0.0, "scattering time must be >= 0, got {} ms", 1e3 * spec.scatter_s);
  FASTPSR_EXPECTS(std::isfinite(spec.time_s), "single pulse time must be finite");
  const auto n = static_cast<std::size_t>(obs_.nchans);
  double fwhm = spec.width_s;
  if (config.smearing == Smearing::sigproc) {
    const double tdm = 8.3e3 * spec.dm * std::abs(obs_.foff_mhz) / (obs_.fch1_mhz * obs_.fch1_mhz * obs_.fch1_mhz);
    fwhm = std::sqrt(fwhm * fwhm + tdm * tdm + obs_.tsamp_s * obs_.tsamp_s);
  }
  sigma_s_ = fwhm / kFwhmPerSigma;
  const double fref = spec.scatter_ref_mhz > 0.0 ? spec.scatter_ref_mhz : obs_.top_freq_mhz();
  scatter_s_.resize(n);
  sweep_s_.assign(n, 0.0);
  if (config.smearing == Smearing::full) {
    sample_s_ = obs_.tsamp_s;
    sweep_s_ = delays_.sweep_s;
  }
  for (std::size_t c = 0; c < n; ++c) {
    scatter_s_[c] = spec.scatter_s * std::pow(obs_.channel_freq_mhz(static_cast<int>(c)) / fref, spec.scatter_index);
    if (weight_[c] == 0.0) continue;
    const ScatteredGaussian g = shape(static_cast<int>(c));
    span_before_ = std::max(span_before_, g.before() + (sample_s_ + sweep_s_[c]) / 2);
    span_after_ = std::max(span_after_, g.after() + (sample_s_ + sweep_s_[c]) / 2);
  }
  set_fluence(spec.fluence);
  // A pulse that reaches no sample of any channel would leave the data as noise while the truth
  // report (--report, -v) promised its S/N.
  if (obs_.nsamples > 0) {
    bool inside = false;
    for (std::size_t c = 0; c < n && !inside; ++c) {
      if (weight_[c] == 0.0) continue;
      const double arrival = arrival_s(static_cast<int>(c));
      inside = arrival + span_after_ > 0.0 && arrival - span_before_ < obs_.duration_s();
    }
    FASTPSR_EXPECTS(inside, "single pulse at {} s (DM {}) lies outside the observation (0 .. {:.6g} s in every channel)",
                    spec.time_s, spec.dm, obs_.duration_s());
  }
}

void SinglePulseSignal::set_fluence(double fluence) {
  FASTPSR_EXPECTS(fluence >= 0.0 && std::isfinite(fluence), "fluence must be >= 0, got {}", fluence);
  spec_.fluence = fluence;
  fluence_.resize(weight_.size());
  for (std::size_t c = 0; c < weight_.size(); ++c) fluence_[c] = fluence * weight_[c];
}

ScatteredGaussian SinglePulseSignal::shape(int c) const { return {sigma_s_, scatter_s_[static_cast<std::size_t>(c)]}; }

double SinglePulseSignal::recorded_shape(int c, double t) const {
  return shape(c).smoothed(t, sample_s_, sweep_s_[static_cast<std::size_t>(c)]);
}

void SinglePulseSignal::add(std::uint64_t first, std::size_t n, float* out, std::size_t stride) const {
  const auto nchans = static_cast<std::size_t>(obs_.nchans);
  for (std::size_t c = 0; c < nchans; ++c) {
    if (fluence_[c] == 0.0) continue;
    const ScatteredGaussian g = shape(static_cast<int>(c));
    const double arrival = arrival_s(static_cast<int>(c));
    const double reach = (sample_s_ + sweep_s_[c]) / 2;
    const auto [lo, hi] =
        sample_range(arrival - g.before() - reach, arrival + g.after() + reach, obs_.tsamp_s, first, n);
    for (std::int64_t k = lo; k <= hi; ++k) {
      const double t = (static_cast<double>(k) + 0.5) * obs_.tsamp_s - arrival;
      const auto v = static_cast<float>(fluence_[c] * g.smoothed(t, sample_s_, sweep_s_[c]));
      float* row = out + static_cast<std::size_t>(k - static_cast<std::int64_t>(first)) * stride + c;
      for (int i = 0; i < obs_.nifs; ++i) row[static_cast<std::size_t>(i) * nchans] += v;
    }
  }
}

NarrowbandSignal::NarrowbandSignal(const NarrowbandRfi& spec, const Observation& obs)
    : nchans_(obs.nchans), nifs_(obs.nifs), amplitude_(static_cast<float>(spec.amplitude)) {
  FASTPSR_EXPECTS(spec.width_mhz >= 0.0, "narrowband RFI width must be >= 0, got {} MHz", spec.width_mhz);
  int nearest = 0;
  for (int c = 0; c < obs.nchans; ++c) {
    const double d = std::abs(obs.channel_freq_mhz(c) - spec.freq_mhz);
    if (d <= spec.width_mhz / 2) channels_.push_back(c);
    if (d < std::abs(obs.channel_freq_mhz(nearest) - spec.freq_mhz)) nearest = c;
  }
  if (channels_.empty()) {
    FASTPSR_EXPECTS(std::abs(obs.channel_freq_mhz(nearest) - spec.freq_mhz) <= std::abs(obs.foff_mhz) / 2,
                    "narrowband RFI at {} MHz is outside the band", spec.freq_mhz);
    channels_.push_back(nearest);
  }
}

void NarrowbandSignal::add(std::size_t n, float* out, std::size_t stride) const {
  for (std::size_t k = 0; k < n; ++k) {
    for (int i = 0; i < nifs_; ++i) {
      float* row = out + k * stride + static_cast<std::size_t>(i * nchans_);
      for (int c : channels_) row[c] += amplitude_;
    }
  }
}

ImpulseSignal::ImpulseSignal(const ImpulseRfi& spec, const SimConfig& config, std::uint32_t index)
    : obs_(config.obs),
      spec_(spec),
      rng_(config.seed),
      index_(index),
      shape_(spec.width_s / kFwhmPerSigma, 0.0),
      fluence_(spec.amplitude / shape_.peak()),
      sample_s_(config.smearing == Smearing::full ? config.obs.tsamp_s : 0.0) {
  FASTPSR_EXPECTS(spec.rate_hz > 0.0 && std::isfinite(spec.rate_hz), "impulse rate must be positive, got {} Hz",
                  spec.rate_hz);
  FASTPSR_EXPECTS(spec.amplitude >= 0.0, "impulse amplitude must be >= 0, got {}", spec.amplitude);
}

double ImpulseSignal::time_s(std::uint64_t k) const {
  const double u = rng_.uniform(RandomStream::impulse_times, k | (static_cast<std::uint64_t>(index_) << 48));
  return (static_cast<double>(k) + u) / spec_.rate_hz;
}

void ImpulseSignal::add(std::uint64_t first, std::size_t n, float* out, std::size_t stride) const {
  const double reach = sample_s_ / 2;
  const double t0 = static_cast<double>(first) * obs_.tsamp_s - shape_.after() - reach;
  const double t1 = static_cast<double>(first + n) * obs_.tsamp_s + shape_.before() + reach;
  const double k0 = std::max(0.0, std::floor(t0 * spec_.rate_hz) - 1.0);
  const double k1 = std::floor(t1 * spec_.rate_hz) + 1.0;
  const auto nvals = obs_.values_per_sample();
  for (auto k = static_cast<std::uint64_t>(k0); k <= static_cast<std::uint64_t>(k1); ++k) {
    const double t = time_s(k);
    const auto [lo, hi] = sample_range(t - shape_.before() - reach, t + shape_.after() + reach, obs_.tsamp_s, first, n);
    for (std::int64_t s = lo; s <= hi; ++s) {
      const double dt = (static_cast<double>(s) + 0.5) * obs_.tsamp_s - t;
      const auto v = static_cast<float>(fluence_ * shape_.smoothed(dt, sample_s_, 0.0));
      float* row = out + static_cast<std::size_t>(s - static_cast<std::int64_t>(first)) * stride;
      for (std::size_t j = 0; j < nvals; ++j) row[j] += v;
    }
  }
}

}  // namespace fastpsr::sim::detail
