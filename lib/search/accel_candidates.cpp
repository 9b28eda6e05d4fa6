// SPDX-License-Identifier: MIT
#include "fastpsr/accel_candidates.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <tuple>

#include "fastpsr/accel_stats.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr {
namespace {
constexpr double kClosestR = 15.0;  // PRESTO's ACCEL_CLOSEST_R
}  // namespace

AccelCandidateList::AccelCandidateList(AccelCandidateSetup setup) : s_(std::move(setup)) {
  validate(s_.problem);
  FASTPSR_EXPECTS(s_.numindep.size() == static_cast<std::size_t>(s_.problem.stages()),
                  "candidate list: {} trial counts for {} stages", s_.numindep.size(), s_.problem.stages());
  FASTPSR_EXPECTS(s_.order_block_rk > 0, "candidate list: the block length must be positive");
}

void AccelCandidateList::consume(std::int64_t rk_lo, std::int64_t rk_hi, std::span<const AccelHit> hits) {
  FASTPSR_ASSERT(rk_lo == (covered_ < 0 ? s_.problem.rk_begin : covered_) && rk_hi >= rk_lo);
  covered_ = rk_hi;
  hits_seen_ += hits.size();
  pending_.insert(pending_.end(), hits.begin(), hits.end());
  // Blocks that end at or before rk_hi are complete; the rest waits for the next range.
  const std::int64_t b0 = s_.problem.rk_begin;
  const std::int64_t done_end =
      rk_hi >= s_.problem.rk_end ? rk_hi : b0 + (rk_hi - b0) / s_.order_block_rk * s_.order_block_rk;
  auto split = std::partition(pending_.begin(), pending_.end(), [&](const AccelHit& h) { return h.rk < done_end; });
  std::vector<AccelHit> ready(pending_.begin(), split);
  pending_.erase(pending_.begin(), split);
  insert_block_hits(ready);
}

void AccelCandidateList::insert_block_hits(std::vector<AccelHit>& hits) {
  const std::int64_t b0 = s_.problem.rk_begin;
  const std::int64_t len = s_.order_block_rk;
  std::sort(hits.begin(), hits.end(), [&](const AccelHit& a, const AccelHit& b) {
    return std::make_tuple((a.rk - b0) / len, a.stage, a.wi, a.zi, a.rk) <
           std::make_tuple((b.rk - b0) / len, b.stage, b.wi, b.zi, b.rk);
  });
  for (const AccelHit& h : hits) {
    const int numharm = 1 << h.stage;
    const double r = (static_cast<double>(h.rk) * kAccelDr) / numharm;
    const double z = static_cast<double>(s_.problem.z_of(h.zi)) / numharm;
    const double w = static_cast<double>(-s_.problem.wmax + kAccelDw * h.wi) / numharm;
    insert(h.power, h.stage, r, z, w);
  }
}

void AccelCandidateList::insert(float power, int stage, double rr, double zz, double ww) {
  const int numharm = 1 << stage;
  // sigma (a float, as PRESTO keeps it) only when a comparison needs it: a neighbour of the same
  // stage with at least this power has at least this sigma, sigma being monotonic in power.
  float sigma = -1.0F;
  auto get_sigma = [&] {
    if (sigma < 0.0F) {
      sigma = static_cast<float>(candidate_sigma(static_cast<double>(power), numharm,
                                                 static_cast<double>(s_.numindep[static_cast<std::size_t>(stage)])));
    }
    return sigma;
  };
  auto loses_to = [&](const AccelCandidate& c) {  // PRESTO: c.sigma < sigma
    if (c.numharm == numharm && power <= c.power) return false;
    return c.sigma < get_sigma();
  };
  auto fresh = [&] {
    AccelCandidate c;
    c.power = power;
    c.sigma = get_sigma();
    c.numharm = numharm;
    c.r = rr;
    c.z = zz;
    c.w = ww;
    return c;
  };
  bool added = false;
  if (list_.empty()) {
    list_.push_back(fresh());
    added = true;
  } else {
    // PRESTO walks its r-ordered list to the first candidate with r >= rr (or to the last one);
    // while the list is sorted, a binary search finds the same one.
    // Out of order, the first candidate in list order with r >= rr (what the walk reaches) is
    // found in the max tree.
    std::size_t t = 0;
    if (sorted_) {
      t = static_cast<std::size_t>(
          std::lower_bound(list_.begin(), list_.end(), rr, [](const AccelCandidate& c, double v) { return c.r < v; }) -
          list_.begin());
    } else {
      t = first_at_least(rr);
    }
    if (t >= list_.size()) t = list_.size() - 1;
    const bool has_prev = t > 0;
    const double next_diff = std::fabs(rr - list_[t].r);
    const double prev_diff = has_prev ? std::fabs(rr - list_[t - 1].r) : kClosestR + 1.0;
    if (prev_diff < kClosestR) {
      if (loses_to(list_[t - 1])) {
        list_[t - 1] = fresh();
        set_max_tree(t - 1, rr);
        added = true;
      }
      if (next_diff < kClosestR && loses_to(list_[t])) {
        if (added) {
          list_.erase(list_.begin() + static_cast<std::ptrdiff_t>(t));
          rebuild_max_tree();
        } else {
          list_[t] = fresh();
          set_max_tree(t, rr);
          added = true;
        }
      }
    } else if (next_diff < kClosestR) {
      if (loses_to(list_[t])) {
        list_[t] = fresh();
        set_max_tree(t, rr);
        added = true;
      }
    } else {
      added = true;
      if (t + 1 == list_.size() && list_[t].r < rr - kClosestR) {
        list_.push_back(fresh());
      } else {
        // PRESTO inserts before the candidate it stopped at, which is out of r order when that
        // one lies exactly 15 bins below (from then on the walk's target is found in the tree).
        if (list_[t].r < rr) sorted_ = false;
        list_.insert(list_.begin() + static_cast<std::ptrdiff_t>(t), fresh());
      }
      rebuild_max_tree();
    }
  }
  if (added && s_.keep_txtcand) {
    txtcand_ +=
        fmt::format("{:<7.2f}  {:<7.4f}  {:<2d}  {:<14.4f}  {:<14.9f}  {:<10.4f} {:<10.4f}\n",
                    static_cast<double>(power), static_cast<double>(get_sigma()), numharm, rr, rr / s_.T_s, zz, ww);
  }
}

void AccelCandidateList::rebuild_max_tree() {
  if (sorted_) return;  // the binary search serves a sorted list
  const std::size_t leaves = std::bit_ceil(std::max<std::size_t>(list_.size(), 1));
  max_tree_.assign(2 * leaves, -std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < list_.size(); ++i) max_tree_[leaves + i] = list_[i].r;
  for (std::size_t i = leaves - 1; i >= 1; --i) max_tree_[i] = std::max(max_tree_[2 * i], max_tree_[2 * i + 1]);
}

void AccelCandidateList::set_max_tree(std::size_t i, double r) {
  if (sorted_) return;
  std::size_t node = max_tree_.size() / 2 + i;
  max_tree_[node] = r;
  for (node /= 2; node >= 1; node /= 2) max_tree_[node] = std::max(max_tree_[2 * node], max_tree_[2 * node + 1]);
}

std::size_t AccelCandidateList::first_at_least(double rr) const {
  // The first leaf (list position) whose r >= rr: descend towards the leftmost subtree whose
  // maximum reaches rr. None: the list's size (the walk then stops at the last candidate).
  if (max_tree_.size() < 2 || max_tree_[1] < rr) return list_.size();
  const std::size_t leaves = max_tree_.size() / 2;
  std::size_t node = 1;
  while (node < leaves) node = max_tree_[2 * node] >= rr ? 2 * node : 2 * node + 1;
  return node - leaves;
}

std::vector<AccelCandidate> AccelCandidateList::candidates() const {
  if (covered_ != s_.problem.rk_end) {
    throw Error(ErrorCode::internal,
                fmt::format("the searcher covered r up to half-bin {} of {}", covered_, s_.problem.rk_end));
  }
  FASTPSR_ASSERT(pending_.empty());
  return list_;
}

void sort_by_sigma(std::vector<AccelCandidate>& cands) {
  std::stable_sort(cands.begin(), cands.end(), [](const AccelCandidate& a, const AccelCandidate& b) {
    if (a.sigma != b.sigma) return a.sigma > b.sigma;
    return a.power > b.power;
  });
}

int eliminate_harmonics(std::vector<AccelCandidate>& cands) {
  static constexpr std::array<std::array<double, 2>, 23> ratios{
      {{3, 2}, {5, 2}, {2, 3}, {4, 3}, {5, 3}, {3, 4},  {5, 4},  {2, 5},  {3, 5},  {4, 5},  {5, 6}, {2, 7},
       {3, 7}, {4, 7}, {3, 8}, {5, 8}, {2, 9}, {3, 10}, {2, 11}, {3, 11}, {2, 13}, {3, 13}, {2, 15}}};
  constexpr int max_harm = 16;
  constexpr double too_close = 1.5;
  int removed = 0;
  for (std::size_t cur = 0; cur + 1 < cands.size(); ++cur) {
    const double r = cands[cur].r;
    for (std::size_t other = cur + 1; other < cands.size();) {
      const double o = cands[other].r;
      bool related = false;
      for (int i = 1; i <= max_harm && !related; ++i) related = std::fabs(r / i - o) < too_close;
      for (int i = 1; i <= max_harm && !related; ++i) related = std::fabs(r * i - o) < too_close;
      for (const auto& q : ratios) {
        if (related) break;
        related = std::fabs(r * q[0] / q[1] - o) < too_close;
      }
      if (related) {
        cands.erase(cands.begin() + static_cast<std::ptrdiff_t>(other));
        ++removed;
      } else {
        ++other;
      }
    }
  }
  return removed;
}

FourierProps calc_props(const RDerivs& d, double r, double z, double w) {
  constexpr double pi = 3.14159265358979323846;
  FourierProps p;
  // PRESTO exits on a zero power (a harmonic beyond the spectrum); we report zeros instead.
  const bool empty = !(std::fabs(d.pow) >= 1e-14 && d.locpow >= 1e-14);
  const double pow = empty ? 0.0 : d.pow / d.locpow;
  const double d2pow = empty ? 0.0 : d.d2pow / d.locpow;
  const double pur = empty ? 1.0 : std::sqrt(1.5 * std::fabs(d2pow) / pow) / pi;
  p.pur = static_cast<float>(pur);
  const double purf = static_cast<double>(p.pur);  // PRESTO reuses the stored float
  p.purerr = static_cast<float>(1.0 / (purf * std::sqrt(10.0 * pow)));
  p.r = r;
  p.rerr = static_cast<float>(3.0 / (pi * purf * std::sqrt(6.0 * pow)));
  p.z = z;
  p.zerr = static_cast<float>(3.0 * std::sqrt(10.0) / (pi * purf * purf * std::sqrt(pow)));
  p.w = w;
  p.werr = static_cast<float>(6.0 * std::sqrt(105.0) / (pi * purf * purf * purf * std::sqrt(pow)));
  p.pow = static_cast<float>(pow);
  p.powerr = static_cast<float>(std::sqrt(2.0 * pow));
  p.sig = static_cast<float>(std::sqrt(2.0 * pow - std::log(pi * pow)));
  p.rawpow = static_cast<float>(d.pow);
  p.phs = static_cast<float>(d.phs);
  p.phserr = static_cast<float>(1.0 / static_cast<double>(p.powerr));
  p.cen = static_cast<float>(-d.dphs / (2.0 * pi));
  p.cenerr = static_cast<float>(1.0 / std::sqrt(24.0 * pow));
  p.locpow = static_cast<float>(d.locpow);
  return p;
}

}  // namespace fastpsr
