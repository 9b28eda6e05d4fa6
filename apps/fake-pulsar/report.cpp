// SPDX-License-Identifier: MIT
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "fastpsr/log.hpp"
#include "fastpsr/version.hpp"

namespace fastpsr::app {
namespace {
void add_mean_spin(nlohmann::json& j, const sim::PhaseModel& m, double tobs);
}  // namespace

nlohmann::json fake_report(const sim::FilterbankSimulator& sim, int nbits, sim::OutputScale scale) {
  const sim::SimConfig& c = sim.config();
  const double eta = sim::quantisation_efficiency(nbits, scale);
  const sim::Moments noise = sim::quantised_noise_moments(nbits, scale);
  const double tobs = c.obs.duration_s();
  nlohmann::json r;
  r["tool"] = "fake-pulsar";
  r["version"] = std::string(version_string);
  r["seed"] = c.seed;
  r["nsamples"] = c.obs.nsamples;
  r["tsamp_s"] = c.obs.tsamp_s;
  r["tobs_s"] = tobs;
  r["nchans"] = c.obs.nchans;
  r["nifs"] = c.obs.nifs;
  r["fch1_mhz"] = c.obs.fch1_mhz;
  r["foff_mhz"] = c.obs.foff_mhz;
  r["nbits"] = nbits;
  r["delay_model"] = std::string(to_string(c.delay_model));
  r["smearing"] = std::string(sim::to_string(c.smearing));
  r["noise_mean"] = noise.mean;
  r["noise_rms"] = noise.rms;
  r["quantisation_efficiency"] = eta;
  r["pulsars"] = nlohmann::json::array();
  for (std::size_t i = 0; i < c.pulsars.size(); ++i) {
    const auto& p = c.pulsars[i];
    const sim::PhaseModel& m = sim.pulsar_phase_model(i);
    const double snr = sim.expected_fold_snr(i);
    const auto powers = sim.expected_harmonic_powers(i, 16);
    nlohmann::json j;
    j["label"] = p.label.empty() ? fmt::format("pulsar {}", i + 1) : p.label;
    j["f_spin_hz"] = p.spin.f_hz;
    j["fdot_spin"] = p.spin.fdot;
    add_mean_spin(j, m, tobs);
    j["dm"] = p.dm;
    j["profile"] = std::string(sim::to_string(p.shape));
    j["duty_cycle"] = p.duty_cycle;
    j["snrpeak"] = p.snrpeak;
    j["binary"] = p.orbit.has_value();
    j["phase_law"] = p.law == sim::PhaseLaw::sigproc ? "sigproc" : "integrated";
    j["expected_fold_snr"] = eta * snr;
    nlohmann::json h = nlohmann::json::array();
    for (double pw : powers) h.push_back(eta * eta * pw);
    j["expected_harmonic_power"] = h;
    nlohmann::json summed = nlohmann::json::object();
    double sum = 0.0;
    for (int n = 1; n <= 16; ++n) {
      sum += eta * eta * powers[static_cast<std::size_t>(n - 1)];
      if ((n & (n - 1)) == 0) {
        summed[std::to_string(n)] = {{"power", sum + n}, {"sigma", sim::summed_power_sigma(sum + n, n)}};
      }
    }
    j["expected_summed_power"] = summed;
    r["pulsars"].push_back(j);
  }
  r["pulses"] = nlohmann::json::array();
  for (std::size_t i = 0; i < c.pulses.size(); ++i) {
    const auto& p = c.pulses[i];
    r["pulses"].push_back({{"time_s", p.time_s},
                           {"dm", p.dm},
                           {"width_s", p.width_s},
                           {"scatter_s", p.scatter_s},
                           // In --frb fluence='s unit, so that the value can be fed back.
                           {"fluence_rms_ms", 1e3 * p.fluence},
                           {"expected_snr", eta * sim.expected_single_pulse_snr(i)}});
  }
  return r;
}

namespace {

// What a search sees of a phase model over [0, tobs]: mean frequency and fdot (exact for a
// quadratic phase), from the phase at the start, middle and end.
void add_mean_spin(nlohmann::json& j, const sim::PhaseModel& m, double tobs) {
  const double ph0 = m.phase(0.0);
  const double ph1 = m.phase(tobs / 2);
  const double ph2 = m.phase(tobs);
  const double f_mean = (ph2 - ph0) / tobs;
  const double fdot_mean = 4.0 * (ph2 - 2.0 * ph1 + ph0) / (tobs * tobs);
  j["f_mean_hz"] = f_mean;
  j["period_mean_s"] = 1.0 / f_mean;
  j["fdot_mean"] = fdot_mean;
  j["z"] = fdot_mean * tobs * tobs;
}

}  // namespace

nlohmann::json voltage_report(const sim::VoltageSimulator& sim, sim::VoltageFormat format, double scale) {
  const sim::VoltageConfig& c = sim.config();
  const double tobs = static_cast<double>(c.nsamples) * c.tsamp_s();
  nlohmann::json r;
  r["tool"] = "fake-pulsar";
  r["version"] = std::string(version_string);
  r["mode"] = "voltages";
  r["seed"] = c.seed;
  r["nsamples"] = c.nsamples;
  r["tsamp_s"] = c.tsamp_s();
  r["tobs_s"] = tobs;
  r["freq_mhz"] = c.freq_mhz;
  r["bw_mhz"] = c.bw_mhz;
  r["npol"] = c.npol;
  r["nbits"] = sim::voltage_bits(format);
  r["noise_rms"] = scale;  // per component, in output units
  r["fft_length"] = sim.fft_length();
  r["delay_model"] = std::string(to_string(c.delay_model));
  r["pulsars"] = nlohmann::json::array();
  for (std::size_t i = 0; i < c.pulsars.size(); ++i) {
    const auto& p = c.pulsars[i];
    nlohmann::json j;
    j["label"] = fmt::format("pulsar {}", i + 1);
    j["f_spin_hz"] = p.spec.spin.f_hz;
    add_mean_spin(j, sim.pulsar_phase_model(i), tobs);
    j["dm"] = p.spec.dm;
    j["profile"] = std::string(sim::to_string(p.spec.shape));
    j["duty_cycle"] = p.spec.duty_cycle;
    j["peak_power"] = p.peak_power;
    j["expected_coherent_fold_snr"] = sim.coherent_fold_snr(i);
    r["pulsars"].push_back(j);
  }
  r["tones"] = nlohmann::json::array();
  for (const auto& t : c.tones) r["tones"].push_back({{"freq_mhz", t.freq_mhz}, {"amplitude", t.amplitude}});
  return r;
}

void log_fake_report(const nlohmann::json& r) {
  if (verbosity() < Verbosity::verbose) return;
  if (r.contains("mode")) {  // voltages
    log_verbose("seed {}; {} complex samples of {} us ({:.3f} s) x {} pol, {} +- {} MHz, {}-bit, FFT {}",
                r["seed"].get<std::uint64_t>(), r["nsamples"].get<std::uint64_t>(), 1e6 * r["tsamp_s"].get<double>(),
                r["tobs_s"].get<double>(), r["npol"].get<int>(), r["freq_mhz"].get<double>(),
                r["bw_mhz"].get<double>() / 2, r["nbits"].get<int>(), r["fft_length"].get<std::size_t>());
    for (const auto& p : r["pulsars"]) {
      log_verbose("{}: P {:.9g} ms (mean), DM {}, z {:.3f}, peak power {:.4g}, coherent fold S/N {:.2f}",
                  p["label"].get<std::string>(), 1e3 * p["period_mean_s"].get<double>(), p["dm"].get<double>(),
                  p["z"].get<double>(), p["peak_power"].get<double>(), p["expected_coherent_fold_snr"].get<double>());
    }
    return;
  }
  log_verbose(
      "seed {}; {} samples of {} us ({:.3f} s), {} channels, {} bits: noise mean {:.4g}, rms {:.4g}, "
      "S/N efficiency {:.4f}",
      r["seed"].get<std::uint64_t>(), r["nsamples"].get<std::uint64_t>(), 1e6 * r["tsamp_s"].get<double>(),
      r["tobs_s"].get<double>(), r["nchans"].get<int>(), r["nbits"].get<int>(), r["noise_mean"].get<double>(),
      r["noise_rms"].get<double>(), r["quantisation_efficiency"].get<double>());
  for (const auto& p : r["pulsars"]) {
    log_verbose(
        "{}: P {:.9g} ms (mean), DM {}, z {:.3f}, expected fold S/N {:.2f}, 8-harmonic sum {:.1f} "
        "({:.1f} sigma)",
        p["label"].get<std::string>(), 1e3 * p["period_mean_s"].get<double>(), p["dm"].get<double>(),
        p["z"].get<double>(), p["expected_fold_snr"].get<double>(),
        p["expected_summed_power"]["8"]["power"].get<double>(), p["expected_summed_power"]["8"]["sigma"].get<double>());
  }
  for (const auto& p : r["pulses"]) {
    log_verbose("single pulse at {} s, DM {}: expected S/N {:.2f}", p["time_s"].get<double>(), p["dm"].get<double>(),
                p["expected_snr"].get<double>());
  }
}

void warn_if_clipped(const sim::FilterbankSimulator& sim, int nbits, sim::OutputScale scale) {
  // 32 bits store floats; 1 and 2 bits quantise the noise coarsely by design.
  if (nbits == 32 || nbits <= 2) return;
  const sim::SimConfig& c = sim.config();
  double peak = 0.0;  // brightest per-channel signal, noise rms
  for (const auto& p : c.pulsars) peak = std::max(peak, p.snrpeak / std::sqrt(static_cast<double>(c.obs.nchans)));
  for (const auto& p : c.pulses) {
    peak = std::max(
        peak, p.fluence / (p.width_s / (2.0 * std::sqrt(2.0 * std::numbers::ln2)) * std::sqrt(2.0 * std::numbers::pi)));
  }
  for (const auto& b : c.narrowband) peak = std::max(peak, b.amplitude);
  for (const auto& b : c.impulses) peak = std::max(peak, b.amplitude);
  const double top = static_cast<double>((1 << nbits) - 1);
  // The noise itself: a mean outside the levels, or within 3 rms of an end, clips much of it.
  // Without noise only the zero-signal level can lie outside.
  if (c.noise && (scale.offset < 3.0 * scale.scale || scale.offset > top - 3.0 * scale.scale)) {
    log_warning("--mean {} with --rms {} for {}-bit output (levels 0 to {}): {} of the noise clips at {}", scale.offset,
                scale.scale, nbits, top, scale.offset < 0.0 || scale.offset > top ? "more than half" : "a part",
                scale.offset < top / 2.0 ? "0" : fmt::format("{}", top));
  } else if (!c.noise && (scale.offset < 0.0 || scale.offset > top)) {
    log_warning("--mean {} is outside the {}-bit levels (0 to {}): the zero signal clips at {}", scale.offset, nbits,
                top, scale.offset < 0.0 ? "0" : fmt::format("{}", top));
  }
  const double headroom = (top - scale.offset) / scale.scale;  // noise rms up to the highest level
  // A peak above the top level clips; with noise, one within 3 rms of it clips where the noise
  // pushes it over (hence "may"). Without noise there is no such margin.
  if (peak > headroom) {
    log_warning(
        "the brightest signal reaches {:.3g} noise rms per channel, but {}-bit output holds {:.3g} rms above the "
        "mean: its peaks will clip (lower --rms to make room)",
        peak, nbits, headroom);
  } else if (c.noise && peak + 3.0 > headroom) {
    log_warning(
        "the brightest signal reaches {:.3g} noise rms per channel: the signal plus 3 rms of noise may exceed "
        "the {:.3g} rms above the mean that {}-bit output holds, so its peaks may clip (lower --rms to make room)",
        peak, headroom, nbits);
  }
}

}  // namespace fastpsr::app
