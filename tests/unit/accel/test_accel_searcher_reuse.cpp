// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include "fastpsr/accel_searcher_reuse.hpp"
#include "fastpsr/cpu/accel_cpu.hpp"
#include "fastpsr/error.hpp"
#include "support/accel_reuse_checks.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;
using test::reuse_problem;

TEST_CASE("accel searcher reuse: a searcher made for a longer trial gives a shorter one's hits exactly") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  AccelSearchOptions o;
  o.fft_len = 256;  // several segments, the last one partly past the short spectra's end
  test::check_reuse_matches_fresh([&](const AccelSearchProblem& p) { return cpu::make_fdot_searcher(p, o); }, seed);
}

TEST_CASE("accel searcher reuse: what a searcher covers") {
  const AccelSearchProblem have = reuse_problem(1500, {6.0F, 10.0F, 16.0F});
  CHECK(accel_problem_covers(have, have));
  CHECK(accel_problem_covers(have, reuse_problem(1000, {1.0F, 2.0F, 3.0F})));
  auto longer = reuse_problem(1501, {6.0F, 10.0F, 16.0F});
  CHECK_FALSE(accel_problem_covers(have, longer));
  auto further = have;
  further.rk_end += 1;
  CHECK_FALSE(accel_problem_covers(have, further));
  auto other_z = have;
  other_z.zmax = 12;
  CHECK_FALSE(accel_problem_covers(have, other_z));
  auto other_h = reuse_problem(1500, {6.0F, 10.0F, 16.0F, 20.0F});
  other_h.numharm = 8;
  CHECK_FALSE(accel_problem_covers(have, other_h));
  auto other_begin = have;
  other_begin.rk_begin += 1;
  CHECK_FALSE(accel_problem_covers(have, other_begin));
  auto interbin = have;
  interbin.interp = AccelInterp::interbin;
  CHECK_FALSE(accel_problem_covers(have, interbin));

  // A trial the current searcher does not cover gets a new one; searching it through the old one
  // is refused.
  int made = 0;
  ReusedFdotSearcher reuse([&](const AccelSearchProblem& p) {
    ++made;
    return cpu::make_fdot_searcher(p, {});
  });
  CHECK(reuse.ensure(have));
  CHECK_FALSE(reuse.ensure(reuse_problem(900, {6.0F, 10.0F, 16.0F})));
  const std::vector<std::complex<float>> x(static_cast<std::size_t>(longer.numbins));
  CollectingHitSink sink;
  const AccelTrialRef ref{x, {}, &longer, &sink};
  CHECK_THROWS_AS(reuse.search({&ref, 1}), Error);
  CHECK(reuse.ensure(longer));
  CHECK(made == 2);
  CHECK(reuse.current()->problem().numbins == longer.numbins);
}

TEST_CASE("accel searcher reuse: the covered sink clips ranges and keeps hits strictly above the trial's cut") {
  AccelSearchProblem want = reuse_problem(100, {5.0F, 8.0F, 12.0F});
  want.rk_end = 150;
  CollectingHitSink next;
  CoveredHitSink sink(want, next);
  const std::vector<AccelHit> first{
      {70, 0, 0, 0, 5.0F}, {71, 1, 0, 0, 5.5F}, {72, 2, 0, 1, 8.0F}, {90, 3, 0, 2, 13.0F}};
  sink.consume(61, 100, first);
  const std::vector<AccelHit> second{{120, 0, 0, 1, 9.0F}, {149, 0, 0, 0, 7.0F}, {150, 0, 0, 0, 7.0F}};
  sink.consume(100, 180, second);
  sink.consume(180, 199, second);  // past rk_end: nothing arrives
  CHECK(next.covered_begin == 61);
  CHECK(next.covered_end == 150);
  REQUIRE(next.hits.size() == 4);
  CHECK(next.hits[0].rk == 71);
  CHECK(next.hits[1].rk == 90);
  CHECK(next.hits[2].rk == 120);
  CHECK(next.hits[3].rk == 149);
}
