// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <tuple>

#include "fastpsr/accel.hpp"
#include "fastpsr/accel_templates.hpp"
#include "fastpsr/cpu/accel_cpu.hpp"
#include "fastpsr/error.hpp"
#include "support/reference_accel.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

using Key = std::tuple<int, std::int64_t, int>;  // stage, rk, zi

std::map<Key, float> by_key(const std::vector<AccelHit>& hits) {
  std::map<Key, float> m;
  for (const auto& h : hits) {
    const bool fresh = m.emplace(Key{h.stage, h.rk, h.zi}, h.power).second;
    CHECK(fresh);  // no point reported twice
  }
  return m;
}

void compare_with_reference(const AccelSearchProblem& p, const std::vector<std::complex<float>>& x,
                            const AccelSearchOptions& o, const AccelPowerScale& scale = {}) {
  auto searcher = cpu::make_fdot_searcher(p, o);
  CollectingHitSink sink;
  searcher->search(x, scale, sink);
  CHECK(sink.covered_begin == p.rk_begin);
  CHECK(sink.covered_end == p.rk_end);
  const auto got = by_key(sink.hits);
  const auto want = by_key(test::reference_hits(x, p, scale));
  // Tolerance: float correlation against the double reference.
  auto close = [](float a, float b) { return std::fabs(a - b) <= 2e-4F * std::max(1.0F, std::fabs(b)); };
  int matched = 0;
  for (const auto& [key, power] : want) {
    const float cut = p.powcut[static_cast<std::size_t>(std::get<0>(key))];
    const auto it = got.find(key);
    if (it == got.end()) {
      CHECK_MESSAGE(power <= cut * 1.0002F, "missing hit stage " << std::get<0>(key) << " rk " << std::get<1>(key)
                                                                 << " zi " << std::get<2>(key) << " power " << power);
      continue;
    }
    CHECK_MESSAGE(close(it->second, power), "power " << it->second << " vs reference " << power);
    ++matched;
  }
  for (const auto& [key, power] : got) {
    if (want.count(key) == 0) CHECK(power <= p.powcut[static_cast<std::size_t>(std::get<0>(key))] * 1.0002F);
  }
  CHECK(matched > 50);
}

}  // namespace

TEST_CASE("accel cpu searcher: hits equal the double-precision reference (Fourier interpolation)") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  AccelSearchProblem p;
  p.numbins = 700;
  p.zmax = 8;
  p.numharm = 4;
  p.rk_begin = 2 * 40;
  p.rk_end = 2 * 680;
  p.powcut = {5.0F, 9.0F, 15.0F};  // low: many noise hits besides the signal's
  const auto x = test::noisy_accel_spectrum(seed, p.numbins, 151.3, 5.1);
  // A block power scale like PRESTO's block medians: factors around 1, blocks of 97 half bins.
  std::mt19937_64 rng(seed + 1);
  std::uniform_real_distribution<float> u(0.8F, 1.2F);
  std::vector<float> factors(20);
  std::vector<std::int64_t> starts(20);
  for (std::size_t i = 0; i < factors.size(); ++i) {
    factors[i] = u(rng);
    starts[i] = -30 + 97 * static_cast<std::int64_t>(i);
  }
  const AccelPowerScale scale{starts, factors};
  for (int len : {0, 160}) {
    CAPTURE(len);
    AccelSearchOptions o;
    o.fft_len = len;
    compare_with_reference(p, x, o, len == 0 ? scale : AccelPowerScale{});
  }
}

TEST_CASE("accel cpu searcher: hits equal the reference (interbinning, 8 harmonics, odd range)") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  AccelSearchProblem p;
  p.numbins = 900;
  p.zmax = 4;
  p.numharm = 8;
  p.interp = AccelInterp::interbin;
  p.rk_begin = 2 * 70 + 1;
  p.rk_end = 2 * 880 - 1;
  p.powcut = {5.0F, 9.0F, 15.0F, 26.0F};
  const auto x = test::noisy_accel_spectrum(seed, p.numbins, 97.8, -3.0);
  AccelSearchOptions o;
  o.fft_len = 80;
  compare_with_reference(p, x, o);
}

TEST_CASE("accel cpu searcher: the thread count does not change the hits") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  // Interbinning: neighbouring overlap-save segments both evaluate C at the first output of the
  // later one, with different rounding; the later segment owns it, whatever order threads finish
  // in (until 2026-11-27 both wrote it: 100-200 of 690k powers changed from run to run).
  for (const auto interp : {AccelInterp::fourier, AccelInterp::interbin}) {
    AccelSearchProblem p;
    p.numbins = 1 << 14;
    p.zmax = 20;
    p.numharm = 8;
    p.interp = interp;
    p.rk_begin = 20;
    p.rk_end = 2 * p.numbins - 2;
    p.powcut = {1.0F, 15.0F, 24.0F, 38.0F};
    const auto x = test::noisy_accel_spectrum(seed, p.numbins, 1234.56, 11.0);
    std::vector<std::vector<AccelHit>> runs;
    for (int threads : {1, 2, 2, 2}) {
      AccelSearchOptions o;
      o.threads = threads;
      o.fft_len = 256;  // many segment boundaries
      CollectingHitSink sink;
      cpu::make_fdot_searcher(p, o)->search(x, {}, sink);
      auto h = sink.hits;
      std::sort(h.begin(), h.end(), [](const AccelHit& a, const AccelHit& b) {
        return std::tie(a.stage, a.rk, a.zi) < std::tie(b.stage, b.rk, b.zi);
      });
      runs.push_back(h);
    }
    CHECK(runs[0].size() > 100000);  // stage 0 at power 1: most points
    for (std::size_t r = 1; r < runs.size(); ++r) {
      REQUIRE(runs[0].size() == runs[r].size());
      std::size_t differ = 0;
      for (std::size_t i = 0; i < runs[0].size(); ++i) {
        differ +=
            runs[0][i].rk != runs[r][i].rk || runs[0][i].zi != runs[r][i].zi || runs[0][i].power != runs[r][i].power;
      }
      const std::string name = interp == AccelInterp::fourier ? "fourier" : "interbin";
      CHECK_MESSAGE(differ == 0, name << " run " << r << ": " << differ << " hits differ");
    }
  }
}

TEST_CASE("accel cpu searcher: bad problems are rejected") {
  AccelSearchProblem p;
  p.numbins = 100;
  p.zmax = 3;
  p.numharm = 2;
  p.rk_begin = 2;
  p.rk_end = 150;
  p.powcut = {1.0F, 2.0F};
  CHECK_THROWS_WITH_AS(cpu::make_fdot_searcher(p, {}), doctest::Contains("zmax must be even"), Error);
  p.zmax = 2;
  p.numharm = 3;
  CHECK_THROWS_WITH_AS(cpu::make_fdot_searcher(p, {}), doctest::Contains("numharm"), Error);
  p.numharm = 2;
  AccelSearchOptions o;
  o.fft_len = 32;
  CHECK_THROWS_WITH_AS(cpu::make_fdot_searcher(p, o), doctest::Contains("twice the widest template"), Error);
}
