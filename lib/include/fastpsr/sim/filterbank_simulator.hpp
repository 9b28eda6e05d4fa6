// SPDX-License-Identifier: MIT
#pragma once
/// The filterbank simulator behind fake-pulsar, usable in-process by tests of other tools.
///
/// A FilterbankSimulator is made once from a SimConfig (it checks it and precomputes delays,
/// profiles and amplitudes) and then fills any range of samples on demand. Every value is a
/// pure function of (seed, sample, IF, channel): the same whatever the block sizes, the order
/// of the blocks and the number of OpenMP threads.
///
/// Expected signal-to-noise (docs/fake-pulsar.md has the derivations). With N samples, C
/// channels, I IFs, a_c the per-channel amplitude and p_c(phi) the profile of channel c as
/// recorded (smoothed over its sample and its channel's dispersion sweep):
///   q(phi) = sum_c a_c p_c(phi)                         (ideally dedispersed channel sum)
///   fold S/N = sqrt(N I / C * int_0^1 (q - <q>)^2 dphi)
/// is the S/N of the matched filter (the noise-free template) applied to the data folded with
/// the exact phase and delays; a fold with enough bins reaches it, and it is the mean of that
/// statistic under noise (whose standard deviation is 1). For an unsmeared boxcar of duty
/// cycle d: snrpeak sqrt(N d (1 - d)).
/// In a power spectrum normalised so that noise powers have mean 1, harmonic h of an
/// unaccelerated pulsar adds N I / C |q_h|^2 (q_h its Fourier coefficient), and the powers of
/// all harmonics add up to (fold S/N)^2 / 2.
/// For a single pulse with s(t) = sum_c F_c g_c(t) (each channel aligned at its arrival, g_c
/// its recorded shape per unit fluence): S/N = sqrt(I / C * int s(t)^2 dt / tsamp), the S/N of
/// the matched filter on the ideally dedispersed time series.
/// These are for the values in units of the noise rms; quantisation to nbits multiplies them
/// by quantisation_efficiency() (1 for 32 bits, 0.9999 for 8, 0.80 for 1 bit).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/sigproc.hpp"
#include "fastpsr/sim/quantise.hpp"
#include "fastpsr/sim/sim_config.hpp"

namespace fastpsr::sim {

class FilterbankSimulator {
 public:
  /// Checks the configuration (Error(invalid_argument) naming the problem) and precomputes.
  /// Pulsars with fold_snr > 0 and pulses with snr > 0 get their amplitude from it.
  explicit FilterbankSimulator(const SimConfig& config);
  ~FilterbankSimulator();
  FilterbankSimulator(const FilterbankSimulator&) = delete;
  FilterbankSimulator& operator=(const FilterbankSimulator&) = delete;

  /// The configuration, with every pulsar's snrpeak and every pulse's fluence resolved.
  [[nodiscard]] const SimConfig& config() const noexcept;
  [[nodiscard]] std::size_t values_per_sample() const noexcept { return config().obs.values_per_sample(); }

  /// Fills out[(k - first) * values_per_sample() + i * nchans + c] for samples k in
  /// [first, first + n), IF i and channel c: unit-variance noise plus signals (float32, host).
  /// Samples past obs.nsamples are made like the others. Runs on the OpenMP threads.
  void fill(std::uint64_t first, std::size_t n, float* out) const;
  /// The same values scaled, rounded and packed as SIGPROC data (quantise.hpp):
  /// packed_bytes(n * values_per_sample(), nbits) bytes.
  void fill_packed(std::uint64_t first, std::size_t n, int nbits, OutputScale scale, std::uint8_t* out) const;

  // What a search must recover (see above). Indices follow config().pulsars / config().pulses.
  [[nodiscard]] double expected_fold_snr(std::size_t pulsar) const;
  /// Expected power above the noise's mean of harmonics 1..nharm (normalised spectrum).
  [[nodiscard]] std::vector<double> expected_harmonic_powers(std::size_t pulsar, int nharm) const;
  [[nodiscard]] double expected_single_pulse_snr(std::size_t pulse) const;

  // For folding and checking in tests.
  [[nodiscard]] const PhaseModel& pulsar_phase_model(std::size_t pulsar) const;
  /// Dispersion delay of channel c relative to the top channel, s.
  [[nodiscard]] double pulsar_delay_s(std::size_t pulsar, int c) const;
  /// Channel c's noise-free value at rotational phase `phase`, in noise rms.
  [[nodiscard]] double pulsar_channel_signal(std::size_t pulsar, int c, double phase) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// The header SIGPROC fake writes (keys in sigproc_fake_keys() order): machine_id 10 and
/// telescope_id 4 unless given, data_type 1 (2 with refdm when nchans is 1).
SigprocHeader make_fake_header(const Observation& obs, int nbits, const std::string& source_name, double refdm,
                               int machine_id = 10, int telescope_id = 4);

struct WriteOptions {
  int nbits = 8;
  OutputScale scale{127.5, 31.875};
  bool write_header = true;
  SigprocHeader header;                 ///< written when write_header
  std::size_t block_bytes = 16u << 20;  ///< output bytes made per block (two blocks in memory)
  std::function<void(std::uint64_t samples_done)> progress;
};

/// Writes samples [0, obs.nsamples) (after the header) to `sink`, generating block k+1 while
/// block k is written. Memory: two blocks. Does not commit the sink.
void write_filterbank(const FilterbankSimulator& sim, ByteSink& sink, const WriteOptions& options);

/// Equivalent Gaussian significance (single trial) of a sum of nharm normalised powers, each
/// exponentially distributed with mean 1 under noise: the sigma whose upper Gaussian tail
/// equals P(Gamma(nharm, 1) >= summed_power) (PRESTO's candidate sigma with one trial).
double summed_power_sigma(double summed_power, int nharm);
/// The sigma whose one-sided Gaussian tail probability is exp(log_p).
double sigma_from_log_tail(double log_p);

}  // namespace fastpsr::sim
