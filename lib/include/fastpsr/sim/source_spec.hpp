// SPDX-License-Identifier: MIT
#pragma once
/// The user's description of the simulated sources, in SIGPROC fake's units, and the
/// "key=value,key=value" texts of fake-pulsar's --psr, --frb and --rfi-* options, turned into
/// the simulator's physical specs. Shared by the tool and by tests that inject in-process.
///
/// Spin conventions (docs/fake-pulsar.md):
///   period       the period at the start, or with accn/fdot/z at the middle of the observation
///                (SIGPROC: -pdot refers to the start, -accn to the middle); with an orbit it is
///                the period in the pulsar's frame.
///   pdot         s/s:  fdot = -pdot / P^2, epoch the start
///   accn         m/s^2, SIGPROC's sign: positive = accelerating away from us, the period
///                grows: fdot = -accn f / c (PRESTO's acceleration is -accn)
///   fdot         Hz/s, epoch the middle
///   z            PRESTO's z = fdot T^2 (T = the observation length), epoch the middle
/// At most one of pdot, accn, fdot, z.
#include <optional>
#include <string_view>

#include "fastpsr/sim/sim_config.hpp"
#include "fastpsr/sim/voltage_simulator.hpp"

namespace fastpsr::sim {

struct PulsarOptions {
  std::optional<double> period_ms;
  std::optional<double> f_hz;
  double dm = 0.0;
  double width_percent = 4.0;
  double snrpeak = 1.0;
  double fold_snr = 0.0;    ///< > 0: the amplitude is chosen to reach this folded S/N
  double peak_power = 0.0;  ///< voltage mode: pulsar / noise power at the pulse peak
  ProfileShape shape = ProfileShape::boxcar;
  double phase = 0.0;
  std::optional<double> pdot;
  std::optional<double> accn;
  std::optional<double> fdot;
  std::optional<double> z;
  // SIGPROC's binary parameters (-binary -bper -becc -binc -bomega -bphase -bpmass -bcmass),
  // with SIGPROC's defaults.
  bool binary = false;
  double bper_h = 10.0;
  double becc = 0.0;
  double binc_deg = 90.0;
  double bomega_deg = 0.0;
  double bphase = 0.0;
  double bpmass = 1.4;
  double bcmass = 5.0;
  // Or a Keplerian orbit given directly (used when pb_h is set).
  std::optional<double> pb_h;
  double x_lts = 0.0;
  double ecc = 0.0;
  double omega_deg = 0.0;
  double tperi_s = 0.0;
  double spectral_index = 0.0;
  PhaseLaw law = PhaseLaw::integrated;
  double fmin_mhz = -std::numeric_limits<double>::infinity();
  double fmax_mhz = std::numeric_limits<double>::infinity();
};

/// The physical spec for an observation of tobs_s seconds. Error(invalid_argument) for a
/// missing or non-positive period, more than one of pdot/accn/fdot/z, or a bad orbit.
PulsarSpec make_pulsar_spec(const PulsarOptions& o, double tobs_s);
/// The period in ms as given (period, or 1000/f).
double given_period_ms(const PulsarOptions& o);

/// The largest S/N (snrpeak, snr, --fold-snr), peak power ratio, fluence (rms ms: --frb, and the
/// amp of --rfi-impulse in rms) and |spectral index| a source may have: beyond them the float32
/// samples overflowed to NaN or infinity (QA of option values).
inline constexpr double kMaxSourceSnr = 1e6;
inline constexpr double kMaxPeakPower = 1e12;
inline constexpr double kMaxFluence = 1e12;
inline constexpr double kMaxSpectralIndex = 10.0;

/// --psr text. Keys: period (ms) or f (Hz); dm; width (%); snrpeak or snr (folded S/N);
/// profile; phase; pdot, accn, fdot or z; bper, becc, binc, bomega, bphase, bpmass, bcmass
/// (SIGPROC's orbit, any of them enables it) or pb (h), x (lt-s), ecc, omega (deg), tperi (s);
/// spindex; law (integrated or sigproc); fmin, fmax (MHz); power (voltage mode: peak power
/// ratio; snr there is the coherent S/N).
PulsarOptions parse_pulsar_options(std::string_view text);
/// --tone text (voltage mode). Keys: freq (MHz), amp (noise rms of one component), phase (deg).
Tone parse_tone(std::string_view text);
/// --frb text. Keys: time (s), dm, width (ms, FWHM), fluence (noise rms x ms per channel) or
/// snr, scatter (ms), scatter-freq (MHz), scatter-index, spindex, fmin, fmax.
SinglePulseSpec parse_single_pulse(std::string_view text);
/// --rfi-narrowband text. Keys: freq (MHz), width (MHz), amp (noise rms).
NarrowbandRfi parse_narrowband_rfi(std::string_view text);
/// --rfi-impulses text. Keys: rate (Hz), amp (noise rms, per channel peak), width (ms).
ImpulseRfi parse_impulse_rfi(std::string_view text);
/// --rfi-impulse text (one broadband pulse at DM 0). Keys: time (s), amp, width (ms).
SinglePulseSpec parse_single_impulse(std::string_view text);
/// --rfi-periodic text (a periodic interferer at DM 0). Keys: period (ms) or f (Hz), amp (noise
/// rms per channel), duty (%), profile, fmin, fmax (MHz).
PulsarSpec parse_periodic_rfi(std::string_view text, const Observation& obs);

}  // namespace fastpsr::sim
