// SPDX-License-Identifier: MIT
// The CPU dedisperser against the double-precision reference, on fresh random data.
#include <doctest/doctest.h>

#include <string>

#include "fastpsr/cpu/cpu_features.hpp"
#include "fastpsr/cpu/dedisp_cpu.hpp"
#include "fastpsr/error.hpp"
#include "support/dedisp_checks.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

std::vector<const char*> supported_isas() {
  std::vector<const char*> isas{"generic"};
  if (cpu::cpu_features().avx2) isas.push_back("avx2");
  if (cpu::cpu_features().avx512f && cpu::cpu_features().avx512bw) isas.push_back("avx512");
  return isas;
}

test::DedisperserFactory cpu_factory(const char* isa) {
  return [isa](const DedispPlan& plan, const DedispOptions& options) {
    DedispOptions o = options;
    o.cpu_config["isa"] = std::string(isa);
    return cpu::make_dedisperser(plan, o);
  };
}

void check_shape(const test::Shape& s, std::uint64_t seed, const char* isa) {
  std::mt19937_64 rng(seed);
  const DedispPlan plan = test::random_plan(rng, s);
  const auto packed = test::random_packed(rng, s.nin, plan.problem.input);
  DedispOptions opt;
  opt.gulp_samples = 1 + rng() % 700;
  auto dd = cpu_factory(isa)(plan, opt);
  const std::string isa_name(isa);
  const std::string sign = s.is_signed ? " signed" : "";
  INFO("nchans " << s.nchans << ", nbits " << s.nbits << sign << ", D " << s.downsample << ", ndms " << s.ndms
                 << ", nin " << s.nin << ", max delay " << plan.max_delay << ", gulp " << dd->gulp_samples() << ", isa "
                 << isa_name);
  const auto got = test::run_streaming(*dd, packed, s.nin, {dd->gulp_samples(), 1 + rng() % 97});
  test::check_against_reference(plan, packed, s.nin, got);
}

}  // namespace

TEST_CASE("dedisp cpu: equals the reference for many shapes, every nbits and SIMD variant") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto shapes = test::reference_shapes();
  for (const char* isa : supported_isas()) {
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      CAPTURE(i);
      check_shape(shapes[i], seed + i, isa);
    }
  }
}

TEST_CASE("dedisp cpu: output does not depend on the gulp size") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const test::Shape s{48, 8, false, 1, 8, 600.0, 2500, 0.0, DelayModel::presto};
  const DedispPlan plan = test::random_plan(rng, s);
  const auto packed = test::random_packed(rng, s.nin, plan.problem.input);
  const auto overlap = static_cast<std::size_t>(plan.max_delay);
  CAPTURE(overlap);
  std::vector<float> first;
  for (std::size_t gulp : {overlap + 1, std::size_t{7}, std::size_t{97}, std::size_t{251}, std::size_t{1009}, s.nin}) {
    CAPTURE(gulp);
    DedispOptions opt;
    opt.gulp_samples = gulp;
    auto dd = cpu::make_dedisperser(plan, opt);
    const auto got = test::run_streaming(*dd, packed, s.nin, {gulp});
    test::check_against_reference(plan, packed, s.nin, got);
    if (first.empty()) {
      first = got.data;
    } else {
      CHECK(std::memcmp(first.data(), got.data.data(), first.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("dedisp cpu: DM 0 of a single channel returns the input, shifting the input shifts the output") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  DedispProblem p;
  p.input = test::make_band(1, 8, 1400.0, -1.0, 1e-4);
  p.dms = {0.0};
  const DedispPlan plan = make_dedisp_plan(p);
  const auto packed = test::random_packed(rng, 777, plan.problem.input);
  auto dd = cpu::make_dedisperser(plan, {});
  const auto got = test::run_streaming(*dd, packed, 777, {100});
  REQUIRE(got.ncols == 777);
  for (std::size_t t = 0; t < 777; ++t) CHECK(got.data[t] == static_cast<float>(packed[t]));

  // Time shift: dropping the first k input samples drops the first k outputs.
  DedispProblem q;
  q.input = test::make_band(32, 8, 1400.0, -2.0, 1e-4);
  q.dms = {0.0, 30.0, 75.0};
  const DedispPlan qp = make_dedisp_plan(q);
  const auto data = test::random_packed(rng, 1200, qp.problem.input);
  const std::size_t k = 13;
  const std::vector<std::uint8_t> shifted(data.begin() + static_cast<long>(k * 32), data.end());
  auto a = cpu::make_dedisperser(qp, {});
  auto b = cpu::make_dedisperser(qp, {});
  const auto ra = test::run_streaming(*a, data, 1200, {300});
  const auto rb = test::run_streaming(*b, shifted, 1200 - k, {211});
  for (std::size_t i = 0; i < qp.ndms(); ++i) {
    const auto valid = qp.valid_samples(i, 1200 - k);
    for (std::size_t t = 0; t < valid; ++t) CHECK(rb.data[i * rb.ncols + t] == ra.data[i * ra.ncols + t + k]);
  }
}

TEST_CASE("dedisp cpu: bad requests are refused with a message") {
  DedispProblem p;
  p.input = test::make_band(16, 8, 1400.0, -1.0, 1e-4);
  p.dms = {0.0, 10.0};
  const DedispPlan plan = make_dedisp_plan(p);
  DedispOptions bad;
  bad.cpu_config.emplace("isa", "sse9");
  CHECK_THROWS_AS(cpu::make_dedisperser(plan, bad), Error);
  DedispOptions unknown;
  unknown.cpu_config.emplace("warp", "nine");
  CHECK_THROWS_AS(cpu::make_dedisperser(plan, unknown), Error);

  DedispProblem odd = p;
  odd.input.nbits = 3;
  CHECK_THROWS_AS(cpu::make_dedisperser(make_dedisp_plan(odd), {}), Error);

  DedispOptions small;
  small.gulp_samples = 10;
  auto dd = cpu::make_dedisperser(plan, small);
  std::vector<std::uint8_t> data(16 * 20);
  CHECK_THROWS_AS(dd->push(data.data(), 20), Error);  // more than the gulp
  dd->push(data.data(), 10);
  (void)dd->flush();
  CHECK_THROWS_AS(dd->push(data.data(), 1), Error);  // after flush
}
