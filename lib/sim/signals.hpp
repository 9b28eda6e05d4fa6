// SPDX-License-Identifier: MIT
#pragma once
// The signals the filterbank simulator adds to its noise (internal to lib/sim). Every value
// they add is a pure function of (sample index, channel), so the simulator's output does not
// depend on how samples are split into blocks or threads.
#include <cstdint>
#include <vector>

#include "fastpsr/sim/pulse_profile.hpp"
#include "fastpsr/sim/random.hpp"
#include "fastpsr/sim/scattered_gaussian.hpp"
#include "fastpsr/sim/sim_config.hpp"
#include "phase_pieces.hpp"

namespace fastpsr::sim::detail {

/// Per-channel dispersion delays (relative to the top channel) and delay sweeps across each
/// channel, in seconds, for one DM.
struct ChannelDelays {
  std::vector<double> delay_s;
  std::vector<double> sweep_s;
};
ChannelDelays channel_delays(const Observation& obs, DelayModel model, double dm);

/// Relative amplitudes (f / f_mid)^index over the channels within [fmin, fmax], normalised to
/// mean 1 over those channels; 0 outside. Error(invalid_argument) when no channel is inside.
std::vector<double> spectral_weights(const Observation& obs, double index, double fmin_mhz, double fmax_mhz);

/// A periodic signal (pulsar or periodic interferer).
class PulsarSignal {
 public:
  PulsarSignal(const PulsarSpec& spec, const SimConfig& config);

  /// The phase for a fill of [first, first + n) (pieces of kPieceSamples samples).
  static constexpr std::int64_t kPieceSamples = 4096;
  [[nodiscard]] PhasePieces make_pieces(std::uint64_t first, std::size_t n) const;
  /// Adds the signal of samples [first, first + n) to rows of `stride` floats (row 0 = first).
  void add(const PhasePieces& pieces, std::uint64_t first, std::size_t n, float* out, std::size_t stride) const;

  /// Per-channel peak amplitude (noise rms) after the spectral weights; 0 for unused channels.
  [[nodiscard]] double channel_amplitude(int c) const { return amplitude_[static_cast<std::size_t>(c)]; }
  /// The profile of channel c as recorded: smoothed over the sample and the channel sweep.
  [[nodiscard]] double recorded_profile(int c, double phase) const;
  /// Half-width (cycles) around phase 1/2 outside of which channel c's recorded profile is 0.
  [[nodiscard]] double support_half_width(int c) const { return half_width_[static_cast<std::size_t>(c)]; }
  [[nodiscard]] const PhaseModel& model() const noexcept { return model_; }
  [[nodiscard]] const PulseProfile& profile() const noexcept { return profile_; }
  [[nodiscard]] double delay_s(int c) const { return delays_.delay_s[static_cast<std::size_t>(c)]; }
  /// Sets snrpeak (the amplitudes scale with it).
  void set_snrpeak(double snrpeak);
  [[nodiscard]] double snrpeak() const noexcept { return snrpeak_; }

 private:
  const Observation obs_;
  PhaseModel model_;
  PulseProfile profile_;
  ChannelDelays delays_;
  std::vector<double> weight_;
  std::vector<double> amplitude_;
  std::vector<double> sweep_cycles_;  // channel sweep in cycles (0 unless Smearing::full)
  std::vector<double> half_width_;    // support half-width per channel, cycles
  double sample_cycles_ = 0.0;        // nominal sample length in cycles (0 unless Smearing::full)
  bool integrate_samples_ = false;    // Smearing::full: mean over each sample's exact phase span
  double snrpeak_ = 0.0;
};

/// A single dispersed pulse (or a broadband impulse at DM 0).
class SinglePulseSignal {
 public:
  SinglePulseSignal(const SinglePulseSpec& spec, const SimConfig& config);
  void add(std::uint64_t first, std::size_t n, float* out, std::size_t stride) const;
  /// The pulse of channel c as recorded (per unit fluence), at time t from its arrival there.
  [[nodiscard]] double recorded_shape(int c, double t) const;
  [[nodiscard]] double channel_fluence(int c) const { return fluence_[static_cast<std::size_t>(c)]; }
  [[nodiscard]] double arrival_s(int c) const { return spec_.time_s + delays_.delay_s[static_cast<std::size_t>(c)]; }
  /// Time span around the arrival that holds the recorded pulse of every channel.
  [[nodiscard]] double span_before() const noexcept { return span_before_; }
  [[nodiscard]] double span_after() const noexcept { return span_after_; }
  void set_fluence(double fluence);
  [[nodiscard]] double fluence() const noexcept { return spec_.fluence; }

 private:
  [[nodiscard]] ScatteredGaussian shape(int c) const;
  const Observation obs_;
  SinglePulseSpec spec_;
  ChannelDelays delays_;
  std::vector<double> weight_;
  std::vector<double> fluence_;
  std::vector<double> scatter_s_;
  std::vector<double> sweep_s_;  // 0 unless Smearing::full
  double sample_s_ = 0.0;        // 0 unless Smearing::full
  double sigma_s_ = 0.0;         // Gaussian sigma (widened for Smearing::sigproc)
  double span_before_ = 0.0;
  double span_after_ = 0.0;
};

/// Constant excess power in some channels.
class NarrowbandSignal {
 public:
  NarrowbandSignal(const NarrowbandRfi& spec, const Observation& obs);
  void add(std::size_t n, float* out, std::size_t stride) const;

 private:
  std::vector<int> channels_;
  int nchans_;
  int nifs_;
  float amplitude_;
};

/// Broadband impulses at random times.
class ImpulseSignal {
 public:
  ImpulseSignal(const ImpulseRfi& spec, const SimConfig& config, std::uint32_t index);
  void add(std::uint64_t first, std::size_t n, float* out, std::size_t stride) const;
  /// Arrival time of impulse k.
  [[nodiscard]] double time_s(std::uint64_t k) const;

 private:
  const Observation obs_;
  ImpulseRfi spec_;
  CounterRng rng_;
  std::uint32_t index_;
  ScatteredGaussian shape_;
  double fluence_;
  double sample_s_;
};

}  // namespace fastpsr::sim::detail
