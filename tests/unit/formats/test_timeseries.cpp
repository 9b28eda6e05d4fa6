// SPDX-License-Identifier: MIT
// PRESTO .dat/.sdat I/O, the unified time-series reader, and the .inf made from a SIGPROC header.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <random>
#include <sstream>

#include "fastpsr/error.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/presto_dat.hpp"
#include "fastpsr/presto_inf.hpp"
#include "fastpsr/psrfits.hpp"
#include "fastpsr/timeseries.hpp"
#include "format_test_helpers.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

std::vector<float> random_series(std::size_t n, std::mt19937_64& rng) {
  std::normal_distribution<float> g(10.0F, 3.0F);
  std::vector<float> v(n);
  for (auto& x : v) x = g(rng);
  return v;
}

PrestoInf simple_inf(const std::string& name, std::size_t n) {
  PrestoInf d;
  d.name = name;
  d.telescope = "Parkes";
  d.instrument = "BPSR";
  d.object = "J0437-4715";
  d.ra = "04:37:15.8961";
  d.dec = "-47:15:09.1100";
  d.observer = "Unknown";
  d.mjd_i = 60000;
  d.mjd_f = 0.123456789012345;
  d.N = static_cast<double>(n);
  d.dt = 6.4e-05;
  d.fov = 844;
  d.dm = 12.3;
  d.freq = 1182.1953125;
  d.freqband = 400;
  d.num_chan = 1024;
  d.chan_wid = 0.390625;
  d.analyzer = "someone";
  d.notes = "Project ID unset, Date: 2023-02-25T00:00:00.\n    2 polns were summed.  Samples have 8 bits.\n";
  return d;
}

double correlation(const float* a, const float* b, std::size_t n) {
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ma += static_cast<double>(a[i]);
    mb += static_cast<double>(b[i]);
  }
  ma /= static_cast<double>(n);
  mb /= static_cast<double>(n);
  double c = 0, va = 0, vb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(a[i]) - ma;
    const double y = static_cast<double>(b[i]) - mb;
    c += x * y;
    va += x * x;
    vb += y * y;
  }
  return c / std::sqrt(va * vb);
}

// The lines of an .inf that must agree with PRESTO's: all but the on/off pairs, the breaks flag
// that goes with them, and the login name.
std::vector<std::string> comparable_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l.starts_with(" On/Off bin pair") || l.starts_with(" Any breaks") || l.starts_with(" Data analyzed by")) {
      continue;
    }
    out.push_back(l);
  }
  return out;
}

}  // namespace

TEST_CASE("presto .dat: float32 and int16 files round-trip, streaming") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  test::TempDir dir;
  const auto values = random_series(1001, rng);
  const auto path = (dir / "x.dat").string();
  {
    auto w = DatWriter::open(path);
    w->write(std::span(values).first(500));
    w->write(std::span(values).subspan(500));
    CHECK(w->samples_written() == 1001);
    CHECK_FALSE(std::filesystem::exists(path));  // only a temporary until commit
    w->commit();
  }
  CHECK(std::filesystem::file_size(path) == 4004);
  auto r = DatReader::open(path);
  CHECK(r->sample_type() == DatSampleType::float32);
  CHECK(r->nsamples() == 1001);
  std::vector<float> got(2000);
  CHECK(r->read(got.data(), 2000) == 1001);
  got.resize(1001);
  CHECK(got == values);

  // .sdat: int16, little-endian.
  const std::vector<std::uint8_t> shorts = {0x01, 0x00, 0xff, 0xff, 0x00, 0x80, 0xff, 0x7f};
  test::write_file(dir / "y.sdat", shorts);
  auto s = DatReader::open((dir / "y.sdat").string());
  CHECK(s->sample_type() == DatSampleType::int16);
  std::vector<float> sv(4);
  CHECK(s->read(sv.data(), 4) == 4);
  CHECK(sv == std::vector<float>{1.0F, -1.0F, -32768.0F, 32767.0F});

  // A byte count that is no whole number of samples.
  test::write_file(dir / "bad.dat", std::vector<std::uint8_t>(10, 0));
  CHECK_THROWS_WITH_AS(DatReader::open((dir / "bad.dat").string()), doctest::Contains("trailing partial sample"),
                       Error);
  DatReader piped(test::pipe_source(std::vector<std::uint8_t>(10, 0)), DatSampleType::float32);
  CHECK_FALSE(piped.nsamples());
  CHECK_THROWS_WITH_AS(piped.read(got.data(), 5), doctest::Contains("trailing partial sample"), Error);
}

TEST_CASE("timeseries: .dat + .inf, and PRESTO's rule for the .inf") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  test::TempDir dir;
  const auto values = random_series(300, rng);
  const std::string root = (dir / "psr_DM12.30").string();
  write_presto_timeseries(root, values, simple_inf("psr_DM12.30", 300));
  CHECK(inf_path_for(root + ".dat") == root + ".inf");
  CHECK(inf_path_for(root + ".sdat") == root + ".inf");

  for (const std::string& path : {root + ".dat", root + ".inf"}) {
    CAPTURE(path);
    const TimeSeries ts = read_timeseries(path);
    CHECK(ts.origin == TimeSeriesOrigin::presto_dat);
    CHECK(ts.samples == values);
    CHECK(ts.tsamp_s == 6.4e-05);
    CHECK(ts.dm == 12.3);
    CHECK(ts.epoch_mjd_int == 60000);
    CHECK(ts.epoch_mjd_frac == 0.123456789012345);
    CHECK(ts.ref_freq_mhz == doctest::Approx(1182.1953125 + 1023 * 0.390625));
    CHECK(ts.source_name == "J0437-4715");
    CHECK(ts.telescope == "Parkes");
    REQUIRE(ts.inf);
    // Writing the .inf back gives the same text.
    const PrestoInf again = timeseries_to_inf(ts, "psr_DM12.30");
    CHECK(format_inf(again) == format_inf(simple_inf("psr_DM12.30", 300)));
    const SigprocHeader tim = timeseries_to_tim_header(ts);
    CHECK(tim.data_type == 2);
    CHECK(tim.refdm == 12.3);
    CHECK(tim.telescope_id == 4);
    CHECK(tim.src_dej == doctest::Approx(-471509.11));
  }
}

TEST_CASE("timeseries: .sdat (int16) with its .inf") {
  test::TempDir dir;
  const std::string root = (dir / "sub").string();
  test::write_file(root + ".sdat", {0x05, 0x00, 0xfb, 0xff, 0x10, 0x27});  // 5, -5, 10000
  write_inf(root + ".inf", simple_inf("sub", 3));
  for (const std::string& path : {root + ".sdat", root + ".inf"}) {
    const TimeSeries ts = read_timeseries(path);
    CHECK(ts.origin == TimeSeriesOrigin::presto_sdat);
    CHECK(ts.samples == std::vector<float>{5.0F, -5.0F, 10000.0F});
  }
}

TEST_CASE("timeseries: a missing .inf names the path it expected") {
  test::TempDir dir;
  test::write_file(dir / "lonely.dat", std::vector<std::uint8_t>(16, 0));
  const std::string expected = (dir / "lonely.inf").string();
  CHECK_THROWS_WITH_AS(read_timeseries((dir / "lonely.dat").string()),
                       doctest::Contains(("missing .inf: expected '" + expected + "'").c_str()), Error);
}

TEST_CASE("timeseries: a .dat shorter than its .inf is an error, a longer one is read to N") {
  test::TempDir dir;
  const std::string root = (dir / "s").string();
  const std::vector<float> ten(10, 1.5F);
  write_presto_timeseries(root, ten, simple_inf("s", 12));
  CHECK_THROWS_WITH_AS(read_timeseries(root + ".dat"), doctest::Contains("holds 10 samples but its .inf"), Error);
  write_inf(root + ".inf", simple_inf("s", 8));
  const TimeSeries ts = read_timeseries(root + ".dat");
  CHECK(ts.nsamples() == 8);
}

TEST_CASE("timeseries: SIGPROC .tim of 8, 16 and 32 bits") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  test::TempDir dir;
  SigprocHeader fb;
  fb.source_name = "J1234+5678";
  fb.telescope_id = 6;
  fb.tstart = 59000.25;
  fb.tsamp = 1e-4;
  for (int nbits : {8, 16, 32}) {
    CAPTURE(nbits);
    SigprocHeader h = make_tim_header(fb, 42.5, 1400.0, nbits);
    std::vector<float> values(257);
    std::uniform_int_distribution<int> d(0, nbits == 8 ? 255 : 65535);
    for (auto& v : values) v = static_cast<float>(d(rng));
    const auto path = (dir / fmt::format("x{}.tim", nbits)).string();
    auto w = FilterbankWriter::open(path, h);
    w->write_float(values.data(), values.size());
    w->commit();
    const TimeSeries ts = read_timeseries(path);
    CHECK(ts.origin == TimeSeriesOrigin::sigproc_tim);
    CHECK(ts.samples == values);
    CHECK(ts.dm == 42.5);
    CHECK(ts.ref_freq_mhz == 1400.0);
    CHECK(ts.tsamp_s == 1e-4);
    CHECK(ts.epoch_mjd_int == 59000);
    CHECK(ts.epoch_mjd_frac == 0.25);
    CHECK(ts.telescope == "GBT");
    CHECK(ts.source_name == "J1234+5678");
  }
  // A filterbank is no time series.
  SigprocHeader f = fb;
  f.nchans = 4;
  f.nbits = 8;
  f.fch1 = 1500;
  f.foff = -1;
  f.keys = sigproc_filterbank_keys(f);
  const auto fil = (dir / "x.fil").string();
  auto w = FilterbankWriter::open(fil, f);
  w->commit();
  CHECK_THROWS_WITH_AS(read_timeseries(fil), doctest::Contains("not a time series"), Error);
}

TEST_CASE("timeseries: a .tim with a stale legacy nsamples is read to its end") {
  SigprocHeader fb;
  fb.tsamp = 1e-3;
  SigprocHeader h = make_tim_header(fb, 1.0, 1000.0, 32);
  h.nsamples = 3;
  h.keys.emplace_back("nsamples");
  auto bytes = encode_sigproc_header(h);
  const std::vector<float> v = {1, 2, 3, 4, 5};
  const auto* p = reinterpret_cast<const std::uint8_t*>(v.data());
  bytes.insert(bytes.end(), p, p + 20);
  test::TempDir dir;
  test::write_file(dir / "legacy.tim", bytes);
  CHECK(read_timeseries((dir / "legacy.tim").string()).samples == v);
}

TEST_CASE("make_inf_for: PRESTO's .inf for small_psr.fil and iso_psr.fil, line for line" *
          doctest::skip(!test::have_shared_data())) {
  const auto peers = *test::shared_data_dir() / "peer-outputs";
  auto fil = FilterbankReader::open((peers / "small/small_psr.fil").string());
  // iso_psr.fil (not kept) has the same header as small_psr.fil except its length (README).
  struct Case {
    const char* inf;
    const char* name;
    std::uint64_t n;
    std::uint64_t valid;
  };
  for (const Case& c : {Case{"small/small_DM62.50.inf", "small_DM62.50", 32768, 31200},
                        Case{"small/small_sub_DM62.50.inf", "small_sub_DM62.50", 32768, 26400},
                        Case{"iso/iso_DM62.50.inf", "iso_DM62.50", 2097152, 2090400},
                        Case{"iso/iso_prepdata_DM62.50.inf", "iso_prepdata_DM62.50", 2097152, 2095200}}) {
    CAPTURE(c.inf);
    const auto bytes = test::read_file(peers / c.inf);
    const std::string presto(bytes.begin(), bytes.end());
    InfRequest r;
    r.name = c.name;
    r.dm = 62.5;
    r.nsamples = c.n;
    const PrestoInf ours = make_inf_for(fil->header(), r);
    CHECK(comparable_lines(format_inf(ours)) == comparable_lines(presto));
    // With PRESTO's padding and its login name, the whole file is byte for byte PRESTO's.
    r.valid_samples = c.valid;
    r.analyzer = parse_inf(presto, c.inf).analyzer;
    CHECK(format_inf(make_inf_for(fil->header(), r)) == presto);
  }
}

TEST_CASE("make_inf_for: gaps in the data become PRESTO's on/off pairs around them") {
  SigprocHeader h = test::small_fil_header();
  h.tstart = 60000.5;
  InfRequest r;
  r.name = "gappy";
  r.nsamples = 1000;
  CHECK(make_inf_for(h, r).onoff.empty());
  using Pairs = std::vector<std::pair<double, double>>;
  r.gaps = {{100, 10}, {500, 1}};
  CHECK(make_inf_for(h, r).onoff == Pairs{{0, 99}, {110, 499}, {501, 999}});
  // With padding at the end (valid < N), the last stretch ends there and (N-1, N-1) follows;
  // gaps inside the end padding are not listed.
  r.valid_samples = 900;
  r.gaps.push_back({950, 5});
  CHECK(make_inf_for(h, r).onoff == Pairs{{0, 99}, {110, 499}, {501, 899}, {999, 999}});
  // A gap at the very start (a first file's missing head) leaves no empty stretch.
  r.valid_samples = 0;
  r.gaps = {{0, 3}};
  CHECK(make_inf_for(h, r).onoff == Pairs{{3, 999}});
  // And the written .inf reads back with them.
  r.gaps = {{100, 10}};
  const PrestoInf back = parse_inf(format_inf(make_inf_for(h, r)), "gappy.inf");
  CHECK(back.onoff == Pairs{{0, 99}, {110, 999}});
  CHECK(back.breaks());
}

TEST_CASE("make_inf_for: values for a header PRESTO would see differently") {
  SigprocHeader h;
  h.telescope_id = 1;  // Arecibo: PRESTO uses the illuminated 200 m
  h.machine_id = 2;    // WAPP
  h.source_name = "B1937+21";
  h.src_raj = 193939.5;
  h.src_dej = -3015.25;  // -00:30:15.25: the sign sits on minutes and seconds
  h.tstart = 55555.75;
  h.tsamp = 1e-4;
  h.fch1 = 1100.0;
  h.foff = 2.0;  // ascending band: the lowest channel is fch1
  h.nchans = 50;
  h.nifs = 2;
  h.nbits = 16;
  const InfRequest r{.name = "b", .dm = 71.0, .nsamples = 1000, .analyzer = "someone"};
  const PrestoInf d = make_inf_for(h, r);
  CHECK(d.telescope == "Arecibo");
  CHECK(d.instrument == "WAPP");
  CHECK(d.ra == "19:39:39.5000");
  CHECK(d.dec == "-00:30:15.2500");
  CHECK(d.freq == 1100.0);
  CHECK(d.freqband == 100.0);
  CHECK(d.chan_wid == 2.0);
  // 1.2 lambda / 200 m at the band centre 1149 MHz, in arcsec.
  CHECK(d.fov == doctest::Approx(1.2 * 299792458.0 / 1149e6 / 200.0 * 206264.806).epsilon(1e-6));
  CHECK(d.mjd_i == 55555);
  CHECK(d.mjd_f == 0.75);
  CHECK(d.notes ==
        "Project ID unset, Date: 2010-12-25T18:00:00.\n    2 polns were not summed.  Samples have 16 bits.\n");
  CHECK_FALSE(d.breaks());
  h.telescope_id = 64;  // no dish size in PRESTO: its default beam of 1 degree
  CHECK(make_inf_for(h, r).fov == 3600.0);
}

TEST_CASE("make_inf_for: a PSRFITS file's backend, observer, project and date, as PRESTO's .inf") {
  SigprocHeader h;
  h.tsamp = 1e-4;
  h.fch1 = 1500.0;
  h.foff = -1.0;
  h.nchans = 4;
  h.tstart = 58543.5;
  PsrfitsInfo info;
  info.backend = "Medusa";
  info.observer = "WF";
  info.project = "P958";
  info.date_obs = "2019-03-01T07:55:14";
  info.nbits = 4;
  info.npol = 4;
  info.pol_type = "AABBCRCI";
  info.intensity_from = "AA+BB";
  InfRequest r{.name = "x", .nsamples = 10, .analyzer = "someone"};
  set_inf_fields_from_psrfits(info, r);
  PrestoInf d = make_inf_for(h, r);
  CHECK(d.instrument == "Medusa");
  CHECK(d.observer == "WF");
  CHECK(d.notes == "Project ID P958, Date: 2019-03-01T07:55:14.\n    2 polns were summed.  Samples have 4 bits.\n");
  // One polarisation of two stored alone, and the cards missing: PRESTO's "unset".
  info = PsrfitsInfo{};
  info.nbits = 8;
  info.npol = 1;
  info.pol_type = "AA";
  info.intensity_from = "first";
  r = InfRequest{.name = "x", .nsamples = 10, .analyzer = "someone"};
  set_inf_fields_from_psrfits(info, r);
  d = make_inf_for(h, r);
  CHECK(d.instrument == "unset");
  CHECK(d.observer == "unset");
  CHECK(d.notes == "Project ID unset, Date: unset.\n    1 polns were not summed.  Samples have 8 bits.\n");
  // Without them (a SIGPROC input) the header's: machine 0 is SIGPROC's FAKE.
  CHECK(make_inf_for(h, InfRequest{.name = "x", .nsamples = 10, .analyzer = "someone"}).instrument == "FAKE");
}

TEST_CASE("make_inf_for: a tstart that is not a finite MJD gives epoch 0") {
  SigprocHeader h;
  h.tsamp = 1e-4;
  h.fch1 = 1500.0;
  h.foff = -1.0;
  h.nchans = 4;
  const InfRequest r{.name = "x", .nsamples = 10, .analyzer = "someone"};
  for (const double t : {std::nan(""), HUGE_VAL, -HUGE_VAL, 1e30}) {
    CAPTURE(t);
    h.tstart = t;
    const PrestoInf d = make_inf_for(h, r);
    CHECK(d.mjd_i == 0);
    CHECK(d.mjd_f == 0.0);
    CHECK(format_inf(d).find("nan") == std::string::npos);
  }
}

TEST_CASE("timeseries: the PRESTO and SIGPROC peer outputs read with the right N and values" *
          doctest::skip(!test::have_shared_data())) {
  const auto peers = *test::shared_data_dir() / "peer-outputs";
  const TimeSeries dat = read_timeseries((peers / "small/small_DM62.50.dat").string());
  const TimeSeries tim = read_timeseries((peers / "small/small_DM62.5.tim").string());
  CHECK(dat.nsamples() == 32768);
  CHECK(tim.nsamples() == 32550);
  CHECK(dat.dm == 62.5);
  CHECK(tim.dm == 62.5);
  CHECK(tim.ref_freq_mhz == 1500.0);
  CHECK(dat.ref_freq_mhz == 1500.0);  // centre of PRESTO's top channel
  CHECK(dat.epoch_mjd() == 60000.0);
  CHECK(tim.epoch_mjd() == 60000.0);
  // PRESTO pads after the last valid bin (its on/off pairs) with one constant near the mean.
  REQUIRE(dat.inf);
  REQUIRE(dat.inf->onoff.size() == 2);
  const auto valid = static_cast<std::size_t>(dat.inf->onoff[0].second) + 1;
  CHECK(valid == 31200);
  const float pad = dat.samples[valid];
  CHECK(std::all_of(dat.samples.begin() + static_cast<std::ptrdiff_t>(valid), dat.samples.end(),
                    [pad](float v) { return v == pad; }));
  const double mean =
      std::accumulate(dat.samples.begin(), dat.samples.begin() + static_cast<std::ptrdiff_t>(valid), 0.0) /
      static_cast<double>(valid);
  CHECK(static_cast<double>(pad) == doctest::Approx(mean).epsilon(1e-3));
  // Both dedispersed the same filterbank at DM 62.5 to 1500 MHz: sample by sample they agree
  // (PRESTO rounds the channel delays, SIGPROC truncates, so about half the channels are one
  // sample apart), and a shift of a few samples destroys the agreement.
  CHECK(correlation(dat.samples.data(), tim.samples.data(), valid) > 0.4);
  CHECK(correlation(dat.samples.data() + 3, tim.samples.data(), valid - 3) < 0.1);
  // The 8 MiB series of iso/ and bin/ and PRESTO's subband series.
  CHECK(read_timeseries((peers / "iso/iso_DM62.50.dat").string()).nsamples() == 2097152);
  CHECK(read_timeseries((peers / "bin/bin_DM88.80.dat").string()).nsamples() == 2097152);
  CHECK(read_timeseries((peers / "small/small_sub_DM62.50.dat").string()).nsamples() == 32768);
}

TEST_CASE("timeseries: GBT J1807-0847 .tim (real/README.md section 2)" * doctest::skip(!test::have_shared_data())) {
  const TimeSeries ts = read_timeseries((*test::shared_data_dir() / "real/GBT_J1807-0847.tim").string());
  CHECK(ts.nsamples() == 131130);
  CHECK(ts.dm == 112.3802);
  CHECK(ts.ref_freq_mhz == 920.0);
  CHECK(ts.tsamp_s == doctest::Approx(163.84e-6).epsilon(1e-12));
  CHECK(ts.telescope == "GBT");
  double sum = 0, sum2 = 0;
  for (float v : ts.samples) {
    sum += static_cast<double>(v);
    sum2 += static_cast<double>(v) * static_cast<double>(v);
  }
  const double n = static_cast<double>(ts.nsamples());
  const double mean = sum / n;
  CHECK(mean == doctest::Approx(99.7).epsilon(2e-3));
  CHECK(std::sqrt(sum2 / n - mean * mean) == doctest::Approx(690.9).epsilon(2e-3));
}
