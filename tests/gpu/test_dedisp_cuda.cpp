// SPDX-License-Identifier: MIT
// The CUDA dedisperser against the double-precision reference: bit-exact for integer input
// (1, 2, 4, 8 unsigned and signed, 16 bits), <= 1e-6 relative to the sum of |terms| for float
// input; many shapes, every compiled kernel variant (staged and subband), streaming with any gulp
// and pipeline depth, the memory-shrink path and bad configurations. Fresh random data each run
// (seed shown).
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <string>

#include "fastpsr/cuda/dedisp_cuda.hpp"
#include "fastpsr/error.hpp"
#include "support/dedisp_gpu_cases.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

using Config = std::map<std::string, std::string>;

/// Dedisperses nin random samples on GPU 0 in pushes of `push` samples and checks the whole
/// output against the reference.
void check_case(const DedispPlan& plan, std::size_t nin, std::size_t push, const Config& config, std::uint64_t seed,
                bool extreme = false) {
  CAPTURE(seed);
  CAPTURE(nin);
  CAPTURE(push);
  CAPTURE(plan.problem.input.nbits);
  CAPTURE(plan.problem.input.is_signed);
  CAPTURE(plan.nchans());
  CAPTURE(plan.ndms());
  CAPTURE(plan.downsample());
  CAPTURE(plan.max_delay);
  std::string cfg_text;
  for (const auto& [k, v] : config) cfg_text += k + "=" + v + ",";
  CAPTURE(cfg_text);
  std::mt19937_64 rng(seed);
  const auto packed = test::random_packed(plan, nin, rng, extreme);
  DedispOptions opt;
  opt.gulp_samples = push;
  opt.gpu_config = config;
  auto d = cuda::make_dedisperser(plan, opt, 0);
  CAPTURE(d->describe());
  const std::size_t nout = test::stream_nout(plan, nin);
  const auto got = test::run_stream(*d, packed, nin, nout, [&] { return push; });
  CHECK(got.in_order);
  test::check_against_reference(plan, packed, nin, got.data, got.nout);
}

// The engine's choices for `plan` with the default configuration (describe(): the gpu-config
// line names every key), and whether it stages with bulk copies (the shape rules need them).
struct EngineChoice {
  std::string text;
  bool bulk = false;
  [[nodiscard]] bool has(const char* s) const { return text.find(s) != std::string::npos; }
};
EngineChoice engine_choice(const DedispPlan& plan, std::size_t gulp) {
  DedispOptions opt;
  opt.gulp_samples = gulp;
  EngineChoice c;
  c.text = cuda::make_dedisperser(plan, opt, 0)->describe();
  c.bulk = c.has("bulk_copy=1");
  return c;
}

void expect_error(const DedispPlan& plan, const Config& config, ErrorCode code, std::size_t gulp = 256) {
  std::string cfg_text;
  for (const auto& [k, v] : config) cfg_text += k + "=" + v + ",";
  CAPTURE(cfg_text);
  DedispOptions opt;
  opt.gulp_samples = gulp;
  opt.gpu_config = config;
  try {
    auto d = cuda::make_dedisperser(plan, opt, 0);
    FAIL("no error for this configuration: " << d->describe());
  } catch (const Error& e) {
    CAPTURE(e.what());
    CHECK(e.code() == code);
    CHECK(std::string(e.what()).size() > 10);
  }
}

// Sets the lane mode named "4", "4mad", "2", "1" or "float" in `cfg`; true for float (32-bit
// float input, which chooses its lanes itself).
bool set_lane_mode(Config& cfg, const std::string& lanes) {
  if (lanes == "float") return true;
  if (lanes == "4mad") {
    cfg["lanes"] = "4";
    cfg["mad_hi"] = "1";
  } else {
    cfg["lanes"] = lanes;
  }
  return false;
}

}  // namespace

TEST_CASE("cuda dedisp: 8-bit input, shapes, downsampling, masks, forced lane modes") {
  const std::uint64_t seed = test::fresh_seed();
  test::DedispCase c;
  struct Shape {
    int nchans;
    int ndms;
    double dm_step;
  };
  for (Shape s : {Shape{1, 1, 0.0}, Shape{7, 5, 40.0}, Shape{33, 17, 15.0}, Shape{130, 40, 3.0}, Shape{300, 9, 7.0}}) {
    for (int D : {1, 2, 3, 4}) {
      for (bool is_signed : {false, true}) {
        c.nchans = s.nchans;
        c.dms = test::dm_range(s.ndms, s.dm_step);
        c.downsample = D;
        c.is_signed = is_signed;
        c.keep.clear();
        if (s.nchans > 5 && D % 2 == 1) {
          c.keep.assign(static_cast<std::size_t>(s.nchans), 1);
          for (int k = 0; k < s.nchans; k += 3) c.keep[static_cast<std::size_t>(k)] = 0;
        }
        const DedispPlan plan = test::make_case_plan(c);
        const std::size_t nin = 3 * static_cast<std::size_t>(plan.max_delay) * D + 997;
        check_case(plan, nin, 509, {}, seed + static_cast<std::uint64_t>(s.nchans * 10 + D), D == 1);
        if (D == 1) {
          check_case(plan, nin, 509, {{"lanes", "2"}}, seed + 1);
          check_case(plan, nin, 509, {{"mad_hi", "1"}}, seed + 4);
          check_case(plan, nin, 331, {{"lanes", "1"}}, seed + 2);
          // More rows a stage than a warp has lanes (the bulk-copy issuer loops), 3 stages.
          check_case(plan, nin, 509, {{"chans_per_stage", "70"}, {"stages", "3"}}, seed + 5);
        }
      }
    }
  }
}

TEST_CASE("cuda dedisp: large delay spans (meerkat-like) choose their shape and stay exact") {
  // 856 MHz of band below 1712 MHz in 128 channels, 76.56 us samples, DMs 0..47: the lowest
  // channel's delays of 32 neighbouring DMs span ~1690 samples, so the default shape's staging
  // leaves room for one block an SM and the engine chooses again: with bulk
  // staging (8-bit: 4 samples a word; 16-bit: 2) the 64 x 2-thread 4 x 8 tile at 8 channels a
  // stage in 128 or 168 registers, or 4 channels in 128.
  const std::uint64_t seed = test::fresh_seed();
  test::DedispCase c;
  c.nchans = 128;
  c.foff_mhz = -856.0 / 128;
  c.fch1_mhz = 1712.0 + c.foff_mhz / 2;
  c.tsamp_s = 76.56e-6;
  c.dms = test::dm_range(48, 1.0);
  for (int nbits : {8, 16}) {
    c.nbits = nbits;
    const DedispPlan plan = test::make_case_plan(c);
    REQUIRE(plan.max_delay > 2000);
    const std::size_t nin = 3 * static_cast<std::size_t>(plan.max_delay) + 997;
    check_case(plan, nin, 4093, {}, seed + static_cast<std::uint64_t>(nbits));
    const EngineChoice e = engine_choice(plan, 4093);
    CAPTURE(e.text);
    const bool wide = e.has("threads_time=64,threads_dm=2,items_time=4,items_dm=8,");
    CHECK(wide == e.bulk);
    if (wide) {
      CHECK(((e.has("chans_per_stage=8,") && (e.has("max_regs=128,") || e.has("max_regs=168,"))) ||
             (e.has("chans_per_stage=4,") && e.has("max_regs=128,"))));
    }
  }
}

TEST_CASE("cuda dedisp: DM steps longer than a tile (lofar-like) take the long tile and stay exact") {
  // 32 channels over 139-145 MHz, 5 us samples, DM step 0.25: the lowest channel moves ~850
  // samples a DM, so more than one DM a 512-sample block stages more span than data, the engine's
  // choice is one DM a block, and with bulk staging (integer lanes of 4 or 2 samples a word) the
  // rule takes 512 x 1 threads of 4 x 4 items at 4 channels a stage instead.
  const std::uint64_t seed = test::fresh_seed();
  test::DedispCase c;
  c.nchans = 32;
  c.foff_mhz = -6.0 / 32;
  c.fch1_mhz = 145.0 + c.foff_mhz / 2;
  c.tsamp_s = 5e-6;
  c.dms = test::dm_range(23, 0.25);
  for (int D : {1, 2}) {  // 8-bit data: 4 samples a word; downsampled by 2 (sums up to 510): 2
    c.downsample = D;
    CAPTURE(D);
    const DedispPlan plan = test::make_case_plan(c);
    REQUIRE(plan.max_delay > 5000);
    const std::size_t nin = 2 * static_cast<std::size_t>(plan.max_delay) * D + 9001;
    check_case(plan, nin, 20011, {}, seed + static_cast<std::uint64_t>(D));
    const EngineChoice e = engine_choice(plan, 20011);
    CAPTURE(e.text);
    CHECK(e.has(D == 1 ? "lanes=4," : "lanes=2,"));
    CHECK(e.has("threads_time=512,threads_dm=1,items_time=4,items_dm=4,chans_per_stage=4,") == e.bulk);
    // Given keys keep the engine's hands off.
    check_case(plan, nin, 20011, {{"threads_time", "32"}}, seed + 1);
  }
}

TEST_CASE("cuda dedisp: 1, 2, 4, 16 and 32-bit input") {
  const std::uint64_t seed = test::fresh_seed();
  test::DedispCase c;
  c.dms = test::dm_range(13, 20.0);
  for (int nbits : {1, 2, 4}) {
    for (int nchans : {8 / nbits, 64, 104}) {
      for (int D : {1, 3}) {
        c.nbits = nbits;
        c.nchans = nchans;
        c.downsample = D;
        const DedispPlan plan = test::make_case_plan(c);
        const std::size_t nin = 2 * static_cast<std::size_t>(plan.max_delay) * D + 1201;
        check_case(plan, nin, 400, {}, seed + static_cast<std::uint64_t>(nbits * 1000 + nchans + D));
        check_case(plan, nin, 400, {{"lanes", "2"}}, seed + 3);
      }
    }
  }
  for (int nchans : {5, 64}) {
    for (int D : {1, 2}) {
      c.nbits = 16;
      c.nchans = nchans;
      c.downsample = D;
      const DedispPlan plan = test::make_case_plan(c);
      const std::size_t nin = 2 * static_cast<std::size_t>(plan.max_delay) * D + 777;
      check_case(plan, nin, 300, {}, seed + 50 + static_cast<std::uint64_t>(nchans + D));
      if (D == 1) check_case(plan, nin, 300, {{"lanes", "2"}}, seed + 51);
      c.nbits = 32;
      const DedispPlan pf = test::make_case_plan(c);
      check_case(pf, nin, 300, {}, seed + 60 + static_cast<std::uint64_t>(nchans + D));
      check_case(pf, nin, 300, {{"flush_chans", "1"}}, seed + 61);
    }
  }
}

TEST_CASE("cuda dedisp: DM 0 only, one channel, delays longer than a gulp, sigproc delays") {
  const std::uint64_t seed = test::fresh_seed();
  test::DedispCase c;
  c.nchans = 16;
  c.dms = {0.0};
  check_case(test::make_case_plan(c), 1000, 100, {}, seed);
  c.nchans = 1;
  c.dms = {0.0, 5.0, 100.0};
  check_case(test::make_case_plan(c), 1000, 37, {}, seed + 1);
  c.nchans = 48;
  c.dms = test::dm_range(24, 60.0);
  const DedispPlan longp = test::make_case_plan(c);
  REQUIRE(longp.max_delay > 200);
  check_case(longp, 4 * static_cast<std::size_t>(longp.max_delay), 64, {}, seed + 2);
  check_case(longp, 4 * static_cast<std::size_t>(longp.max_delay), 1, {{"pipeline", "3"}}, seed + 3);
  c.model = DelayModel::sigproc;
  c.dms = {3.0, 1.0, 77.0, 0.5};  // unsorted trials
  const DedispPlan sp = test::make_case_plan(c);
  check_case(sp, 3 * static_cast<std::size_t>(sp.max_delay) + 50, 129, {}, seed + 4);
  // Shorter than the longest delay: only the zero-padded part of the output exists.
  check_case(longp, static_cast<std::size_t>(longp.max_delay) / 2, 64, {}, seed + 5);
}

TEST_CASE("cuda dedisp: streaming gives the whole-file output for any gulp and pipeline depth") {
  const std::uint64_t seed = test::fresh_seed();
  test::DedispCase c;
  c.nchans = 61;
  c.dms = test::dm_range(30, 9.0);
  for (int D : {1, 3}) {
    c.downsample = D;
    const DedispPlan plan = test::make_case_plan(c);
    const auto md = static_cast<std::size_t>(plan.max_delay);
    const std::size_t nin = 5 * md * D + 313;
    for (std::size_t push : {md * D + D, std::size_t{97}, std::size_t{1009}, nin}) {
      for (int depth : {2, 3, 4}) check_case(plan, nin, push, {{"pipeline", std::to_string(depth)}}, seed + push);
    }
    // Irregular pushes, including empty ones and sizes that split downsampling groups.
    std::mt19937_64 rng(seed);
    const auto packed = test::random_packed(plan, nin, rng);
    DedispOptions opt;
    opt.gulp_samples = 257;
    auto d = cuda::make_dedisperser(plan, opt, 0);
    std::uniform_int_distribution<std::size_t> size(0, 257);
    const auto got = test::run_stream(*d, packed, nin, test::stream_nout(plan, nin), [&] { return size(rng); });
    CHECK(got.in_order);
    test::check_against_reference(plan, packed, nin, got.data, got.nout);
  }
}

TEST_CASE("cuda dedisp: every compiled kernel variant") {
  const std::uint64_t seed = test::fresh_seed();
  test::DedispCase c;
  c.nchans = 21;
  c.dms = test::dm_range(12, 25.0);
  const DedispPlan p8 = test::make_case_plan(c);
  c.nbits = 32;
  const DedispPlan pf = test::make_case_plan(c);
  const std::size_t nin = 3 * static_cast<std::size_t>(p8.max_delay) + 900;
  int i = 0;
  for (const char* lanes : {"4", "4mad", "2", "1", "float"}) {
    for (int t : {1, 2, 4}) {
      for (int md : {1, 2, 4, 8}) {
        Config cfg = {{"subband", "0"},  // the staged kernel (the subband kernel is tested below)
                      {"items_time", std::to_string(t)},
                      {"items_dm", std::to_string(md)},
                      {"threads_time", std::to_string(32 * (1 + i % 2))},
                      {"threads_dm", std::to_string(1 + i % 3)},
                      {"stages", std::to_string(1 + i % 3)},
                      {"chans_per_stage", std::to_string(i % 3 == 0 ? 1 : (i % 3 == 1 ? 5 : 16))},
                      // Both staging paths (bulk copies on sm_90+, cp.async pieces) for every lane mode.
                      {"bulk_copy", std::to_string(i % 4 == 3 ? 0 : 1)}};
        const bool is_float = set_lane_mode(cfg, lanes);
        check_case(is_float ? pf : p8, nin, 300, cfg, seed + static_cast<std::uint64_t>(i));
        ++i;
      }
    }
  }
  // The 4 x 8 tile's register caps (128 spills the totals to local memory), every lane mode.
  for (const char* lanes : {"4", "4mad", "2", "1", "float"}) {
    for (const char* cap : {"128", "168", "255"}) {
      Config cfg = {
          {"subband", "0"},    {"items_time", "4"}, {"items_dm", "8"},         {"threads_time", "32"},
          {"threads_dm", "4"}, {"max_regs", cap},   {"chans_per_stage", "16"}, {"bulk_copy", std::to_string(i % 2)}};
      const bool is_float = set_lane_mode(cfg, lanes);
      check_case(is_float ? pf : p8, nin, 300, cfg, seed + static_cast<std::uint64_t>(i));
      ++i;
    }
  }
  // Reuse of the previous DM's words (reuse=1, 2) on DMs close enough to share many delays: the
  // 4 x 8 tile under each cap and the 4 x 4 tile, every lane mode, odd stage sizes (pairs across
  // chunks) and lane flushes every channel (the single-row path) in between.
  c.nbits = 8;
  c.dms = test::dm_range(45, 1.5);
  const DedispPlan r8 = test::make_case_plan(c);
  c.nbits = 32;
  const DedispPlan rf = test::make_case_plan(c);
  const std::size_t rin = 3 * static_cast<std::size_t>(r8.max_delay) + 900;
  for (const char* lanes : {"4", "4mad", "2", "1", "float"}) {
    for (const char* reuse : {"1", "2"}) {
      for (const char* cap : {"0", "128", "168", "255"}) {
        const bool small = std::string(cap) == "0";
        Config cfg = {{"subband", "0"},
                      {"items_time", "4"},
                      {"items_dm", small ? "4" : "8"},
                      {"threads_time", "32"},
                      {"threads_dm", small ? "3" : "4"},
                      {"reuse", reuse},
                      {"chans_per_stage", i % 3 == 0 ? "5" : "16"},
                      {"bulk_copy", std::to_string(i % 2)}};
        if (!small) cfg["max_regs"] = cap;
        const bool is_float = set_lane_mode(cfg, lanes);
        if (i % 5 == 4 && !is_float && std::string(lanes) != "1") cfg["flush_chans"] = "1";
        check_case(is_float ? rf : r8, rin, 300, cfg, seed + static_cast<std::uint64_t>(i));
        ++i;
      }
    }
  }
}

TEST_CASE("cuda dedisp: the subband kernel, every compiled variant, shapes, streaming") {
  const std::uint64_t seed = test::fresh_seed();
  test::DedispCase c;
  c.nchans = 37;  // a short last unit for every G
  c.dms = test::dm_range(21, 25.0);
  const DedispPlan p8 = test::make_case_plan(c);
  const std::size_t nin = 3 * static_cast<std::size_t>(p8.max_delay) + 900;
  int i = 0;
  for (int G : {4, 8, 16}) {
    for (int t : {2, 4}) {
      for (int md : {4, 8}) {
        Config cfg = {{"subband", std::to_string(G)},
                      {"items_time", std::to_string(t)},
                      {"items_dm", std::to_string(md)},
                      {"threads_time", std::to_string(32 * (1 + i % 2))},
                      {"threads_dm", std::to_string(1 + i % 3)},
                      {"stages", std::to_string(1 + i % 3)}};
        // One or two units per stage, or as many as shared memory allows (automatic).
        if (i % 3 != 2) cfg["chans_per_stage"] = std::to_string(G * (1 + i % 3));
        check_case(p8, nin, 300, cfg, seed + static_cast<std::uint64_t>(i), i % 2 == 0);
        ++i;
      }
    }
  }
  // Three units of 16 channels per stage in three stages need more shared memory than a block has
  // (341.7 KiB here): refused with a message, not shrunk, since chans_per_stage was given.
  expect_error(p8,
               {{"subband", "16"},
                {"items_time", "4"},
                {"items_dm", "8"},
                {"threads_time", "64"},
                {"threads_dm", "3"},
                {"stages", "3"},
                {"chans_per_stage", "48"}},
               ErrorCode::invalid_argument);
  // Close DMs over a wide band, many patterns shared (the regime the kernel is for), signed
  // input with masked channels, low bit depths and downsampling.
  test::DedispCase w;
  w.nchans = 256;
  w.tsamp_s = 50e-6;
  w.fch1_mhz = 1720.0;
  w.foff_mhz = -300.0 / 256;
  w.dms = test::dm_range(200, 0.25);
  const DedispPlan wide = test::make_case_plan(w);
  for (int G : {4, 8, 16}) {
    check_case(wide, 4 * static_cast<std::size_t>(wide.max_delay) + 3000, 1500, {{"subband", std::to_string(G)}},
               seed + 100 + static_cast<std::uint64_t>(G), G == 8);
  }
  w.is_signed = true;
  w.keep.assign(256, 1);
  for (int k = 0; k < 256; k += 7) w.keep[static_cast<std::size_t>(k)] = 0;
  const DedispPlan wide_signed = test::make_case_plan(w);
  check_case(wide_signed, 3 * static_cast<std::size_t>(wide.max_delay) + 1000, 777, {{"subband", "8"}}, seed + 200);
  c.nchans = 40;  // whole bytes per sample at 1 bit
  for (int nbits : {1, 2, 4}) {
    for (int D : {1, 3}) {
      c.nbits = nbits;
      c.downsample = D;
      const DedispPlan p = test::make_case_plan(c);
      check_case(p, 3 * static_cast<std::size_t>(p.max_delay) * D + 500, 400, {{"subband", "4"}},
                 seed + 300 + static_cast<std::uint64_t>(10 * nbits + D));
    }
  }
  // Extreme values: lane flushes at the smallest allowed count (G) and at capacity.
  test::DedispCase f;
  f.nchans = 1000;
  f.foff_mhz = -0.5;
  f.dms = test::dm_range(8, 2.0);
  const DedispPlan pf = test::make_case_plan(f);
  for (const char* flush : {"8", "9", "257"}) {
    check_case(pf, 2 * static_cast<std::size_t>(pf.max_delay) + 300, 250, {{"subband", "8"}, {"flush_chans", flush}},
               seed + 400, true);
  }
}

TEST_CASE("cuda dedisp: lane flushes at and below capacity with extreme 8-bit data") {
  const std::uint64_t seed = test::fresh_seed();
  test::DedispCase c;
  c.nchans = 1000;  // four times what a 16-bit lane holds at 255 per channel
  c.foff_mhz = -0.5;
  c.dms = test::dm_range(8, 2.0);
  const DedispPlan plan = test::make_case_plan(c);
  const std::size_t nin = 2 * static_cast<std::size_t>(plan.max_delay) + 300;
  for (const char* flush : {"1", "2", "3", "256", "257"}) {
    check_case(plan, nin, 250, {{"flush_chans", flush}}, seed, true);
    check_case(plan, nin, 250, {{"flush_chans", flush}, {"subband", "0"}}, seed + 3, true);
    check_case(plan, nin, 250, {{"flush_chans", flush}, {"lanes", "2"}}, seed + 1, true);
    check_case(plan, nin, 250, {{"flush_chans", flush}, {"mad_hi", "1"}}, seed + 2, true);
  }
  check_case(plan, nin, 250, {}, seed + 2, true);
}

TEST_CASE("cuda dedisp: gulps shrink to a small memory budget, or fail with a message") {
  const std::uint64_t seed = test::fresh_seed();
  test::DedispCase c;
  c.nchans = 256;
  c.dms = test::dm_range(64, 2.0);
  const DedispPlan plan = test::make_case_plan(c);
  DedispOptions opt;
  opt.gulp_samples = 1 << 16;
  opt.gpu_config = {{"max_device_mb", "6"}};
  auto d = cuda::make_dedisperser(plan, opt, 0);
  CAPTURE(d->describe());
  CHECK(d->gulp_samples() < opt.gulp_samples);
  CHECK(d->device_bytes() <= std::size_t{6} << 20);
  const std::size_t nin = 3 * d->gulp_samples() + 101;
  check_case(plan, nin, d->gulp_samples(), opt.gpu_config, seed);
  // Automatic gulp (no size given) also works.
  std::mt19937_64 rng(seed);
  const auto packed = test::random_packed(plan, 5000, rng);
  DedispOptions automatic;
  auto a = cuda::make_dedisperser(plan, automatic, 0);
  const auto got = test::run_stream(*a, packed, 5000, test::stream_nout(plan, 5000), [] { return std::size_t{1777}; });
  test::check_against_reference(plan, packed, 5000, got.data, got.nout);
  // The history alone (2 x 1024 channels x max_delay) is larger than 1 MiB.
  c.nchans = 1024;
  c.foff_mhz = -0.25;
  c.dms = test::dm_range(4, 300.0);
  const DedispPlan big = test::make_case_plan(c);
  REQUIRE(big.max_delay > 600);
  expect_error(big, {{"max_device_mb", "1"}}, ErrorCode::resource);
}

TEST_CASE("cuda dedisp: bad configurations and unsupported input are errors with messages") {
  test::DedispCase c;
  c.nchans = 16;
  c.dms = test::dm_range(4, 10.0);
  const DedispPlan p8 = test::make_case_plan(c);
  for (const Config& bad : std::vector<Config>{{{"no_such_key", "1"}},
                                               {{"threads_time", "abc"}},
                                               {{"threads_time", "33"}},
                                               {{"threads_time", "2048"}},
                                               {{"threads_time", "1024"}, {"threads_dm", "2"}},
                                               {{"items_dm", "3"}},
                                               {{"items_time", "8"}},
                                               {{"stages", "0"}},
                                               {{"pipeline", "9"}},
                                               {{"lanes", "3"}},
                                               {{"flush_chans", "258"}},
                                               {{"chans_per_stage", "-1"}},
                                               {{"chans_per_stage", "256"}, {"stages", "3"}, {"threads_time", "1024"}},
                                               {{"subband", "3"}},
                                               {{"subband", "8"}, {"items_dm", "2"}},
                                               {{"subband", "8"}, {"items_time", "1"}},
                                               {{"subband", "8"}, {"chans_per_stage", "12"}},
                                               {{"subband", "8"}, {"flush_chans", "7"}},
                                               {{"subband", "8"}, {"mad_hi", "1"}},
                                               {{"bulk_copy", "2"}},
                                               {{"max_regs", "100"}},
                                               {{"items_dm", "4"}, {"max_regs", "168"}},
                                               {{"subband", "8"}, {"max_regs", "128"}},
                                               {{"reuse", "3"}},
                                               {{"reuse", "1"}, {"items_dm", "2"}},
                                               {{"reuse", "1"}, {"items_time", "2"}},
                                               {{"subband", "8"}, {"reuse", "1"}},
                                               {{"subband", "8"}, {"lanes", "2"}},
                                               {{"subband", "4"}, {"threads_time", "512"}, {"threads_dm", "1"}}}) {
    expect_error(p8, bad, ErrorCode::invalid_argument);
  }
  c.nbits = 16;
  const DedispPlan p16 = test::make_case_plan(c);
  expect_error(p16, {{"lanes", "4"}}, ErrorCode::invalid_argument);
  expect_error(p16, {{"mad_hi", "1"}}, ErrorCode::invalid_argument);
  expect_error(p8, {{"mad_hi", "2"}}, ErrorCode::invalid_argument);
  expect_error(p16, {{"lanes", "1"}, {"flush_chans", "5"}}, ErrorCode::invalid_argument);
  expect_error(p16, {{"subband", "8"}}, ErrorCode::invalid_argument);
  c.nbits = 32;
  expect_error(test::make_case_plan(c), {{"lanes", "2"}}, ErrorCode::invalid_argument);
  // 16-bit sums of 1024 channels downsampled by 128 can pass 2^32.
  c.nbits = 16;
  c.nchans = 1024;
  c.foff_mhz = -0.25;
  c.downsample = 128;
  expect_error(test::make_case_plan(c), {}, ErrorCode::unsupported);
  DedispPlan odd = p8;
  odd.problem.input.nbits = 3;
  expect_error(odd, {}, ErrorCode::unsupported);
  DedispPlan signed16 = p16;
  signed16.problem.input.is_signed = true;
  expect_error(signed16, {}, ErrorCode::unsupported);
  // push after flush, and a push larger than gulp_samples().
  DedispOptions opt;
  opt.gulp_samples = 128;
  auto d = cuda::make_dedisperser(p8, opt, 0);
  std::vector<std::uint8_t> data(200 * 16, 1);
  CHECK_THROWS_AS(d->push(data.data(), 200), Error);
  while (!d->flush().empty()) {
  }
  CHECK_THROWS_AS(d->push(data.data(), 1), Error);
}

TEST_CASE("cuda dedisp: describe() names the configuration and the sizes") {
  test::DedispCase c;
  c.nchans = 64;
  c.dms = test::dm_range(40, 5.0);
  DedispOptions opt;
  opt.gulp_samples = 4096;
  opt.gpu_config = {{"threads_time", "32"}, {"items_time", "4"}};
  auto d = cuda::make_dedisperser(test::make_case_plan(c), opt, 0);
  const std::string text = d->describe();
  MESSAGE(text);
  CHECK(text.find("threads_time=32") != std::string::npos);
  CHECK(text.find("items_time=4") != std::string::npos);
  CHECK(text.find("lanes=4") != std::string::npos);
  CHECK(d->device_bytes() > 0);
  CHECK(d->host_bytes() > 0);
  CHECK(d->gulp_samples() == 4096);
  // The default gulp is no longer than an input of known length (downsampled: whole output
  // samples of it); a given gulp stays.
  DedispOptions short_input;
  short_input.input_samples = 3001;
  CHECK(cuda::make_dedisperser(test::make_case_plan(c), short_input, 0)->gulp_samples() == 3001);
  CHECK(cuda::make_dedisperser(test::make_case_plan(c), DedispOptions{}, 0)->gulp_samples() > 3001);
  short_input.gulp_samples = 4096;
  CHECK(cuda::make_dedisperser(test::make_case_plan(c), short_input, 0)->gulp_samples() == 4096);
  // The staged kernel unless the subband kernel is asked for.
  CHECK(text.find("subband=0") != std::string::npos);
  opt.gpu_config["subband"] = "4";
  const std::string sub = cuda::make_dedisperser(test::make_case_plan(c), opt, 0)->describe();
  CAPTURE(sub);
  CHECK(sub.find("subband=4") != std::string::npos);
  CHECK(sub.find("patterns per unit") != std::string::npos);
}
