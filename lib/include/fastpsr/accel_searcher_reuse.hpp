// SPDX-License-Identifier: MIT
#pragma once
/// One FdotSearcher for the many DM trials of a run.
///
/// The DM trials of one observation differ a little in length: dedisp keeps each DM's valid
/// samples only, so N falls as the DM grows, and with N the spectrum's numbins, the searched
/// range rk_end and the thresholds (more trials, higher powcut) change. A searcher is costly to
/// make (the plane's memory, templates and FFT plans, and on the CPU the first touch of a plane of
/// gigabytes), so making one per trial cost more than the search itself on a GPU.
///
/// A searcher made for a longer trial searches a shorter one exactly: its overlap-save segments
/// start at the same bins (the layout is anchored at rk_begin, and the FFT length depends only on
/// zmax and the interpolation), bins past the short spectrum's end are zero in both (the
/// definition in accel.hpp), so every plane value and harmonic sum below the short trial's rk_end
/// is the same float. What differs is only which hits count: the searcher runs with the lowest
/// thresholds of the trials it searches at once, and each trial's hits are then kept where they
/// lie below its own rk_end and above its own powcut (strictly, as the definition says), with the
/// ranges clipped to [rk_begin, rk_end). So the hits, and everything made from them, are those
/// of a searcher made for the trial itself (tested in tests/unit/accel).
#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "fastpsr/accel.hpp"

namespace fastpsr {

/// Whether a searcher made for `have` can search spectra of `want` through
/// ReusedFdotSearcher: the same grid (zmax, wmax, numharm, interpolation, rk_begin), and `want`
/// no longer (numbins) and searching no further (rk_end). Thresholds may differ.
[[nodiscard]] bool accel_problem_covers(const AccelSearchProblem& have, const AccelSearchProblem& want);

/// The hits of a searcher whose problem covers `want`, as a searcher made for `want` gives them:
/// ranges clipped to want.rk_end, hits at or past it dropped, and hits at or below want's
/// threshold of their stage dropped. Passes the rest to `next`.
class CoveredHitSink final : public AccelHitSink {
 public:
  CoveredHitSink(const AccelSearchProblem& want, AccelHitSink& next) : want_(&want), next_(&next) {}
  void consume(std::int64_t rk_lo, std::int64_t rk_hi, std::span<const AccelHit> hits) override;

 private:
  const AccelSearchProblem* want_;
  AccelHitSink* next_;
  std::vector<AccelHit> kept_;
};

/// One DM trial for ReusedFdotSearcher::search: its spectrum (problem->numbins bins), power
/// scale, problem and sink.
struct AccelTrialRef {
  std::span<const std::complex<float>> spectrum;
  AccelPowerScale scale;
  const AccelSearchProblem* problem = nullptr;
  AccelHitSink* sink = nullptr;
};

/// Keeps the current searcher while it covers the trials (see above) and makes a new one, for
/// the trial at hand, when it does not.
class ReusedFdotSearcher {
 public:
  using Factory = std::function<std::unique_ptr<FdotSearcher>(const AccelSearchProblem&)>;
  explicit ReusedFdotSearcher(Factory make) : make_(std::move(make)) {}

  /// Makes sure the current searcher covers `want`; returns true when a new one was made for it.
  bool ensure(const AccelSearchProblem& want);
  /// Releases the current searcher and its memory (the next ensure() makes a new one).
  void drop() noexcept { searcher_.reset(); }
  /// The current searcher (null before the first ensure()).
  [[nodiscard]] const FdotSearcher* current() const noexcept { return searcher_.get(); }
  /// Searches the trials (each covered by the current searcher: Error(internal) otherwise) as one
  /// batch of the current searcher; each trial's hits go to its sink as described above.
  void search(std::span<const AccelTrialRef> trials);
  /// Trials searched by a searcher made for a longer one, so far.
  [[nodiscard]] std::uint64_t reused() const noexcept { return reused_; }

 private:
  Factory make_;
  std::unique_ptr<FdotSearcher> searcher_;
  std::vector<std::complex<float>> padded_;  // trials zero-padded to the searcher's numbins
  std::uint64_t reused_ = 0;
};

}  // namespace fastpsr
