// SPDX-License-Identifier: MIT
#include "fastpsr/sim/source_spec.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <numbers>
#include <set>
#include <string>

#include "fastpsr/device.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr::sim {
namespace {

constexpr double kSpeedOfLight = 299792458.0;

// The key=value pairs of one option, checked against the keys it accepts.
class KeyValues {
 public:
  KeyValues(std::string_view option, std::string_view text, const std::set<std::string>& allowed)
      : option_(option), values_(parse_key_values(text)) {
    for (const auto& [k, v] : values_) {
      if (allowed.count(k) == 0) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        throw Error(ErrorCode::invalid_argument, fmt::format("{}: unknown key '{}' (known: {})", option_, k, list));
      }
    }
  }
  [[nodiscard]] bool has(const std::string& key) const { return values_.count(key) != 0; }
  [[nodiscard]] std::optional<double> number(const std::string& key) const {
    const auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    const std::string& s = it->second;
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) {
      throw Error(ErrorCode::invalid_argument, fmt::format("{}: {}={} is not a number", option_, key, s));
    }
    return v;
  }
  void set(const std::string& key, double& target) const {
    if (auto v = number(key)) target = *v;
  }
  void set(const std::string& key, std::optional<double>& target) const {
    if (auto v = number(key)) target = v;
  }
  [[nodiscard]] std::optional<std::string> text(const std::string& key) const {
    const auto it = values_.find(key);
    if (it == values_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::string option_;
  std::map<std::string, std::string> values_;
};

}  // namespace

double given_period_ms(const PulsarOptions& o) {
  if (o.period_ms) return *o.period_ms;
  if (o.f_hz) return 1e3 / *o.f_hz;
  return 0.0;
}

PulsarSpec make_pulsar_spec(const PulsarOptions& o, double tobs_s) {
  FASTPSR_EXPECTS(o.period_ms.has_value() != o.f_hz.has_value(), "give the period (ms) or the frequency (Hz), once");
  // SIGPROC computes the period as 1.0e-3 * ms; keep its arithmetic.
  const double period_s = o.period_ms ? 1.0e-3 * *o.period_ms : 1.0 / *o.f_hz;
  FASTPSR_EXPECTS(period_s > 0.0 && std::isfinite(period_s), "period must be positive, got {} ms", 1e3 * period_s);
  const int derivatives = (o.pdot ? 1 : 0) + (o.accn ? 1 : 0) + (o.fdot ? 1 : 0) + (o.z ? 1 : 0);
  FASTPSR_EXPECTS(derivatives <= 1, "give at most one of pdot, accn, fdot and z");
  FASTPSR_EXPECTS(o.width_percent > 0.0, "pulse width must be positive, got {}%", o.width_percent);
  PulsarSpec s;
  const double f = 1.0 / period_s;
  s.spin.f_hz = f;
  s.spin.phase0 = o.phase;
  s.spin.t_ref_s = 0.0;
  if (o.pdot) {
    s.spin.fdot = -*o.pdot * f * f;
  } else if (o.accn) {
    s.spin.fdot = -*o.accn * f / kSpeedOfLight;
    s.spin.t_ref_s = tobs_s / 2;
  } else if (o.fdot) {
    s.spin.fdot = *o.fdot;
    s.spin.t_ref_s = tobs_s / 2;
  } else if (o.z) {
    FASTPSR_EXPECTS(tobs_s > 0.0, "z needs an observation length");
    s.spin.fdot = *o.z / (tobs_s * tobs_s);
    s.spin.t_ref_s = tobs_s / 2;
  }
  if (o.pb_h) {
    KeplerOrbit k;
    k.pb_s = 3600.0 * *o.pb_h;
    k.x_lts = o.x_lts;
    k.ecc = o.ecc;
    k.omega_rad = o.omega_deg * std::numbers::pi / 180.0;
    k.t_peri_s = o.tperi_s;
    FASTPSR_EXPECTS(k.pb_s > 0.0 && k.x_lts >= 0.0 && k.ecc >= 0.0 && k.ecc < 1.0,
                    "orbit: pb must be positive, x >= 0 and ecc in [0, 1) (got pb {} h, x {} lt-s, ecc {})", *o.pb_h,
                    o.x_lts, o.ecc);
    s.orbit = k;
  } else if (o.binary) {
    s.orbit =
        KeplerOrbit::from_masses(3600.0 * o.bper_h, o.becc, o.binc_deg, o.bomega_deg, o.bphase, o.bpmass, o.bcmass);
  }
  s.law = o.law;
  s.dm = o.dm;
  s.shape = o.shape;
  s.duty_cycle = o.width_percent / 100.0;
  s.snrpeak = o.snrpeak;
  s.fold_snr = o.fold_snr;
  s.spectral_index = o.spectral_index;
  s.fmin_mhz = o.fmin_mhz;
  s.fmax_mhz = o.fmax_mhz;
  return s;
}

PulsarOptions parse_pulsar_options(std::string_view text) {
  const KeyValues kv("--psr", text,
                     {"period", "f",   "dm",    "width", "snrpeak", "snr",    "profile", "phase",  "pdot",   "accn",
                      "fdot",   "z",   "bper",  "becc",  "binc",    "bomega", "bphase",  "bpmass", "bcmass", "pb",
                      "x",      "ecc", "omega", "tperi", "spindex", "law",    "fmin",    "fmax",   "power"});
  PulsarOptions o;
  kv.set("period", o.period_ms);
  kv.set("f", o.f_hz);
  FASTPSR_EXPECTS(o.period_ms.has_value() != o.f_hz.has_value(), "--psr: give period=<ms> or f=<Hz>, once");
  kv.set("dm", o.dm);
  kv.set("width", o.width_percent);
  FASTPSR_EXPECTS(!(kv.has("snrpeak") && kv.has("snr")), "--psr: give snrpeak=<peak S/N> or snr=<folded S/N>, once");
  kv.set("snrpeak", o.snrpeak);
  kv.set("snr", o.fold_snr);
  if (auto p = kv.text("profile")) o.shape = parse_profile_shape(*p);
  kv.set("phase", o.phase);
  kv.set("pdot", o.pdot);
  kv.set("accn", o.accn);
  kv.set("fdot", o.fdot);
  kv.set("z", o.z);
  for (const char* k : {"bper", "becc", "binc", "bomega", "bphase", "bpmass", "bcmass"}) o.binary |= kv.has(k);
  kv.set("bper", o.bper_h);
  kv.set("becc", o.becc);
  kv.set("binc", o.binc_deg);
  kv.set("bomega", o.bomega_deg);
  kv.set("bphase", o.bphase);
  kv.set("bpmass", o.bpmass);
  kv.set("bcmass", o.bcmass);
  kv.set("pb", o.pb_h);
  kv.set("x", o.x_lts);
  kv.set("ecc", o.ecc);
  kv.set("omega", o.omega_deg);
  kv.set("tperi", o.tperi_s);
  FASTPSR_EXPECTS(!(o.binary && o.pb_h), "--psr: give SIGPROC's orbit (bper, bpmass, ...) or pb/x, not both");
  kv.set("spindex", o.spectral_index);
  if (auto l = kv.text("law")) {
    FASTPSR_EXPECTS(*l == "integrated" || *l == "sigproc", "--psr: law={} is not integrated or sigproc", *l);
    o.law = *l == "sigproc" ? PhaseLaw::sigproc : PhaseLaw::integrated;
  }
  kv.set("fmin", o.fmin_mhz);
  kv.set("fmax", o.fmax_mhz);
  kv.set("power", o.peak_power);
  // The ranges of fake-pulsar's own options (larger values gave NaN or infinite samples).
  FASTPSR_EXPECTS(o.snrpeak >= 0.0 && o.snrpeak <= kMaxSourceSnr, "--psr: snrpeak={} is outside 0 to {:g}", o.snrpeak,
                  kMaxSourceSnr);
  FASTPSR_EXPECTS(!kv.has("snr") || (o.fold_snr > 0.0 && o.fold_snr <= kMaxSourceSnr),
                  "--psr: snr={} is not above 0 and at most {:g}", o.fold_snr, kMaxSourceSnr);
  FASTPSR_EXPECTS(o.peak_power >= 0.0 && o.peak_power <= kMaxPeakPower, "--psr: power={} is outside 0 to {:g}",
                  o.peak_power, kMaxPeakPower);
  FASTPSR_EXPECTS(std::fabs(o.spectral_index) <= kMaxSpectralIndex, "--psr: spindex={} is outside -{:g} to {:g}",
                  o.spectral_index, kMaxSpectralIndex, kMaxSpectralIndex);
  return o;
}

Tone parse_tone(std::string_view text) {
  const KeyValues kv("--tone", text, {"freq", "amp", "phase"});
  FASTPSR_EXPECTS(kv.has("freq") && kv.has("amp"), "--tone: give freq=<MHz> and amp=<rms>");
  Tone t;
  kv.set("freq", t.freq_mhz);
  kv.set("amp", t.amplitude);
  kv.set("phase", t.phase_deg);
  return t;
}

SinglePulseSpec parse_single_pulse(std::string_view text) {
  const KeyValues kv(
      "--frb", text,
      {"time", "dm", "width", "fluence", "snr", "scatter", "scatter-freq", "scatter-index", "spindex", "fmin", "fmax"});
  SinglePulseSpec s;
  FASTPSR_EXPECTS(kv.has("time"), "--frb: give time=<s> (arrival at the top of the band)");
  FASTPSR_EXPECTS(kv.has("fluence") != kv.has("snr"), "--frb: give fluence=<rms ms> or snr=<S/N>, once");
  kv.set("time", s.time_s);
  kv.set("dm", s.dm);
  double width_ms = 1.0;
  kv.set("width", width_ms);
  s.width_s = 1e-3 * width_ms;
  double fluence_ms = 0.0;
  kv.set("fluence", fluence_ms);
  FASTPSR_EXPECTS(fluence_ms >= 0.0 && fluence_ms <= kMaxFluence, "--frb: fluence must be 0 to {:g} rms ms, got {}",
                  kMaxFluence, fluence_ms);
  s.fluence = 1e-3 * fluence_ms;
  kv.set("snr", s.snr);
  FASTPSR_EXPECTS(!kv.has("snr") || (s.snr > 0.0 && s.snr <= kMaxSourceSnr),
                  "--frb: snr must be above 0 and at most {:g}, got {}", kMaxSourceSnr, s.snr);
  double scatter_ms = 0.0;
  kv.set("scatter", scatter_ms);
  s.scatter_s = 1e-3 * scatter_ms;
  kv.set("scatter-freq", s.scatter_ref_mhz);
  kv.set("scatter-index", s.scatter_index);
  kv.set("spindex", s.spectral_index);
  FASTPSR_EXPECTS(std::fabs(s.spectral_index) <= kMaxSpectralIndex, "--frb: spindex={} is outside -{:g} to {:g}",
                  s.spectral_index, kMaxSpectralIndex, kMaxSpectralIndex);
  kv.set("fmin", s.fmin_mhz);
  kv.set("fmax", s.fmax_mhz);
  return s;
}

NarrowbandRfi parse_narrowband_rfi(std::string_view text) {
  const KeyValues kv("--rfi-narrowband", text, {"freq", "width", "amp"});
  FASTPSR_EXPECTS(kv.has("freq") && kv.has("amp"), "--rfi-narrowband: give freq=<MHz> and amp=<rms>");
  NarrowbandRfi r;
  kv.set("freq", r.freq_mhz);
  kv.set("width", r.width_mhz);
  kv.set("amp", r.amplitude);
  return r;
}

ImpulseRfi parse_impulse_rfi(std::string_view text) {
  const KeyValues kv("--rfi-impulses", text, {"rate", "amp", "width"});
  FASTPSR_EXPECTS(kv.has("rate") && kv.has("amp"), "--rfi-impulses: give rate=<Hz> and amp=<rms>");
  ImpulseRfi r;
  kv.set("rate", r.rate_hz);
  kv.set("amp", r.amplitude);
  double width_ms = 1.0;
  kv.set("width", width_ms);
  r.width_s = 1e-3 * width_ms;
  FASTPSR_EXPECTS(r.width_s > 0.0, "--rfi-impulses: width must be positive, got {} ms", width_ms);
  return r;
}

SinglePulseSpec parse_single_impulse(std::string_view text) {
  const KeyValues kv("--rfi-impulse", text, {"time", "amp", "width"});
  FASTPSR_EXPECTS(kv.has("time") && kv.has("amp"), "--rfi-impulse: give time=<s> and amp=<rms>");
  SinglePulseSpec s;
  kv.set("time", s.time_s);
  double amp = 0.0;
  kv.set("amp", amp);
  double width_ms = 1.0;
  kv.set("width", width_ms);
  FASTPSR_EXPECTS(width_ms > 0.0 && amp >= 0.0 && amp <= kMaxFluence,
                  "--rfi-impulse: width must be positive and amp 0 to {:g}", kMaxFluence);
  s.width_s = 1e-3 * width_ms;
  // Peak amp of a Gaussian of FWHM w: fluence = amp sigma sqrt(2 pi).
  s.fluence = amp * s.width_s / (2.0 * std::sqrt(2.0 * std::numbers::ln2)) * std::sqrt(2.0 * std::numbers::pi);
  return s;
}

PulsarSpec parse_periodic_rfi(std::string_view text, const Observation& obs) {
  const KeyValues kv("--rfi-periodic", text, {"period", "f", "amp", "duty", "profile", "fmin", "fmax"});
  PulsarOptions o;
  kv.set("period", o.period_ms);
  kv.set("f", o.f_hz);
  FASTPSR_EXPECTS(o.period_ms.has_value() != o.f_hz.has_value(), "--rfi-periodic: give period=<ms> or f=<Hz>, once");
  FASTPSR_EXPECTS(kv.has("amp"), "--rfi-periodic: give amp=<rms per channel>");
  double amp = 0.0;
  kv.set("amp", amp);
  o.snrpeak = amp * std::sqrt(static_cast<double>(obs.nchans));
  o.width_percent = 50.0;
  kv.set("duty", o.width_percent);
  if (auto p = kv.text("profile")) o.shape = parse_profile_shape(*p);
  kv.set("fmin", o.fmin_mhz);
  kv.set("fmax", o.fmax_mhz);
  PulsarSpec s = make_pulsar_spec(o, obs.duration_s());
  s.label = "periodic RFI";
  return s;
}

}  // namespace fastpsr::sim
