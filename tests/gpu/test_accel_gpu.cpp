// SPDX-License-Identifier: MIT
// The CUDA acceleration searcher gives the CPU searcher's hits and candidates (skipped until
// the CUDA backend provides one: cuda_accel_available()).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <tuple>

#include "fastpsr/accel_backends.hpp"
#include "fastpsr/accel_output.hpp"
#include "fastpsr/accel_search.hpp"
#include "fastpsr/cpu/accel_cpu.hpp"
#include "fastpsr/cuda/runtime.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/presto_fft.hpp"
#include "fastpsr/presto_inf.hpp"
#include "support/reference_accel.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

using Key = std::tuple<int, std::int64_t, int>;
std::map<Key, float> keyed(const std::vector<AccelHit>& hits) {
  std::map<Key, float> m;
  for (const auto& h : hits) m[{h.stage, h.rk, h.zi}] = h.power;
  return m;
}

// Noise and a drifting 4-harmonic signal at bin 3001.3, z 17 (amplitude 5/h, phase 0.3 h).
std::vector<std::complex<float>> noisy(std::uint64_t seed, std::int64_t n) {
  return test::noisy_accel_spectrum(seed, n, 3001.3, 17.0, 5.0, 0.3);
}

}  // namespace

TEST_CASE("gpu accel: hits equal the CPU searcher's on both paths and interpolations" *
          doctest::skip(!cuda_accel_available())) {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  AccelSearchProblem p;
  p.numbins = 1 << 16;
  p.zmax = 50;
  p.numharm = 8;
  p.rk_begin = 200;
  p.rk_end = 2 * p.numbins - 300;
  p.powcut = {12.0F, 16.0F, 22.0F, 34.0F};
  const auto x = noisy(seed, p.numbins);
  for (auto interp : {AccelInterp::fourier, AccelInterp::interbin}) {
    p.interp = interp;
    CollectingHitSink cpu_sink;
    cpu::make_fdot_searcher(p, {})->search(x, {}, cpu_sink);
    const auto want = keyed(cpu_sink.hits);
    for (const char* path : {"cufft", "custom"}) {
      CAPTURE(path);
      CAPTURE(static_cast<int>(interp));
      AccelSearchOptions o;
      o.gpu_config["path"] = path;
      CollectingHitSink gpu_sink;
      make_fdot_searcher(p, o, test::first_gpu())->search(x, {}, gpu_sink);
      CHECK(gpu_sink.covered_begin == p.rk_begin);
      CHECK(gpu_sink.covered_end == p.rk_end);
      const auto got = keyed(gpu_sink.hits);
      for (const auto& [k, pw] : want) {
        const float cut = p.powcut[static_cast<std::size_t>(std::get<0>(k))];
        const auto it = got.find(k);
        if (it == got.end()) {
          CHECK(pw <= cut * 1.0005F);
        } else {
          CHECK(std::fabs(it->second - pw) <= 5e-4F * std::max(1.0F, pw));
        }
      }
      for (const auto& [k, pw] : got) {
        if (!want.count(k)) CHECK(pw <= p.powcut[static_cast<std::size_t>(std::get<0>(k))] * 1.0005F);
      }
    }
  }
}

TEST_CASE("gpu accel: a batch gives what single searches give" * doctest::skip(!cuda_accel_available())) {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  AccelSearchProblem p;
  p.numbins = 1 << 15;
  p.zmax = 20;
  p.numharm = 4;
  p.rk_begin = 100;
  p.rk_end = 2 * p.numbins - 100;
  p.powcut = {12.0F, 16.0F, 22.0F};
  std::vector<std::complex<float>> all;
  for (int b = 0; b < 3; ++b) {
    const auto x = noisy(seed + static_cast<std::uint64_t>(b), p.numbins);
    all.insert(all.end(), x.begin(), x.end());
  }
  AccelSearchOptions o;
  o.gpu_config.emplace("batch", "3");  // (operator[]= trips GCC 12's false -Wrestrict at -O3)
  auto s = make_fdot_searcher(p, o, test::first_gpu());
  std::vector<CollectingHitSink> batch(3);
  std::vector<AccelHitSink*> sinks{&batch[0], &batch[1], &batch[2]};
  std::vector<AccelPowerScale> scales(3);
  s->search_batch(all.data(), static_cast<std::size_t>(p.numbins), scales, sinks);
  for (std::size_t b = 0; b < 3; ++b) {
    CollectingHitSink one;
    s->search({all.data() + b * static_cast<std::size_t>(p.numbins), static_cast<std::size_t>(p.numbins)}, {}, one);
    CHECK(keyed(one.hits) == keyed(batch[b].hits));
  }
}

TEST_CASE("gpu accel: CPU and GPU give the same candidate list on the PRESTO binary" *
          doctest::skip(!cuda_accel_available() || !test::have_shared_data())) {
  const auto dir = *test::shared_data_dir() / "peer-outputs/bin";
  const PrestoInf inf = read_inf((dir / "bin_DM88.80.inf").string());
  const auto bytes = test::read_file(dir / "bin_DM88.80.dat");
  std::vector<float> x(bytes.size() / 4);
  std::memcpy(x.data(), bytes.data(), x.size() * 4);
  AccelConfig c;
  c.zmax = 200;
  const AccelPlan plan = make_accel_plan(c, static_cast<std::int64_t>(x.size() / 2), inf.N * inf.dt);
  const PreparedSpectrum spec = prepare_spectrum(presto_realfft(x), plan, true);
  auto run = [&](FdotSearcher& s) {
    AccelCandidateList list = make_candidate_list(plan, false);
    s.search(spec.search.bins, spec.power_scale(), list);
    return finish_candidates(plan, list, spec).candidates;
  };
  auto cpu_searcher = cpu::make_fdot_searcher(plan.problem, {});
  auto gpu_searcher = make_fdot_searcher(plan.problem, {}, test::first_gpu());
  const auto a = run(*cpu_searcher);
  const auto b = run(*gpu_searcher);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    CHECK(std::fabs(a[i].r - b[i].r) <= 0.25);
    CHECK(std::fabs(a[i].z - b[i].z) <= 1.0);
    CHECK(a[i].numharm == b[i].numharm);
    CHECK(b[i].sigma == doctest::Approx(a[i].sigma).epsilon(0.01));
  }
}

TEST_CASE("gpu accel: a plane larger than the GPU: the GPU's block search, or with the cuFFT path a resource error "
          "by name and the CPU's block search under auto" *
          doctest::skip(!cuda_accel_available())) {
  // 2^26 bins at zmax 1200: a plane of 1201 x 2^27 x 4 bytes = 645 GB, beyond any GPU.
  AccelSearchProblem p;
  p.numbins = std::int64_t{1} << 26;
  p.zmax = 1200;
  p.numharm = 8;
  p.rk_begin = 2000;
  p.rk_end = 2 * p.numbins;
  p.powcut = {20.0F, 25.0F, 30.0F, 40.0F};
  AccelSearchOptions o;
  o.plane_memory = std::size_t{1} << 30;
  DeviceChoice named = test::first_gpu();
  const auto blocks = make_fdot_searcher(p, o, named);
  CHECK(blocks->describe().rfind("CUDA", 0) == 0);
  CHECK(blocks->block_rk() > 0);
  CHECK(blocks->describe().find("searched in blocks of") != std::string::npos);
  // Blocks narrower than the range, in the GPU's memory (an H200's 141 GB hold a fifth of this
  // plane, so no fixed fraction of the plane: 133 of 645 GB there).
  CHECK(blocks->block_rk() < p.rk_end - p.rk_begin);
  CHECK(blocks->device_bytes() < cuda::memory_info().second);
  CHECK(blocks->device_bytes() < accel_plane_bytes(p));
  // The cuFFT path keeps the whole plane.
  o.gpu_config = {{"path", "cufft"}};
  try {
    (void)make_fdot_searcher(p, o, named);
    FAIL("the GPU searcher was made for a 645 GB plane");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::resource);
    CHECK(std::string(e.what()).find("--device cpu") != std::string::npos);
  }
  DeviceChoice automatic = named;
  automatic.automatic = true;
  const auto searcher = make_fdot_searcher(p, o, automatic);
  CHECK(searcher->describe().rfind("CPU", 0) == 0);
  CHECK(searcher->describe().find("block search") != std::string::npos);
  CHECK(searcher->host_bytes() < (std::size_t{3} << 29));  // the windows within 1 GiB, plus templates
}
