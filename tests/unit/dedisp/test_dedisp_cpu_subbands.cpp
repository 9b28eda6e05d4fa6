// SPDX-License-Identifier: MIT
// The CPU dedisperser's two-stage (subband) path against the double-precision reference:
// prepsubband -nsub plans (which it takes by default) and any plan where it is forced, with
// small stage-1 chunks and pushes shorter than the delays within a subband, so that chunk
// boundaries and the samples carried between pushes are exercised.
#include <doctest/doctest.h>

#include <string>

#include "cpu/dedisp/dedisp_subbands.hpp"
#include "fastpsr/cpu/cpu_features.hpp"
#include "fastpsr/cpu/dedisp_cpu.hpp"
#include "fastpsr/error.hpp"
#include "support/dedisp_checks.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

std::vector<std::string> supported_isas() {
  std::vector<std::string> isas{"generic"};
  if (cpu::cpu_features().avx2) isas.emplace_back("avx2");
  if (cpu::cpu_features().avx512f && cpu::cpu_features().avx512bw) isas.emplace_back("avx512");
  return isas;
}

bool is_two_stage(const Dedisperser& dd) { return dd.describe().find("two stages") != std::string::npos; }

// A prepsubband-like problem: a regular band, nsub subbands, DMs in a random range (the
// within-subband delays are rounded at the mean DM, so they differ from per-channel rounding).
DedispPlan nsub_plan(std::mt19937_64& rng, int nchans, int nsub, int nbits, bool is_signed, int ndms,
                     double kill_fraction) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  DedispProblem p;
  p.input = test::make_band(nchans, nbits, 1200.0 + 300.0 * u(rng), -(0.1 + 0.5 * u(rng)), 64e-6 * (1.0 + 3.0 * u(rng)),
                            is_signed);
  p.model = DelayModel::presto;
  p.presto_nsub = nsub;
  const double lo = 100.0 * u(rng);
  const double step = 0.1 + 1.0 * u(rng);
  for (int i = 0; i < ndms; ++i) p.dms.push_back(lo + step * i);
  if (kill_fraction > 0.0) {
    p.keep.assign(static_cast<std::size_t>(nchans), 1);
    for (auto& k : p.keep) k = u(rng) < kill_fraction ? 0 : 1;
    p.keep[static_cast<std::size_t>(nchans / 2)] = 1;
  }
  return make_dedisp_plan(p);
}

// find_subband_split by its definition: channel k joins the run starting at k0 when its delays
// differ from k0's by the same amount at every DM (column by column, as it was first written).
std::vector<std::size_t> runs_by_definition(const DedispPlan& plan, const std::vector<int>& kept,
                                            std::size_t max_channels) {
  const auto nchans = static_cast<std::size_t>(plan.nchans());
  auto delay = [&](std::size_t i, std::size_t k) {
    return plan.delays[i * nchans + static_cast<std::size_t>(kept[k])];
  };
  std::vector<std::size_t> first{0};
  std::size_t k0 = 0;
  for (std::size_t k = 1; k <= kept.size(); ++k) {
    bool same = k < kept.size() && k - k0 < max_channels;
    for (std::size_t i = 1; same && i < plan.ndms(); ++i) {
      same = delay(i, k) - delay(i, k0) == delay(0, k) - delay(0, k0);
    }
    if (!same) {
      first.push_back(k);
      k0 = k;
    }
  }
  return first;
}

struct NsubShape {
  int nchans;
  int nsub;
  int nbits;
  bool is_signed;
  int ndms;
  double kill_fraction;
};

}  // namespace

TEST_CASE("dedisp cpu two-stage: prepsubband -nsub plans equal the reference, every nbits, ISA and thread count") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  const std::vector<NsubShape> shapes = {
      {256, 32, 8, false, 32, 0.0},  // the comparison, scaled down in time
      {96, 12, 8, true, 9, 0.1},     // signed 8-bit, killed channels
      {64, 8, 1, false, 11, 0.0},    // 1-bit
      {64, 16, 2, false, 17, 0.2},   // 2-bit, killed channels (17 DMs: 7 made direct sums the cheaper
                                     // path whenever more than 19 of the 64 channels were killed)
      {48, 6, 4, false, 13, 0.0},    // 4-bit
      {40, 8, 16, false, 6, 0.0},    // 16-bit: uint32 subband rows
      {63, 7, 8, false, 17, 0.0},    // odd channel count and subband width
      {21, 21, 8, false, 5, 0.0},    // nsub = nchans: per-channel delays, forced
  };
  std::size_t i = 0;
  for (const auto& s : shapes) {
    const auto isas = supported_isas();
    for (const std::string& isa : isas) {
      for (int threads = 1; threads <= (isa == isas.back() ? 2 : 1); ++threads) {  // 2 threads: the best ISA
        std::mt19937_64 rng(seed + i++);
        const DedispPlan plan = nsub_plan(rng, s.nchans, s.nsub, s.nbits, s.is_signed, s.ndms, s.kill_fraction);
        const std::size_t nin = 500 + rng() % 700 + static_cast<std::size_t>(plan.max_delay);
        const auto packed = test::random_packed(rng, nin, plan.problem.input);
        DedispOptions opt;
        opt.threads = threads;
        opt.gulp_samples = 1 + rng() % 500;
        opt.cpu_config["isa"] = isa;
        opt.cpu_config["sub_chunk"] = std::to_string(1 + rng() % 200);
        if (rng() % 2 == 0) opt.cpu_config["sub_block"] = std::to_string(1 + rng() % 64);  // staged in blocks
        if (s.nsub == s.nchans) opt.cpu_config["subbands"] = "on";
        auto dd = cpu::make_dedisperser(plan, opt);
        INFO("nchans " << s.nchans << ", nsub " << s.nsub << ", nbits " << s.nbits
                       << std::string(s.is_signed ? " signed" : "") << ", ndms " << s.ndms << ", nin " << nin
                       << ", isa " << isa << ", threads " << threads);
        INFO(dd->describe());
        CHECK(is_two_stage(*dd));
        const auto got = test::run_streaming(*dd, packed, nin, {dd->gulp_samples(), 1 + rng() % 13, 1 + rng() % 301});
        test::check_against_reference(plan, packed, nin, got);
      }
    }
  }
}

TEST_CASE("dedisp cpu two-stage: forced on every reference shape (downsampling, per-channel delays)") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto shapes = test::reference_shapes();
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    CAPTURE(i);
    const test::Shape& s = shapes[i];
    std::mt19937_64 rng(seed + i);
    const DedispPlan plan = test::random_plan(rng, s);
    const auto packed = test::random_packed(rng, s.nin, plan.problem.input);
    DedispOptions opt;
    opt.gulp_samples = 1 + rng() % 700;
    opt.cpu_config["subbands"] = "on";
    opt.cpu_config["sub_chunk"] = std::to_string(1 + rng() % 300);
    if (rng() % 2 == 0) opt.cpu_config["sub_block"] = std::to_string(1 + rng() % 64);  // staged in blocks
    auto dd = cpu::make_dedisperser(plan, opt);
    INFO(dd->describe());
    CHECK(is_two_stage(*dd) == (s.nbits != 32));  // float input is always summed directly
    const auto got = test::run_streaming(*dd, packed, s.nin, {dd->gulp_samples(), 1 + rng() % 97});
    test::check_against_reference(plan, packed, s.nin, got);
  }
}

TEST_CASE("dedisp cpu two-stage: output does not depend on the gulp, the chunk or the path") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const DedispPlan plan = nsub_plan(rng, 128, 16, 8, false, 24, 0.0);
  const std::size_t nin = 1500;
  const auto packed = test::random_packed(rng, nin, plan.problem.input);
  DedispOptions direct;
  direct.cpu_config["subbands"] = "off";
  auto ref_dd = cpu::make_dedisperser(plan, direct);
  CHECK_FALSE(is_two_stage(*ref_dd));
  const auto ref = test::run_streaming(*ref_dd, packed, nin, {ref_dd->gulp_samples()});
  test::check_against_reference(plan, packed, nin, ref);
  for (std::size_t gulp : {std::size_t{1}, std::size_t{2}, std::size_t{5}, std::size_t{64}, std::size_t{333}, nin}) {
    for (const char* chunk : {"1", "64", "1000"}) {
      CAPTURE(gulp);
      CAPTURE(chunk);
      DedispOptions opt;
      opt.gulp_samples = gulp;
      opt.threads = gulp < 64 ? 1 : 2;  // one OpenMP region per push: keep the tiny pushes cheap
      opt.cpu_config["sub_chunk"] = chunk;
      // Odd gulps: stage 1 in blocks of subbands (sub_block 2, 6 or 14 channels: one subband of
      // 8 or 16, where two merged, a block); even ones all channels at once.
      const std::string block = std::to_string(1 + gulp % 40);
      if (gulp % 2 == 1) opt.cpu_config["sub_block"] = block;
      CAPTURE(block);
      auto dd = cpu::make_dedisperser(plan, opt);
      REQUIRE(is_two_stage(*dd));
      INFO(dd->describe());
      CHECK((dd->describe().find("blocks of subbands") != std::string::npos) == (gulp % 2 == 1));
      const auto got = test::run_streaming(*dd, packed, nin, {gulp});
      CHECK(got.in_order);
      REQUIRE(got.data.size() == ref.data.size());
      CHECK(std::memcmp(got.data.data(), ref.data.data(), ref.data.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("dedisp cpu two-stage: auto takes it only where it saves adds, bad values are refused") {
  std::mt19937_64 rng(test::fresh_seed());
  // One DM: nothing to share between DMs, so the direct sum is kept.
  const DedispPlan one = nsub_plan(rng, 64, 8, 8, false, 1, 0.0);
  CHECK_FALSE(is_two_stage(*cpu::make_dedisperser(one, {})));
  const DedispPlan many = nsub_plan(rng, 64, 8, 8, false, 16, 0.0);
  CHECK(is_two_stage(*cpu::make_dedisperser(many, {})));
  DedispOptions off;
  off.cpu_config["subbands"] = "off";
  CHECK_FALSE(is_two_stage(*cpu::make_dedisperser(many, off)));
  DedispOptions bad;
  bad.cpu_config["subbands"] = "maybe";
  CHECK_THROWS_AS(cpu::make_dedisperser(many, bad), Error);
  DedispOptions zero;
  zero.cpu_config["sub_chunk"] = "0";
  CHECK_THROWS_AS(cpu::make_dedisperser(many, zero), Error);
  DedispOptions zero_block;
  zero_block.cpu_config["sub_block"] = "0";
  CHECK_THROWS_AS(cpu::make_dedisperser(many, zero_block), Error);
}

TEST_CASE("dedisp cpu two-stage: the subband split equals its definition (nsub plans, per-channel plans, limits)") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  int with_runs = 0;
  for (int trial = 0; trial < 40; ++trial) {
    CAPTURE(trial);
    const int subbands = 1 << (1 + rng() % 4);
    const int nchans = subbands * (1 + static_cast<int>(rng() % 40));
    // prepsubband -nsub plans (runs of whole subbands) and per-channel plans over small DM
    // ranges at the top of a band (neighbouring channels with equal delays at every DM).
    DedispPlan plan;
    if (trial % 2 == 0) {
      plan = nsub_plan(rng, nchans, subbands, 8, false, 1 + static_cast<int>(rng() % 60), trial % 4 == 0 ? 0.2 : 0.0);
    } else {
      DedispProblem p;
      p.input = test::make_band(nchans, 8, 1700.0, -0.05 - 0.2 * static_cast<double>(rng() % 100) / 100.0, 1e-3, false);
      for (int i = 0; i < 1 + static_cast<int>(rng() % 40); ++i) p.dms.push_back(0.5 * i);
      plan = make_dedisp_plan(p);
    }
    std::vector<int> kept;
    for (int c = 0; c < plan.nchans(); ++c) {
      if (plan.problem.keep.empty() || plan.problem.keep[static_cast<std::size_t>(c)] != 0) kept.push_back(c);
    }
    for (std::size_t max_channels : {std::size_t{1}, std::size_t{3}, std::size_t{16}, std::size_t{1} << 20}) {
      CAPTURE(max_channels);
      const auto split = cpu::dedisp_detail::find_subband_split(plan, kept, max_channels);
      const auto want = runs_by_definition(plan, kept, max_channels);
      CHECK(split.first == want);
      if (want.size() < kept.size() + 1) ++with_runs;
      // The split reproduces every delay.
      const auto nsub = split.nsub();
      bool exact = true;
      for (std::size_t g = 0; g < nsub; ++g) {
        for (std::size_t k = split.first[g]; k < split.first[g + 1]; ++k) {
          for (std::size_t i = 0; i < plan.ndms(); ++i) {
            exact =
                exact && plan.delays[i * static_cast<std::size_t>(plan.nchans()) + static_cast<std::size_t>(kept[k])] ==
                             split.dm_delay[i * nsub + g] + static_cast<std::int32_t>(split.chan_delay[k]);
          }
        }
      }
      CHECK(exact);
    }
  }
  CHECK(with_runs > 20);  // the cases do have runs of several channels to find
}
