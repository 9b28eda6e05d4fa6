// SPDX-License-Identifier: MIT
#include "fastpsr/sim/voltage_simulator.hpp"

#include <fftw3.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <exception>
#include <future>
#include <mutex>
#include <numbers>

#include "fast_floor.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/sim/random.hpp"
#include "phase_pieces.hpp"

namespace fastpsr::sim {
namespace {

// Noise is drawn in rows of this many samples (x npol x 2 components): one counter row each.
constexpr std::int64_t kRowSamples = 1024;
constexpr std::int64_t kPieceSamples = std::int64_t{1} << 16;
// Segments when nothing needs an FFT.
constexpr std::size_t kPlainSegment = std::size_t{1} << 16;
// Pulsar i's own emission noise uses stream kPulsarStream + i.
constexpr std::uint32_t kPulsarStream = 1000;

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// FFTW's planner is not thread-safe; plans are made under this lock.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

struct FftwBuffer {
  explicit FftwBuffer(std::size_t n)
      : data(static_cast<std::complex<float>*>(fftwf_malloc(n * sizeof(std::complex<float>)))), size(n) {
    if (data == nullptr) throw std::bad_alloc();
  }
  ~FftwBuffer() { fftwf_free(data); }
  FftwBuffer(const FftwBuffer&) = delete;
  FftwBuffer& operator=(const FftwBuffer&) = delete;
  [[nodiscard]] fftwf_complex* fftw() const { return reinterpret_cast<fftwf_complex*>(data); }
  std::complex<float>* data;
  std::size_t size;
};

struct FftwPlan {
  FftwPlan() = default;
  ~FftwPlan() {
    if (plan != nullptr) {
      const std::lock_guard lock(planner_mutex());
      fftwf_destroy_plan(plan);
    }
  }
  FftwPlan(const FftwPlan&) = delete;
  FftwPlan& operator=(const FftwPlan&) = delete;
  fftwf_plan plan = nullptr;
};

}  // namespace

VoltageFormat parse_voltage_format(std::string_view text) {
  if (text == "ci8") return VoltageFormat::ci8;
  if (text == "ci16") return VoltageFormat::ci16;
  if (text == "cf32") return VoltageFormat::cf32;
  throw Error(ErrorCode::invalid_argument, fmt::format("voltage format '{}' is not one of ci8, ci16, cf32", text));
}

int voltage_bits(VoltageFormat f) {
  switch (f) {
    case VoltageFormat::ci8:
      return 8;
    case VoltageFormat::ci16:
      return 16;
    case VoltageFormat::cf32:
      return 32;
  }
  return 0;
}

double default_voltage_scale(VoltageFormat f) {
  switch (f) {
    case VoltageFormat::ci8:
      return 16.0;
    case VoltageFormat::ci16:
      return 1024.0;
    case VoltageFormat::cf32:
      return 1.0;
  }
  return 1.0;
}

struct VoltageSimulator::Impl {
  struct Pulsar {
    PhaseModel model;
    PulseProfile profile;
    double peak_power = 0.0;
    double half_support = 0.0;
    std::vector<std::complex<float>> transfer;  // dispersion filter over the FFT bins, / nfft
  };
  explicit Impl(const VoltageConfig& c) : config(c), rng(c.seed) {}

  VoltageConfig config;
  CounterRng rng;
  std::vector<Pulsar> pulsars;
  std::size_t nfft = 0;     // 0: no dispersion to apply
  std::size_t sweep = 0;    // D: samples of the longest dispersion sweep
  std::size_t segment = 0;  // L: output samples per segment
  FftwPlan forward;
  FftwPlan backward;

  struct Workspace {
    explicit Workspace(const Impl& m)
        : fft(std::max<std::size_t>(m.nfft, 1)), row(static_cast<std::size_t>(kRowSamples) * 2 * m.config.npol) {}
    FftwBuffer fft;
    std::vector<float> row;
  };

  [[nodiscard]] std::size_t npol() const { return static_cast<std::size_t>(config.npol); }

  // Samples [s L, (s + 1) L) into out (L x npol complex), in noise rms.
  void make_segment(std::int64_t s, std::complex<float>* out, Workspace& w) const {
    const auto len = static_cast<std::int64_t>(segment);
    const std::int64_t start = s * len;
    if (config.noise) {
      draw(RandomStream::voltage_noise, start, len, nullptr, true, out, w);
    } else {
      std::fill_n(out, static_cast<std::size_t>(len) * npol(), std::complex<float>(0.0F, 0.0F));
    }
    add_tones(start, len, out);
    for (std::size_t i = 0; i < pulsars.size(); ++i) add_pulsar(i, start, out, w);
  }

  // Gaussian values of unit variance per component for samples [start, start + len) of
  // `stream`, drawn row by row, written (assign) or added to out. With `weight` (per sample) each
  // sample is scaled by it, and rows whose weights are all zero are skipped.
  void draw(RandomStream stream, std::int64_t start, std::int64_t len, const float* weight, bool assign,
            std::complex<float>* out, Workspace& w) const {
    const std::size_t np = npol();
    for (std::int64_t r = floor_div(start, kRowSamples); r * kRowSamples < start + len; ++r) {
      const std::int64_t k0 = std::max(start, r * kRowSamples);
      const std::int64_t k1 = std::min(start + len, (r + 1) * kRowSamples);
      if (weight != nullptr) {
        bool any = false;
        for (std::int64_t k = k0; k < k1 && !any; ++k) any = weight[k - start] != 0.0F;
        if (!any) continue;
      }
      rng.normals(stream, static_cast<std::uint64_t>(r), w.row.size(), w.row.data());
      for (std::int64_t k = k0; k < k1; ++k) {
        const float a = weight != nullptr ? weight[k - start] : 1.0F;
        const float* z = w.row.data() + static_cast<std::size_t>(k - r * kRowSamples) * 2 * np;
        std::complex<float>* o = out + static_cast<std::size_t>(k - start) * np;
        for (std::size_t p = 0; p < np; ++p) {
          const std::complex<float> v(a * z[2 * p], a * z[2 * p + 1]);
          o[p] = assign ? v : o[p] + v;
        }
      }
    }
  }

  void add_tones(std::int64_t start, std::int64_t len, std::complex<float>* out) const {
    const std::size_t np = npol();
    for (const Tone& t : config.tones) {
      const double cycles_per_sample = (t.freq_mhz - config.freq_mhz) / config.bw_mhz;
      const double phase0 = t.phase_deg / 360.0;
      for (std::int64_t k = start; k < start + len; ++k) {
        const double turns = detail::fraction(cycles_per_sample * static_cast<double>(k) + phase0);
        const std::complex<float> v(static_cast<float>(t.amplitude * std::cos(2 * std::numbers::pi * turns)),
                                    static_cast<float>(t.amplitude * std::sin(2 * std::numbers::pi * turns)));
        std::complex<float>* o = out + static_cast<std::size_t>(k - start) * np;
        for (std::size_t p = 0; p < np; ++p) o[p] += v;
      }
    }
  }

  // The pulsar's emission over [start - D, start + L), dispersed, added to the L outputs.
  void add_pulsar(std::size_t i, std::int64_t start, std::complex<float>* out, Workspace& w) const {
    const Pulsar& psr = pulsars[i];
    const std::size_t np = npol();
    const auto d = static_cast<std::int64_t>(sweep);
    const auto len = static_cast<std::int64_t>(segment);
    const std::int64_t from = start - d;
    const std::int64_t count = len + d;
    // sqrt(r) per sample: the amplitude of the emission.
    std::vector<float> amplitude(static_cast<std::size_t>(count), 0.0F);
    const detail::PhasePieces pieces(psr.model, config.tsamp_s(), kPieceSamples, static_cast<double>(from),
                                     static_cast<double>(start + len));
    bool any = false;
    for (std::int64_t k = from; k < start + len;) {
      const detail::PhasePieces::Phase ph = pieces.at(static_cast<double>(k));
      double r = ph.frac - 0.5;
      r -= detail::fast_floor(r + 0.5);
      if (psr.half_support >= 0.5 || std::abs(r) <= psr.half_support) {
        const double power = psr.peak_power * psr.profile.value(ph.frac);
        if (power > 0.0) {
          amplitude[static_cast<std::size_t>(k - from)] = static_cast<float>(std::sqrt(power));
          any = true;
        }
        ++k;
      } else {
        // Off the pulse: jump to just before the next pulse (the phase advances by at most
        // max_slope per sample), as the filterbank simulator does.
        const double to_window = r > 0 ? 1.0 - psr.half_support - r : -psr.half_support - r;
        const double jump = std::floor((to_window - 1e-9) / ph.piece->max_slope) - 1.0;
        k += jump >= 1.0 ? static_cast<std::int64_t>(std::min(jump, 1e15)) : 1;
      }
    }
    if (!any) return;
    const auto stream = static_cast<RandomStream>(kPulsarStream + static_cast<std::uint32_t>(i));
    // The emission of all polarisations, then each polarisation dispersed on its own.
    std::vector<std::complex<float>> emission(static_cast<std::size_t>(count) * np, std::complex<float>(0.0F, 0.0F));
    draw(stream, from, count, amplitude.data(), false, emission.data(), w);
    for (std::size_t p = 0; p < np; ++p) {
      if (nfft == 0) {
        for (std::int64_t k = 0; k < len; ++k)
          out[static_cast<std::size_t>(k) * np + p] += emission[static_cast<std::size_t>(k) * np + p];
        continue;
      }
      for (std::size_t k = 0; k < nfft; ++k) w.fft.data[k] = emission[k * np + p];
      fftwf_execute_dft(forward.plan, w.fft.fftw(), w.fft.fftw());
      for (std::size_t k = 0; k < nfft; ++k) w.fft.data[k] *= psr.transfer[k];
      fftwf_execute_dft(backward.plan, w.fft.fftw(), w.fft.fftw());
      // Overlap-save: the first D outputs hold the circular wrap of the sweep.
      for (std::int64_t k = 0; k < len; ++k) {
        out[static_cast<std::size_t>(k) * np + p] += w.fft.data[static_cast<std::size_t>(k + d)];
      }
    }
  }
};

VoltageSimulator::VoltageSimulator(const VoltageConfig& config) : impl_(std::make_unique<Impl>(config)) {
  Impl& m = *impl_;
  VoltageConfig& c = m.config;
  FASTPSR_EXPECTS(c.bw_mhz > 0.0 && std::isfinite(c.bw_mhz), "bandwidth must be positive, got {} MHz", c.bw_mhz);
  FASTPSR_EXPECTS(c.freq_mhz - c.bw_mhz / 2 > 0.0, "the band {} +- {} MHz reaches below 0 MHz", c.freq_mhz,
                  c.bw_mhz / 2);
  FASTPSR_EXPECTS(c.npol == 1 || c.npol == 2, "npol must be 1 or 2, got {}", c.npol);
  for (const Tone& t : c.tones) {
    FASTPSR_EXPECTS(std::abs(t.freq_mhz - c.freq_mhz) <= c.bw_mhz / 2, "tone at {} MHz is outside the band {} +- {}",
                    t.freq_mhz, c.freq_mhz, c.bw_mhz / 2);
  }
  const double f_top = c.top_freq_mhz();
  const double f_low = c.freq_mhz - c.bw_mhz / 2;
  double max_sweep_s = 0.0;
  for (const VoltagePulsar& p : c.pulsars) {
    FASTPSR_EXPECTS(p.spec.dm >= 0.0, "DM must be >= 0, got {}", p.spec.dm);
    max_sweep_s = std::max(max_sweep_s, dm_delay_s(c.delay_model, p.spec.dm, f_low, f_top));
  }
  if (max_sweep_s > 0.0) {
    m.sweep = static_cast<std::size_t>(std::ceil(max_sweep_s / c.tsamp_s())) + 2;
    FASTPSR_EXPECTS(m.sweep < (std::size_t{1} << 24),
                    "the dispersion sweep across the band spans {} samples (at most 2^24 are held in memory for "
                    "coherent dispersion): lower the DM or the bandwidth",
                    m.sweep);
    m.nfft = std::size_t{1} << 15;
    while (m.nfft < 4 * m.sweep) m.nfft *= 2;
    m.segment = m.nfft - m.sweep;
    const Impl::Workspace probe(m);
    const std::lock_guard lock(planner_mutex());
    m.forward.plan =
        fftwf_plan_dft_1d(static_cast<int>(m.nfft), probe.fft.fftw(), probe.fft.fftw(), FFTW_FORWARD, FFTW_ESTIMATE);
    m.backward.plan =
        fftwf_plan_dft_1d(static_cast<int>(m.nfft), probe.fft.fftw(), probe.fft.fftw(), FFTW_BACKWARD, FFTW_ESTIMATE);
    if (m.forward.plan == nullptr || m.backward.plan == nullptr) {
      throw Error(ErrorCode::resource, fmt::format("FFTW could not plan an FFT of {} points", m.nfft));
    }
  } else {
    m.segment = kPlainSegment;
  }
  const double k_dm = dm_constant(c.delay_model);
  for (VoltagePulsar& vp : c.pulsars) {
    const PulsarSpec& s = vp.spec;
    Impl::Pulsar psr{PhaseModel(s.spin, s.orbit, s.law), PulseProfile(s.shape, s.duty_cycle), 0.0, 0.0, {}};
    psr.half_support = psr.profile.support_half_width(0.0, 0.0);
    const double f = psr.model.apparent_frequency(static_cast<double>(c.nsamples) * c.tsamp_s() / 2);
    FASTPSR_EXPECTS(f * c.tsamp_s() < 0.5, "period {} ms is shorter than two samples", 1e3 / f);
    if (m.nfft > 0) {
      psr.transfer.resize(m.nfft);
      for (std::size_t j = 0; j < m.nfft; ++j) {
        const auto jj = static_cast<double>(j);
        const double off =
            (j < m.nfft / 2 ? jj : jj - static_cast<double>(m.nfft)) * c.bw_mhz / static_cast<double>(m.nfft);
        // -2 pi int_0^off tau(F + nu) dnu (MHz x s -> 1e6 cycles), tau the delay after the top.
        const double cycles =
            -1e6 * k_dm * s.dm * off * (1.0 / (c.freq_mhz * (c.freq_mhz + off)) - 1.0 / (f_top * f_top));
        const double turns = detail::fraction(cycles);
        psr.transfer[j] = std::complex<float>(
            static_cast<float>(std::cos(2 * std::numbers::pi * turns) / static_cast<double>(m.nfft)),
            static_cast<float>(std::sin(2 * std::numbers::pi * turns) / static_cast<double>(m.nfft)));
      }
    }
    m.pulsars.push_back(std::move(psr));
  }
  // Strengths given as a coherent S/N.
  for (std::size_t i = 0; i < c.pulsars.size(); ++i) {
    VoltagePulsar& vp = c.pulsars[i];
    if (vp.coherent_snr > 0.0) {
      m.pulsars[i].peak_power = 1.0;
      vp.peak_power = vp.coherent_snr / coherent_fold_snr(i);
    }
    FASTPSR_EXPECTS(vp.peak_power >= 0.0 && std::isfinite(vp.peak_power), "peak power must be >= 0, got {}",
                    vp.peak_power);
    m.pulsars[i].peak_power = vp.peak_power;
  }
}

VoltageSimulator::~VoltageSimulator() = default;

const VoltageConfig& VoltageSimulator::config() const noexcept { return impl_->config; }
std::size_t VoltageSimulator::segment_samples() const noexcept { return impl_->segment; }
std::size_t VoltageSimulator::fft_length() const noexcept { return impl_->nfft; }

const PhaseModel& VoltageSimulator::pulsar_phase_model(std::size_t pulsar) const {
  return impl_->pulsars.at(pulsar).model;
}

namespace {

template <typename Body>
void for_segments(std::int64_t s0, std::int64_t s1, const VoltageSimulator::Impl& m, const Body& body) {
  std::exception_ptr failure;
#pragma omp parallel
  {
    try {
      VoltageSimulator::Impl::Workspace w(m);
      std::vector<std::complex<float>> seg(m.segment * m.npol());
#pragma omp for schedule(dynamic)
      for (std::int64_t s = s0; s <= s1; ++s) {
        try {
          m.make_segment(s, seg.data(), w);
          body(s, seg.data());
        } catch (...) {
#pragma omp critical(fastpsr_voltage_failure)
          if (!failure) failure = std::current_exception();
        }
      }
    } catch (...) {
#pragma omp critical(fastpsr_voltage_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

// round(scale x) half away from zero, clipped to +-limit (integers), or scale x (float). The
// rounding works on the bit patterns so that the loop vectorises (no libm call, no branch).
template <typename T>
void quantise_voltages(const std::complex<float>* in, std::size_t n, float scale, float limit, std::uint8_t* out) {
  const float* x = reinterpret_cast<const float*>(in);
  for (std::size_t i = 0; i < 2 * n; ++i) {
    T v;
    if constexpr (std::is_floating_point_v<T>) {
      v = scale * x[i];
    } else {
      const auto bits = std::bit_cast<std::uint32_t>(scale * x[i]);
      const std::uint32_t negative = bits >> 31;
      auto magnitude = static_cast<std::int32_t>(bits & 0x7FFFFFFFU);
      magnitude = magnitude > std::bit_cast<std::int32_t>(limit) ? std::bit_cast<std::int32_t>(limit) : magnitude;
      const float a = std::bit_cast<float>(magnitude);
      auto r = static_cast<std::int32_t>(a);
      r += std::bit_cast<std::int32_t>(a - static_cast<float>(r)) >= std::bit_cast<std::int32_t>(0.5F) ? 1 : 0;
      const auto mask = -static_cast<std::int32_t>(negative);
      v = static_cast<T>((r ^ mask) - mask);
    }
    std::memcpy(out + i * sizeof(T), &v, sizeof(T));
  }
}

}  // namespace

void VoltageSimulator::fill(std::uint64_t first, std::size_t n, std::complex<float>* out) const {
  if (n == 0) return;
  const Impl& m = *impl_;
  const auto len = static_cast<std::int64_t>(m.segment);
  const auto f = static_cast<std::int64_t>(first);
  const auto e = static_cast<std::int64_t>(first + n);
  const std::size_t np = m.npol();
  for_segments(f / len, (e - 1) / len, m, [&](std::int64_t s, const std::complex<float>* seg) {
    const std::int64_t a = std::max(f, s * len);
    const std::int64_t b = std::min(e, (s + 1) * len);
    std::copy_n(seg + static_cast<std::size_t>(a - s * len) * np, static_cast<std::size_t>(b - a) * np,
                out + static_cast<std::size_t>(a - f) * np);
  });
}

void VoltageSimulator::fill_packed(std::uint64_t first, std::size_t n, VoltageFormat format, double scale,
                                   std::uint8_t* out) const {
  if (n == 0) return;
  const Impl& m = *impl_;
  const auto len = static_cast<std::int64_t>(m.segment);
  const auto f = static_cast<std::int64_t>(first);
  const auto e = static_cast<std::int64_t>(first + n);
  const std::size_t np = m.npol();
  const std::size_t sample_bytes = np * 2 * static_cast<std::size_t>(voltage_bits(format)) / 8;
  const auto s_f = static_cast<float>(scale);
  for_segments(f / len, (e - 1) / len, m, [&](std::int64_t s, const std::complex<float>* seg) {
    const std::int64_t a = std::max(f, s * len);
    const std::int64_t b = std::min(e, (s + 1) * len);
    const std::complex<float>* src = seg + static_cast<std::size_t>(a - s * len) * np;
    const std::size_t count = static_cast<std::size_t>(b - a) * np;
    std::uint8_t* dst = out + static_cast<std::size_t>(a - f) * sample_bytes;
    switch (format) {
      case VoltageFormat::ci8:
        quantise_voltages<std::int8_t>(src, count, s_f, 127.0F, dst);
        break;
      case VoltageFormat::ci16:
        quantise_voltages<std::int16_t>(src, count, s_f, 32767.0F, dst);
        break;
      case VoltageFormat::cf32:
        quantise_voltages<float>(src, count, s_f, 0.0F, dst);
        break;
    }
  });
}

double VoltageSimulator::coherent_fold_snr(std::size_t pulsar) const {
  const Impl::Pulsar& p = impl_->pulsars.at(pulsar);
  // int (r - <r>)^2 over the profile's own nodes.
  const std::size_t nodes = p.profile.nodes();
  double sum = 0.0;
  double sum2 = 0.0;
  for (std::size_t j = 0; j < nodes; ++j) {
    const double v = p.profile.value(static_cast<double>(j) / static_cast<double>(nodes));
    sum += v;
    sum2 += v * v;
  }
  const double variance =
      sum2 / static_cast<double>(nodes) - (sum / static_cast<double>(nodes)) * (sum / static_cast<double>(nodes));
  const VoltageConfig& c = impl_->config;
  return p.peak_power * std::sqrt(static_cast<double>(c.npol) * static_cast<double>(c.nsamples) * variance);
}

SimConfig VoltageSimulator::equivalent_filterbank(int nchan, int nint) const {
  FASTPSR_EXPECTS(nchan >= 2 && nint >= 1, "need at least 2 channels and 1 spectrum per sample, got {} and {}", nchan,
                  nint);
  const VoltageConfig& v = impl_->config;
  SimConfig c;
  c.obs.nchans = nchan;
  c.obs.nifs = 1;
  c.obs.foff_mhz = -v.bw_mhz / nchan;
  c.obs.fch1_mhz = v.freq_mhz + (nchan / 2 - 1) * v.bw_mhz / nchan;
  c.obs.tsamp_s = v.tsamp_s() * nchan * nint;
  c.obs.nsamples = v.nsamples / (static_cast<std::uint64_t>(nchan) * static_cast<std::uint64_t>(nint));
  c.obs.tstart_mjd = v.tstart_mjd;
  c.seed = v.seed;
  c.delay_model = v.delay_model;
  c.smearing = Smearing::full;
  for (const VoltagePulsar& vp : v.pulsars) {
    PulsarSpec s = vp.spec;
    // Per-channel amplitude sqrt(nint npol) r, i.e. snrpeak sqrt(nchan) times that.
    s.snrpeak = std::sqrt(static_cast<double>(nint) * v.npol * nchan) * vp.peak_power;
    s.fold_snr = 0.0;
    s.spectral_index = 0.0;
    s.fmin_mhz = -std::numeric_limits<double>::infinity();
    s.fmax_mhz = std::numeric_limits<double>::infinity();
    // The voltages refer arrival times to the top of the band, the filterbank to its top channel.
    const PhaseModel m(s.spin, s.orbit, s.law);
    s.spin.phase0 -= m.apparent_frequency(0.0) * dm_delay_s(v.delay_model, s.dm, c.obs.fch1_mhz, v.top_freq_mhz());
    c.pulsars.push_back(s);
  }
  return c;
}

std::string mjd_to_utc_string(double mjd) {
  auto day = static_cast<std::int64_t>(std::floor(mjd));
  auto seconds = static_cast<std::int64_t>(std::floor((mjd - static_cast<double>(day)) * 86400.0 + 1e-6));
  if (seconds >= 86400) {
    seconds -= 86400;
    ++day;
  }
  // Civil date from days since 1970-01-01 (MJD 40587), Howard Hinnant's algorithm.
  const std::int64_t z = day - 40587 + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return fmt::format("{:04d}-{:02d}-{:02d}-{:02d}:{:02d}:{:02d}", year, month, d, seconds / 3600, seconds / 60 % 60,
                     seconds % 60);
}

DadaHeader make_voltage_dada_header(const VoltageConfig& c, VoltageFormat format, const std::string& source,
                                    const std::string& telescope) {
  const std::size_t sample_bytes =
      static_cast<std::size_t>(c.npol) * 2 * static_cast<std::size_t>(voltage_bits(format)) / 8;
  DadaHeader h;
  h.set("HDR_VERSION", "1.0");
  h.set("HDR_SIZE", "4096");
  h.set("INSTRUMENT", "fake-pulsar");
  h.set("TELESCOPE", telescope);
  h.set("SOURCE", source);
  h.set("FREQ", fmt::format("{:.17g}", c.freq_mhz));
  h.set("BW", fmt::format("{:.17g}", c.bw_mhz));
  h.set("TSAMP", fmt::format("{:.17g}", 1.0 / c.bw_mhz));
  h.set("NBIT", std::to_string(voltage_bits(format)));
  h.set("NDIM", "2");
  h.set("NPOL", std::to_string(c.npol));
  h.set("NCHAN", "1");
  h.set("ORDER", "TFP");
  h.set("MJD_START", fmt::format("{:.15f}", c.tstart_mjd));
  h.set("UTC_START", mjd_to_utc_string(c.tstart_mjd));
  h.set("OBS_OFFSET", "0");
  h.set("RESOLUTION", std::to_string(sample_bytes));
  h.set("FILE_SIZE", std::to_string(c.nsamples * sample_bytes));
  return h;
}

void write_voltages(const VoltageSimulator& sim, ByteSink& sink, const VoltageWriteOptions& options) {
  const VoltageConfig& c = sim.config();
  if (options.write_header) {
    const auto bytes = encode_dada_header(options.header);
    sink.write(bytes.data(), bytes.size());
  }
  const std::size_t sample_bytes =
      static_cast<std::size_t>(c.npol) * 2 * static_cast<std::size_t>(voltage_bits(options.format)) / 8;
  // Blocks of whole segments, so that no segment is made twice.
  const std::size_t seg = sim.segment_samples();
  const std::size_t rows = std::max<std::size_t>(1, options.block_bytes / sample_bytes / seg) * seg;
  std::vector<std::uint8_t> buffers[2];
  std::future<void> pending;
  std::uint64_t done = 0;
  for (int b = 0; done < c.nsamples; b ^= 1) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(rows, c.nsamples - done));
    auto& buf = buffers[b];
    buf.resize(n * sample_bytes);
    sim.fill_packed(done, n, options.format, options.scale, buf.data());
    if (pending.valid()) pending.get();
    pending = std::async(std::launch::async, [&sink, &buf] { sink.write(buf.data(), buf.size()); });
    done += n;
    if (options.progress) options.progress(done);
  }
  if (pending.valid()) pending.get();
}

}  // namespace fastpsr::sim
