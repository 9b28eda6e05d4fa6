// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <random>

#include "fastpsr/accel.hpp"
#include "fastpsr/accel_search.hpp"
#include "fastpsr/accel_spectrum.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/presto_fft.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {
std::vector<float> read_floats(const std::filesystem::path& p) {
  const auto bytes = test::read_file(p);
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}
}  // namespace

TEST_CASE("presto .fft: packed layout equals a direct double-precision DFT") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(3.0F, 1.0F);
  const std::size_t n = 96;
  std::vector<float> x(n);
  for (auto& v : x) v = g(rng);
  const auto f = presto_realfft(x);
  REQUIRE(f.size() == n / 2);
  double dc = 0, nyq = 0;
  for (std::size_t i = 0; i < n; ++i) {
    dc += double(x[i]);
    nyq += (i % 2 ? -1.0 : 1.0) * double(x[i]);
  }
  CHECK(f[0].real() == doctest::Approx(dc).epsilon(1e-5));
  CHECK(f[0].imag() == doctest::Approx(nyq).epsilon(1e-4));
  for (std::size_t k = 1; k < n / 2; ++k) {
    std::complex<double> s(0, 0);
    for (std::size_t i = 0; i < n; ++i)
      s += static_cast<double>(x[i]) * std::polar(1.0, -2.0 * M_PI * double(i * k) / double(n));
    CHECK(std::abs(std::complex<double>(f[k]) - s) < 1e-4);
  }
  CHECK_THROWS_AS(presto_realfft(std::vector<float>(7)), Error);
}

TEST_CASE("presto .fft: our realfft of PRESTO's .dat matches PRESTO's .fft" *
          doctest::skip(!test::have_shared_data())) {
  const auto dir = *test::shared_data_dir() / "peer-outputs/small";
  const auto x = read_floats(dir / "small_DM62.50.dat");
  const auto ours = presto_realfft(x);
  const auto theirs = read_presto_fft((dir / "small_DM62.50.fft").string());
  REQUIRE(ours.size() == theirs.size());
  // Two float FFTs of a series with a ~3e4 mean: compare against the typical amplitude.
  double worst = 0.0;
  for (std::size_t k = 1; k < ours.size(); ++k) worst = std::max(worst, double(std::abs(ours[k] - theirs[k])));
  CHECK(worst < 5.0);  // bins are ~1e3-1e4 in size (float rounding of sums of 3e4 * 32768)
  CHECK(ours[0].real() == doctest::Approx(theirs[0].real()).epsilon(1e-6));
  CHECK(ours[0].imag() == doctest::Approx(theirs[0].imag()).epsilon(1e-3));
}

TEST_CASE("presto .fft: bad sizes are format errors naming the file") {
  test::TempDir tmp;
  const auto p = tmp / "bad.fft";
  test::write_file(p, std::vector<std::uint8_t>(12, 0));
  CHECK_THROWS_WITH_AS(read_presto_fft(p.string()), doctest::Contains("8 bytes each"), Error);
  test::write_file(p, {});
  CHECK_THROWS_AS(read_presto_fft(p.string()), Error);
}

TEST_CASE("accel spectrum: median is GSL's (mean of the central pair for an even count)") {
  std::vector<float> odd{5, 1, 4, 2, 3};
  CHECK(presto_median(odd) == 3.0F);
  std::vector<float> even{4, 1, 3, 2};
  CHECK(presto_median(even) == 2.5F);
}

TEST_CASE("accel spectrum: deredden reproduces PRESTO's rednoise output bit for bit" *
          doctest::skip(!test::have_shared_data())) {
  const auto dir = *test::shared_data_dir() / "peer-outputs/small";
  auto fft = read_presto_fft((dir / "small_DM62.50.fft").string());
  const auto red = read_presto_fft((dir / "small_DM62.50_red.fft").string());
  const double T = 32768 * 6.4e-05;
  CHECK(deredden(fft, DereddenOptions{}, T) == static_cast<std::int64_t>(fft.size()));
  REQUIRE(fft.size() == red.size());
  std::size_t differ = 0;
  for (std::size_t k = 0; k < fft.size(); ++k) differ += (fft[k] != red[k]) ? 1 : 0;
  CHECK(differ == 0);
}

TEST_CASE("accel spectrum: normalised noise has mean power 1 under every normalisation") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0F, 7.0F);
  std::vector<std::complex<float>> fft(1 << 16);
  for (auto& v : fft) v = {g(rng), g(rng)};
  const auto blocks = presto_blocks(50);
  for (AccelNorm norm : {AccelNorm::block_median, AccelNorm::local_power}) {
    const auto out = normalise_for_search(fft, norm, blocks, 10, 0.0);
    const AccelPowerScale scale{out.scale_rk_start, out.scale};
    double mean = 0;
    for (std::size_t k = 1000; k < out.bins.size() - 1000; ++k) {
      mean += double(std::norm(out.bins[k]) * scale.at(2 * std::int64_t(k)));
    }
    mean /= double(out.bins.size() - 2000);
    CHECK(mean == doctest::Approx(1.0).epsilon(0.03));
  }
  auto red = fft;
  deredden(red, DereddenOptions{}, 100.0);
  double mean = 0;
  for (std::size_t k = 1000; k < red.size(); ++k) mean += double(std::norm(red[k]));
  CHECK(mean / double(red.size() - 1000) == doctest::Approx(1.0).epsilon(0.03));
}

TEST_CASE("accel spectrum: presto_median equals the sorted definition bit for bit") {
  // The quickselect against sorting: odd and even sizes, powers (exponential), ties, zeros,
  // negative values and equal halves, and the orders that trouble pivot rules (sorted either
  // way, all equal, organ pipe).
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::exponential_distribution<float> expo(1.0F);
  std::uniform_int_distribution<int> small(0, 3);
  std::normal_distribution<float> g(0.0F, 5.0F);
  auto reference = [](std::vector<float> v) {
    std::sort(v.begin(), v.end());
    const std::size_t hi = v.size() / 2;
    if (v.size() % 2 == 1) return v[hi];
    const float sum = v[hi - 1] + v[hi];
    return static_cast<float>(0.5 * static_cast<double>(sum));
  };
  for (int trial = 0; trial < 3000; ++trial) {
    const std::size_t n = 1 + static_cast<std::size_t>(rng() % 2100);
    std::vector<float> v(n);
    const int kind = trial % 8;
    for (auto& x : v) {
      x = kind == 0   ? expo(rng)
          : kind == 1 ? static_cast<float>(small(rng))  // many ties
          : kind == 2 ? g(rng)                          // negative values
          : kind == 3 ? (rng() % 2 == 0 ? 0.0F : expo(rng))
                      : expo(rng);
    }
    if (kind == 4) std::sort(v.begin(), v.end());
    if (kind == 5) std::sort(v.begin(), v.end(), std::greater<>());
    if (kind == 6) std::fill(v.begin(), v.end(), v[0]);
    if (kind == 7) {  // rising, then falling
      std::sort(v.begin(), v.end());
      std::reverse(v.begin() + static_cast<std::ptrdiff_t>(n / 2), v.end());
    }
    const float want = reference(v);
    std::vector<float> work = v;
    const float got = presto_median(work);
    CAPTURE(n);
    CAPTURE(kind);
    CHECK(std::bit_cast<std::uint32_t>(got) == std::bit_cast<std::uint32_t>(want));
  }
}

TEST_CASE("accel spectrum: photon counts are normalised to unit mean power, de-reddened or not") {
  // Poisson counts of mean 5 a bin: raw powers have mean N x 5 = bin 0 (the photon count), so
  // dividing by it gives unit mean. A de-reddened spectrum has unit mean already and its bin 0
  // is 1: the photon scale is then 1, not the raw count again (QA pass 15: powers ~1e-5, nothing
  // passed any threshold).
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::poisson_distribution<int> counts(5.0);
  constexpr std::size_t n = 1 << 16;
  std::vector<float> series(n);
  for (auto& v : series) v = static_cast<float>(counts(rng));
  double total = 0;
  for (float v : series) total += double(v);
  // PRESTO's packed real FFT: bin 0 holds (sum, Nyquist).
  const std::vector<std::complex<float>> raw = presto_realfft(series);
  REQUIRE(double(raw[0].real()) == doctest::Approx(total).epsilon(1e-6));
  for (bool dered : {false, true}) {
    CAPTURE(dered);
    AccelConfig c;
    c.zmax = 0;
    c.numharm = 1;
    c.norm = AccelNorm::photon;
    c.deredden = dered;
    const AccelPlan plan = make_accel_plan(c, static_cast<std::int64_t>(raw.size()), double(n) * 1e-3);
    const PreparedSpectrum spec = prepare_spectrum(raw, plan, true);
    CHECK(spec.nph == doctest::Approx(dered ? 1.0 : total).epsilon(1e-6));
    const AccelPowerScale scale{spec.search.scale_rk_start, spec.search.scale};
    double mean = 0;
    for (std::size_t k = 1000; k < spec.search.bins.size(); ++k) {
      const auto ks = static_cast<std::int64_t>(k);
      mean += double(std::norm(spec.search.bins[k])) * (spec.search.scale.empty() ? 1.0 : double(scale.at(2 * ks)));
    }
    CHECK(mean / double(spec.search.bins.size() - 1000) == doctest::Approx(1.0).epsilon(0.05));
  }
}

TEST_CASE("accel spectrum: a series shorter than one PRESTO block is normalised to unit mean power") {
  // 1024 samples (512 bins) against PRESTO's block of ~1000 bins (zmax 0): every window reaches
  // past the spectrum. PRESTO's zero padding made their medians ~0 and the scale huge (pure
  // noise at sigma 53); those blocks, which PRESTO never searches, now take the median of the
  // bins they have. Longer spectra keep PRESTO's padding in every block PRESTO searches.
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0F, 3.0F);
  for (std::int64_t numbins : {512, 700, 1500}) {
    CAPTURE(numbins);
    std::vector<std::complex<float>> fft(static_cast<std::size_t>(numbins));
    for (auto& v : fft) v = {g(rng), g(rng)};
    AccelConfig c;
    c.zmax = 0;
    c.numharm = 1;
    const AccelPlan plan = make_accel_plan(c, numbins, 2.0 * static_cast<double>(numbins) * 64e-6);
    const PreparedSpectrum spec = prepare_spectrum(fft, plan, true);
    const AccelPowerScale scale{spec.search.scale_rk_start, spec.search.scale};
    double mean = 0;
    std::int64_t count = 0;
    for (std::int64_t k = std::max<std::int64_t>(8, static_cast<std::int64_t>(plan.rlo)); k < numbins - 8; ++k) {
      mean += double(std::norm(spec.search.bins[static_cast<std::size_t>(k)]) * scale.at(2 * k));
      ++count;
    }
    CHECK(mean / double(count) == doctest::Approx(1.0).epsilon(0.2));
  }
}

TEST_CASE("accel spectrum: PRESTO's block geometry") {
  const auto b200 = presto_blocks(200);
  CHECK(b200.fftlen == 2048);
  CHECK(b200.halfwidth == 126);
  CHECK(b200.uselen == 2048 - 504);
  const auto b0 = presto_blocks(0);
  CHECK(b0.fftlen == 2048);
  CHECK(b0.uselen == 2048 - 64);
  CHECK(presto_blocks(1000).fftlen == 10240);  // kernel 2264 points
}

TEST_CASE("accel spectrum: zaplists and zapping") {
  test::TempDir tmp;
  const auto p = tmp / "birds.zaplist";
  {
    std::ofstream o(p);
    o << "# freq width\n60.0 0.5\nB50 0.0001\n\n";
  }
  const auto birds = read_zaplist(p.string(), 100.0, 1e-4);
  REQUIRE(birds.size() == 2);
  CHECK(birds[0].lobin == doctest::Approx(4999.5));  // at least one bin wide, barycentric: no Doppler
  CHECK(birds[1].lobin == doctest::Approx(5975.0 * 1.0001));
  std::vector<std::complex<float>> fft(20000, {1.0F, 0.0F});
  for (int k = 4990; k < 5010; ++k) fft[static_cast<std::size_t>(k)] = {1000.0F, 0.0F};
  CHECK(zap_birdies(fft, birds) > 0);
  CHECK(std::norm(fft[5000]) < 50.0F);
  {
    std::ofstream o(p);
    o << "60.0 abc\n";
  }
  CHECK_THROWS_WITH_AS(read_zaplist(p.string(), 100.0, 0.0), doctest::Contains("line 1"), Error);
}

TEST_CASE("accel spectrum: birdies beyond the int64 range are clamped to the spectrum") {
  std::vector<std::complex<float>> fft(20000, {1.0F, 0.0F});
  // From bin 19000 to 1e300 (a zaplist's 1e300 Hz): bins 19000 to the end are zapped.
  CHECK(zap_birdies(fft, {Birdie{19000.0, 1e300}}) == 1000);
  CHECK(zap_birdies(fft, {Birdie{-1e300, 100.0}}) == 99);  // from below the spectrum: bins 1 to 99
  CHECK(zap_birdies(fft, {Birdie{1e300, 2e300}}) == 0);
  CHECK(zap_birdies(fft, {Birdie{std::nan(""), 5000.0}}) == 0);
  CHECK(zap_birdies(fft, {Birdie{5000.0, std::nan("")}}) == 0);
  CHECK(zap_birdies(fft, {Birdie{-HUGE_VAL, HUGE_VAL}}) == 0);  // the whole spectrum: no level beside it
}
