// SPDX-License-Identifier: MIT
// The CUDA searcher over many DM trials: a searcher made for a longer trial gives shorter trials'
// hits bit for bit, one at a time and in batches (accel_searcher_reuse.hpp; the CPU searcher's
// check is in tests/unit); and --gpu-config overlap=1 (two planes: a group's correlation beside
// the previous group's harmonic sums on a second stream) gives the hits of overlap=0 bit for bit,
// also when the hit buffer overflows and a spectrum's range is searched again in halves (on the
// download stream, while the other plane is in use).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "fastpsr/accel_backends.hpp"
#include "support/accel_reuse_checks.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

TEST_CASE("gpu accel: a searcher made for a longer trial gives a shorter one's hits exactly" *
          doctest::skip(!cuda_accel_available())) {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const DeviceChoice gpu = test::first_gpu();
  for (const char* batch : {"1", "4"}) {
    for (const char* path : {"custom", "cufft"}) {
      CAPTURE(batch);
      CAPTURE(path);
      AccelSearchOptions o;
      o.fft_len = 256;
      o.gpu_config.emplace("batch", batch);
      o.gpu_config.emplace("path", path);
      test::check_reuse_matches_fresh([&](const AccelSearchProblem& p) { return make_fdot_searcher(p, o, gpu); }, seed);
    }
  }
}

TEST_CASE("gpu accel: overlap=1 gives the hits of overlap=0, overflow re-searches included" *
          doctest::skip(!cuda_accel_available())) {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const DeviceChoice gpu = test::first_gpu();
  AccelSearchProblem p;
  p.numbins = 1 << 15;
  p.zmax = 20;
  p.numharm = 4;
  p.rk_begin = 100;
  p.rk_end = 2 * p.numbins - 100;
  p.powcut = {6.0F, 9.0F, 13.0F};  // low: thousands of noise hits a spectrum
  constexpr std::size_t kSpectra = 5;
  const auto n = static_cast<std::size_t>(p.numbins);
  std::vector<std::complex<float>> all;
  for (std::size_t b = 0; b < kSpectra; ++b) {
    const auto x = test::noisy_accel_spectrum(seed + b, p.numbins, 3001.3 + 17.0 * double(b), 17.0);
    all.insert(all.end(), x.begin(), x.end());
  }
  const std::vector<AccelPowerScale> scales(kSpectra);
  auto run = [&](const std::string& overlap, const std::string& batch, const std::string& hits) {
    AccelSearchOptions o;
    o.gpu_config.emplace("overlap", overlap);
    o.gpu_config.emplace("batch", batch);
    o.gpu_config.emplace("hits", hits);
    auto s = make_fdot_searcher(p, o, gpu);
    std::vector<CollectingHitSink> sinks(kSpectra);
    std::vector<AccelHitSink*> ptrs;
    for (auto& k : sinks) ptrs.push_back(&k);
    s->search_batch(all.data(), n, scales, ptrs);
    std::vector<std::vector<AccelHit>> out;
    for (auto& k : sinks) {
      CHECK(k.covered_begin == p.rk_begin);
      CHECK(k.covered_end == p.rk_end);
      out.push_back(test::sorted_hits(k.hits));
    }
    return out;
  };
  const auto want = run("0", "1", "1048576");
  for (const auto& w : want) CHECK(w.size() > 1000);  // so that hits=150 overflows every spectrum, several times over
  for (const char* batch : {"1", "2"}) {
    for (const char* hits : {"1048576", "150"}) {
      CAPTURE(batch);
      CAPTURE(hits);
      const auto got = run("1", batch, hits);
      for (std::size_t b = 0; b < kSpectra; ++b) {
        CAPTURE(b);
        test::check_same_hits(got[b], want[b]);
      }
    }
  }
}
