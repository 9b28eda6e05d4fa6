// SPDX-License-Identifier: MIT
// The CPU dedisperser's memory: what host_bytes() reports is known, and right, before the buffers
// that grow with the gulp and the DM count exist, so that the dedisp tool can refuse a run that
// would not fit before it allocates them (QA pass 13).
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <string>

#include "fastpsr/cpu/dedisp_cpu.hpp"
#include "fastpsr/dedisp.hpp"
#include "support/dedisp_checks.hpp"

using namespace fastpsr;

TEST_CASE("dedisp cpu: made without its gulp's buffers, which host_bytes counts with the delay table") {
  // 2 channels, 1000 DMs, a gulp of 2^30 samples: an output block of 1000 x 2^30 floats (4 TB)
  // and rows of 2 x 2^30 uint16, which no machine holds. Making it allocates neither.
  DedispProblem p;
  p.input = test::make_band(2, 8, 1500.0, -1.0, 64e-6, false);
  for (int i = 0; i < 1000; ++i) p.dms.push_back(0.1 * i);
  const DedispPlan plan = make_dedisp_plan(p);
  DedispOptions big;
  big.gulp_samples = std::size_t{1} << 30;
  const auto dd = cpu::make_dedisperser(plan, big);
  const std::size_t block = std::size_t{1000} * (std::size_t{1} << 30) * sizeof(float);
  const std::size_t rows = 2 * (std::size_t{1} << 30) * sizeof(std::uint16_t);
  CHECK(dd->host_bytes() >= block + rows + plan.delays.size() * sizeof(std::int32_t));
  CHECK(dd->host_bytes() < block + 2 * rows + (std::size_t{1} << 20));
}

TEST_CASE("dedisp cpu: host_bytes is the same before and after the first push, and the output the reference's") {
  std::mt19937_64 rng(7);
  const test::Shape s{64, 8, false, 1, 40, 300.0, 3000, 0.0, DelayModel::presto};
  const DedispPlan plan = test::random_plan(rng, s);
  const auto packed = test::random_packed(rng, s.nin, plan.problem.input);
  DedispOptions o;
  o.gulp_samples = 700;
  auto dd = cpu::make_dedisperser(plan, o);
  const std::size_t before = dd->host_bytes();
  // At least the output block (40 DMs x a gulp of floats), the rows (64 channels x the history and
  // a gulp, 2 B each) and the dedisperser's copy of the delay table.
  CHECK(before >= 40 * 700 * sizeof(float) + 64 * (static_cast<std::size_t>(plan.max_delay) + 700) * 2 +
                      plan.delays.size() * sizeof(std::int32_t));
  const auto got = test::run_streaming(*dd, packed, s.nin, {700, 333});
  CHECK(dd->host_bytes() == before);
  test::check_against_reference(plan, packed, s.nin, got);
}

TEST_CASE("dedisp cpu: memory in proportion to the data for millions of channels") {
  // 4,194,304 channels (QA pass 20): every row was padded by 768 samples past its data, 6.2 GiB
  // for 3 samples of 1-bit data (1.5 MiB); and the gulp was at least 4096 samples, 32 GiB of rows
  // for a long input. Now the rows hold the data with one padding after the last, and the gulp
  // shrinks to keep the rows near 256 MiB.
  constexpr std::size_t kChans = std::size_t{1} << 22;
  DedispProblem p;
  p.input = test::make_band(static_cast<int>(kChans), 1, 1500.0, -1e-4, 80e-6, false);
  p.dms = {0.0};
  const DedispPlan plan = make_dedisp_plan(p);
  // The per-channel tables (the delay table, the row offsets and kept channels: 4 B a channel
  // each; the channel frequencies: 8 B) and a MiB for the rest.
  const std::size_t fixed = kChans * 20 + (std::size_t{1} << 20);
  DedispOptions three;
  three.input_samples = 3;
  const auto short_dd = cpu::make_dedisperser(plan, three);
  CHECK(short_dd->gulp_samples() == 3);
  CHECK(short_dd->host_bytes() <= fixed + kChans * 3 * sizeof(std::uint16_t));
  DedispOptions hour;
  hour.input_samples = 45000000;
  const auto long_dd = cpu::make_dedisperser(plan, hour);
  CHECK(long_dd->gulp_samples() <= 64);
  CHECK(long_dd->host_bytes() <= fixed + kChans * 64 * sizeof(std::uint16_t));
}

TEST_CASE("dedisp cpu: the two-stage path stages millions of channels in blocks") {
  // 4,194,304 channels, 11 DMs: the two-stage path (65 subbands). Each thread staged the rows
  // of every channel for a chunk of 64 samples and the within-subband delays, 384 MiB a thread
  // (QA pass 20); now blocks of subbands of at most 16 MiB of staging rows.
  constexpr std::size_t kChans = std::size_t{1} << 22;
  DedispProblem p;
  p.input = test::make_band(static_cast<int>(kChans), 1, 1500.0, -1e-4, 80e-6, false);
  for (int i = 0; i <= 10; ++i) p.dms.push_back(0.002 * i);
  const DedispPlan plan = make_dedisp_plan(p);
  DedispOptions o;
  o.threads = 2;
  o.input_samples = 256;
  const auto dd = cpu::make_dedisperser(plan, o);
  INFO(dd->describe());
  REQUIRE(dd->describe().find("two stages") != std::string::npos);
  CHECK(dd->describe().find("blocks of subbands") != std::string::npos);
  // The delay table's copy, the per-channel tables (frequencies 8 B; kept channels, their copy in
  // blocks, delays within subbands: 4 B each), per thread 16 MiB of staging rows and a chunk's
  // packed spectra (64 of 512 KiB), and 16 MiB for the rest.
  const std::size_t per_thread = (std::size_t{16} << 20) + 64 * kChans / 8;
  CHECK(dd->host_bytes() <=
        plan.delays.size() * sizeof(std::int32_t) + kChans * 20 + 2 * per_thread + (std::size_t{16} << 20));
}
