// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>
#include <fftw3.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <numbers>
#include <vector>

#include "fastpsr/dada.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/sim/filterbank_simulator.hpp"
#include "fastpsr/sim/source_spec.hpp"
#include "fastpsr/sim/voltage_simulator.hpp"
#include "support/fold.hpp"
#include "support/reference_dedisp.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;
using namespace fastpsr::sim;

namespace {

VoltageConfig small_band(std::uint64_t seed) {
  VoltageConfig v;
  v.freq_mhz = 400.0;
  v.bw_mhz = 2.0;
  v.npol = 2;
  v.nsamples = std::uint64_t{1} << 22;
  v.seed = seed;
  return v;
}

VoltagePulsar voltage_pulsar(double period_ms, double dm, double width_percent, double coherent_snr) {
  PulsarOptions o;
  o.period_ms = period_ms;
  o.dm = dm;
  o.width_percent = width_percent;
  o.shape = ProfileShape::gaussian;
  VoltagePulsar p;
  p.spec = make_pulsar_spec(o, 0.0);
  p.coherent_snr = coherent_snr;
  return p;
}

// A plain FFT channeliser (no window, as the simulator's equivalent_filterbank assumes):
// nchan-point FFTs of consecutive samples, detected, polarisations summed, nint spectra added,
// channels written highest frequency first, scaled to unit noise rms.
std::vector<float> channelise(const std::vector<std::complex<float>>& x, int npol, int nchan, int nint,
                              std::size_t& nout) {
  const auto c = static_cast<std::size_t>(nchan);
  const std::size_t nsamp = x.size() / static_cast<std::size_t>(npol);
  nout = nsamp / (c * static_cast<std::size_t>(nint));
  std::vector<float> fb(nout * c, 0.0F);
  std::vector<std::complex<float>> buf(c);
  fftwf_plan plan = fftwf_plan_dft_1d(nchan, reinterpret_cast<fftwf_complex*>(buf.data()),
                                      reinterpret_cast<fftwf_complex*>(buf.data()), FFTW_FORWARD, FFTW_ESTIMATE);
  // Noise of power 2 per sample gives |X|^2 of mean 2 nchan and rms the same.
  const double norm = 2.0 * nchan * std::sqrt(static_cast<double>(nint) * npol);
  std::vector<double> acc(c);
  for (std::size_t t = 0; t < nout; ++t) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int s = 0; s < nint; ++s) {
      for (int p = 0; p < npol; ++p) {
        for (std::size_t k = 0; k < c; ++k) {
          buf[k] = x[((t * static_cast<std::size_t>(nint) + static_cast<std::size_t>(s)) * c + k) *
                         static_cast<std::size_t>(npol) +
                     static_cast<std::size_t>(p)];
        }
        fftwf_execute(plan);
        for (std::size_t j = 0; j < c; ++j) {
          // j counts from the lowest frequency (FFT bin (j + nchan/2) mod nchan); the output
          // channel of the highest frequency comes first.
          acc[c - 1 - j] += static_cast<double>(std::norm(buf[(j + c / 2) % c]));
        }
      }
    }
    for (std::size_t j = 0; j < c; ++j) fb[t * c + j] = static_cast<float>(acc[j] / norm);
  }
  fftwf_destroy_plan(plan);
  return fb;
}

std::vector<float> dedisperse(const std::vector<float>& fb, const Observation& obs, double dm, std::size_t nin) {
  std::vector<std::uint8_t> packed(fb.size() * sizeof(float));
  std::memcpy(packed.data(), fb.data(), packed.size());
  DedispProblem problem;
  problem.input.nchans = obs.nchans;
  for (int c = 0; c < obs.nchans; ++c) problem.input.chan_freq_mhz.push_back(obs.channel_freq_mhz(c));
  problem.input.fch1_mhz = obs.fch1_mhz;
  problem.input.foff_mhz = obs.foff_mhz;
  problem.input.tsamp_s = obs.tsamp_s;
  problem.input.nbits = 32;
  problem.dms = {dm};
  std::size_t nout = 0;
  return test::reference_dedisperse(make_dedisp_plan(problem), packed, nin, nout);
}

}  // namespace

TEST_CASE("voltages: the same samples whatever the blocks and the threads") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const int saved = omp_get_max_threads();
  VoltageConfig v = small_band(seed);
  v.nsamples = 300000;
  v.pulsars.push_back(voltage_pulsar(20.0, 15.0, 10.0, 0.0));
  v.pulsars.back().peak_power = 0.5;
  v.pulsars.push_back(voltage_pulsar(7.0, 0.0, 20.0, 0.0));
  v.pulsars.back().peak_power = 0.3;
  v.tones.push_back({400.3, 2.0, 30.0});
  const VoltageSimulator sim(v);
  omp_set_num_threads(1);
  std::vector<std::complex<float>> whole(v.nsamples * 2);
  sim.fill(0, v.nsamples, whole.data());
  omp_set_num_threads(2);
  std::vector<std::complex<float>> parts(v.nsamples * 2, std::complex<float>(NAN, NAN));
  const std::size_t cuts[] = {0, 1, 4097, 100000, 100001, 299999, 300000};
  for (std::size_t i = 6; i > 0; --i) sim.fill(cuts[i - 1], cuts[i] - cuts[i - 1], parts.data() + cuts[i - 1] * 2);
  omp_set_num_threads(saved);
  CHECK(std::memcmp(whole.data(), parts.data(), whole.size() * sizeof(whole[0])) == 0);
  // Packed output: round(scale x) half away from zero, clipped to +-127 / +-32767, or scale x.
  // A large scale makes some ci8 values clip.
  for (VoltageFormat f : {VoltageFormat::ci8, VoltageFormat::ci16, VoltageFormat::cf32}) {
    const int bits = voltage_bits(f);
    const float scale = f == VoltageFormat::ci8 ? 40.0F : static_cast<float>(default_voltage_scale(f));
    const double limit = f == VoltageFormat::ci8 ? 127.0 : 32767.0;
    std::vector<std::uint8_t> packed(v.nsamples * 2 * 2 * static_cast<std::size_t>(bits) / 8);
    sim.fill_packed(0, v.nsamples, f, scale, packed.data());
    std::size_t wrong = 0;
    std::size_t clipped = 0;
    for (std::size_t i = 0; i < 4 * v.nsamples; ++i) {
      const float x = (i % 2 == 0 ? whole[i / 2].real() : whole[i / 2].imag()) * scale;
      double got = 0.0;
      double want = 0.0;
      if (f == VoltageFormat::cf32) {
        float g = 0.0F;
        std::memcpy(&g, packed.data() + 4 * i, 4);
        got = static_cast<double>(g);
        want = static_cast<double>(x);
      } else {
        want = static_cast<double>(std::lround(std::clamp(static_cast<double>(x), -limit, limit)));
        clipped += std::abs(static_cast<double>(x)) > limit ? 1 : 0;
        if (f == VoltageFormat::ci8) {
          got = static_cast<std::int8_t>(packed[i]);
        } else {
          std::int16_t g = 0;
          std::memcpy(&g, packed.data() + 2 * i, 2);
          got = g;
        }
      }
      wrong += got == want ? 0 : 1;
    }
    CAPTURE(bits);
    CHECK(wrong == 0);
    if (f == VoltageFormat::ci8) CHECK(clipped > 0);
  }
}

TEST_CASE("voltages: noise moments and a tone at its frequency") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  VoltageConfig v = small_band(seed);
  v.nsamples = 1 << 16;
  const VoltageSimulator noise(v);
  std::vector<std::complex<float>> x(v.nsamples * 2);
  noise.fill(0, v.nsamples, x.data());
  double re2 = 0.0;
  double im2 = 0.0;
  double cross = 0.0;  // between the polarisations
  for (std::size_t k = 0; k < v.nsamples; ++k) {
    re2 += static_cast<double>(x[2 * k].real() * x[2 * k].real());
    im2 += static_cast<double>(x[2 * k].imag() * x[2 * k].imag());
    cross += static_cast<double>(x[2 * k].real() * x[2 * k + 1].real());
  }
  const auto n = static_cast<double>(v.nsamples);
  CHECK(re2 / n == doctest::Approx(1.0).epsilon(5.0 * std::sqrt(2.0 / n)));
  CHECK(im2 / n == doctest::Approx(1.0).epsilon(5.0 * std::sqrt(2.0 / n)));
  CHECK(std::abs(cross / n) < 5.0 / std::sqrt(n));
  // A tone alone: its DFT has one line, at its offset from the centre, of its amplitude.
  v.noise = false;
  v.npol = 1;
  v.tones = {{400.0 + 2.0 * 1000.0 / 65536.0, 3.0, 45.0}};  // exactly on bin 1000
  const VoltageSimulator tone(v);
  std::vector<std::complex<double>> dft(1);
  tone.fill(0, v.nsamples, x.data());
  std::complex<double> at{0.0, 0.0};
  std::complex<double> off{0.0, 0.0};
  for (std::size_t k = 0; k < v.nsamples; ++k) {
    const std::complex<double> s(x[k].real(), x[k].imag());
    at += s * std::polar(1.0, -2 * std::numbers::pi * 1000.0 * static_cast<double>(k) / n);
    off += s * std::polar(1.0, -2 * std::numbers::pi * 1001.0 * static_cast<double>(k) / n);
  }
  CHECK(std::abs(at) / n == doctest::Approx(3.0).epsilon(1e-5));
  CHECK(std::arg(at) == doctest::Approx(std::numbers::pi / 4).epsilon(1e-5));
  CHECK(std::abs(off) / n < 1e-5);
}

TEST_CASE("voltages: the pulse arrives in each channel at its dispersion delay") {
  VoltageConfig v = small_band(7);
  v.npol = 1;
  v.noise = false;
  v.nsamples = 1 << 21;
  v.pulsars.push_back(voltage_pulsar(50.0, 30.0, 1.0, 0.0));
  v.pulsars.back().peak_power = 10.0;
  const VoltageSimulator sim(v);
  std::vector<std::complex<float>> x(v.nsamples);
  sim.fill(0, v.nsamples, x.data());
  std::size_t nout = 0;
  const int nchan = 32;
  const auto fb = channelise(x, 1, nchan, 1, nout);
  // Fold every channel with the delay its centre frequency has: all peak at phase 1/2.
  const PhaseModel& m = sim.pulsar_phase_model(0);
  const int nbins = 100;
  const double tspec = nchan * v.tsamp_s();
  // The last channel is the FFT's Nyquist bin, which holds both edges of the band: skipped.
  for (int c = 0; c + 1 < nchan; ++c) {
    const double f = v.freq_mhz + (nchan / 2 - 1 - c) * v.bw_mhz / nchan;
    const double d = dm_delay_s(DelayModel::presto, 30.0, f, v.top_freq_mhz());
    std::vector<double> prof(nbins, 0.0);
    for (std::size_t t = 0; t < nout; ++t) {
      double ph = m.phase((static_cast<double>(t) + 0.5) * tspec - d);
      ph -= std::floor(ph);
      prof[static_cast<std::size_t>(ph * nbins)] += static_cast<double>(fb[t * nchan + static_cast<std::size_t>(c)]);
    }
    const auto peak = std::max_element(prof.begin(), prof.end()) - prof.begin();
    CAPTURE(c);
    CHECK(std::abs(peak - nbins / 2) <= 1);  // the sweep over the band is 16 bins
  }
}

TEST_CASE("voltages: channelised, detected and dedispersed, the pulsar has the expected S/N") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  VoltageConfig v = small_band(seed);
  v.pulsars.push_back(voltage_pulsar(50.0, 30.0, 6.0, 75.0));
  v.tones.push_back({400.61, 1.0, 0.0});  // an interferer in one channel does not matter to the fold
  const VoltageSimulator sim(v);
  std::vector<std::complex<float>> x(v.nsamples * 2);
  sim.fill(0, v.nsamples, x.data());
  const int nchan = 64;
  const int nint = 8;
  std::size_t nfb = 0;
  const auto fb = channelise(x, 2, nchan, nint, nfb);
  // The equivalent filterbank gives the template, the phase, the delays and the expected S/N.
  SimConfig eq = sim.equivalent_filterbank(nchan, nint);
  REQUIRE(eq.obs.nsamples == nfb);
  eq.noise = false;
  const FilterbankSimulator model(eq);
  std::vector<float> tmpl(nfb * nchan);
  model.fill(0, nfb, tmpl.data());
  const auto data = dedisperse(fb, eq.obs, 30.0, nfb);
  const auto clean = dedisperse(tmpl, eq.obs, 30.0, nfb);
  const PhaseModel& m = model.pulsar_phase_model(0);
  auto phase = [&](std::size_t k, std::size_t) { return m.phase((static_cast<double>(k) + 0.5) * eq.obs.tsamp_s); };
  const auto fd = test::fold(data.data(), data.size(), 1, 1, 128, phase);
  const auto ft = test::fold(clean.data(), clean.size(), 1, 1, 128, phase);
  const double expected =
      model.expected_fold_snr(0) * std::sqrt(static_cast<double>(data.size()) / static_cast<double>(nfb));
  const double measured = test::matched_filter_snr(fd, ft, nchan);
  CAPTURE(expected);
  CAPTURE(test::template_snr(ft, nchan));
  CHECK(expected > 50.0);
  // Within 10%: peak power 0.1 adds self-noise of that order to the pulse, and an unwindowed
  // FFT's channels are not ideal boxcars.
  CHECK(measured == doctest::Approx(expected).epsilon(0.1));
  CHECK(sim.coherent_fold_snr(0) == doctest::Approx(75.0).epsilon(1e-9));
}

TEST_CASE("voltages: the DADA header says what the stream holds") {
  VoltageConfig v = small_band(1);
  v.tstart_mjd = 60000.25;
  v.nsamples = 1000;
  const DadaHeader h = make_voltage_dada_header(v, VoltageFormat::ci8, "J0000+0000", "Parkes");
  auto bytes = encode_dada_header(h);
  REQUIRE(bytes.size() == 4096);
  auto src = memory_source(bytes, "v.dada");
  const DadaHeader r = read_dada_header(*src);
  CHECK(r.get_int("NBIT", "v") == 8);
  CHECK(r.get_int("NDIM", "v") == 2);
  CHECK(r.get_int("NPOL", "v") == 2);
  CHECK(r.get_int("NCHAN", "v") == 1);
  CHECK(r.get_double("TSAMP", "v") == 0.5);
  CHECK(r.get_double("FREQ", "v") == 400.0);
  CHECK(r.get_double("BW", "v") == 2.0);
  CHECK(*r.get("ORDER") == "TFP");
  CHECK(*r.get("INSTRUMENT") == "fake-pulsar");
  CHECK(*r.get("UTC_START") == "2023-02-25-06:00:00");
  CHECK(r.get_int("FILE_SIZE", "v") == 4000);
  CHECK(mjd_to_utc_string(51544.0) == "2000-01-01-00:00:00");
  CHECK(mjd_to_utc_string(40587.5 + 1.0 / 86400) == "1970-01-01-12:00:01");
  CHECK_THROWS_AS(parse_voltage_format("ci4"), Error);
  VoltageConfig bad = small_band(1);
  bad.npol = 3;
  CHECK_THROWS_WITH_AS(VoltageSimulator{bad}, doctest::Contains("npol"), Error);
  bad = small_band(1);
  bad.tones = {{500.0, 1.0, 0.0}};
  CHECK_THROWS_WITH_AS(VoltageSimulator{bad}, doctest::Contains("outside the band"), Error);
}
