// SPDX-License-Identifier: MIT
#pragma once
/// Acceleration-search candidates, shared by every backend: hits become candidates as PRESTO's
/// accelsearch makes them (same order of insertion, same merging within 15 bins, same sigma),
/// then are sorted, pruned of harmonics and optimised on the interpolated f-fdot plane.
#include <complex>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fastpsr/accel.hpp"

namespace fastpsr {

/// PRESTO's rderivs: power, phase and their derivatives in r at a point of the plane.
struct RDerivs {
  double pow = 0, phs = 0, dpow = 0, dphs = 0, d2pow = 0, d2phs = 0, locpow = 0;
};

/// PRESTO's fourierprops (presto.h); the layout of a .cand record (accel_output.hpp).
struct FourierProps {
  double r = 0;
  float rerr = 0;
  double z = 0;
  float zerr = 0;
  double w = 0;
  float werr = 0;
  float pow = 0, powerr = 0, sig = 0, rawpow = 0, phs = 0, phserr = 0, cen = 0, cenerr = 0, pur = 0, purerr = 0,
        locpow = 0;
};

struct AccelCandidate {
  float power = 0;  ///< summed normalised power on the search grid
  float sigma = 0;  ///< candidate_sigma(power, numharm, numindep[stage]) as float (PRESTO)
  int numharm = 1;
  double r = 0;  ///< fundamental r = r_H / numharm (mid-observation), bins
  double z = 0;  ///< fundamental z = z_H / numharm
  double w = 0;
  // Filled by optimize_candidate (one entry per harmonic):
  std::vector<double> pows;  ///< optimised powers (raw, not over local power)
  std::vector<double> hirs, hizs, hiws;
  std::vector<RDerivs> derivs;
};

/// The context PRESTO uses to turn hits into candidates.
struct AccelCandidateSetup {
  AccelSearchProblem problem;
  std::vector<std::int64_t> numindep;  ///< per stage (accel_numindep)
  std::int64_t order_block_rk = 1;     ///< PRESTO's block length in half bins (PrestoBlocks::uselen)
  double T_s = 0;                      ///< observation length, for .txtcand frequencies
  bool keep_txtcand = false;           ///< record PRESTO's .txtcand lines
};

/// Receives the hits of one spectrum and keeps PRESTO's candidate list: hits are inserted block
/// by block ([rk_begin + k*order_block_rk, ...)), within a block by stage, then z, then r, each
/// merging with a listed candidate closer than 15 bins (the one of higher sigma stays).
class AccelCandidateList final : public AccelHitSink {
 public:
  explicit AccelCandidateList(AccelCandidateSetup setup);
  void consume(std::int64_t rk_lo, std::int64_t rk_hi, std::span<const AccelHit> hits) override;
  /// The list in increasing r (call after the searcher returned). Throws Error(internal) when the
  /// searcher did not cover the whole range.
  [[nodiscard]] std::vector<AccelCandidate> candidates() const;
  /// PRESTO's .txtcand: one line per accepted hit (empty unless keep_txtcand).
  [[nodiscard]] const std::string& txtcand() const noexcept { return txtcand_; }
  [[nodiscard]] std::uint64_t hits_seen() const noexcept { return hits_seen_; }

 private:
  void insert_block_hits(std::vector<AccelHit>& hits);
  void insert(float power, int stage, double r, double z, double w);
  AccelCandidateSetup s_;
  std::vector<AccelCandidate> list_;
  std::vector<AccelHit> pending_;
  std::int64_t covered_ = -1;
  bool sorted_ = true;  // the list is in r order (PRESTO's exact-15-bin insertion can break it)
  // Once it is not: a max tree over the list's r (leaves from max_tree_.size() / 2), which finds
  // PRESTO's walk target (the first candidate in list order with r >= rr) in O(log n) instead of
  // walking the list for every hit (seconds for a bright pulsar's millions of hits).
  std::vector<double> max_tree_;
  void rebuild_max_tree();
  void set_max_tree(std::size_t i, double r);
  [[nodiscard]] std::size_t first_at_least(double rr) const;
  std::uint64_t hits_seen_ = 0;
  std::string txtcand_;
};

/// Sorts by decreasing sigma, ties by decreasing power (stable, as PRESTO's list sort).
void sort_by_sigma(std::vector<AccelCandidate>& cands);
/// PRESTO's eliminate_harmonics: drops each candidate that lies within 1.5 bins of an integer
/// (1..16) multiple or fraction, or one of a list of small ratios, of a better one. Returns the
/// number removed.
int eliminate_harmonics(std::vector<AccelCandidate>& cands);

/// Refines a candidate on the interpolated plane of `fft` (the spectrum before the search
/// normalisation): with harmonic polishing (PRESTO's default) r and z of the fundamental
/// maximise the sum over harmonics n of |A(n r, n z)|^2 / local power; without, each harmonic
/// is maximised on its own. Fills pows, hirs, hizs, hiws and derivs.
void optimize_candidate(AccelCandidate& cand, std::span<const std::complex<float>> fft, bool harmonic_polishing);

/// PRESTO's calc_props (Middleditch et al.): properties of a peak from its derivatives. A zero
/// power or local power (a harmonic beyond the spectrum) gives pow 0 and infinite errors.
FourierProps calc_props(const RDerivs& d, double r, double z, double w);

}  // namespace fastpsr
