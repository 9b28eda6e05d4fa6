// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <random>
#include <vector>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/byte_stream.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/sim/filterbank_simulator.hpp"
#include "fastpsr/sim/scattered_gaussian.hpp"
#include "fastpsr/sim/source_spec.hpp"
#include "support/fold.hpp"
#include "support/reference_dedisp.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;
using namespace fastpsr::sim;

namespace {

SimConfig small_config(std::uint64_t seed) {
  SimConfig c;
  c.obs.nchans = 32;
  c.obs.fch1_mhz = 1500.0;
  c.obs.foff_mhz = -4.0;
  c.obs.tsamp_s = 256e-6;
  c.obs.nsamples = 1 << 15;
  c.seed = seed;
  return c;
}

PulsarSpec pulsar_spec(double period_ms, double dm, double duty, ProfileShape shape, double fold_snr) {
  PulsarOptions o;
  o.period_ms = period_ms;
  o.dm = dm;
  o.width_percent = 100 * duty;
  o.shape = shape;
  o.fold_snr = fold_snr;
  return make_pulsar_spec(o, 0.0);
}

// Restores the OpenMP thread count a test changed.
struct ThreadCount {
  int saved = omp_get_max_threads();
  ~ThreadCount() { omp_set_num_threads(saved); }
};

// Folds the simulator's float output, and the noise-free template of pulsar `index` alone, with
// the exact phase and delays; returns {measured matched-filter S/N, template S/N}.
std::pair<double, double> ideal_fold_snr(const FilterbankSimulator& sim, std::size_t index, int nbins = 256) {
  const SimConfig& c = sim.config();
  const std::size_t n = c.obs.nsamples;
  const std::size_t nvals = c.obs.values_per_sample();
  std::vector<float> data(n * nvals, NAN);
  sim.fill(0, n, data.data());
  SimConfig quiet = c;
  quiet.noise = false;
  quiet.pulsars = {c.pulsars[index]};
  quiet.pulsars[0].fold_snr = 0.0;  // snrpeak is already resolved
  quiet.pulses.clear();
  quiet.narrowband.clear();
  quiet.impulses.clear();
  const FilterbankSimulator clean(quiet);
  std::vector<float> tmpl(n * nvals, NAN);
  clean.fill(0, n, tmpl.data());
  const PhaseModel& model = sim.pulsar_phase_model(index);
  std::vector<double> delay(static_cast<std::size_t>(c.obs.nchans));
  for (int ch = 0; ch < c.obs.nchans; ++ch) delay[static_cast<std::size_t>(ch)] = sim.pulsar_delay_s(index, ch);
  // Every IF is folded like an extra set of channels (the same delays).
  auto phase = [&](std::size_t k, std::size_t v) {
    return model.phase((static_cast<double>(k) + 0.5) * c.obs.tsamp_s - delay[v % delay.size()]);
  };
  const auto fd = test::fold(data.data(), n, nvals, nvals, nbins, phase);
  const auto ft = test::fold(tmpl.data(), n, nvals, nvals, nbins, phase);
  return {test::matched_filter_snr(fd, ft, 1.0), test::template_snr(ft, 1.0)};
}

}  // namespace

TEST_CASE("simulator: the same values whatever the blocks, their order and the threads") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  ThreadCount restore;
  SimConfig c = small_config(seed);
  c.obs.nchans = 26;  // not a multiple of the 4 normals of one Philox call
  c.obs.nifs = 2;
  c.obs.nsamples = 20000;
  PulsarOptions b;
  b.period_ms = 7.3;
  b.dm = 40;
  b.binary = true;
  b.bper_h = 0.3;
  b.becc = 0.3;
  b.bcmass = 0.5;
  b.snrpeak = 3.0;
  c.pulsars.push_back(make_pulsar_spec(b, c.obs.duration_s()));
  PulsarOptions a;
  a.period_ms = 3.1;
  a.dm = 120;
  a.accn = 300;
  a.shape = ProfileShape::von_mises;
  a.law = PhaseLaw::sigproc;
  a.snrpeak = 2.0;
  c.pulsars.push_back(make_pulsar_spec(a, c.obs.duration_s()));
  c.pulses.push_back(parse_single_pulse("time=2.1,dm=300,width=2,fluence=3,scatter=4"));
  c.narrowband.push_back(parse_narrowband_rfi("freq=1450,amp=2"));
  c.impulses.push_back(parse_impulse_rfi("rate=3,amp=4,width=0.5"));
  const FilterbankSimulator sim(c);
  const std::size_t nv = sim.values_per_sample();
  const std::size_t n = c.obs.nsamples;

  omp_set_num_threads(1);
  std::vector<float> whole(n * nv, NAN);
  sim.fill(0, n, whole.data());
  for (float v : whole) REQUIRE(std::isfinite(v));

  std::mt19937_64 gen(seed);
  for (int threads : {2, 3}) {
    omp_set_num_threads(threads);
    // Random block boundaries, filled last block first.
    std::vector<std::size_t> cuts{0, n};
    for (int i = 0; i < 12; ++i) cuts.push_back(std::uniform_int_distribution<std::size_t>(1, n - 1)(gen));
    std::sort(cuts.begin(), cuts.end());
    std::vector<float> blocks(n * nv, NAN);
    for (std::size_t i = cuts.size() - 1; i > 0; --i) {
      sim.fill(cuts[i - 1], cuts[i] - cuts[i - 1], blocks.data() + cuts[i - 1] * nv);
    }
    CHECK(std::memcmp(blocks.data(), whole.data(), whole.size() * sizeof(float)) == 0);
  }
  // Packed output is the quantised float output, for every block split.
  for (int nbits : {2, 8, 32}) {
    CAPTURE(nbits);
    const OutputScale s = default_output_scale(nbits);
    std::vector<std::uint8_t> want(packed_bytes(n * nv, nbits));
    quantise(whole.data(), n * nv, nbits, s, want.data());
    std::vector<std::uint8_t> got(want.size(), 0x5A);
    const std::size_t row = nv * static_cast<std::size_t>(nbits) / 8;
    sim.fill_packed(0, 777, nbits, s, got.data());
    sim.fill_packed(777, n - 777, nbits, s, got.data() + 777 * row);
    CHECK(got == want);
  }
}

TEST_CASE("simulator: write_filterbank streams the same bytes for any block size") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  SimConfig c = small_config(seed);
  c.obs.nsamples = 5000;
  c.pulsars.push_back(pulsar_spec(11.0, 50.0, 0.05, ProfileShape::gaussian, 0.0));
  const FilterbankSimulator sim(c);
  WriteOptions w;
  w.nbits = 4;
  w.scale = default_output_scale(4);
  w.header = make_fake_header(c.obs, 4, "test", 50.0);
  MemorySink big;
  MemorySink small;
  w.block_bytes = 1 << 20;
  write_filterbank(sim, big, w);
  w.block_bytes = 1000;  // 62 samples per block
  std::uint64_t last = 0;
  w.progress = [&](std::uint64_t done) {
    CHECK(done > last);
    last = done;
  };
  write_filterbank(sim, small, w);
  CHECK(last == c.obs.nsamples);
  CHECK(big.bytes() == small.bytes());
  const auto header = encode_sigproc_header(w.header);
  CHECK(big.bytes().size() == header.size() + c.obs.nsamples * 32 / 2);
  auto reader = FilterbankReader(memory_source(big.bytes()));
  CHECK(reader.header().nbits == 4);
  CHECK(reader.nsamples() == c.obs.nsamples);
}

TEST_CASE("simulator: folding at the injected period and DM gives the documented S/N") {
  struct Case {
    const char* name;
    ProfileShape shape;
    Smearing smearing;
    double duty;
    double dm;
  };
  const Case cases[] = {
      {"boxcar, full smearing", ProfileShape::boxcar, Smearing::full, 0.05, 300.0},
      {"boxcar, no smearing", ProfileShape::boxcar, Smearing::none, 0.05, 300.0},
      {"boxcar, SIGPROC smearing", ProfileShape::boxcar, Smearing::sigproc, 0.04, 300.0},
      {"gaussian, full smearing", ProfileShape::gaussian, Smearing::full, 0.03, 500.0},
      {"von Mises, full smearing", ProfileShape::von_mises, Smearing::full, 0.08, 100.0},
  };
  for (const Case& k : cases) {
    const auto seed = test::fresh_seed();
    INFO(k.name << ", seed " << seed);
    SimConfig c = small_config(seed);
    c.smearing = k.smearing;
    // S/N 60: the 10% allowed is 6 standard deviations of the measurement, so fresh seeds
    // fail only if the model is wrong.
    c.pulsars.push_back(pulsar_spec(27.3, k.dm, k.duty, k.shape, 60.0));
    const FilterbankSimulator sim(c);
    CHECK(sim.expected_fold_snr(0) == doctest::Approx(60.0).epsilon(1e-9));
    const auto [measured, noiseless] = ideal_fold_snr(sim, 0);
    CAPTURE(measured);
    CAPTURE(noiseless);
    CHECK(measured == doctest::Approx(60.0).epsilon(0.1));
    CHECK(noiseless == doctest::Approx(60.0).epsilon(0.03));  // 256 bins cost at most a few percent
  }
  // The SIGPROC-smearing boxcar without smearing widths is snrpeak sqrt(N d (1 - d)).
  SimConfig c = small_config(1);
  c.smearing = Smearing::none;
  c.pulsars.push_back(pulsar_spec(27.3, 0.0, 0.05, ProfileShape::boxcar, 0.0));
  c.pulsars[0].snrpeak = 0.5;
  const FilterbankSimulator sim(c);
  CHECK(sim.expected_fold_snr(0) == doctest::Approx(0.5 * std::sqrt(32768 * 0.05 * 0.95)).epsilon(2e-3));
}

TEST_CASE("simulator: accelerated, binary and SIGPROC-law pulsars fold to the documented S/N") {
  for (int variant = 0; variant < 4; ++variant) {
    const auto seed = test::fresh_seed();
    INFO("variant " << variant << ", seed " << seed);
    SimConfig c = small_config(seed);
    c.obs.nifs = variant == 3 ? 2 : 1;
    PulsarOptions o;
    o.period_ms = 9.77;
    o.dm = 75.0;
    o.width_percent = 6.0;
    o.fold_snr = 60.0;
    o.shape = ProfileShape::gaussian;
    if (variant == 0) o.accn = 2000.0;
    if (variant == 1) {
      o.binary = true;
      o.bper_h = 0.2;
      o.becc = 0.2;
      o.bcmass = 1.0;
    }
    if (variant == 2) {
      o.z = 40.0;
      o.law = PhaseLaw::sigproc;
    }
    if (variant == 3) o.spectral_index = -1.6;
    c.pulsars.push_back(make_pulsar_spec(o, c.obs.duration_s()));
    c.narrowband.push_back(parse_narrowband_rfi("freq=1400,amp=0.5"));  // other signals do not matter
    const FilterbankSimulator sim(c);
    const auto [measured, noiseless] = ideal_fold_snr(sim, 0);
    CAPTURE(measured);
    CHECK(measured == doctest::Approx(60.0).epsilon(0.1));
    CHECK(noiseless == doctest::Approx(60.0).epsilon(0.03));
  }
}

TEST_CASE("simulator: an 8-bit file dedispersed with integer delays folds to the documented S/N") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  SimConfig c = small_config(seed);
  c.pulsars.push_back(pulsar_spec(27.3, 200.0, 0.06, ProfileShape::von_mises, 60.0));
  const FilterbankSimulator sim(c);
  SimConfig quiet = sim.config();
  quiet.noise = false;
  quiet.pulsars[0].fold_snr = 0.0;
  const FilterbankSimulator clean(quiet);
  const int nbits = 8;
  auto dedispersed = [&](const FilterbankSimulator& s) {
    WriteOptions w;
    w.nbits = nbits;
    w.scale = default_output_scale(nbits);
    w.header = make_fake_header(c.obs, nbits, "dedisp test", 200.0);
    MemorySink sink;
    write_filterbank(s, sink, w);
    FilterbankReader reader(memory_source(sink.bytes()));
    std::vector<std::uint8_t> packed(c.obs.nsamples * reader.header().bytes_per_sample());
    REQUIRE(reader.read_packed(packed.data(), c.obs.nsamples) == c.obs.nsamples);
    DedispProblem problem;
    problem.input = DedispInput::from_header(reader.header());
    problem.dms = {200.0};
    problem.model = DelayModel::presto;
    const DedispPlan plan = make_dedisp_plan(problem);
    std::size_t nout = 0;
    return test::reference_dedisperse(plan, packed, c.obs.nsamples, nout);
  };
  const auto data = dedispersed(sim);
  const auto tmpl = dedispersed(clean);
  const PhaseModel& model = sim.pulsar_phase_model(0);
  // Output sample i is the top channel's sample i: its phase is that at (i + 1/2) tsamp.
  auto phase = [&](std::size_t k, std::size_t) { return model.phase((static_cast<double>(k) + 0.5) * c.obs.tsamp_s); };
  const auto fd = test::fold(data.data(), data.size(), 1, 1, 128, phase);
  const auto ft = test::fold(tmpl.data(), tmpl.size(), 1, 1, 128, phase);
  const Moments m = quantised_noise_moments(nbits, default_output_scale(nbits));
  const double variance = c.obs.nchans * m.rms * m.rms;
  const double expected = sim.expected_fold_snr(0) * quantisation_efficiency(nbits, default_output_scale(nbits)) *
                          std::sqrt(static_cast<double>(data.size()) / static_cast<double>(c.obs.nsamples));
  const double measured = test::matched_filter_snr(fd, ft, variance);
  CAPTURE(expected);
  CAPTURE(test::template_snr(ft, variance));
  CHECK(measured == doctest::Approx(expected).epsilon(0.1));
}

TEST_CASE("simulator: a single dispersed pulse has the documented S/N") {
  for (double scatter_ms : {0.0, 3.0}) {
    const auto seed = test::fresh_seed();
    INFO("scattering " << scatter_ms << " ms, seed " << seed);
    SimConfig c = small_config(seed);
    c.pulses.push_back(parse_single_pulse(fmt::format("time=3,dm=300,width=2,snr=60,scatter={}", scatter_ms)));
    c.pulsars.push_back(pulsar_spec(27.3, 30.0, 0.05, ProfileShape::boxcar, 5.0));  // another signal
    const FilterbankSimulator sim(c);
    CHECK(sim.expected_single_pulse_snr(0) == doctest::Approx(60.0).epsilon(1e-9));
    SimConfig quiet = sim.config();
    quiet.noise = false;
    quiet.pulsars.clear();
    quiet.pulses[0].snr = 0.0;
    const FilterbankSimulator clean(quiet);
    auto dedispersed = [&](const FilterbankSimulator& s) {
      std::vector<float> values(c.obs.nsamples * c.obs.values_per_sample());
      s.fill(0, c.obs.nsamples, values.data());
      std::vector<std::uint8_t> packed(values.size() * sizeof(float));
      std::memcpy(packed.data(), values.data(), packed.size());
      DedispProblem problem;
      problem.input.nchans = c.obs.nchans;
      for (int ch = 0; ch < c.obs.nchans; ++ch) problem.input.chan_freq_mhz.push_back(c.obs.channel_freq_mhz(ch));
      problem.input.fch1_mhz = c.obs.fch1_mhz;
      problem.input.foff_mhz = c.obs.foff_mhz;
      problem.input.tsamp_s = c.obs.tsamp_s;
      problem.input.nbits = 32;
      problem.dms = {300.0};
      std::size_t nout = 0;
      return test::reference_dedisperse(make_dedisp_plan(problem), packed, c.obs.nsamples, nout);
    };
    const auto data = dedispersed(sim);
    const auto tmpl = dedispersed(clean);
    // Matched filter over the whole dedispersed series: every sample is its own "bin".
    auto own_bin = [&](std::size_t k, std::size_t) { return (static_cast<double>(k) + 0.5) / data.size(); };
    const int bins = static_cast<int>(data.size());
    const auto fd = test::fold(data.data(), data.size(), 1, 1, bins, own_bin);
    const auto ft = test::fold(tmpl.data(), tmpl.size(), 1, 1, bins, own_bin);
    const double variance = c.obs.nchans;
    CHECK(test::template_snr(ft, variance) == doctest::Approx(60.0).epsilon(0.02));
    CHECK(test::matched_filter_snr(fd, ft, variance) == doctest::Approx(60.0).epsilon(0.1));
  }
}

TEST_CASE("simulator: narrowband RFI and impulses land where they should") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  SimConfig c = small_config(seed);
  c.noise = false;
  c.narrowband.push_back(parse_narrowband_rfi("freq=1401,amp=2.5"));  // nearest channel: 1400 MHz
  c.impulses.push_back(parse_impulse_rfi("rate=2,amp=3,width=1"));
  const FilterbankSimulator sim(c);
  std::vector<float> v(c.obs.nsamples * 32);
  sim.fill(0, c.obs.nsamples, v.data());
  // Channel 25 is at 1400 MHz: a constant 2.5 over the impulses.
  CHECK(v[25] - v[24] == doctest::Approx(2.5F));
  // One impulse per half second, each peaking near 3 (a 1 ms Gaussian seen in 256 us samples).
  std::vector<std::size_t> peaks;
  for (std::size_t k = 1; k + 1 < c.obs.nsamples; ++k) {
    const float x = v[k * 32];
    if (x > 1.0F && x >= v[(k - 1) * 32] && x > v[(k + 1) * 32]) peaks.push_back(k);
  }
  const std::size_t intervals = static_cast<std::size_t>(c.obs.duration_s() * 2.0);
  CHECK(peaks.size() >= intervals);
  CHECK(peaks.size() <= intervals + 1);
  for (std::size_t k : peaks) CHECK(v[k * 32] > 2.5F);
}

TEST_CASE("simulator: bad configurations are refused with a clear message") {
  SimConfig c = small_config(1);
  c.pulsars.push_back(pulsar_spec(0.4, 0.0, 0.05, ProfileShape::boxcar, 0.0));
  CHECK_THROWS_WITH_AS(FilterbankSimulator{c}, doctest::Contains("shorter than two samples"), Error);
  c = small_config(1);
  c.obs.foff_mhz = 0.0;
  CHECK_THROWS_WITH_AS(FilterbankSimulator{c}, doctest::Contains("foff"), Error);
  c = small_config(1);
  c.obs.fch1_mhz = 100.0;
  CHECK_THROWS_WITH_AS(FilterbankSimulator{c}, doctest::Contains("positive"), Error);
  c = small_config(1);
  PulsarSpec p = pulsar_spec(20.0, 10.0, 0.05, ProfileShape::boxcar, 0.0);
  p.fmin_mhz = 2000.0;
  c.pulsars.push_back(p);
  CHECK_THROWS_WITH_AS(FilterbankSimulator{c}, doctest::Contains("no channel"), Error);
  CHECK_THROWS_WITH_AS(parse_pulsar_options("period=5,colour=blue"), doctest::Contains("unknown key 'colour'"), Error);
  CHECK_THROWS_WITH_AS(parse_pulsar_options("period=5,dm=x"), doctest::Contains("dm=x is not a number"), Error);
  CHECK_THROWS_WITH_AS(parse_pulsar_options("dm=5"), doctest::Contains("period"), Error);
  CHECK_THROWS_WITH_AS(parse_single_pulse("dm=5,snr=3"), doctest::Contains("time"), Error);
  CHECK_THROWS_WITH_AS(parse_narrowband_rfi("amp=3"), doctest::Contains("freq"), Error);
  c = small_config(1);
  c.narrowband.push_back(parse_narrowband_rfi("freq=900,amp=3"));
  CHECK_THROWS_WITH_AS(FilterbankSimulator{c}, doctest::Contains("outside the band"), Error);
}

TEST_CASE("simulator: parsed specs carry SIGPROC's units and conventions") {
  const PulsarOptions o =
      parse_pulsar_options("period=4.8372,dm=62.5,width=4,snrpeak=0.15,bper=1,bphase=0.25,bcmass=1.4");
  CHECK(o.binary);
  const PulsarSpec s = make_pulsar_spec(o, 134.2);
  CHECK(s.spin.f_hz == 1.0 / (1.0e-3 * 4.8372));
  CHECK(s.duty_cycle == doctest::Approx(0.04));
  REQUIRE(s.orbit.has_value());
  CHECK(s.orbit->pb_s == 3600.0);
  CHECK(s.orbit->t_peri_s == 900.0);
  const PulsarSpec k = make_pulsar_spec(parse_pulsar_options("f=100,pb=2,x=1.5,ecc=0.1,omega=90,tperi=10"), 60.0);
  CHECK(k.orbit->x_lts == 1.5);
  CHECK(k.orbit->omega_rad == doctest::Approx(std::numbers::pi / 2));
  const SinglePulseSpec frb = parse_single_pulse("time=1.5,dm=500,width=2,fluence=4,scatter=1,scatter-index=-4.4");
  CHECK(frb.width_s == doctest::Approx(2e-3));
  CHECK(frb.fluence == doctest::Approx(4e-3));
  CHECK(frb.scatter_index == -4.4);
  const SinglePulseSpec imp = parse_single_impulse("time=1,amp=5,width=1");
  CHECK(ScatteredGaussian(imp.width_s / (2 * std::sqrt(2 * std::numbers::ln2)), 0.0).pdf(0.0) * imp.fluence ==
        doctest::Approx(5.0));
  Observation obs;
  obs.nchans = 64;
  const PulsarSpec rfi = parse_periodic_rfi("f=50,amp=2,duty=20,fmin=420,fmax=430", obs);
  CHECK(rfi.dm == 0.0);
  CHECK(rfi.snrpeak == doctest::Approx(16.0));
  CHECK(rfi.fmin_mhz == 420.0);
}

TEST_CASE("simulator: the header is SIGPROC fake's, byte for byte" * doctest::skip(!test::have_shared_data())) {
  // fake -period 4.8372 -dm 62.5 -width 4 -snrpeak 2.0 -nbits 8 -nchans 256 -tsamp 64 -tobs 2.09
  //      -tstart 60000.0 -fch1 1500.0 -foff -0.5 -seed 42 > small_psr.fil
  Observation obs;
  obs.nchans = 256;
  obs.fch1_mhz = 1500.0;
  obs.foff_mhz = -0.5;
  obs.tsamp_s = 1.0e-6 * 64;
  obs.tstart_mjd = 60000.0;
  const auto header = encode_sigproc_header(make_fake_header(obs, 8, "P: 4.837200000000 ms, DM: 62.500", 62.5));
  const auto file = test::read_file(*test::shared_data_dir() / "peer-outputs/small/small_psr.fil");
  REQUIRE(file.size() > header.size());
  CHECK(header.size() == 242);
  CHECK(std::equal(header.begin(), header.end(), file.begin()));
}

TEST_CASE("simulator: SIGPROC fake's own file has the S/N our model of it predicts" *
          doctest::skip(!test::have_shared_data())) {
  // small_psr.fil: P 4.8372 ms, DM 62.5, width 4%, snrpeak 2, 256 x 0.5 MHz from 1500 MHz, 64 us.
  const auto path = *test::shared_data_dir() / "peer-outputs/small/small_psr.fil";
  FilterbankReader reader(open_source(path.string()));
  const std::size_t n = *reader.nsamples();
  std::vector<float> data(n * 256);
  REQUIRE(reader.read_float(data.data(), n) == n);
  // Our model of SIGPROC fake: its phase law and its smearing, its delays, its sample times
  // ((k + 1) tsamp where ours are (k + 1/2) tsamp: half a sample of phase).
  SimConfig c;
  c.obs.nchans = 256;
  c.obs.fch1_mhz = 1500.0;
  c.obs.foff_mhz = -0.5;
  c.obs.tsamp_s = 64e-6;
  c.obs.nsamples = n;
  c.smearing = Smearing::sigproc;
  c.delay_model = DelayModel::sigproc;
  c.noise = false;
  PulsarOptions o;
  o.period_ms = 4.8372;
  o.dm = 62.5;
  o.snrpeak = 2.0;
  o.law = PhaseLaw::sigproc;
  o.phase = 0.5 * 64e-6 / 4.8372e-3;
  c.pulsars.push_back(make_pulsar_spec(o, 0.0));
  const FilterbankSimulator model(c);
  std::vector<float> tmpl(n * 256);
  model.fill(0, n, tmpl.data());
  const PhaseModel& m = model.pulsar_phase_model(0);
  std::vector<double> delay(256);
  for (int ch = 0; ch < 256; ++ch) delay[static_cast<std::size_t>(ch)] = model.pulsar_delay_s(0, ch);
  auto phase = [&](std::size_t k, std::size_t ch) {
    return m.phase((static_cast<double>(k) + 0.5) * 64e-6 - delay[ch]);
  };
  const auto fd = test::fold(data.data(), n, 256, 256, 256, phase);
  const auto ft = test::fold(tmpl.data(), n, 256, 256, 256, phase);
  // SIGPROC's 8-bit scaling: 31.875 levels per noise rms.
  const double measured = test::matched_filter_snr(fd, ft, 31.875 * 31.875);
  const double expected = model.expected_fold_snr(0);
  CAPTURE(measured);
  CHECK(measured == doctest::Approx(expected).epsilon(0.1));

  // fake-pulsar with the same command line (its defaults: SIGPROC's smearing, our phase law,
  // which is the same without acceleration) makes statistically the same signal.
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  SimConfig ours = c;
  ours.noise = true;
  ours.seed = seed;
  ours.delay_model = DelayModel::presto;
  ours.pulsars[0].law = PhaseLaw::integrated;
  ours.pulsars[0].spin.phase0 = 0.0;
  const FilterbankSimulator sim(ours);
  WriteOptions w;
  w.scale = default_output_scale(8);
  w.header = make_fake_header(ours.obs, 8, "P: 4.837200000000 ms, DM: 62.500", 62.5);
  MemorySink sink;
  write_filterbank(sim, sink, w);
  FilterbankReader mine(memory_source(sink.bytes()));
  std::vector<float> our_data(n * 256);
  REQUIRE(mine.read_float(our_data.data(), n) == n);
  // Folded with our own phase, delays and noise-free template.
  SimConfig our_quiet = ours;
  our_quiet.noise = false;
  const FilterbankSimulator our_model(our_quiet);
  our_model.fill(0, n, tmpl.data());
  const PhaseModel& om = our_model.pulsar_phase_model(0);
  for (int ch = 0; ch < 256; ++ch) delay[static_cast<std::size_t>(ch)] = our_model.pulsar_delay_s(0, ch);
  auto our_phase = [&](std::size_t k, std::size_t ch) {
    return om.phase((static_cast<double>(k) + 0.5) * 64e-6 - delay[ch]);
  };
  const auto fo = test::fold(our_data.data(), n, 256, 256, 256, our_phase);
  const auto fot = test::fold(tmpl.data(), n, 256, 256, 256, our_phase);
  const double our_measured = test::matched_filter_snr(fo, fot, 31.875 * 31.875);
  CAPTURE(our_measured);
  CHECK(our_measured == doctest::Approx(measured).epsilon(0.1));
}
