// SPDX-License-Identifier: MIT
#include "fastpsr/accel_searcher_reuse.hpp"

#include <algorithm>
#include <limits>

#include "fastpsr/error.hpp"

namespace fastpsr {

bool accel_problem_covers(const AccelSearchProblem& have, const AccelSearchProblem& want) {
  return have.zmax == want.zmax && have.wmax == want.wmax && have.numharm == want.numharm &&
         have.interp == want.interp && have.rk_begin == want.rk_begin && want.numbins <= have.numbins &&
         want.rk_end <= have.rk_end && have.powcut.size() == want.powcut.size();
}

void CoveredHitSink::consume(std::int64_t rk_lo, std::int64_t rk_hi, std::span<const AccelHit> hits) {
  const AccelSearchProblem& w = *want_;
  if (rk_lo >= w.rk_end) return;  // past the trial's range: a searcher made for it never gets here
  kept_.clear();
  for (const AccelHit& h : hits) {
    const auto stage = static_cast<std::size_t>(h.stage);
    FASTPSR_ASSERT(stage < w.powcut.size());
    if (h.rk < w.rk_end && h.power > w.powcut[stage]) kept_.push_back(h);
  }
  next_->consume(rk_lo, std::min(rk_hi, w.rk_end), kept_);
}

bool ReusedFdotSearcher::ensure(const AccelSearchProblem& want) {
  if (searcher_ && accel_problem_covers(searcher_->problem(), want)) return false;
  searcher_.reset();  // its memory first: the new one may need all of it
  searcher_ = make_(want);
  FASTPSR_ASSERT(searcher_ != nullptr);
  return true;
}

void ReusedFdotSearcher::search(std::span<const AccelTrialRef> trials) {
  if (trials.empty()) return;
  FASTPSR_ASSERT(searcher_ != nullptr);
  const AccelSearchProblem& have = searcher_->problem();
  const auto n = static_cast<std::size_t>(have.numbins);
  // The searcher's thresholds: the lowest of the batch, stage by stage (each sink keeps its own).
  std::vector<float> cut(have.powcut.size(), std::numeric_limits<float>::infinity());
  bool exact = true;  // every trial has the searcher's own length
  for (const AccelTrialRef& t : trials) {
    FASTPSR_EXPECTS(t.problem != nullptr && t.sink != nullptr, "accel: a trial without its problem or sink");
    FASTPSR_EXPECTS(
        accel_problem_covers(have, *t.problem) && t.spectrum.size() == static_cast<std::size_t>(t.problem->numbins),
        "accel: a trial of {} bins (problem {} bins, rk < {}) is not covered by the searcher ({} bins, "
        "rk < {})",
        t.spectrum.size(), t.problem->numbins, t.problem->rk_end, have.numbins, have.rk_end);
    for (std::size_t s = 0; s < cut.size(); ++s) cut[s] = std::min(cut[s], t.problem->powcut[s]);
    exact = exact && t.spectrum.size() == n;
    if (t.spectrum.size() != n) ++reused_;
  }
  searcher_->set_powcut(cut);

  std::vector<CoveredHitSink> covered;
  covered.reserve(trials.size());
  std::vector<AccelHitSink*> sinks;
  std::vector<AccelPowerScale> scales;
  for (const AccelTrialRef& t : trials) {
    covered.emplace_back(*t.problem, *t.sink);
    sinks.push_back(&covered.back());
    scales.push_back(t.scale);
  }
  if (trials.size() == 1 && exact) {
    searcher_->search(trials.front().spectrum, scales.front(), *sinks.front());
    return;
  }
  // One contiguous block of spectra, each zero-padded to the searcher's length.
  padded_.assign(trials.size() * n, std::complex<float>(0.0F, 0.0F));
  for (std::size_t b = 0; b < trials.size(); ++b) {
    std::copy(trials[b].spectrum.begin(), trials[b].spectrum.end(),
              padded_.begin() + static_cast<std::ptrdiff_t>(b * n));
  }
  searcher_->search_batch(padded_.data(), n, scales, sinks);
}

}  // namespace fastpsr
