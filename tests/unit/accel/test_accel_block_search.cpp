// SPDX-License-Identifier: MIT
// The CPU searcher's block search (bounded memory, PRESTO's default search) against its whole
// plane: the same hits, bit for bit, in the same order.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "fastpsr/accel.hpp"
#include "fastpsr/cpu/accel_cpu.hpp"
#include "fastpsr/accel_plane_windows.hpp"
#include "fastpsr/error.hpp"
#include "support/reference_accel.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

struct Run {
  std::vector<AccelHit> hits;
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
};

class RecordingSink final : public AccelHitSink {
 public:
  void consume(std::int64_t lo, std::int64_t hi, std::span<const AccelHit> hits) override {
    run.ranges.emplace_back(lo, hi);
    run.hits.insert(run.hits.end(), hits.begin(), hits.end());
  }
  Run run;
};

Run search(const AccelSearchProblem& p, const std::vector<std::complex<float>>& x, const AccelPowerScale& scale,
           AccelSearchOptions o) {
  auto searcher = cpu::make_fdot_searcher(p, o);
  RecordingSink sink;
  searcher->search(x, scale, sink);
  return sink.run;
}

void check_same(const Run& whole, const Run& blocks) {
  CHECK(whole.ranges == blocks.ranges);
  REQUIRE(whole.hits.size() == blocks.hits.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < whole.hits.size(); ++i) {
    const auto& a = whole.hits[i];
    const auto& b = blocks.hits[i];
    differ += a.rk != b.rk || a.zi != b.zi || a.stage != b.stage || a.power != b.power;
  }
  CHECK_MESSAGE(differ == 0, differ << " of " << whole.hits.size() << " hits differ");
}

}  // namespace

TEST_CASE("accel block search: windows hold exactly the points the sums read") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 40; ++trial) {
    const int zmax = 2 * static_cast<int>(rng() % 60);
    const int stages = 1 + static_cast<int>(rng() % 6);
    const std::int64_t width = 1 + static_cast<std::int64_t>(rng() % 5000);
    const std::int64_t a = static_cast<std::int64_t>(rng() % 100000);
    const std::int64_t b = a + 1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(width));
    for (const auto& t : sum_terms(stages)) {
      const auto w = term_window(t, zmax, a, b);
      std::int64_t col_lo = INT64_MAX, col_hi = INT64_MIN;
      for (std::int64_t rk = a; rk < b; ++rk) {
        col_lo = std::min(col_lo, sub_rk(rk, t.h, t.H));
        col_hi = std::max(col_hi, sub_rk(rk, t.h, t.H) + 1);
      }
      int row_lo = INT32_MAX, row_hi = INT32_MIN;
      for (int z = -zmax; z <= zmax; z += 2) {
        const int szi = (sub_z(z, t.h, t.H) + zmax) / 2;
        row_lo = std::min(row_lo, szi);
        row_hi = std::max(row_hi, szi);
      }
      INFO("h/H " << t.h << "/" << t.H << " zmax " << zmax << " rk " << a << ".." << b);
      CHECK(w.col_lo == col_lo);
      CHECK(w.col_hi == col_hi);
      CHECK(w.row_lo == row_lo);
      CHECK(w.row_hi == row_hi);
      CHECK(w.cols() <= term_pitch(t, width));
    }
  }
  // Term order: the highest harmonic, then the odd fractions stage by stage.
  const auto terms = sum_terms(4);
  REQUIRE(terms.size() == 8);
  CHECK((terms[0].h == 1 && terms[0].H == 1));
  CHECK((terms[1].h == 1 && terms[1].H == 2));
  CHECK((terms[3].h == 3 && terms[3].H == 4));
  CHECK((terms[7].h == 7 && terms[7].H == 8));
}

TEST_CASE("accel block search: segment jobs cover every window point with its owning segment") {
  const std::vector<PlaneWindow> windows{{100, 900, 0, 20}, {50, 450, 5, 15}, {2000, 2600, 8, 12}};
  for (const bool interbin : {false, true}) {
    const std::int64_t o_lo = interbin ? 20 : 40;
    const std::int64_t use = 96;
    const auto jobs = segment_jobs(windows, o_lo, use, interbin);
    CHECK(std::is_sorted(jobs.begin(), jobs.end(), [](const auto& x, const auto& y) { return x.segment < y.segment; }));
    for (std::size_t t = 0; t < windows.size(); ++t) {
      for (std::int64_t rk = windows[t].col_lo; rk < windows[t].col_hi; ++rk) {
        const std::int64_t s = ((interbin ? rk / 2 : rk) - o_lo) / use;
        const auto it = std::find_if(jobs.begin(), jobs.end(), [&](const auto& j) { return j.segment == s; });
        REQUIRE(it != jobs.end());
        CHECK((it->terms >> t & 1U) == 1U);
        CHECK(it->row_lo <= windows[t].row_lo);
        CHECK(it->row_hi >= windows[t].row_hi);
      }
    }
    // No segment that no window needs.
    for (const auto& j : jobs) CHECK(j.terms != 0);
  }
}

TEST_CASE("accel block search: the widest fitting block is the widest whole-chunk width that fits") {
  const auto terms = sum_terms(4);
  const std::int64_t chunk = 16384;
  for (const std::int64_t range : {std::int64_t{1}, chunk, 5 * chunk + 7, 40 * chunk}) {
    const std::int64_t chunks = (range + chunk - 1) / chunk;
    for (const std::int64_t budget_chunks : {std::int64_t{1}, std::int64_t{3}, std::int64_t{17}, std::int64_t{100}}) {
      const std::size_t budget = block_window_bytes(terms, 200, budget_chunks * chunk);
      auto fits = [&](std::int64_t w) { return block_window_bytes(terms, 200, w) <= budget; };
      // By enumeration: the most chunks, up to covering the range, whose windows fit.
      std::int64_t expected = 0;
      for (std::int64_t c = 1; c <= chunks; ++c) {
        if (fits(c * chunk)) expected = c * chunk;
      }
      CHECK(widest_fitting_block(range, chunk, fits) == expected);
    }
  }
  // Nothing fits: 0 (the GPU searcher then refuses; the CPU one takes one chunk regardless).
  CHECK(widest_fitting_block(10 * chunk, chunk, [](std::int64_t) { return false; }) == 0);
}

TEST_CASE("accel block search: the same hits as the whole plane, bit for bit") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  // A block-median-like power scale with steps inside and across blocks.
  std::vector<std::int64_t> starts;
  std::vector<float> factors;
  for (std::int64_t rk = 0; rk < 140000; rk += 3001) {
    starts.push_back(rk);
    factors.push_back(0.8F + 0.4F * static_cast<float>((rk / 3001) % 7) / 7.0F);
  }
  const AccelPowerScale scale{starts, factors};
  struct Case {
    AccelInterp interp;
    int zmax;
    int numharm;
    std::int64_t rk_begin;
    std::int64_t block;
    int fft_len;
  };
  const Case cases[] = {
      {AccelInterp::fourier, 20, 8, 37, 16384, 512},
      {AccelInterp::fourier, 0, 16, 1001, 32768, 0},
      {AccelInterp::interbin, 16, 16, 2 * 91 + 1, 16384, 256},
      {AccelInterp::fourier, 12, 32, 400, 49152, 0},
      {AccelInterp::interbin, 30, 4, 64, 65536, 0},
      {AccelInterp::fourier, 8, 1, 10, 16384, 0},
  };
  for (const auto& c : cases) {
    AccelSearchProblem p;
    p.numbins = 1 << 16;
    p.zmax = c.zmax;
    p.numharm = c.numharm;
    p.interp = c.interp;
    p.rk_begin = c.rk_begin;
    p.rk_end = 2 * p.numbins - 7;
    // Low thresholds: many hits in every stage.
    for (int s = 0; s < p.stages(); ++s) p.powcut.push_back(2.0F + 1.5F * static_cast<float>(1 << s));
    const auto x = test::noisy_accel_spectrum(seed + static_cast<std::uint64_t>(c.numharm), p.numbins, 23456.7, 6.0);
    const std::string interp = c.interp == AccelInterp::fourier ? "fourier" : "interbin";
    INFO(interp << " zmax " << c.zmax << " numharm " << c.numharm << " block " << c.block);
    AccelSearchOptions o;
    o.fft_len = c.fft_len;
    o.threads = 2;
    const Run whole = search(p, x, scale, o);
    CHECK(whole.hits.size() > 1000);
    o.block_rk = c.block;
    check_same(whole, search(p, x, scale, o));
  }
}

TEST_CASE("accel block search: a memory limit below the plane picks blocks that fit it") {
  AccelSearchProblem p;
  p.numbins = 1 << 17;
  p.zmax = 40;
  p.numharm = 16;
  p.rk_begin = 100;
  p.rk_end = 2 * p.numbins;
  p.powcut = {20.0F, 25.0F, 30.0F, 40.0F, 55.0F};
  const std::size_t whole = static_cast<std::size_t>(p.numz()) * static_cast<std::size_t>(p.rk_end) * sizeof(float);
  AccelSearchOptions o;
  o.plane_memory = whole / 4;
  auto searcher = cpu::make_fdot_searcher(p, o);
  CHECK(searcher->describe().find("block search") != std::string::npos);
  CHECK(searcher->host_bytes() < whole / 4 + (8 << 20));  // windows + templates
  // Enough memory: the whole plane.
  o.plane_memory = 2 * whole;
  CHECK(cpu::make_fdot_searcher(p, o)->describe().find("block search") == std::string::npos);
  // Too little for even one chunk: still one chunk a block (memory then bounded by the chunk).
  o.plane_memory = 1;
  CHECK(cpu::make_fdot_searcher(p, o)->describe().find("16384 half bins (rk) a block") != std::string::npos);
  // A narrow range (as -rlo/-rhi give) whose whole plane is smaller than one chunk's windows:
  // the whole plane, whatever the limit (QA pass 14: 1.6 MiB of plane took 73.7 MiB in blocks).
  AccelSearchProblem narrow = p;
  narrow.rk_begin = 100;
  narrow.rk_end = 100 + 20000;
  o.plane_memory = accel_plane_bytes(narrow) / 2;
  const auto small = cpu::make_fdot_searcher(narrow, o);
  CHECK(small->describe().find("block search") == std::string::npos);
  CHECK(small->host_bytes() < accel_plane_bytes(narrow) + (8 << 20));
  // A width that is not whole chunks is refused.
  o.plane_memory = 0;
  o.block_rk = 1000;
  CHECK_THROWS_AS(cpu::make_fdot_searcher(p, o), Error);
}
