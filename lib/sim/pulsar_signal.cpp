// SPDX-License-Identifier: MIT
#include <algorithm>
#include <cmath>

#include "fast_floor.hpp"
#include "fastpsr/error.hpp"
#include "signals.hpp"

namespace fastpsr::sim::detail {

ChannelDelays channel_delays(const Observation& obs, DelayModel model, double dm) {
  ChannelDelays d;
  const auto n = static_cast<std::size_t>(obs.nchans);
  d.delay_s.resize(n);
  d.sweep_s.resize(n);
  const double ref = obs.top_freq_mhz();
  const double half = std::abs(obs.foff_mhz) / 2;
  for (int c = 0; c < obs.nchans; ++c) {
    const double f = obs.channel_freq_mhz(c);
    d.delay_s[static_cast<std::size_t>(c)] = dm_delay_s(model, dm, f, ref);
    d.sweep_s[static_cast<std::size_t>(c)] =
        std::abs(dm_delay_s(model, dm, f - half, ref) - dm_delay_s(model, dm, f + half, ref));
  }
  return d;
}

std::vector<double> spectral_weights(const Observation& obs, double index, double fmin_mhz, double fmax_mhz) {
  std::vector<double> w(static_cast<std::size_t>(obs.nchans), 0.0);
  double fsum = 0.0;
  int inside = 0;
  for (int c = 0; c < obs.nchans; ++c) {
    const double f = obs.channel_freq_mhz(c);
    if (f >= fmin_mhz && f <= fmax_mhz) {
      fsum += f;
      ++inside;
    }
  }
  FASTPSR_EXPECTS(inside > 0, "no channel centre lies in {} - {} MHz (the band is {} - {} MHz)", fmin_mhz, fmax_mhz,
                  std::min(obs.channel_freq_mhz(0), obs.channel_freq_mhz(obs.nchans - 1)),
                  std::max(obs.channel_freq_mhz(0), obs.channel_freq_mhz(obs.nchans - 1)));
  const double fmid = fsum / inside;
  double wsum = 0.0;
  for (int c = 0; c < obs.nchans; ++c) {
    const double f = obs.channel_freq_mhz(c);
    if (f >= fmin_mhz && f <= fmax_mhz) {
      w[static_cast<std::size_t>(c)] = std::pow(f / fmid, index);
      wsum += w[static_cast<std::size_t>(c)];
    }
  }
  for (double& x : w) x *= inside / wsum;
  return w;
}

namespace {

double sigproc_duty_cycle(const PulsarSpec& spec, const Observation& obs, double f_hz) {
  // SIGPROC fake: tdm = 8.3e3 DM foff / fch1^3, added in quadrature with the width and tsamp.
  const double tdm = 8.3e3 * spec.dm * std::abs(obs.foff_mhz) / (obs.fch1_mhz * obs.fch1_mhz * obs.fch1_mhz);
  const double w = spec.duty_cycle / f_hz;
  return std::sqrt(w * w + tdm * tdm + obs.tsamp_s * obs.tsamp_s) * f_hz;
}

PulseProfile make_profile(const PulsarSpec& spec, const SimConfig& config, double f_hz) {
  double duty = spec.duty_cycle;
  if (config.smearing == Smearing::sigproc) {
    duty = sigproc_duty_cycle(spec, config.obs, f_hz);
    FASTPSR_EXPECTS(duty < (spec.shape == ProfileShape::boxcar ? 1.0 : 0.5),
                    "with SIGPROC's smearing the pulse of period {:g} ms is {:g}% of the period wide: too wide",
                    1e3 / f_hz, 100 * duty);
  }
  return {spec.shape, duty};
}

double nominal_frequency(const PulsarSpec& spec, const Observation& obs) {
  const PhaseModel m(spec.spin, spec.orbit, spec.law);
  return m.apparent_frequency(obs.duration_s() / 2);
}

}  // namespace

PulsarSignal::PulsarSignal(const PulsarSpec& spec, const SimConfig& config)
    : obs_(config.obs),
      model_(spec.spin, spec.orbit, spec.law),
      profile_(make_profile(spec, config, nominal_frequency(spec, config.obs))),
      delays_(channel_delays(config.obs, config.delay_model, spec.dm)),
      weight_(spectral_weights(config.obs, spec.spectral_index, spec.fmin_mhz, spec.fmax_mhz)) {
  FASTPSR_EXPECTS(spec.dm >= 0.0 && std::isfinite(spec.dm), "DM must be >= 0, got {}", spec.dm);
  const double f = model_.apparent_frequency(obs_.duration_s() / 2);
  FASTPSR_EXPECTS(f * obs_.tsamp_s < 0.5, "period {:g} ms is shorter than two samples of {:g} us", 1e3 / f,
                  1e6 * obs_.tsamp_s);
  const auto n = static_cast<std::size_t>(obs_.nchans);
  sweep_cycles_.assign(n, 0.0);
  half_width_.resize(n);
  if (config.smearing == Smearing::full) {
    sample_cycles_ = f * obs_.tsamp_s;
    // Below these widths a difference of running integrals would lose more to rounding than
    // the smoothing changes (pulse_profile.cpp): such a sweep or sample counts as a point.
    integrate_samples_ = sample_cycles_ >= 1e-9;
    for (std::size_t c = 0; c < n; ++c) {
      const double b = f * delays_.sweep_s[c];
      sweep_cycles_[c] = b >= std::max(1e-9, 1e-10 / std::max(sample_cycles_, 1e-300)) ? b : 0.0;
    }
  }
  for (std::size_t c = 0; c < n; ++c) half_width_[c] = profile_.support_half_width(sample_cycles_, sweep_cycles_[c]);
  set_snrpeak(spec.snrpeak);
}

void PulsarSignal::set_snrpeak(double snrpeak) {
  FASTPSR_EXPECTS(snrpeak >= 0.0 && std::isfinite(snrpeak), "snrpeak must be >= 0, got {}", snrpeak);
  snrpeak_ = snrpeak;
  const double per_channel = snrpeak / std::sqrt(static_cast<double>(obs_.nchans));
  amplitude_.resize(weight_.size());
  for (std::size_t c = 0; c < weight_.size(); ++c) amplitude_[c] = per_channel * weight_[c];
}

double PulsarSignal::recorded_profile(int c, double phase) const {
  return profile_.smoothed(phase, sample_cycles_, sweep_cycles_[static_cast<std::size_t>(c)]);
}

PhasePieces PulsarSignal::make_pieces(std::uint64_t first, std::size_t n) const {
  double max_delay = 0.0;
  for (std::size_t c = 0; c < weight_.size(); ++c) {
    if (weight_[c] > 0.0) max_delay = std::max(max_delay, delays_.delay_s[c]);
  }
  return {model_, obs_.tsamp_s, kPieceSamples, static_cast<double>(first) - max_delay / obs_.tsamp_s,
          static_cast<double>(first + n) + 1.0};
}

void PulsarSignal::add(const PhasePieces& pieces, std::uint64_t first, std::size_t n, float* out,
                       std::size_t stride) const {
  const auto nchans = static_cast<std::size_t>(obs_.nchans);
  const auto nifs = static_cast<std::size_t>(obs_.nifs);
  const auto kend = static_cast<std::int64_t>(first + n);
  const double base_half = profile_.support_half_width(0.0, 0.0);
  for (std::size_t c = 0; c < nchans; ++c) {
    if (amplitude_[c] == 0.0) continue;
    const double dly = delays_.delay_s[c] / obs_.tsamp_s;
    const double sweep = sweep_cycles_[c];
    const double amp = amplitude_[c];
    // The phase at x in samples of this channel (x = k is the start of sample k, k + 1/2 its
    // centre): a pure function of (x, c), whatever the block.
    using Phase = PhasePieces::Phase;
    auto phase_at = [&](double x) { return pieces.at(x - dly); };
    auto add_value = [&](std::int64_t k, double v) {
      float* row = out + static_cast<std::size_t>(k - static_cast<std::int64_t>(first)) * stride + c;
      for (std::size_t i = 0; i < nifs; ++i) row[i * nchans] += static_cast<float>(amp * v);
    };
    // The last boundary evaluated in a window, its phase and swept integral: the next sample
    // starts there.
    std::int64_t cached_boundary = -1;
    Phase cached_phase{};
    double cached = 0.0;
    auto k = static_cast<std::int64_t>(first);
    while (k < kend) {
      double centre = 0.0;
      double span = 0.0;  // phase span of the sample (Smearing::full)
      Phase lo{};
      Phase hi{};
      const PhasePieces::Piece* piece = nullptr;
      if (integrate_samples_) {
        lo = cached_boundary == k ? cached_phase : phase_at(static_cast<double>(k));
        hi = phase_at(static_cast<double>(k + 1));
        span = (hi.base - lo.base) + (hi.frac - lo.frac);
        centre = lo.frac + span / 2;
        piece = lo.piece;
      } else {
        const Phase mid = phase_at(static_cast<double>(k) + 0.5);
        centre = mid.frac;
        piece = mid.piece;
      }
      double r = centre - 0.5;
      r -= fast_floor(r + 0.5);
      const double half = base_half + (span + sweep) / 2;
      if (half >= 0.5 || std::abs(r) <= half) {
        if (integrate_samples_) {
          const double d0 = cached_boundary == k ? cached : profile_.swept_integral(lo.frac, sweep);
          const double d1 = profile_.swept_integral(hi.frac, sweep);
          cached_boundary = k + 1;
          cached_phase = hi;
          cached = d1;
          add_value(k, profile_.mean() + (d1 - d0) / span);
        } else {
          add_value(k, profile_.value(centre));
        }
        ++k;
      } else {
        // Jump to just before the next pulse window: the phase cannot advance faster than
        // max_slope per sample, so no sample inside a window is skipped.
        const double to_window = r > 0 ? 1.0 - half - r : -half - r;
        const double jump = std::floor((to_window - 1e-9) / piece->max_slope) - 1.0;
        k += jump >= 1.0 ? static_cast<std::int64_t>(std::min(jump, 1e15)) : 1;
      }
    }
  }
}

}  // namespace fastpsr::sim::detail
