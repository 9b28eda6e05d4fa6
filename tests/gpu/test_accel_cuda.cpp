// SPDX-License-Identifier: MIT
// The CUDA acceleration searcher against the double-precision reference (plane and hits) and
// against the CPU backend (hits and candidates), on fresh random spectra with injected signals.
//
// Tolerances (float FFTs against double): plane powers within 2e-4 * max(1, P) (the CPU
// backend's bound); with plane=f16, 6e-4 * max(1, P) (P/256 stored as half: 2^-11 relative).
// Hit lists: every hit of one side is a hit of the other with the same (stage, rk, z) and a
// summed power within the same relative bound, except hits whose power lies within that bound
// of the threshold (which rounding may put on either side).
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "fastpsr/accel.hpp"
#include "fastpsr/accel_layout.hpp"
#include "fastpsr/accel_search.hpp"
#include "fastpsr/accel_templates.hpp"
#include "fastpsr/cpu/accel_cpu.hpp"
#include "fastpsr/cuda/accel_cuda.hpp"
#include "fastpsr/cuda/runtime.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/presto_fft.hpp"
#include "support/reference_accel.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

using Key = std::tuple<int, std::int64_t, int>;  // stage, rk, zi
using Config = std::map<std::string, std::string>;

struct Signal {
  double r0;      // fundamental, mid-observation, bins
  double z0;      // fundamental drift, bins
  double amp;     // amplitude of the fundamental (noise has unit power)
  int harmonics;  // harmonic n has amplitude amp / sqrt(n), r = n r0, z = n z0
};

// Unit-power complex Gaussian noise plus the signals (only bins near each harmonic computed).
std::vector<std::complex<float>> make_spectrum(std::uint64_t seed, std::int64_t numbins,
                                               const std::vector<Signal>& signals) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0F, std::sqrt(0.5F));
  std::vector<std::complex<float>> x(static_cast<std::size_t>(numbins));
  for (auto& v : x) v = {g(rng), g(rng)};
  for (const auto& s : signals) {
    for (int n = 1; n <= s.harmonics; ++n) {
      const double r = n * s.r0;
      const double z = n * s.z0;
      const std::complex<double> amp = std::polar(s.amp / std::sqrt(static_cast<double>(n)), 0.9 * n);
      const auto reach = static_cast<std::int64_t>(std::fabs(z)) + 40;
      for (auto k = static_cast<std::int64_t>(r) - reach; k <= static_cast<std::int64_t>(r) + reach; ++k) {
        if (k < 0 || k >= numbins) continue;
        x[static_cast<std::size_t>(k)] += std::complex<float>(amp * z_response(static_cast<double>(k) - r, z));
      }
    }
  }
  return x;
}

AccelSearchProblem make_problem(std::int64_t numbins, int zmax, int numharm, AccelInterp interp,
                                std::vector<float> powcut) {
  AccelSearchProblem p;
  p.numbins = numbins;
  p.zmax = zmax;
  p.numharm = numharm;
  p.interp = interp;
  p.rk_begin = 2 * 20 + 1;
  p.rk_end = 2 * numbins - 3;
  powcut.resize(static_cast<std::size_t>(p.stages()), powcut.empty() ? 20.0F : powcut.back());
  p.powcut = std::move(powcut);
  return p;
}

// A piecewise-constant power scale like the block-median one: a factor per block of `block`
// half bins from rk `first` (rk before it take the first factor).
struct OwnedScale {
  std::vector<std::int64_t> starts;
  std::vector<float> factors;
  [[nodiscard]] AccelPowerScale view() const { return {starts, factors}; }
};
OwnedScale random_scale(std::uint64_t seed, std::int64_t first, std::int64_t block, std::int64_t rk_end) {
  std::mt19937_64 rng(seed ^ 0x5ca1eULL);
  std::uniform_real_distribution<float> f(0.6F, 1.6F);
  OwnedScale s;
  for (std::int64_t rk = first; rk < rk_end; rk += block) {
    s.starts.push_back(rk);
    s.factors.push_back(f(rng));
  }
  return s;
}

AccelSearchOptions gpu_options(const Config& config) {
  AccelSearchOptions o;
  o.gpu_config = config;
  return o;
}

std::string describe(const Config& c) {
  std::string s;
  for (const auto& [k, v] : c) s += k + "=" + v + " ";
  return s;
}

// Records every range and hit (and checks the ranges are contiguous and increasing).
class RangeSink final : public AccelHitSink {
 public:
  void consume(std::int64_t rk_lo, std::int64_t rk_hi, std::span<const AccelHit> more) override {
    if (!ranges.empty()) contiguous = contiguous && ranges.back().second == rk_lo;
    contiguous = contiguous && rk_hi > rk_lo;
    for (const auto& h : more) in_range = in_range && h.rk >= rk_lo && h.rk < rk_hi;
    ranges.emplace_back(rk_lo, rk_hi);
    hits.insert(hits.end(), more.begin(), more.end());
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  std::vector<AccelHit> hits;
  bool contiguous = true;
  bool in_range = true;
};

std::map<Key, float> by_key(const std::vector<AccelHit>& hits) {
  std::map<Key, float> m;
  bool unique = true;
  for (const auto& h : hits) unique = m.emplace(Key{h.stage, h.rk, h.zi}, h.power).second && unique;
  CHECK_MESSAGE(unique, "a grid point was reported twice");
  return m;
}

std::vector<AccelHit> gpu_hits(const AccelSearchProblem& p, const std::vector<std::complex<float>>& x,
                               const Config& config, const AccelPowerScale& scale = {}) {
  auto searcher = cuda::make_cuda_fdot_searcher(p, gpu_options(config), 0);
  RangeSink sink;
  searcher->search(x, scale, sink);
  CHECK(sink.contiguous);
  CHECK(sink.in_range);
  REQUIRE(!sink.ranges.empty());
  CHECK(sink.ranges.front().first == p.rk_begin);
  CHECK(sink.ranges.back().second == p.rk_end);
  return sink.hits;
}

// search_batch over the spectra laid end to end in `spectra` (numbins each), a sink each.
std::vector<RangeSink> batch_sinks(cuda::CudaFdotSearcher& searcher, const std::vector<std::complex<float>>& spectra,
                                   std::int64_t numbins) {
  const std::size_t count = spectra.size() / static_cast<std::size_t>(numbins);
  std::vector<RangeSink> sinks(count);
  std::vector<AccelHitSink*> ptrs;
  for (auto& sink : sinks) ptrs.push_back(&sink);
  const std::vector<AccelPowerScale> scales(count);
  searcher.search_batch(spectra.data(), static_cast<std::size_t>(numbins), scales, ptrs);
  return sinks;
}

// Spectrum b of those.
std::vector<std::complex<float>> nth_spectrum(const std::vector<std::complex<float>>& spectra, std::int64_t numbins,
                                              int b) {
  return {spectra.begin() + b * numbins, spectra.begin() + (b + 1) * numbins};
}

std::vector<AccelHit> cpu_hits(const AccelSearchProblem& p, const std::vector<std::complex<float>>& x,
                               const AccelPowerScale& scale = {}) {
  CollectingHitSink sink;
  cpu::make_fdot_searcher(p, {})->search(x, scale, sink);
  return sink.hits;
}

// Hit lists equal up to float rounding (see the top of the file); returns the matched count.
int compare_hits(const AccelSearchProblem& p, const std::vector<AccelHit>& got_hits,
                 const std::vector<AccelHit>& want_hits, float rel) {
  const auto got = by_key(got_hits);
  const auto want = by_key(want_hits);
  auto cut = [&](const Key& k) { return p.powcut[static_cast<std::size_t>(std::get<0>(k))]; };
  int matched = 0;
  int bad_power = 0;
  int missing = 0;
  int extra = 0;
  for (const auto& [key, power] : want) {
    const auto it = got.find(key);
    if (it == got.end()) {
      if (power > cut(key) * (1.0F + rel)) {
        ++missing;
        if (missing <= 5) {
          MESSAGE("missing hit stage " << std::get<0>(key) << " rk " << std::get<1>(key) << " zi " << std::get<2>(key)
                                       << " power " << power << " cut " << cut(key));
        }
      }
      continue;
    }
    if (std::fabs(it->second - power) > rel * std::max(1.0F, power)) {
      ++bad_power;
      if (bad_power <= 5) MESSAGE("power " << it->second << " vs " << power << " at rk " << std::get<1>(key));
    }
    ++matched;
  }
  for (const auto& [key, power] : got) {
    if (want.count(key) == 0 && power > cut(key) * (1.0F + rel)) {
      ++extra;
      if (extra <= 5) MESSAGE("extra hit rk " << std::get<1>(key) << " zi " << std::get<2>(key) << " power " << power);
    }
  }
  CHECK(missing == 0);
  CHECK(extra == 0);
  CHECK(bad_power == 0);
  return matched;
}

}  // namespace

TEST_CASE(
    "accel cuda: the plane equals the double-precision reference (both paths, Fourier and interbin, power "
    "scale)") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::int64_t numbins = 1200;
  const auto x = make_spectrum(seed, numbins, {{210.4, 6.3, 5.0, 4}, {333.0, -9.0, 4.0, 2}});
  for (auto interp : {AccelInterp::fourier, AccelInterp::interbin}) {
    for (int zmax : {0, 4, 20}) {
      const auto p = make_problem(numbins, zmax, 4, interp, {});
      const int nb = interp == AccelInterp::fourier ? 2 : 1;
      int m = 128;
      while (m < 4 * template_halfwidth(zmax) + 4) m *= 2;
      const std::int64_t lo = sub_rk(p.rk_begin, 1, p.numharm);
      const auto width = static_cast<std::size_t>(p.rk_end - lo);
      // Every other case with a power scale whose blocks start above the plane's first rk.
      const auto scale = random_scale(seed + static_cast<std::uint64_t>(zmax), lo + 37, 301, p.rk_end);
      const AccelPowerScale view = zmax == 4 ? AccelPowerScale{} : scale.view();
      const auto ref = test::reference_plane(x, p, lo, p.rk_end, view);
      std::vector<Config> configs;
      for (const char* path : {"custom", "cufft"}) {
        for (int len : {m * nb, 2 * m * nb, 8 * m * nb}) {
          configs.push_back({{"path", path}, {"fft_len", std::to_string(len)}});
        }
      }
      configs.push_back({{"path", "custom"}, {"fft_len", std::to_string(2 * m * nb)}, {"fft_radix", "16"}});
      // The twiddle powers loaded and multiplied out, both radices (defaults: radix 16 and loaded
      // powers for Fourier from M = 1024, else radix 8; multiplied out for interbinning).
      configs.push_back({{"path", "custom"}, {"fft_twiddles", "chain"}});
      configs.push_back({{"path", "custom"}, {"fft_twiddles", "table"}});
      configs.push_back({{"path", "custom"}, {"fft_radix", "16"}, {"fft_twiddles", "chain"}});
      configs.push_back({{"path", "custom"},
                         {"fft_len", std::to_string(8 * m * nb)},
                         {"fft_radix", "16"},
                         {"fft_twiddles", "table"}});
      configs.push_back({{"path", "custom"}, {"segs_per_block", "3"}});
      configs.push_back({{"path", "custom"}, {"plane", "f16"}});
      configs.push_back({{"path", "cufft"}, {"plane", "f16"}, {"zchunk", "3"}});
      configs.push_back({{"path", "custom"}, {"plane", "f16bound"}});
      for (auto config : configs) {
        config.emplace("plane", "f32");  // where not named: the default (f16bound) stores bounds
        CAPTURE(zmax);
        CAPTURE(static_cast<int>(interp));
        INFO("gpu-config " << describe(config));
        auto searcher = cuda::make_cuda_fdot_searcher(p, gpu_options(config), 0);
        const auto plane = searcher->plane_for_test(x, view);
        REQUIRE(plane.size() == width * static_cast<std::size_t>(p.numz()));
        const bool f16 = config.at("plane") == "f16";
        const bool bound = config.at("plane") == "f16bound";
        // f16 rounds to nearest (2^-11 relative), f16bound up (2^-10), on float32's own error.
        const double tol = f16 ? 6e-4 : bound ? 1.2e-3 : 2e-4;
        if (bound) {
          // Every bound at least the float32 plane's power, which the re-scoring recomputes.
          Config f32 = config;
          f32["plane"] = "f32";
          const auto exact = cuda::make_cuda_fdot_searcher(p, gpu_options(f32), 0)->plane_for_test(x, view);
          std::size_t below = 0;
          for (std::size_t i = 0; i < plane.size(); ++i) below += plane[i] < exact[i] ? 1 : 0;
          CHECK(below == 0);
        }
        int unwritten = 0;
        int bad = 0;
        double worst = 0.0;
        for (std::size_t i = 0; i < plane.size(); ++i) {
          if (!std::isfinite(plane[i])) {
            ++unwritten;
            continue;
          }
          const double err = std::fabs(static_cast<double>(plane[i]) - ref[i]) / std::max(1.0, ref[i]);
          worst = std::max(worst, err);
          if (err > tol) ++bad;
        }
        CHECK(unwritten == 0);
        CHECK(bad == 0);
        CAPTURE(worst);
        CHECK(worst < tol);
      }
    }
  }
}

TEST_CASE("accel cuda: hits equal the double-precision reference on small spectra") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::int64_t numbins = 700;
  // Amplitude 8: the reference then has 165 or more hits with Fourier interpolation in each of
  // 400 seeds (median 513). With 5, as before, 5% of the seeds gave fewer than the 50 checked
  // below (one failed on the H200 on 2026-11-26: 28 hits, every one of them matched).
  const auto x = make_spectrum(seed, numbins, {{101.3, 2.6, 8.0, 4}});
  for (auto interp : {AccelInterp::fourier, AccelInterp::interbin}) {
    const auto p = make_problem(numbins, 8, 4, interp, {9.0F, 14.0F, 22.0F});
    const auto scale = random_scale(seed, 10, 123, p.rk_end);
    const auto want = test::reference_hits(x, p, scale.view());
    for (const char* path : {"custom", "cufft"}) {
      CAPTURE(path);
      CAPTURE(static_cast<int>(interp));
      const int matched = compare_hits(p, gpu_hits(p, x, {{"path", path}}, scale.view()), want, 2e-4F);
      CHECK(matched > 50);
    }
  }
}

TEST_CASE("accel cuda: hits equal the CPU backend's (isolated and accelerated signals, 1 to 32 harmonics)") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::int64_t numbins = 1 << 16;
  // An isolated pulsar, accelerated ones (z != 0 in every harmonic; the first stays within zmax
  // up to its 32nd harmonic) and a few noise hits at the lowest thresholds.
  const auto x =
      make_spectrum(seed, numbins, {{1234.56, 0.0, 8.0, 12}, {1501.3, 1.15, 7.0, 32}, {517.75, -3.1, 10.0, 3}});
  struct Case {
    int numharm;
    AccelInterp interp;
    Config config;
  };
  const std::vector<Case> cases = {
      {1, AccelInterp::fourier, {{"path", "custom"}}},
      {2, AccelInterp::interbin, {{"path", "custom"}}},
      {8, AccelInterp::fourier, {{"path", "custom"}}},
      {8, AccelInterp::fourier, {{"path", "custom"}, {"hs", "gather"}}},
      {8, AccelInterp::fourier, {{"path", "cufft"}}},
      {16, AccelInterp::interbin, {{"path", "cufft"}}},
      {32, AccelInterp::fourier, {{"path", "custom"}, {"hs_rows", "16"}, {"hs_threads", "64"}}},
      {32, AccelInterp::interbin, {{"path", "custom"}, {"hs_rows", "1"}, {"fft_radix", "16"}}},
      {32, AccelInterp::fourier, {{"hs", "tiled"}, {"hs_rows", "4"}, {"hs_threads", "32"}}},
      {32, AccelInterp::fourier, {{"hs", "gather"}, {"hs_rows", "2"}}},
  };
  for (const auto& c : cases) {
    CAPTURE(c.numharm);
    CAPTURE(static_cast<int>(c.interp));
    INFO("gpu-config " << describe(c.config));
    // Thresholds that noise passes a few times and the signals many times.
    const auto p = make_problem(numbins, 40, c.numharm, c.interp, {15.0F, 21.0F, 30.0F, 45.0F, 70.0F, 110.0F});
    // Block-median-like scale (close to 1, so that the thresholds keep their meaning).
    const auto scale = random_scale(seed + static_cast<std::uint64_t>(c.numharm), 0, 4000, p.rk_end);
    const auto want = cpu_hits(p, x, scale.view());
    const int matched = compare_hits(p, gpu_hits(p, x, c.config, scale.view()), want, 3e-4F);
    // Enough hits that the comparison means something. The CPU backend's hit counts over 300
    // seeds (2026-11-29): 1 harmonic min 63, 1% below 114, median 310 (the random scale of the
    // pulsar's block moves them; "> 100" failed for one seed on the H200, 88 hits, all matched);
    // 2 harmonics min 621, 8 1351, 16 4113, 32 3059 (interbinning, 200 seeds: 5285).
    CHECK(matched > (c.numharm == 1 ? 40 : 400));
    // The accelerated pulsar is found at the highest stage, at its r and z.
    bool accelerated = false;
    for (const auto& h : want) {
      const double harmonics = 1 << h.stage;
      accelerated = accelerated ||
                    (h.stage == p.stages() - 1 && std::fabs(static_cast<double>(h.rk) / 2 / harmonics - 1501.3) < 1.0 &&
                     std::fabs(p.z_of(h.zi) / harmonics - 1.15) <= 1.0);
    }
    CHECK(accelerated);
  }
}

TEST_CASE("accel cuda: search_batch equals search, in groups with a partial last one") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::int64_t numbins = 1 << 14;
  const auto p = make_problem(numbins, 20, 8, AccelInterp::fourier, {14.0F, 20.0F, 28.0F, 40.0F});
  std::vector<std::complex<float>> spectra;
  const std::size_t stride = static_cast<std::size_t>(numbins) + 7;  // not packed, to test the stride
  std::vector<OwnedScale> owned;
  std::vector<AccelPowerScale> scales;
  for (int b = 0; b < 5; ++b)
    owned.push_back(random_scale(seed + 100 + static_cast<std::uint64_t>(b), 64, 999, p.rk_end));
  owned[3] = OwnedScale{};  // one without a scale
  for (const auto& o : owned) scales.push_back(o.view());
  for (int b = 0; b < 5; ++b) {
    // Amplitude 8: hits in every spectrum whatever the noise and scale (at 5, seed
    // 10086379301314512064 left spectrum 4 two hits, and the comparison below nearly nothing).
    auto x = make_spectrum(seed + static_cast<std::uint64_t>(b), numbins, {{400.0 + 37.3 * b, 3.0 * b - 5.0, 8.0, 8}});
    x.resize(stride, {1e30F, 1e30F});  // poison between the spectra
    spectra.insert(spectra.end(), x.begin(), x.end());
  }
  for (const char* path : {"custom", "cufft"}) {
    CAPTURE(path);
    auto single = cuda::make_cuda_fdot_searcher(p, gpu_options({{"path", path}, {"batch", "1"}}), 0);
    auto batched = cuda::make_cuda_fdot_searcher(p, gpu_options({{"path", path}, {"batch", "2"}}), 0);
    std::vector<RangeSink> sinks(5);
    std::vector<AccelHitSink*> ptrs;
    for (auto& s : sinks) ptrs.push_back(&s);
    batched->search_batch(spectra.data(), stride, scales, ptrs);
    CHECK(batched->last_timings().spectra == 5);
    CHECK(batched->last_timings().correlate_ms > 0.0);
    for (int b = 0; b < 5; ++b) {
      CAPTURE(b);
      RangeSink one;
      single->search({spectra.data() + static_cast<std::size_t>(b) * stride, static_cast<std::size_t>(numbins)},
                     scales[static_cast<std::size_t>(b)], one);
      auto& many = sinks[static_cast<std::size_t>(b)];
      CHECK(many.contiguous);
      REQUIRE(!many.ranges.empty());
      CHECK(many.ranges.front().first == p.rk_begin);
      CHECK(many.ranges.back().second == p.rk_end);
      const auto a = by_key(one.hits);
      const auto c = by_key(many.hits);
      CHECK(a.size() > 10);
      CHECK(a == c);  // the same kernels on the same data: bit-identical
    }
  }
}

TEST_CASE("accel cuda: a hit overflow is searched again in halves and loses nothing") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::int64_t numbins = 1 << 14;
  const auto x = make_spectrum(seed, numbins, {{700.2, 4.0, 20.0, 16}, {3001.0, -6.0, 15.0, 4}});
  const auto p = make_problem(numbins, 10, 16, AccelInterp::fourier, {8.0F, 12.0F, 18.0F, 27.0F, 40.0F});
  const auto full = gpu_hits(p, x, {});
  REQUIRE(full.size() > 1000);
  // hits=1 is raised to numz * stages (55): far fewer than the hits, so the range is halved
  // many times.
  auto searcher = cuda::make_cuda_fdot_searcher(p, gpu_options({{"hits", "1"}}), 0);
  CHECK(searcher->settings().hits == static_cast<std::int64_t>(p.numz() * p.stages()));
  RangeSink sink;
  searcher->search(x, {}, sink);
  CHECK(searcher->last_timings().overflows == 1);
  CHECK(sink.ranges.size() > 10);
  CHECK(sink.contiguous);
  CHECK(sink.in_range);
  CHECK(sink.ranges.front().first == p.rk_begin);
  CHECK(sink.ranges.back().second == p.rk_end);
  CHECK(by_key(sink.hits) == by_key(full));
}

TEST_CASE("accel cuda: f16 plane storage keeps the hits within its tolerance") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::int64_t numbins = 1 << 15;
  // A very strong signal too: its powers exceed the f16 range below the scaling (65504).
  const auto x = make_spectrum(seed, numbins, {{1500.3, 5.5, 8.0, 16}, {4000.0, 0.0, 500.0, 2}});
  const auto p = make_problem(numbins, 30, 16, AccelInterp::fourier, {14.0F, 20.0F, 28.0F, 40.0F, 60.0F});
  const auto want = gpu_hits(p, x, {{"plane", "f32"}});
  const int matched = compare_hits(p, gpu_hits(p, x, {{"plane", "f16"}}), want, 6e-4F);
  CHECK(matched > 100);
}

// plane=f16bound stores f16 powers rounded up, so its harmonic sums bound the f32 plane's, and
// re-scores each hit from f32 powers recomputed by the same kernel: the f32 plane's hits, powers
// included, bit for bit, whatever the kernel, shape, interpolation, harmonics, power scale,
// block search, batch, overflow or re-scoring chunk.
TEST_CASE("accel cuda: plane=f16bound gives the f32 plane's hits bit for bit") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::int64_t numbins = 1 << 15;  // rk up to 65533: four blocks of 16384
  // Amplitude 500: powers beyond the half range (65504 x 256), stored as +inf bounds.
  const auto x = make_spectrum(
      seed, numbins,
      {{987.6, 9.9, 10.0, 16}, {1501.3, 1.15, 9.0, 32}, {9000.4, 20.0, 12.0, 4}, {4000.0, 0.0, 500.0, 2}});
  const OwnedScale scale = random_scale(seed, 41, 1000, 2 * numbins);
  const bool sm90 = cuda::device_properties(0).sm_major >= 9;
  for (const auto interp : {AccelInterp::fourier, AccelInterp::interbin}) {
    for (const int numharm : {1, 2, 8, 16, 32}) {
      const auto p = make_problem(numbins, 50, numharm, interp, {14.0F, 20.0F, 28.0F, 40.0F, 60.0F, 90.0F});
      // "pair": hs=pipe with hs_pair=1 (rk bounded in pairs).
      for (const std::string hs : {"pipe", "pair", "tiled", "gather"}) {
        if ((hs == "pipe" || hs == "pair") && !sm90) continue;
        if (hs == "tiled" && numharm == 32) continue;  // its windows outgrow shared memory
        CAPTURE(numharm);
        CAPTURE(hs);
        CAPTURE(interp == AccelInterp::fourier);
        auto config = [&](Config c) {
          c.emplace("hs", hs == "pair" ? "pipe" : hs);
          if (hs == "pair") c.emplace("hs_pair", "1");
          return c;
        };
        const auto want = by_key(gpu_hits(p, x, config({{"plane", "f32"}}), scale.view()));
        CHECK(want.size() > 50);
        CHECK(by_key(gpu_hits(p, x, config({{"plane", "f16bound"}}), scale.view())) == want);
        // Chunks of as few tasks as one hit may need, and the block search.
        const std::string few = std::to_string(1 << p.stages());
        CHECK(by_key(gpu_hits(p, x, config({{"plane", "f16bound"}, {"rescore_tasks", few}}), scale.view())) == want);
        CHECK(by_key(gpu_hits(p, x, config({{"plane", "f16bound"}, {"block_rk", "16384"}}), scale.view())) == want);
      }
    }
  }
  // The plain f16 plane differs (the bound really is what makes it exact), a hit overflow (ranges
  // searched again in halves, each re-scored), and batches.
  const auto p = make_problem(numbins, 30, 16, AccelInterp::fourier, {10.0F, 14.0F, 20.0F, 28.0F, 40.0F});
  const auto want = by_key(gpu_hits(p, x, {{"plane", "f32"}}));
  REQUIRE(want.size() > 500);
  CHECK(by_key(gpu_hits(p, x, {{"plane", "f16"}})) != want);
  auto overflowing = cuda::make_cuda_fdot_searcher(p, gpu_options({{"plane", "f16bound"}, {"hits", "1"}}), 0);
  CHECK(overflowing->describe().find("f16bound") != std::string::npos);
  RangeSink small;
  overflowing->search(x, {}, small);
  CHECK(overflowing->last_timings().overflows == 1);
  CHECK(small.contiguous);
  CHECK(by_key(small.hits) == want);
  std::vector<std::complex<float>> spectra;
  for (int b = 0; b < 3; ++b) {
    const auto one = b == 1 ? x
                            : make_spectrum(seed + 13 + static_cast<std::uint64_t>(b), numbins,
                                            {{700.0 + 91.7 * b, 2.5 * b, 9.0, 16}});
    spectra.insert(spectra.end(), one.begin(), one.end());
  }
  auto batched = cuda::make_cuda_fdot_searcher(p, gpu_options({{"plane", "f16bound"}, {"batch", "3"}}), 0);
  CHECK(batched->settings().batch == 3);
  const auto sinks = batch_sinks(*batched, spectra, numbins);
  for (int b = 0; b < 3; ++b) {
    CAPTURE(b);
    const auto one = nth_spectrum(spectra, numbins, b);
    CHECK(by_key(sinks[static_cast<std::size_t>(b)].hits) == by_key(gpu_hits(p, one, {{"plane", "f32"}})));
  }
}

TEST_CASE("accel cuda: the whole search gives the CPU's candidate list") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::int64_t numbins = 1 << 17;
  const double T_s = 2.0 * static_cast<double>(numbins) * 64e-6;
  auto fft = make_spectrum(seed, numbins, {{5012.4, 0.0, 7.0, 8}, {9876.1, 13.2, 6.5, 8}, {20111.7, -21.0, 8.0, 4}});
  AccelConfig config;
  config.zmax = 50;
  config.numharm = 8;
  config.sigma = 6.0;
  config.flo_hz = 5.0;
  const AccelPlan plan = make_accel_plan(config, numbins, T_s);
  const PreparedSpectrum spec = prepare_spectrum(std::move(fft), plan, false);
  AccelCandidateList cpu_list = make_candidate_list(plan, false);
  cpu::make_fdot_searcher(plan.problem, {})->search(spec.search.bins, spec.power_scale(), cpu_list);
  AccelCandidateList gpu_list = make_candidate_list(plan, false);
  cuda::make_fdot_searcher(plan.problem, {}, 0)->search(spec.search.bins, spec.power_scale(), gpu_list);
  const auto cpu_cands = cpu_list.candidates();
  const auto gpu_cands = gpu_list.candidates();
  REQUIRE(cpu_cands.size() >= 3);
  CHECK(gpu_cands.size() == cpu_cands.size());
  for (const auto& c : cpu_cands) {
    const auto it = std::find_if(gpu_cands.begin(), gpu_cands.end(), [&](const AccelCandidate& g) {
      return g.numharm == c.numharm && std::fabs(g.r - c.r) < 1e-9 && std::fabs(g.z - c.z) <= 0.5;
    });
    CAPTURE(c.r);
    CAPTURE(c.z);
    CAPTURE(c.numharm);
    REQUIRE(it != gpu_cands.end());
    CHECK(std::fabs(it->sigma - c.sigma) <= 0.01F * c.sigma);
  }
  // And after sorting, pruning and optimisation (matched by r: near-equal sigmas may sort apart).
  const auto cpu_result = finish_candidates(plan, cpu_list, spec);
  const auto gpu_result = finish_candidates(plan, gpu_list, spec);
  REQUIRE(gpu_result.candidates.size() == cpu_result.candidates.size());
  for (const auto& c : cpu_result.candidates) {
    const auto it = std::find_if(gpu_result.candidates.begin(), gpu_result.candidates.end(),
                                 [&](const auto& g) { return g.numharm == c.numharm && std::fabs(g.r - c.r) < 1e-3; });
    CAPTURE(c.r);
    REQUIRE(it != gpu_result.candidates.end());
    CHECK(std::fabs(it->z - c.z) <= 0.5);
    CHECK(std::fabs(it->sigma - c.sigma) <= 0.01F * c.sigma);
  }
}

TEST_CASE("accel cuda: configurations agree with each other") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::int64_t numbins = 1 << 15;
  // Amplitude 8 gives hundreds of hits for any seed (the CPU searcher: at least 472 over 40
  // seeds); at 6 some seeds gave only 56, too few for the comparison to mean much.
  const auto x = make_spectrum(seed, numbins, {{987.6, 9.9, 8.0, 16}});
  const auto p = make_problem(numbins, 50, 16, AccelInterp::fourier, {14.0F, 20.0F, 28.0F, 40.0F, 60.0F});
  const auto base = gpu_hits(p, x, {});
  REQUIRE(base.size() > 100);
  // The same plane, other harmonic-sum kernels and shapes: identical.
  for (const Config& c : std::vector<Config>{{{"hs_rows", "1"}},
                                             {{"hs_rows", "16"}, {"hs_threads", "1024"}},
                                             {{"hs_threads", "32"}, {"segs_per_block", "7"}},
                                             {{"hs", "tiled"}, {"hs_rows", "2"}, {"hs_threads", "96"}},
                                             {{"hs", "tiled"}},
                                             {{"hs", "gather"}},
                                             {{"hs", "gather"}, {"hs_rows", "16"}, {"hs_threads", "64"}}}) {
    INFO("gpu-config " << describe(c));
    CHECK(by_key(gpu_hits(p, x, c)) == by_key(base));
  }
  // Other FFT lengths, radix and path: equal up to rounding.
  for (const Config& c : std::vector<Config>{{{"fft_len", "1024"}},
                                             {{"fft_len", "16384"}},
                                             {{"fft_radix", "8"}},
                                             {{"fft_radix", "16"}},
                                             {{"fft_twiddles", "chain"}},
                                             {{"fft_radix", "8"}, {"fft_twiddles", "chain"}},
                                             {{"fft_radix", "16"}, {"fft_twiddles", "table"}},
                                             {{"path", "cufft"}, {"fft_len", "2048"}},
                                             {{"path", "cufft"}, {"fft_len", "65536"}}}) {
    INFO("gpu-config " << describe(c));
    compare_hits(p, gpu_hits(p, x, c), base, 3e-4F);
  }
}

TEST_CASE("accel cuda: hs=pipe gives the tiled kernel's hits bit for bit (f32 and f16, shapes, 1 to 32 harmonics)") {
  if (cuda::device_properties(0).sm_major < 9) {
    MESSAGE("hs=pipe needs sm_90 or newer: skipped");
    return;
  }
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::int64_t numbins = 1 << 15;
  // Amplitudes 10 and 9: with 8 and 7 one harmonic gave 54-159 hits over 40 seeds (CPU searcher,
  // the same hits) and a seed on the H100 50, under the guard below; 10 and 9 give 154-358.
  const auto x = make_spectrum(seed, numbins, {{987.6, 9.9, 10.0, 16}, {1501.3, 1.15, 9.0, 32}});
  struct Shape {
    const char* threads;
    const char* rows;
  };
  for (const int numharm : {1, 4, 16, 32}) {
    const auto p = make_problem(numbins, 50, numharm, AccelInterp::fourier, {14.0F, 20.0F, 28.0F, 40.0F, 60.0F, 90.0F});
    for (const char* plane : {"f32", "f16"}) {
      CAPTURE(numharm);
      CAPTURE(plane);
      const auto base = by_key(gpu_hits(p, x, {{"hs", "tiled"}, {"plane", plane}}));
      CHECK(base.size() > 50);
      for (const Shape& shape : {Shape{"128", "16"}, Shape{"64", "16"}, Shape{"256", "8"}, Shape{"96", "8"},
                                 Shape{"32", "4"}, Shape{"128", "4"}}) {
        // hs_pair=1: rk in bounded pairs, summed exactly where a bound passes a cut. A pair tile
        // spans twice the rk: with 32 harmonics the windows of 2048 thread-rows outgrow shared memory.
        for (const std::string pair : {"0", "1"}) {
          if (pair == "1" && numharm == 32 && std::stoi(shape.threads) * std::stoi(shape.rows) >= 2048) continue;
          const Config c = {{"hs", "pipe"},
                            {"hs_threads", shape.threads},
                            {"hs_rows", shape.rows},
                            {"plane", plane},
                            {"hs_pair", pair}};
          INFO("gpu-config " << describe(c));
          CHECK(by_key(gpu_hits(p, x, c)) == base);
        }
      }
    }
  }
  // Batches (lanes of several spectra in one launch) and a hit overflow (ranges searched again)
  // with the pipe kernel: as single searches with the tiled one.
  const auto p = make_problem(numbins, 30, 16, AccelInterp::fourier, {12.0F, 17.0F, 24.0F, 34.0F, 50.0F});
  std::vector<std::complex<float>> spectra;
  for (int b = 0; b < 3; ++b) {
    const auto one =
        make_spectrum(seed + 7 + static_cast<std::uint64_t>(b), numbins, {{600.0 + 91.7 * b, 2.5 * b, 9.0, 16}});
    spectra.insert(spectra.end(), one.begin(), one.end());
  }
  for (const char* pair : {"0", "1"}) {
    CAPTURE(pair);
    auto batched =
        cuda::make_cuda_fdot_searcher(p, gpu_options({{"hs", "pipe"}, {"batch", "3"}, {"hs_pair", pair}}), 0);
    auto overflowing =
        cuda::make_cuda_fdot_searcher(p, gpu_options({{"hs", "pipe"}, {"hits", "1"}, {"hs_pair", pair}}), 0);
    const auto sinks = batch_sinks(*batched, spectra, numbins);
    for (int b = 0; b < 3; ++b) {
      CAPTURE(b);
      const auto one = nth_spectrum(spectra, numbins, b);
      const auto want = by_key(gpu_hits(p, one, {{"hs", "tiled"}}));
      CHECK(want.size() > 100);
      CHECK(by_key(sinks[static_cast<std::size_t>(b)].hits) == want);
      RangeSink small;
      overflowing->search(one, {}, small);
      CHECK(overflowing->last_timings().overflows ==
            (want.size() > static_cast<std::size_t>(overflowing->settings().hits) ? 1 : 0));
      CHECK(small.contiguous);
      CHECK(by_key(small.hits) == want);
    }
  }
}

TEST_CASE(
    "accel cuda: the block search gives the whole plane's hits bit for bit (kernels, formats, 1 to 32 harmonics)") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::int64_t numbins = 1 << 15;  // rk up to 65533: four blocks of 16384
  const auto x =
      make_spectrum(seed, numbins, {{987.6, 9.9, 10.0, 16}, {1501.3, 1.15, 9.0, 32}, {9000.4, 20.0, 12.0, 4}});
  const OwnedScale scale = random_scale(seed, 41, 1000, 2 * numbins);
  const bool sm90 = cuda::device_properties(0).sm_major >= 9;
  for (const auto interp : {AccelInterp::fourier, AccelInterp::interbin}) {
    for (const int numharm : {1, 2, 8, 16, 32}) {
      const auto p = make_problem(numbins, 50, numharm, interp, {14.0F, 20.0F, 28.0F, 40.0F, 60.0F, 90.0F});
      for (const char* plane : {"f32", "f16"}) {
        for (const char* hs : {"pipe", "tiled", "gather"}) {
          if (std::string(hs) == "pipe" && !sm90) continue;
          if (std::string(hs) == "tiled" && numharm == 32) continue;  // its windows outgrow shared memory
          CAPTURE(numharm);
          CAPTURE(plane);
          CAPTURE(hs);
          CAPTURE(interp == AccelInterp::fourier);
          const Config whole = {{"hs", hs}, {"plane", plane}};
          const auto want = by_key(gpu_hits(p, x, whole, scale.view()));
          CHECK(want.size() > 50);
          Config blocks = whole;
          blocks.emplace("block_rk", "16384");
          auto searcher = cuda::make_cuda_fdot_searcher(p, gpu_options(blocks), 0);
          CHECK(searcher->settings().block_rk == 16384);
          CHECK(searcher->describe().find("searched in blocks of 16384 rk") != std::string::npos);
          RangeSink sink;
          searcher->search(x, scale.view(), sink);
          CHECK(sink.contiguous);
          CHECK(sink.in_range);
          CHECK(sink.ranges.size() == 4);
          CHECK(sink.ranges.front().first == p.rk_begin);
          CHECK(sink.ranges.back().second == p.rk_end);
          CHECK(by_key(sink.hits) == want);
        }
      }
    }
  }
  // The width from AccelSearchOptions, one block wider than the range, a hit overflow inside
  // blocks (searched again in halves), and several spectra in one call (one at a time).
  const auto p = make_problem(numbins, 30, 16, AccelInterp::fourier, {10.0F, 14.0F, 20.0F, 28.0F, 40.0F});
  const auto want = by_key(gpu_hits(p, x, {}));
  REQUIRE(want.size() > 500);
  AccelSearchOptions from_options;
  from_options.block_rk = 32768;
  RangeSink two;
  auto halves = cuda::make_cuda_fdot_searcher(p, from_options, 0);
  CHECK(halves->settings().block_rk == 32768);
  CHECK(halves->settings().batch == 1);
  halves->search(x, {}, two);
  CHECK(two.ranges.size() == 2);
  CHECK(by_key(two.hits) == want);
  CHECK(by_key(gpu_hits(p, x, {{"block_rk", "131072"}})) == want);
  auto overflowing = cuda::make_cuda_fdot_searcher(p, gpu_options({{"block_rk", "16384"}, {"hits", "1"}}), 0);
  RangeSink small;
  overflowing->search(x, {}, small);
  CHECK(overflowing->last_timings().overflows >= 1);
  CHECK(small.ranges.size() > 4);
  CHECK(small.contiguous);
  CHECK(by_key(small.hits) == want);
  std::vector<std::complex<float>> spectra;
  for (int b = 0; b < 3; ++b) {
    const auto one = b == 1 ? x
                            : make_spectrum(seed + 11 + static_cast<std::uint64_t>(b), numbins,
                                            {{700.0 + 91.7 * b, 2.5 * b, 9.0, 16}});
    spectra.insert(spectra.end(), one.begin(), one.end());
  }
  auto batched = cuda::make_cuda_fdot_searcher(p, gpu_options({{"block_rk", "16384"}, {"batch", "3"}}), 0);
  CHECK(batched->settings().batch == 1);
  const auto sinks = batch_sinks(*batched, spectra, numbins);
  for (int b = 0; b < 3; ++b) {
    CAPTURE(b);
    const auto one = nth_spectrum(spectra, numbins, b);
    CHECK(by_key(sinks[static_cast<std::size_t>(b)].hits) == by_key(gpu_hits(p, one, {})));
  }
}

TEST_CASE("accel cuda: a plane larger than the GPU's memory is searched in blocks and finds the signal") {
  // 2^27 bins at zmax 200: a whole f32 plane of 2^28 rk x 201 z (216 GB) fits no GPU of today.
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::int64_t numbins = std::int64_t{1} << 27;
  // The 8th harmonic (the sums' rk and z) at 2 * 8 * r0 = 1.98e8 < 2^28 rk and 8 * z0 = 160 <= zmax.
  const double r0 = 12345678.3;
  const double z0 = 20.0;
  const auto x = make_spectrum(seed, numbins, {{r0, z0, 8.0, 8}});
  auto p = make_problem(numbins, 200, 8, AccelInterp::fourier, {25.0F, 40.0F, 60.0F, 90.0F});
  const auto [free_bytes, total_bytes] = cuda::memory_info();
  (void)free_bytes;
  if (accel_plane_bytes(p) < total_bytes) {
    MESSAGE("this GPU holds the whole plane: skipped");
    return;
  }
  // An f32 plane: the default f16 bounds (100 GB) fit an H200.
  auto searcher = cuda::make_cuda_fdot_searcher(p, gpu_options({{"plane", "f32"}}), 0);
  MESSAGE(searcher->describe());
  CHECK(searcher->settings().block_rk > 0);
  CHECK(searcher->device_bytes() < total_bytes);
  RangeSink sink;
  searcher->search(x, {}, sink);
  MESSAGE("block search: " << searcher->last_timings().wall_ms << " ms, correlations "
                           << searcher->last_timings().correlate_ms << " ms, sums "
                           << searcher->last_timings().harmonics_ms << " ms, " << sink.hits.size() << " hits");
  CHECK(sink.contiguous);
  CHECK(sink.ranges.back().second == p.rk_end);
  // The strongest 8-harmonic hit is the signal, at its 8th harmonic: rk = 2 * 8 * r0 within a
  // bin, z = 8 * z0 within 2.
  const AccelHit* best = nullptr;
  for (const auto& h : sink.hits) {
    if (h.stage == 3 && (best == nullptr || h.power > best->power)) best = &h;
  }
  REQUIRE(best != nullptr);
  CHECK(std::fabs(static_cast<double>(best->rk) - 2.0 * 8.0 * r0) <= 2.0);
  CHECK(std::fabs((-p.zmax + 2.0 * best->zi) - 8.0 * z0) <= 2.0);
}

TEST_CASE("accel cuda: a bad --gpu-config is Error(invalid_argument) naming the key") {
  const auto p = make_problem(1 << 14, 200, 8, AccelInterp::fourier, {20.0F});
  const std::vector<std::pair<Config, const char*>> bad = {
      {{{"colour", "red"}}, "unknown key 'colour'"},
      {{{"path", "fast"}}, "path=fast"},
      {{{"fft_len", "3000"}}, "power of two"},
      {{{"fft_len", "512"}}, "too short for zmax 200"},
      {{{"fft_len", "32768"}}, "custom path transforms 128 to 8192"},
      {{{"path", "cufft"}, {"fft_len", "131072"}}, "cufft path transforms 128 to 32768"},
      {{{"fft_len", "many"}}, "fft_len=many: not an integer"},
      {{{"fft_radix", "4"}}, "fft_radix=4: must be one of 8, 16"},
      {{{"fft_twiddles", "cached"}}, "fft_twiddles=cached: must be auto, chain or table"},
      {{{"batch", "0"}}, "batch=0: must be between 1 and 64"},
      {{{"segs_per_block", "0"}}, "segs_per_block=0"},
      {{{"zchunk", "-2"}}, "zchunk=-2"},
      {{{"hs_threads", "100"}}, "hs_threads=100: must be a multiple of 32"},
      {{{"hs_threads", "2048"}}, "hs_threads=2048"},
      {{{"hs_rows", "3"}}, "hs_rows=3: must be one of 1, 2, 4, 8, 16"},
      {{{"hits", "0"}}, "hits=0"},
      {{{"plane", "f64"}}, "plane=f64: must be auto, f32, f16 or f16bound"},
      {{{"plane", "f16bound"}, {"path", "cufft"}}, "plane=f16bound: needs path=custom and overlap=0"},
      {{{"plane", "f16bound"}, {"overlap", "1"}}, "plane=f16bound: needs path=custom and overlap=0"},
      {{{"rescore_tasks", "1"}}, "rescore_tasks=1"},
      {{{"hs", "fast"}}, "hs=fast: must be auto, pipe, tiled or gather"},
      {{{"hs", "pipe"}, {"hs_rows", "2"}}, "hs=pipe: needs hs_rows 4, 8 or 16 (it is 2)"},
      {{{"hs_pair", "2"}}, "hs_pair=2: must be one of 0, 1"},
      {{{"hs", "tiled"}, {"hs_pair", "1"}}, "hs_pair=1: needs the pipe kernel"},
      {{{"block_rk", "1000"}}, "block_rk=1000: must be between 16384"},
      {{{"block_rk", "20000"}}, "block_rk=20000: must be a multiple of 16384"},
      {{{"block_rk", "16384"}, {"path", "cufft"}}, "block_rk: the block search runs on the custom path only"},
  };
  for (const auto& [config, message] : bad) {
    INFO("gpu-config " << describe(config));
    try {
      (void)cuda::make_cuda_fdot_searcher(p, gpu_options(config), 0);
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::invalid_argument);
      CHECK_MESSAGE(std::string(e.what()).find(message) != std::string::npos, e.what());
    }
  }
  CHECK_THROWS_AS(cuda::make_cuda_fdot_searcher(p, {}, 99), Error);  // no such GPU
  // 32 harmonics in tiles of 1024 rk x 16 rows: windows beyond any device's shared memory.
  const auto p32 = make_problem(1 << 14, 200, 32, AccelInterp::fourier, {20.0F});
  const Config large = {{"hs_threads", "1024"}, {"hs_rows", "16"}};
  CHECK(cuda::make_cuda_fdot_searcher(p32, gpu_options(large), 0)->settings().hs == cuda::AccelHarmonicKernel::gather);
  Config tiled = large;
  tiled.emplace("hs", "tiled");
  try {
    (void)cuda::make_cuda_fdot_searcher(p32, gpu_options(tiled), 0);
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::invalid_argument);
    CHECK_MESSAGE(std::string(e.what()).find("hs=tiled: 1024 rk x 16 rows") != std::string::npos, e.what());
  }
}

TEST_CASE("accel cuda: describe() and memory say what runs") {
  const auto p = make_problem(1 << 16, 100, 16, AccelInterp::fourier, {20.0F});
  auto custom = cuda::make_cuda_fdot_searcher(p, {}, 0);
  const auto text = custom->describe();
  MESSAGE(text);
  CHECK(text.find("custom shared-memory FFT path") != std::string::npos);
  CHECK(text.find("101 z in 51 template pairs") != std::string::npos);
  // The custom kernel's defaults for Fourier interpolation with M >= 1024: radix 16, powers loaded.
  CHECK(custom->settings().fft_radix == 16);
  CHECK(custom->settings().fft_twiddles == cuda::AccelFftTwiddles::table);
  CHECK(text.find("radix 16, twiddle powers loaded") != std::string::npos);
  // The default harmonic-sum kernel: pipe on sm_90 and newer, else tiled.
  const bool sm90 = cuda::device_properties(0).sm_major >= 9;
  CHECK(text.find(sm90 ? "harmonic sums (pipe" : "harmonic sums (tiled") != std::string::npos);
  CHECK(custom->settings().hs == (sm90 ? cuda::AccelHarmonicKernel::pipe : cuda::AccelHarmonicKernel::tiled));
  CHECK(custom->settings().hs_threads == (sm90 ? 256 : 128));
  auto tiled = cuda::make_cuda_fdot_searcher(p, gpu_options({{"hs", "tiled"}}), 0);
  CHECK(tiled->describe().find("harmonic sums (tiled") != std::string::npos);
  CHECK(tiled->settings().hs == cuda::AccelHarmonicKernel::tiled);
  CHECK(tiled->settings().hs_threads == 128);
  // Tile rows: 4 for the pipe kernel on an f32 plane where the GPU has >= 30 GB/s of peak memory
  // bandwidth an SM (H200), else 16; f16 planes, tiled and gather always 16; a given value stays.
  const auto props = cuda::device_properties(0);
  const bool wide = props.peak_memory_bandwidth >= 30e9 * props.multiprocessors;
  MESSAGE("peak memory bandwidth an SM: " << props.peak_memory_bandwidth / props.multiprocessors / 1e9 << " GB/s");
  // The default plane: f16 bounds re-scored exactly (an f16 plane for the tile rule), f32 where
  // that does not run (cuFFT path, overlap=1).
  CHECK(custom->settings().plane == cuda::AccelPlaneStorage::f16_bound);
  CHECK(text.find("plane f16bound") != std::string::npos);
  // From zmax 100 only: below it the f32 plane is the faster one.
  const auto small_zmax = make_problem(1 << 16, 98, 16, AccelInterp::fourier, {20.0F});
  CHECK(cuda::make_cuda_fdot_searcher(small_zmax, {}, 0)->settings().plane == cuda::AccelPlaneStorage::f32);
  CHECK(cuda::make_cuda_fdot_searcher(p, gpu_options({{"path", "cufft"}}), 0)->settings().plane ==
        cuda::AccelPlaneStorage::f32);
  CHECK(cuda::make_cuda_fdot_searcher(p, gpu_options({{"overlap", "1"}}), 0)->settings().plane ==
        cuda::AccelPlaneStorage::f32);
  CHECK(custom->settings().hs_rows == 16);
  auto f32 = cuda::make_cuda_fdot_searcher(p, gpu_options({{"plane", "f32"}}), 0);
  CHECK(f32->settings().hs_rows == (sm90 && wide ? 4 : 16));
  CHECK(text.find(fmt::format("{} rk x {} rows a block", custom->settings().hs_threads, custom->settings().hs_rows)) !=
        std::string::npos);
  CHECK(tiled->settings().hs_rows == 16);
  CHECK(cuda::make_cuda_fdot_searcher(p, gpu_options({{"plane", "f16"}}), 0)->settings().hs_rows == 16);
  CHECK(cuda::make_cuda_fdot_searcher(p, gpu_options({{"hs_rows", "8"}}), 0)->settings().hs_rows == 8);
  CHECK(custom->device_bytes() > static_cast<std::size_t>(101) * 2 * (1 << 16) * 4);
  CHECK(custom->host_bytes() > 0);
  CHECK(custom->settings().fft_len > 0);
  CHECK(custom->settings().batch >= 1);
  auto cufft = cuda::make_cuda_fdot_searcher(p, gpu_options({{"path", "cufft"}}), 0);
  CHECK(cufft->describe().find("cuFFT path") != std::string::npos);
  CHECK(cufft->modelled_bytes_per_spectrum() > custom->modelled_bytes_per_spectrum());
}

namespace {

// The largest deviation of `got` (PRESTO's packing) from a double-precision DFT of x, over the
// RMS amplitude of the exact bins.
double realfft_error_vs_dft(const std::vector<float>& x, const std::vector<std::complex<float>>& got) {
  const std::size_t n = x.size();
  double worst = 0.0;
  double power = 0.0;
  for (std::size_t k = 0; k <= n / 2; ++k) {
    std::complex<double> s{0.0, 0.0};
    for (std::size_t i = 0; i < n; ++i) {
      const double ph = -2.0 * 3.14159265358979323846 * static_cast<double>((k * i) % n) / static_cast<double>(n);
      s += static_cast<double>(x[i]) * std::complex<double>(std::cos(ph), std::sin(ph));
    }
    power += std::norm(s);
    std::complex<double> g_k;
    if (k == 0) {
      g_k = {got[0].real(), 0.0};
    } else if (k == n / 2) {
      g_k = {got[0].imag(), 0.0};
      s = {s.real(), 0.0};  // the Nyquist bin is real
    } else {
      g_k = {got[k].real(), got[k].imag()};
    }
    worst = std::max(worst, std::abs(g_k - s));
  }
  return worst / std::sqrt(power / static_cast<double>(n / 2 + 1));
}

// The RMS difference of two spectra over bins 1.. (the DC apart), relative to the second's.
double spectrum_rms_difference(const std::vector<std::complex<float>>& a, const std::vector<std::complex<float>>& b) {
  double diff = 0.0;
  double power = 0.0;
  for (std::size_t k = 1; k < b.size(); ++k) {
    diff += std::norm(std::complex<double>(a[k]) - std::complex<double>(b[k]));
    power += std::norm(std::complex<double>(b[k]));
  }
  return std::sqrt(diff / power);
}

}  // namespace

TEST_CASE("accel cuda: the real FFT of a time series on the GPU (PRESTO's packing, lengths of DM trials)") {
  // The GPU real FFT against a double-precision DFT on lengths with large prime factors (as
  // dedisp's trials have), by both of its algorithms, and against FFTW's presto_realfft on
  // 2^22-sample-sized ones.
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0F, 1.0F);
  auto series = [&](std::size_t n) {
    std::vector<float> x(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = 3.0F + g(rng) + 0.5F * std::sin(0.37F * static_cast<float>(i));
    return x;
  };
  cuda::RealFftCuda plan_per_length(0, std::numeric_limits<std::size_t>::max());  // cuFFT's own algorithm
  cuda::RealFftCuda bluestein_everywhere(0, 1);  // every non-smooth length by Bluestein's algorithm
  for (std::size_t n : {std::size_t{2}, std::size_t{22}, std::size_t{26}, std::size_t{6006}, std::size_t{9998}}) {
    CAPTURE(n);
    const std::vector<float> x = series(n);
    CHECK(!plan_per_length.uses_bluestein(n));
    const auto direct = plan_per_length.transform(x);
    REQUIRE(direct.size() == n / 2);
    CHECK(realfft_error_vs_dft(x, direct) < 1e-5);
    CHECK(bluestein_everywhere.uses_bluestein(n) == (n != 2));
    const auto chirped = bluestein_everywhere.transform(x);
    REQUIRE(chirped.size() == n / 2);
    // Bluestein's algorithm rounds three float32 transforms of M >= 2m - 1 points and two chirp
    // products where a direct plan rounds one transform of m points, so its worst bin may lie up
    // to about three times as far from the exact one (1.03e-5 of the RMS amplitude measured at
    // n = 9998 on an H100, where direct plans have stayed below 1e-5 in every run of this test).
    CHECK(realfft_error_vs_dft(x, chirped) < 3e-5);
  }
  cuda::RealFftCuda fft(0);
  CHECK(!fft.uses_bluestein(6006));                  // 3003 bins, below the default's 4096: a plan of its own
  CHECK(fft.uses_bluestein(9998));                   // 4999 bins, a prime
  CHECK(!fft.uses_bluestein(std::size_t{1} << 22));  // smooth
  CHECK(!fft.uses_bluestein(2 * 2 * 3 * 5 * 7 * 7 * 1024));
  CHECK(fft.uses_bluestein(4193070));
  for (const std::size_t n : {std::size_t{4193070} /* 2 x 3 x 5 x 7 x 41 x 487 */, std::size_t{1} << 22}) {
    CAPTURE(n);
    const std::vector<float> x = series(n);
    const auto gpu = fft.transform(x);
    const auto cpu = presto_realfft(x);
    REQUIRE(gpu.size() == cpu.size());
    CHECK(spectrum_rms_difference(gpu, cpu) < 1e-5);  // two float32 FFTs: each ~1e-6 from the exact one
    CHECK(gpu[0].real() == doctest::Approx(cpu[0].real()).epsilon(1e-5));
    // The Nyquist bin's place; both float32 FFTs round it to a few ulps of the DC (here ~1.3e7,
    // an ulp 1), while a wrong packing would be off by the bin's own size (~2000).
    CHECK(std::abs(gpu[0].imag() - cpu[0].imag()) <= 1e-6F * std::abs(cpu[0].real()));
    // Again with the workspace's kept plan: the same bits.
    CHECK(fft.transform(x) == gpu);
  }
  CHECK_THROWS_AS(cuda::presto_realfft_cuda(std::vector<float>(5, 1.0F), 0), Error);
  CHECK_THROWS_AS(fft.transform(std::vector<float>(7, 1.0F)), Error);
}

TEST_CASE("accel cuda: the GPU real FFT from several threads at once gives each length its own bits") {
  // The accelsearch tool's preparing threads share one RealFftCuda; each result must equal the
  // one a lone call gives, whichever workspace (and kept plan) the call took.
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0F, 1.0F);
  const std::vector<std::size_t> lengths = {200002, 199998, 262144, 200002, 150006, 199998, 262144, 123462};
  std::vector<std::vector<float>> inputs;
  std::vector<std::vector<std::complex<float>>> alone;
  for (const std::size_t n : lengths) {
    std::vector<float> x(n);
    for (auto& v : x) v = 100.0F + g(rng);
    alone.push_back(cuda::presto_realfft_cuda(x, 0));
    inputs.push_back(std::move(x));
  }
  cuda::RealFftCuda fft(0);
  std::vector<std::vector<std::complex<float>>> got(lengths.size() * 3);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (std::size_t i = static_cast<std::size_t>(t); i < got.size(); i += 4)
          got[i] = fft.transform(inputs[i % inputs.size()]);
      } catch (...) {
        ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  REQUIRE(failures.load() == 0);
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == alone[i % inputs.size()]);
  }
}
