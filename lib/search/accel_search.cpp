// SPDX-License-Identifier: MIT
#include "fastpsr/accel_search.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "fastpsr/accel_stats.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr {

std::string AccelPlan::suffix() const { return fmt::format("ACCEL_{}", problem.zmax); }

void check_accel_config(const AccelConfig& c) {
  FASTPSR_EXPECTS(c.zmax >= 0, "-zmax must be >= 0, got {}", c.zmax);
  FASTPSR_EXPECTS(c.numharm >= 1 && c.numharm <= kAccelMaxHarmonics && (c.numharm & (c.numharm - 1)) == 0,
                  "-numharm must be 1, 2, 4, 8, 16 or 32, got {}", c.numharm);
  FASTPSR_EXPECTS(c.sigma > 0 && std::isfinite(c.sigma), "-sigma must be positive, got {}", c.sigma);
}

AccelPlan make_accel_plan(const AccelConfig& c, std::int64_t numbins, double T_s) {
  FASTPSR_EXPECTS(numbins > 0, "the spectrum is empty");
  FASTPSR_EXPECTS(T_s > 0 && std::isfinite(T_s), "the observation length must be positive, got {} s", T_s);
  check_accel_config(c);
  AccelPlan p;
  p.config = c;
  p.T_s = T_s;
  const int zmax = (c.zmax + 1) / 2 * 2;
  // PRESTO: rlo = floor(flo T) (or -rlo), at least bin 0; the top is min(ceil(fhi T), numbins-1).
  p.rlo = c.rlo ? *c.rlo : std::floor(c.flo_hz * T_s);
  FASTPSR_EXPECTS(p.rlo >= 0 && p.rlo <= static_cast<double>(numbins - 1),
                  "the lowest frequency to search ({} bins, {:.6g} Hz) is outside the spectrum (0 to {} bins)", p.rlo,
                  p.rlo / T_s, numbins - 1);
  const double asked_hi = c.rhi ? *c.rhi : std::ceil(c.fhi_hz * T_s);
  p.rhi = std::min(asked_hi, static_cast<double>(numbins - 1));
  if (!(p.rhi > p.rlo)) {
    const std::string lo = c.rlo ? fmt::format("-rlo {}", *c.rlo) : fmt::format("-flo {} Hz", c.flo_hz);
    const std::string up = asked_hi > static_cast<double>(numbins - 1) ? std::string("the spectrum")
                           : c.rhi                                     ? fmt::format("-rhi {}", *c.rhi)
                                                                       : fmt::format("-fhi {} Hz", c.fhi_hz);
    throw Error(ErrorCode::invalid_argument,
                fmt::format("the search range is empty: {} starts at bin {} ({:.6g} Hz) and {} ends at bin {} "
                            "({:.6g} Hz) of this {:.6g} s series",
                            lo, p.rlo, p.rlo / T_s, up, p.rhi, p.rhi / T_s, T_s));
  }
  const int hw = template_halfwidth(zmax);
  if (4 * static_cast<std::int64_t>(hw) > numbins) {
    throw Error(ErrorCode::invalid_argument,
                zmax > 0 ? fmt::format("-zmax {} needs a spectrum of at least {} bins (templates {} bins wide); this "
                                       "series has {}: use a smaller -zmax",
                                       c.zmax, 4 * hw, 2 * hw, numbins)
                         : fmt::format("the series is too short to search: {} bins, and the correlation needs at "
                                       "least {} ({} samples)",
                                       numbins, 4 * hw, 8 * hw));
  }
  AccelSearchProblem& pr = p.problem;
  pr.numbins = numbins;
  pr.zmax = zmax;
  pr.numharm = c.numharm;
  pr.interp = c.interp;
  pr.rk_begin = static_cast<std::int64_t>(std::ceil(2.0 * p.rlo));
  p.blocks = presto_blocks(zmax);
  // PRESTO walks blocks of rstep bins from rlo while a whole block stays below rhi.
  const double rstep = p.blocks.rstep();
  const auto blocks = static_cast<std::int64_t>(std::max(0.0, std::ceil((p.rhi - p.rlo - rstep) / rstep)));
  p.presto_end_r = p.rlo + static_cast<double>(blocks) * rstep;
  pr.rk_end = static_cast<std::int64_t>(std::floor(2.0 * p.rhi));
  if (!c.full_range && blocks > 0)
    pr.rk_end = static_cast<std::int64_t>(2.0 * (p.rlo + static_cast<double>(blocks) * rstep));
  const int stages = pr.stages();
  for (int s = 0; s < stages; ++s) {
    const int nh = 1 << s;
    // At least one trial: a window narrower than numharm bins (-rlo 500 -rhi 501) gave PRESTO's
    // formula 0 independent trials, and a threshold of q / 0.
    p.numindep.push_back(std::max<std::int64_t>(1, accel_numindep(p.rlo, p.rhi, pr.numz(), 0, nh)));
    pr.powcut.push_back(static_cast<float>(power_for_sigma(c.sigma, nh, static_cast<double>(p.numindep.back()))));
  }
  validate(pr);
  return p;
}

DereddenOptions dered_options(const AccelConfig& c, bool from_time_series) {
  DereddenOptions d = from_time_series ? kAccelsearchSeriesDered : DereddenOptions{};
  d.startwidth = c.dered_startwidth.value_or(d.startwidth);
  d.endwidth = c.dered_endwidth.value_or(d.endwidth);
  d.endfreq_hz = c.dered_endfreq_hz.value_or(d.endfreq_hz);
  return d;
}

PreparedSpectrum prepare_spectrum(std::vector<std::complex<float>> fft, const AccelPlan& plan, bool from_time_series) {
  const AccelConfig& c = plan.config;
  PreparedSpectrum out;
  if (c.deredden) {
    deredden(fft, dered_options(c, from_time_series), plan.T_s);
    if (from_time_series && c.norm != AccelNorm::photon) fft[0] = {1.0F, 1.0F};
  }
  // The photon count is bin 0 as the search gets it: after a de-reddening, which has normalised
  // the powers already and set bin 0 to 1, that is 1 (PRESTO's order for a .dat), so the powers
  // are never divided twice (they were divided by the raw count as well, and nothing passed).
  if (c.norm == AccelNorm::photon) out.nph = fft[0].real() > 0.0F ? static_cast<double>(fft[0].real()) : 1.0;
  if (!c.zaplist.empty()) out.zapped_bins = zap_birdies(fft, read_zaplist(c.zaplist, plan.T_s, c.baryv));
  out.search =
      normalise_for_search(fft, c.norm, plan.blocks, static_cast<std::int64_t>(plan.rlo), out.nph, plan.presto_end_r);
  out.cleaned = std::move(fft);
  return out;
}

AccelCandidateList make_candidate_list(const AccelPlan& plan, bool keep_txtcand) {
  AccelCandidateSetup s;
  s.problem = plan.problem;
  s.numindep = plan.numindep;
  s.order_block_rk = plan.blocks.uselen;
  s.T_s = plan.T_s;
  s.keep_txtcand = keep_txtcand;
  return AccelCandidateList(std::move(s));
}

AccelResult finish_candidates(const AccelPlan& plan, const AccelCandidateList& list, const PreparedSpectrum& spectrum) {
  AccelResult r;
  r.candidates = list.candidates();
  r.txtcand = list.txtcand();
  r.hits = list.hits_seen();
  sort_by_sigma(r.candidates);
  if (plan.problem.numharm > 1 && plan.config.harmonic_removal) r.harmonics_removed = eliminate_harmonics(r.candidates);
  const int threads = plan.config.threads > 0 ? plan.config.threads : omp_get_max_threads();
  const auto n = static_cast<std::int64_t>(r.candidates.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (std::int64_t i = 0; i < n; ++i) {
    optimize_candidate(r.candidates[static_cast<std::size_t>(i)], spectrum.cleaned, plan.config.harmonic_polishing);
  }
  return r;
}

}  // namespace fastpsr
