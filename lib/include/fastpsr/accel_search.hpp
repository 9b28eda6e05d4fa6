// SPDX-License-Identifier: MIT
#pragma once
/// The acceleration search of one spectrum from start to finish, shared by every backend:
/// PRESTO's options -> plan (ranges, trials, thresholds) -> prepare the spectrum (de-redden, zap,
/// normalise) -> the backend's FdotSearcher -> candidates -> sort, prune, optimise.
#include <complex>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fastpsr/accel.hpp"
#include "fastpsr/accel_candidates.hpp"
#include "fastpsr/accel_spectrum.hpp"

namespace fastpsr {

/// accelsearch's options with PRESTO's defaults (formats.md §5.1).
struct AccelConfig {
  int zmax = 200;             ///< rounded up to even
  int numharm = 8;            ///< 1, 2, 4, 8, 16 or 32
  double sigma = 2.0;         ///< candidate threshold (equivalent Gaussian sigma after trials)
  double flo_hz = 1.0;        ///< lowest frequency of the highest harmonic searched
  double fhi_hz = 10000.0;    ///< highest
  std::optional<double> rlo;  ///< in bins; overrides flo when given
  std::optional<double> rhi;  ///< in bins; overrides fhi when given
  AccelInterp interp = AccelInterp::fourier;
  AccelNorm norm = AccelNorm::block_median;
  bool deredden = true;  ///< de-reddening before the search (PRESTO's accelsearch: on for a .dat, off for a .fft)
  /// The de-reddening parameters given (--dered-*); each one not given is PRESTO's for the input
  /// (dered_options()): accelsearch's own for a spectrum of a time series, rednoise's for a .fft.
  std::optional<int> dered_startwidth;
  std::optional<int> dered_endwidth;
  std::optional<double> dered_endfreq_hz;
  std::string zaplist;  ///< birdies to zap (empty: none)
  double baryv = 0.0;   ///< average barycentric velocity / c, for the zaplist
  /// Search up to rhi. PRESTO stops at the end of its last whole correlation block below rhi
  /// (up to ~1000-4000 bins short of it); by default we search exactly PRESTO's range.
  bool full_range = false;
  bool harmonic_polishing = true;
  bool harmonic_removal = true;
  int threads = 0;  ///< for the candidate optimisation; 0 = OpenMP default
};

/// The de-reddening of a spectrum: PRESTO accelsearch's for one made from a time series
/// (kAccelsearchSeriesDered: what `accelsearch obs.dat` does in PRESTO), rednoise's for a .fft
/// (DereddenOptions{}: what PRESTO's chain realfft, rednoise, accelsearch does; PRESTO's
/// accelsearch alone does not de-redden a .fft), with the parameters given in `c` instead.
DereddenOptions dered_options(const AccelConfig& c, bool from_time_series);

/// Everything derived from the options and the data's size.
struct AccelPlan {
  AccelConfig config;
  AccelSearchProblem problem;
  PrestoBlocks blocks;
  double T_s = 0;                            ///< N * dt
  double rlo = 0, rhi = 0;                   ///< searched range of the highest harmonic, bins
  double presto_end_r = 0;                   ///< end of PRESTO's whole blocks (rlo + blocks x rstep)
  std::vector<std::int64_t> numindep;        ///< per stage
  [[nodiscard]] std::string suffix() const;  ///< "ACCEL_<zmax>"
};

/// The checks of make_accel_plan that need no data: zmax >= 0, numharm a power of two up to 32,
/// sigma > 0 (Error(invalid_argument) naming the option). Tools call it before reading input.
void check_accel_config(const AccelConfig& config);

/// Checks the options and derives the plan for a spectrum of `numbins` bins of an observation of
/// T_s seconds. Throws Error(invalid_argument) with the option's name for a bad value: zmax < 0,
/// numharm not a power of two up to 32, sigma <= 0, a frequency range outside the data or
/// empty, or zmax too large for the series (templates wider than the spectrum).
AccelPlan make_accel_plan(const AccelConfig& config, std::int64_t numbins, double T_s);

/// The spectrum as the search and the optimisation see it.
struct PreparedSpectrum {
  std::vector<std::complex<float>> cleaned;  ///< de-reddened and zapped (optimisation input)
  SearchSpectrum search;                     ///< what the FdotSearcher gets
  /// AccelNorm::photon: bin 0 after any de-reddening (the photon count of an untouched spectrum;
  /// 1 after a de-reddening, which normalises the powers itself; 1 where bin 0 is not positive);
  /// else 0.
  double nph = 0;
  std::int64_t zapped_bins = 0;
  /// The power scale of `search`, viewing its factors.
  [[nodiscard]] AccelPowerScale power_scale() const { return {search.scale_rk_start, search.scale}; }
};
/// Prepares a PRESTO-layout spectrum (bin 0 packed). `from_time_series`: the spectrum was just
/// computed from a .dat/.tim, whose bin 0 PRESTO sets to (1, 1) after de-reddening.
PreparedSpectrum prepare_spectrum(std::vector<std::complex<float>> fft, const AccelPlan& plan, bool from_time_series);

/// The search's outcome for one spectrum.
struct AccelResult {
  std::vector<AccelCandidate> candidates;  ///< sorted, pruned, optimised: the output order
  std::string txtcand;                     ///< PRESTO's .txtcand lines
  std::uint64_t hits = 0;                  ///< grid points above threshold
  int harmonics_removed = 0;
};

/// Makes the candidate sink for one spectrum (so several can be filled by one search_batch).
AccelCandidateList make_candidate_list(const AccelPlan& plan, bool keep_txtcand);
/// Sorts, prunes and optimises the candidates gathered in `list` (OpenMP over candidates).
AccelResult finish_candidates(const AccelPlan& plan, const AccelCandidateList& list, const PreparedSpectrum& spectrum);

}  // namespace fastpsr
