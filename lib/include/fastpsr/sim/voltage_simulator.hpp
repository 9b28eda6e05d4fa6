// SPDX-License-Identifier: MIT
#pragma once
/// Complex baseband voltages of one band (fake-pulsar --voltages): Gaussian noise, tones, and
/// pulsars whose signal is coherently dispersed. The stream a channeliser (ppf) reads.
///
/// Model. Sample k (time k / bw) of polarisation p is x = n + sum of tones + sum of pulsars,
/// where n is complex Gaussian noise of unit variance per component (power 2). The band is
/// centred on `freq_mhz` (the sky frequency of DC) and `bw_mhz` wide, which is also the complex
/// sample rate (upper sideband: offset +f is sky frequency freq + f).
///  * A tone adds amp exp(i (2 pi (f - freq) t + phase)) to every polarisation.
///  * A pulsar emits amplitude-modulated noise, e(t) = sqrt(r(t)) m(t): m is complex Gaussian
///    noise of power 2 (independent per polarisation: unpolarised) and r(t) = peak_power p(phi(t))
///    the ratio of its power to the noise power, with p its unit-peak profile and phi the phase
///    model of fastpsr/sim/phase_model.hpp (times are arrival times at the top of the band,
///    freq + bw/2). e is then dispersed exactly: in the Fourier domain it is multiplied by
///      H(f) = exp(-2 pi i 1e6 K DM f [1/(F (F + f)) - 1/F_top^2]),  f = offset from F (MHz),
///    whose group delay is K DM (1/(F+f)^2 - 1/F_top^2) >= 0 (K of the delay model). The
///    convolution is done by overlap-save over segments of L = Nfft - D output samples on a
///    fixed global grid (D = the samples of the dispersion sweep, Nfft = 2^k >= 4 D), so the
///    output does not depend on the blocks asked for.
/// Every random number comes from the counter-based generator (fastpsr/sim/random.hpp): the
/// stream is identical whatever the blocks and the thread count.
///
/// Layout (the DADA ORDER "TFP" with NCHAN 1): time slowest, then polarisation, then (re, im).
/// Output values are round(scale x) clipped to +-127 (ci8) or +-32767 (ci16), or scale x as
/// float32 (cf32); default scales 16, 1024 and 1 output units per noise rms of one component.
///
/// Expected S/N (weak pulsars, peak_power << 1). Coherently dedispersed at full resolution and
/// folded with a matched filter: sqrt(npol N int (r - <r>)^2 dphi) over N samples.
/// Channelised by an FFT of C points (no window), detected, polarisations summed and M spectra
/// integrated, the stream is statistically a filterbank of C channels of bw/C, tsamp C M / bw,
/// with per-channel amplitude sqrt(M npol) r (equivalent_filterbank()); its S/N after
/// incoherent dedispersion and folding is that filterbank's expected_fold_snr().
#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/dada.hpp"
#include "fastpsr/sim/sim_config.hpp"

namespace fastpsr::sim {

enum class VoltageFormat { ci8, ci16, cf32 };
/// "ci8", "ci16" or "cf32"; Error(invalid_argument) otherwise.
VoltageFormat parse_voltage_format(std::string_view text);
/// Bits per component: 8, 16, 32.
int voltage_bits(VoltageFormat f);
/// Output units per noise rms of one component: 16 (ci8: clips at 7.9 rms), 1024 (ci16), 1.
double default_voltage_scale(VoltageFormat f);

struct Tone {
  double freq_mhz = 0.0;   ///< sky frequency
  double amplitude = 0.0;  ///< in noise rms of one component
  double phase_deg = 0.0;
};

struct VoltagePulsar {
  PulsarSpec spec;            ///< spin, orbit, DM, profile (snrpeak, smearing and spectra unused)
  double peak_power = 0.0;    ///< r at the pulse peak
  double coherent_snr = 0.0;  ///< when > 0, peak_power is set so that coherent_fold_snr() is this
};

struct VoltageConfig {
  double freq_mhz = 1400.0;
  double bw_mhz = 16.0;
  int npol = 1;
  std::uint64_t nsamples = 0;
  double tstart_mjd = 50000.0;
  std::uint64_t seed = 1;
  bool noise = true;
  DelayModel delay_model = DelayModel::presto;
  std::vector<VoltagePulsar> pulsars;
  std::vector<Tone> tones;

  [[nodiscard]] double tsamp_s() const { return 1e-6 / bw_mhz; }
  [[nodiscard]] double top_freq_mhz() const { return freq_mhz + bw_mhz / 2; }
};

class VoltageSimulator {
 public:
  /// Checks the configuration (Error(invalid_argument)) and plans the FFTs.
  explicit VoltageSimulator(const VoltageConfig& config);
  ~VoltageSimulator();
  VoltageSimulator(const VoltageSimulator&) = delete;
  VoltageSimulator& operator=(const VoltageSimulator&) = delete;

  /// The configuration with every pulsar's peak_power resolved.
  [[nodiscard]] const VoltageConfig& config() const noexcept;
  /// Samples [first, first + n): out[(k - first) npol + p], in noise rms. OpenMP threads.
  void fill(std::uint64_t first, std::size_t n, std::complex<float>* out) const;
  /// The same, scaled and packed (layout above): n * npol * 2 * bits / 8 bytes.
  void fill_packed(std::uint64_t first, std::size_t n, VoltageFormat format, double scale, std::uint8_t* out) const;
  /// Output samples per overlap-save segment, and the FFT length.
  [[nodiscard]] std::size_t segment_samples() const noexcept;
  [[nodiscard]] std::size_t fft_length() const noexcept;

  [[nodiscard]] double coherent_fold_snr(std::size_t pulsar) const;
  /// The filterbank this stream becomes when channelised by an unwindowed FFT of nchan points
  /// (channel j of the FFT, after moving DC to the middle, at freq + (j - nchan/2) bw/nchan;
  /// written highest first), detected, polarisations summed and nint spectra integrated. Its
  /// lowest channel is the FFT's Nyquist bin, which in truth holds both edges of the band.
  [[nodiscard]] SimConfig equivalent_filterbank(int nchan, int nint) const;
  [[nodiscard]] const PhaseModel& pulsar_phase_model(std::size_t pulsar) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// The PSRDADA header of the stream: HDR_VERSION, HDR_SIZE, INSTRUMENT fake-pulsar, TELESCOPE,
/// SOURCE, FREQ, BW, TSAMP (us), NBIT, NDIM 2, NPOL, NCHAN 1, ORDER TFP, MJD_START, UTC_START,
/// OBS_OFFSET 0, RESOLUTION and FILE_SIZE.
DadaHeader make_voltage_dada_header(const VoltageConfig& config, VoltageFormat format, const std::string& source,
                                    const std::string& telescope);

struct VoltageWriteOptions {
  VoltageFormat format = VoltageFormat::ci8;
  double scale = 16.0;
  bool write_header = true;
  DadaHeader header;
  std::size_t block_bytes = 16u << 20;
  std::function<void(std::uint64_t samples_done)> progress;
};

/// Writes samples [0, nsamples) after the header, generating block k+1 while block k is written.
void write_voltages(const VoltageSimulator& sim, ByteSink& sink, const VoltageWriteOptions& options);

/// "YYYY-MM-DD-hh:mm:ss" (whole seconds, truncated) of an MJD, as DADA's UTC_START.
std::string mjd_to_utc_string(double mjd);

}  // namespace fastpsr::sim
