// SPDX-License-Identifier: MIT
// AccelCandidateList against a plain reference of PRESTO's candidate list: a linked list walked
// from its head for every hit (insert_new_accelcand's rules as accel_candidates.hpp states them),
// on hit streams dense enough that candidates land exactly 15 bins apart, which puts PRESTO's
// list out of r order (the case the list's max tree serves).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <list>
#include <random>
#include <tuple>
#include <vector>

#include "fastpsr/accel_candidates.hpp"
#include "fastpsr/accel_stats.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

struct RefCandidate {
  float power = 0;
  float sigma = 0;
  int numharm = 1;
  double r = 0;
  double z = 0;
};

// PRESTO's rules, plainly: walk to the first candidate with r >= rr (or the last); a candidate
// closer than 15 bins is replaced when its sigma is lower; if both neighbours are close and both
// lose, the first takes the hit and the second goes; otherwise a new candidate goes before the
// one the walk stopped at (or at the end, when that one lies more than 15 bins below).
class ReferenceList {
 public:
  explicit ReferenceList(const AccelCandidateSetup& s) : s_(s) {}

  void insert(const AccelHit& h) {
    const int numharm = 1 << h.stage;
    RefCandidate c;
    c.power = h.power;
    c.sigma = static_cast<float>(candidate_sigma(static_cast<double>(h.power), numharm,
                                                 static_cast<double>(s_.numindep[static_cast<std::size_t>(h.stage)])));
    c.numharm = numharm;
    c.r = static_cast<double>(h.rk) * kAccelDr / numharm;
    c.z = static_cast<double>(s_.problem.z_of(h.zi)) / numharm;
    if (list_.empty()) {
      list_.push_back(c);
      return;
    }
    auto t = list_.begin();
    while (std::next(t) != list_.end() && t->r < c.r) ++t;
    const bool has_prev = t != list_.begin();
    const double next_diff = std::fabs(c.r - t->r);
    const double prev_diff = has_prev ? std::fabs(c.r - std::prev(t)->r) : 16.0;
    if (prev_diff < 15.0) {
      bool added = false;
      if (std::prev(t)->sigma < c.sigma) {
        *std::prev(t) = c;
        added = true;
      }
      if (next_diff < 15.0 && t->sigma < c.sigma) {
        if (added) {
          list_.erase(t);
        } else {
          *t = c;
        }
      }
    } else if (next_diff < 15.0) {
      if (t->sigma < c.sigma) *t = c;
    } else if (std::next(t) == list_.end() && t->r < c.r - 15.0) {
      list_.push_back(c);
    } else {
      list_.insert(t, c);
    }
  }

  [[nodiscard]] std::vector<RefCandidate> candidates() const { return {list_.begin(), list_.end()}; }

 private:
  const AccelCandidateSetup& s_;
  std::list<RefCandidate> list_;
};

}  // namespace

TEST_CASE("accel candidate list: PRESTO's list, out of r order included, for dense hit streams") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  AccelCandidateSetup s;
  s.problem.numbins = 40000;
  s.problem.zmax = 20;
  s.problem.numharm = 4;
  s.problem.rk_begin = 40;
  s.problem.rk_end = 2 * s.problem.numbins - 40;
  s.problem.powcut = {10.0F, 14.0F, 20.0F};
  s.numindep = {1000000, 2000000, 4000000};
  s.order_block_rk = 997;
  bool saw_disorder = false;
  for (int round = 0; round < 20; ++round) {
    CAPTURE(round);
    // Hits on a coarse grid of rk (multiples of 30 half bins at one harmonic: r 15 bins apart)
    // with jitter, so that exact 15-bin spacings are common; powers above the stage cut.
    std::vector<AccelHit> hits;
    std::uniform_int_distribution<int> stage(0, 2), zi(0, s.problem.numz() - 1), grid(2, 2600), jitter(0, 3);
    std::exponential_distribution<float> excess(0.3F);
    for (int i = 0; i < 6000; ++i) {
      AccelHit h;
      h.stage = static_cast<std::int16_t>(stage(rng));
      h.rk = std::min<std::int64_t>(30LL * grid(rng) * (1 << h.stage) / 2 + jitter(rng), s.problem.rk_end - 1);
      h.zi = zi(rng);
      h.power = s.problem.powcut[static_cast<std::size_t>(h.stage)] + excess(rng);
      hits.push_back(h);
    }
    std::sort(hits.begin(), hits.end(), [](const AccelHit& a, const AccelHit& b) {
      return std::tie(a.stage, a.rk, a.zi) < std::tie(b.stage, b.rk, b.zi);
    });
    hits.erase(std::unique(hits.begin(), hits.end(),
                           [](const AccelHit& a, const AccelHit& b) {
                             return a.stage == b.stage && a.rk == b.rk && a.zi == b.zi;
                           }),
               hits.end());
    std::shuffle(hits.begin(), hits.end(), rng);

    AccelCandidateList list(s);
    const auto mid = s.problem.rk_begin + 3 * s.order_block_rk + 5;  // two ranges, a block split
    std::vector<AccelHit> first, second;
    for (const auto& h : hits) (h.rk < mid ? first : second).push_back(h);
    list.consume(s.problem.rk_begin, mid, first);
    list.consume(mid, s.problem.rk_end, second);

    // The reference inserts in the documented order: block, stage, w, z, r.
    const std::int64_t b0 = s.problem.rk_begin;
    std::sort(hits.begin(), hits.end(), [&](const AccelHit& a, const AccelHit& b) {
      return std::make_tuple((a.rk - b0) / s.order_block_rk, a.stage, a.wi, a.zi, a.rk) <
             std::make_tuple((b.rk - b0) / s.order_block_rk, b.stage, b.wi, b.zi, b.rk);
    });
    ReferenceList ref(s);
    for (const auto& h : hits) ref.insert(h);

    const auto got = list.candidates();
    const auto want = ref.candidates();
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CAPTURE(i);
      CHECK(got[i].r == want[i].r);
      CHECK(got[i].z == want[i].z);
      CHECK(got[i].numharm == want[i].numharm);
      CHECK(got[i].power == want[i].power);
      CHECK(got[i].sigma == want[i].sigma);
    }
    saw_disorder = saw_disorder ||
                   !std::is_sorted(want.begin(), want.end(), [](const auto& a, const auto& b) { return a.r < b.r; });
  }
  CHECK(saw_disorder);  // the streams did reach PRESTO's out-of-order case
}
