// SPDX-License-Identifier: MIT
#pragma once
/// What the filterbank simulator makes: the observation (SIGPROC geometry), the noise, and the
/// signals in it (pulsars, single dispersed pulses, RFI). Plain data; FilterbankSimulator checks
/// it. All amplitudes are in units of the rms of the noise of one channel (before the output
/// scaling of fastpsr/sim/quantise.hpp); times are seconds from the start of sample 0.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "fastpsr/dedisp.hpp"
#include "fastpsr/sim/phase_model.hpp"
#include "fastpsr/sim/pulse_profile.hpp"

namespace fastpsr::sim {

/// The channel grid and the sampling, as SIGPROC describes them. Sample k integrates
/// [k tsamp, (k+1) tsamp); channel c is centred on fch1 + c foff and foff wide.
struct Observation {
  int nchans = 128;
  int nifs = 1;
  double fch1_mhz = 433.968;
  double foff_mhz = -0.062;
  double tsamp_s = 80e-6;
  std::uint64_t nsamples = 0;
  double tstart_mjd = 50000.0;

  [[nodiscard]] double channel_freq_mhz(int c) const { return fch1_mhz + c * foff_mhz; }
  /// Centre of the highest channel: the reference of every dispersion delay.
  [[nodiscard]] double top_freq_mhz() const { return foff_mhz < 0 ? fch1_mhz : channel_freq_mhz(nchans - 1); }
  [[nodiscard]] double duration_s() const { return static_cast<double>(nsamples) * tsamp_s; }
  [[nodiscard]] std::size_t values_per_sample() const {
    return static_cast<std::size_t>(nchans) * static_cast<std::size_t>(nifs);
  }
};

/// How the pulse is spread by the instrument.
///  none:    point samples at the sample centre, infinitely narrow channels (SIGPROC -nosmear).
///  full:    each value is the mean of the signal over its sample and over its channel's
///           dispersion sweep (the delay across the channel, to first order in its width): what
///           a real filterbank records. Fluence is conserved.
///  sigproc: SIGPROC fake's default: the pulse width is widened in quadrature,
///           w' = sqrt(w^2 + tdm^2 + tsamp^2) with tdm = 8.3e3 DM |foff| / fch1^3 (the same for
///           every channel), at the same peak; point samples. This adds fluence.
enum class Smearing { none, full, sigproc };
Smearing parse_smearing(std::string_view text);
std::string_view to_string(Smearing s);

/// A periodic source: a pulsar, or (with dm 0 and a frequency range) a periodic interferer.
struct PulsarSpec {
  SpinModel spin;  ///< f at t_ref, fdot, phase0 (the pulse peak is at phase 1/2)
  std::optional<KeplerOrbit> orbit;
  PhaseLaw law = PhaseLaw::integrated;
  double dm = 0.0;  ///< pc cm^-3
  ProfileShape shape = ProfileShape::boxcar;
  double duty_cycle = 0.04;  ///< width / period (FWHM for the smooth shapes)
  /// Amplitude, as SIGPROC's -snrpeak: the peak of one intrinsic pulse in the channel sum,
  /// in units of the rms of that sum (one sample). Per channel it is snrpeak / sqrt(nchans).
  double snrpeak = 1.0;
  /// When > 0, snrpeak is chosen so that expected_fold_snr() equals this.
  double fold_snr = 0.0;
  double spectral_index = 0.0;  ///< amplitude ~ f^index, normalised to mean 1 over channels
  double fmin_mhz = -std::numeric_limits<double>::infinity();  ///< channels outside get nothing
  double fmax_mhz = std::numeric_limits<double>::infinity();
  std::string label;
};

/// A single dispersed pulse (FRB-like): a Gaussian, optionally with a one-sided exponential
/// scattering tail, the same fluence in every channel (times the spectral weight).
struct SinglePulseSpec {
  double time_s = 0.0;  ///< arrival of the Gaussian's peak at the top channel
  double dm = 0.0;
  double width_s = 1e-3;  ///< FWHM of the Gaussian
  /// Fluence per channel: the integral over time of the pulse, in noise rms x seconds.
  double fluence = 0.0;
  /// When > 0, the fluence is chosen so that expected_single_pulse_snr() equals this.
  double snr = 0.0;
  double scatter_s = 0.0;        ///< scattering time at scatter_ref_mhz
  double scatter_ref_mhz = 0.0;  ///< 0: the top channel
  double scatter_index = -4.0;   ///< tau ~ f^index
  double spectral_index = 0.0;
  double fmin_mhz = -std::numeric_limits<double>::infinity();
  double fmax_mhz = std::numeric_limits<double>::infinity();
};

/// Persistent narrowband interference: a constant excess power in the channels whose centre is
/// within width/2 of freq (at least the nearest channel).
struct NarrowbandRfi {
  double freq_mhz = 0.0;
  double width_mhz = 0.0;
  double amplitude = 0.0;
};

/// Broadband impulses at DM 0: Gaussians of the given FWHM and per-channel peak, one at a
/// uniformly random time in each interval [k/rate, (k+1)/rate) (deterministic for the seed).
struct ImpulseRfi {
  double rate_hz = 0.0;
  double amplitude = 0.0;
  double width_s = 1e-3;
};

struct SimConfig {
  Observation obs;
  std::uint64_t seed = 1;
  bool noise = true;  ///< false: signals only (templates, tests)
  DelayModel delay_model = DelayModel::presto;
  Smearing smearing = Smearing::full;   ///< fake-pulsar's default is sigproc (SIGPROC's behaviour)
  std::vector<PulsarSpec> pulsars;      ///< also the periodic interferers
  std::vector<SinglePulseSpec> pulses;  ///< also single broadband impulses (dm 0)
  std::vector<NarrowbandRfi> narrowband;
  std::vector<ImpulseRfi> impulses;
};

}  // namespace fastpsr::sim
