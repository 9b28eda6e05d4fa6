// SPDX-License-Identifier: MIT
// The small pieces around dedispersion: baselines, 8/16-bit scaling, the spool, channel
// masks, the zero-DM filter.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <string>

#include "fastpsr/baseline.hpp"
#include "fastpsr/channel_mask.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/quantize.hpp"
#include "fastpsr/series_spool.hpp"
#include "fastpsr/zero_dm.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

std::vector<float> run_baseline(const std::vector<float>& x, std::size_t block, bool sigproc, std::size_t piece) {
  BlockMedianBaseline b(block, sigproc);
  std::vector<float> out;
  auto keep = [&](const float* y, std::size_t n) { out.insert(out.end(), y, y + n); };
  for (std::size_t i = 0; i < x.size(); i += piece) b.push(x.data() + i, std::min(piece, x.size() - i), keep);
  b.finish(keep);
  return out;
}

float lower_median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[(v.size() + 1) / 2 - 1];
}

}  // namespace

TEST_CASE("baseline: block medians subtracted, SIGPROC's rule for the last partial block") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<float> x(1000);
  for (auto& v : x) v = static_cast<float>(rng() % 1000);
  const std::size_t block = 128;
  for (bool sigproc : {false, true}) {
    CAPTURE(sigproc);
    const auto y = run_baseline(x, block, sigproc, 1 + rng() % 300);
    REQUIRE(y.size() == x.size());
    float prev = 0.0f;
    for (std::size_t b0 = 0; b0 < x.size(); b0 += block) {
      const std::size_t n = std::min(block, x.size() - b0);
      const std::vector<float> part(x.begin() + static_cast<long>(b0), x.begin() + static_cast<long>(b0 + n));
      const float m = (n < block && sigproc) ? prev : lower_median(part);
      for (std::size_t i = 0; i < n; ++i) CHECK(y[b0 + i] == x[b0 + i] - m);
      prev = lower_median(part);
    }
    CHECK(run_baseline(x, block, sigproc, 7) == y);  // independent of how it is fed
  }
  // A series shorter than one block: SIGPROC subtracts nothing, median:N its own median.
  const std::vector<float> s{5, 1, 9};
  CHECK(run_baseline(s, 10, true, 3) == s);
  CHECK(run_baseline(s, 10, false, 3) == std::vector<float>{0, -4, 4});
  CHECK(BaselineSpec::parse("sigproc", 256).block == 8192);
  CHECK(BaselineSpec::parse("median:77", 256).block == 77);
  CHECK(BaselineSpec::parse("none", 256).kind == BaselineSpec::Kind::none);
  for (const char* bad : {"median", "median:0", "median:x", "mean:3", ""})
    CHECK_THROWS_AS(BaselineSpec::parse(bad, 8), Error);
}

TEST_CASE("quantizer: median at mid-range, 16 sigma full scale, clipped, independent of the pieces") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(1000.0f, 50.0f);
  std::vector<float> x(40000);
  for (auto& v : x) v = g(rng);
  x[100] = 1e9f;   // clipped high
  x[200] = -1e9f;  // clipped low
  for (int nbits : {8, 16}) {
    CAPTURE(nbits);
    auto run_q = [&](std::size_t piece) {
      SeriesQuantizer q(nbits, 16384);
      std::vector<std::uint32_t> out;
      auto keep = [&](const std::uint8_t* b, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) {
          if (nbits == 8) {
            out.push_back(b[i]);
          } else {
            std::uint16_t v;
            std::memcpy(&v, b + 2 * i, 2);
            out.push_back(v);
          }
        }
      };
      for (std::size_t i = 0; i < x.size(); i += piece) q.push(x.data() + i, std::min(piece, x.size() - i), keep);
      q.finish(keep);
      CHECK(q.sigma() == doctest::Approx(50.0).epsilon(0.05));
      return out;
    };
    const auto y = run_q(1000);
    REQUIRE(y.size() == x.size());
    CHECK(run_q(333) == y);
    const double full = std::ldexp(1.0, nbits);
    CHECK(y[100] == full - 1);
    CHECK(y[200] == 0);
    // The median is the warm-up's (the first kDefaultWarmup samples): the mapping is monotonic and
    // sends that median sample to mid-range exactly, so the same order statistic of the warm-up's
    // outputs is full / 2. (The whole series' median differs from it by sampling noise: ~33 steps
    // of 16 bits, which a fixed tolerance of 65 let through only ~95% of the time.)
    const std::size_t warm = SeriesQuantizer::kDefaultWarmup;
    std::vector<std::uint32_t> warm_sorted(y.begin(), y.begin() + static_cast<long>(warm));
    std::sort(warm_sorted.begin(), warm_sorted.end());
    CHECK(static_cast<double>(warm_sorted[(warm + 1) / 2 - 1]) == full / 2);
    std::vector<std::uint32_t> sorted(y);
    std::sort(sorted.begin(), sorted.end());
    // one sigma is 1/16 of the range
    const double q84 = sorted[static_cast<std::size_t>(0.8413 * static_cast<double>(sorted.size()))];
    CHECK((q84 - full / 2) == doctest::Approx(full / 16).epsilon(0.08));
  }
  CHECK_THROWS_AS(SeriesQuantizer(12), Error);
}

TEST_CASE("spool: series come back in order, from memory or after spilling to a file") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  // Budgets: all in memory; spilled with appends larger than a series' share (written at once);
  // spilled with appends smaller than it (gathered, then written in pieces).
  for (std::size_t budget : {std::size_t{1} << 30, std::size_t{1000}, std::size_t{10000}}) {
    CAPTURE(budget);
    SeriesSpool spool(5, budget);
    std::vector<std::vector<std::uint8_t>> want(5);
    for (int block = 0; block < 20; ++block) {
      for (std::size_t i = 0; i < 5; ++i) {
        std::vector<std::uint8_t> piece(rng() % 300);
        for (auto& b : piece) b = static_cast<std::uint8_t>(rng());
        spool.append(i, piece.data(), piece.size());
        want[i].insert(want[i].end(), piece.begin(), piece.end());
      }
    }
    CHECK((spool.spilled_bytes() > 0) == (budget < 1000000));
    for (std::size_t i = 0; i < 5; ++i) {
      std::vector<std::uint8_t> got;
      spool.read(i, [&](const std::uint8_t* p, std::size_t n) { got.insert(got.end(), p, p + n); });
      CHECK(spool.bytes(i) == want[i].size());
      CHECK(got == want[i]);
      spool.release(i);
    }
  }
  // A directory that cannot hold the spool file is named and said to be one (QA pass 20: /proc
  // gave only mkstemp's "No such file or directory").
  auto spill_in = [](const std::string& dir) {
    SeriesSpool s(1, 0, dir);
    const std::uint8_t b = 1;
    s.append(0, &b, 1);
  };
  CHECK_THROWS_WITH_AS(spill_in("/proc/no-such-dir"),
                       doctest::Contains("cannot hold temporary files (No such file or directory)"), Error);
  CHECK_THROWS_WITH_AS(
      spill_in("/proc"),
      doctest::Contains("cannot hold temporary files (the output's spool file could not be created there: "), Error);
  CHECK_THROWS_WITH_AS(spill_in("/dev/null"), doctest::Contains("cannot hold temporary files (not a directory)"),
                       Error);
  try {
    spill_in("/proc");
  } catch (const Error& e) {
    CHECK(e.path() == "/proc");
    CHECK(std::string(e.what()).find("--tmpdir") != std::string::npos);
  }
}

TEST_CASE("channel masks: ranges, files, SIGPROC killfiles and ignore lists") {
  test::TempDir tmp;
  auto killed = [](const std::vector<std::uint8_t>& keep) {
    std::vector<int> k;
    for (std::size_t c = 0; c < keep.size(); ++c) {
      if (keep[c] == 0) k.push_back(static_cast<int>(c));
    }
    return k;
  };
  CHECK(killed(parse_kill_channels("0:2,5 7", 10)) == std::vector<int>{0, 1, 2, 5, 7});
  std::ofstream(tmp / "kf") << "1\n0\n1\n0\n";
  CHECK(killed(parse_kill_channels((tmp / "kf").string(), 4)) == std::vector<int>{1, 3});
  std::ofstream(tmp / "list") << "# comment\n1:2\n";
  CHECK(killed(parse_kill_channels((tmp / "list").string(), 4)) == std::vector<int>{1, 2});
  std::ofstream(tmp / "ign") << "1 4\n";
  CHECK(killed(read_sigproc_ignore_file((tmp / "ign").string(), 4)) == std::vector<int>{0, 3});
  CHECK(describe_killed(parse_kill_channels("0:2,5", 10)) == "0:2,5");
  CHECK(describe_killed(std::vector<std::uint8_t>(3, 1)) == "none");
  for (const char* bad : {"0:10", "3:1", "x", "-1", "1:2:3"}) CHECK_THROWS_AS(parse_kill_channels(bad, 10), Error);
  CHECK_THROWS_AS(read_sigproc_ignore_file((tmp / "ign").string(), 3), Error);
  // A killfile for another channel count is refused, not read as channel numbers (its 1s mean
  // keep); one or two distinct 0/1 lines stay a channel list.
  std::ofstream(tmp / "kf3") << "1\n1\n0\n";
  try {
    (void)parse_kill_channels((tmp / "kf3").string(), 64);
    FAIL("accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("3 lines for 64 channels") != std::string::npos);
  }
  std::ofstream(tmp / "kf11") << "1\n1\n";
  CHECK_THROWS_AS(parse_kill_channels((tmp / "kf11").string(), 64), Error);
  std::ofstream(tmp / "two") << "0\n1\n";
  CHECK(killed(parse_kill_channels((tmp / "two").string(), 64)) == std::vector<int>{0, 1});
  std::ofstream(tmp / "one") << "1\n";
  CHECK(killed(parse_kill_channels((tmp / "one").string(), 64)) == std::vector<int>{1});
}

TEST_CASE("zero-DM filter: each spectrum's kept channels sum to zero, killed channels are zero") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> packed(50 * 12);
  for (auto& b : packed) b = static_cast<std::uint8_t>(rng());
  std::vector<std::uint8_t> keep(12, 1);
  keep[3] = 0;
  std::vector<float> out(packed.size());
  zero_dm_filter(packed.data(), 50, 12, 8, false, keep, out.data());
  for (std::size_t s = 0; s < 50; ++s) {
    double sum = 0;
    double mean = 0;
    for (std::size_t c = 0; c < 12; ++c) mean += c == 3 ? 0.0 : packed[s * 12 + c] / 11.0;
    for (std::size_t c = 0; c < 12; ++c) {
      sum += static_cast<double>(out[s * 12 + c]);
      if (c == 3) {
        CHECK(out[s * 12 + c] == 0.0f);
      } else {
        CHECK(static_cast<double>(out[s * 12 + c]) == doctest::Approx(packed[s * 12 + c] - mean));
      }
    }
    CHECK(std::fabs(sum) < 1e-3);
  }
}
