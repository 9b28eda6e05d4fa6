// SPDX-License-Identifier: MIT
// The CUDA dedisperser against the same double-precision reference and the same shapes as the
// CPU backend (tests/support/dedisp_checks.hpp), and bit-identical to the CPU backend.
#include <doctest/doctest.h>

#include <cstring>

#include "fastpsr/cpu/dedisp_cpu.hpp"
#include "fastpsr/cuda/dedisp_cuda.hpp"
#include "fastpsr/error.hpp"
#include "support/dedisp_checks.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

TEST_CASE("dedisp gpu vs reference: every shape, every nbits, random gulps, equal to the CPU backend") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto shapes = test::reference_shapes();
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    CAPTURE(i);
    std::mt19937_64 rng(seed + i);
    const DedispPlan plan = test::random_plan(rng, shapes[i]);
    const auto packed = test::random_packed(rng, shapes[i].nin, plan.problem.input);
    DedispOptions opt;
    opt.gulp_samples = 1 + rng() % 700;
    auto gpu = cuda::make_dedisperser(plan, opt, 0);
    const auto got = test::run_streaming(*gpu, packed, shapes[i].nin, {gpu->gulp_samples(), 1 + rng() % 97});
    test::check_against_reference(plan, packed, shapes[i].nin, got);
    auto cpu_dd = cpu::make_dedisperser(plan, opt);
    const auto want = test::run_streaming(*cpu_dd, packed, shapes[i].nin, {cpu_dd->gulp_samples()});
    if (plan.problem.input.nbits <= 16) {
      CHECK(std::memcmp(got.data.data(), want.data.data(), got.data.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("dedisp gpu vs reference: output does not depend on the gulp size") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const test::Shape s{48, 8, false, 1, 8, 600.0, 2500, 0.0, DelayModel::presto};
  const DedispPlan plan = test::random_plan(rng, s);
  const auto packed = test::random_packed(rng, s.nin, plan.problem.input);
  const auto overlap = static_cast<std::size_t>(plan.max_delay);
  for (std::size_t gulp : {overlap + 1, std::size_t{97}, std::size_t{251}, s.nin}) {
    CAPTURE(gulp);
    DedispOptions opt;
    opt.gulp_samples = gulp;
    auto dd = cuda::make_dedisperser(plan, opt, 0);
    test::check_against_reference(plan, packed, s.nin, test::run_streaming(*dd, packed, s.nin, {gulp}));
  }
}

TEST_CASE("dedisp gpu vs reference: a problem larger than the GPU shrinks its gulp or fails with a message") {
  // 2^20 channels x 4096 DMs at a delay of ~10^6 samples cannot fit any GPU lent here.
  DedispProblem p;
  p.input = test::make_band(1 << 20, 8, 1500.0, -0.0004, 1e-6);
  p.dms = {0.0, 1000.0};
  const DedispPlan plan = make_dedisp_plan(p);
  try {
    auto dd = cuda::make_dedisperser(plan, {}, 0);
    CHECK(dd->gulp_samples() > 0);  // it chose a gulp that fits
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::resource);
    CHECK(std::string(e.what()).find("memory") != std::string::npos);
  }
}
