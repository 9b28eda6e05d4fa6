// SPDX-License-Identifier: MIT
// DM lists and the DDplan.py algorithm (PRESTO bin/DDplan.py, python/presto/psr_utils.py,
// simple_roots.py), reimplemented: same expressions and order of operations, so the same
// plan comes out for the same inputs.
#include "fastpsr/dm_plan.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "fastpsr/error.hpp"
#include "fastpsr/escape.hpp"

namespace fastpsr {
namespace {

double parse_number(std::string_view text, std::string_view what) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  double v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v)) {
    throw Error(ErrorCode::invalid_argument, fmt::format("{} '{}' is not a number", what, escape_for_message(text)));
  }
  return v;
}

// PRESTO psr_utils.delay_from_DM: DM / (0.000241 * f * f), seconds.
double delay_from_dm(double dm, double f_mhz) { return dm / (0.000241 * f_mhz * f_mhz); }

// DDplan.dm_smear: 1000 * psr_utils.dm_smear(|DM - cDM|, BW, f_ctr), ms.
double smear_ms(double dm, double bw, double fctr, double cdm = 0.0) {
  const double d = std::fabs(dm - cdm);
  return 1000.0 * (delay_from_dm(d, fctr - 0.5 * bw) - delay_from_dm(d, fctr + 0.5 * bw));
}

double bw_smear(double dm_step, double bw, double fctr) { return smear_ms(0.5 * dm_step, bw, fctr); }

double subband_smear(double sub_dm_step, int nsub, double bw, double fctr) {
  if (nsub == 0) return 0.0;
  return smear_ms(0.5 * sub_dm_step, bw / nsub, fctr);
}

double total_smear(double dm, double dm_step, double dt, double fctr, double bw, int nchans, double sub_dm_step,
                   double cohdm, int nsub) {
  return std::sqrt(2 * std::pow(1000.0 * dt, 2.0) + std::pow(smear_ms(dm, bw / nchans, fctr, cohdm), 2.0) +
                   std::pow(subband_smear(sub_dm_step, nsub, bw, fctr), 2.0) +
                   std::pow(bw_smear(dm_step, bw, fctr), 2.0));
}

// simple_roots.bisect with its tolerance and iteration limit (0.0 on failure, as there).
template <class F>
double bisect(F func, double lox, double hix, double tol = 1e-14, int maxit = 200) {
  const double f = func(lox);
  double fmid = func(hix);
  if (f * fmid >= 0.0) return 0.0;
  double dx = 0;
  double rtb = 0;
  if (f < 0.0) {
    dx = hix - lox;
    rtb = lox;
  } else {
    dx = lox - hix;
    rtb = hix;
  }
  for (int i = 0; i < maxit; ++i) {
    dx = dx * 0.5;
    const double xmid = rtb + dx;
    fmid = func(xmid);
    if (fmid <= 0.0) rtb = xmid;
    if (std::fabs(dx) < tol || fmid == 0.0) return rtb;
  }
  return 0.0;
}

double guess_dm_step(double dt, double bw, double fctr) {
  return bisect([&](double x) { return delay_from_dm(x, fctr - 0.5 * bw) - delay_from_dm(x, fctr + 0.5 * bw) - dt; },
                0.0, 1000.0) *
         2.0;
}

// DDplan.choose_downsamps.
std::vector<int> choose_downsamps(int blocklen) {
  std::vector<int> x;
  for (int n = 1; n < 260; ++n) {
    if (blocklen % n == 0) x.push_back(n);
  }
  if (x.size() == 1) return x;
  double min_ratio = 1e300;
  for (std::size_t i = 1; i < x.size(); ++i) min_ratio = std::min(min_ratio, static_cast<double>(x[i]) / x[i - 1]);
  if (min_ratio >= 1.5) return x;
  auto has = [&](long v) { return std::find(x.begin(), x.end(), v) != x.end(); };
  std::vector<int> out{1};
  if (has(2)) out.push_back(2);
  if (has(3)) out.push_back(3);
  int maxnew = out.back();
  while (maxnew < x.back()) {
    const long r = std::lround(1.5 * maxnew + 1e-7);
    if (has(r)) {
      out.push_back(static_cast<int>(r));
    } else if (has(2L * maxnew)) {
      out.push_back(2 * maxnew);
    } else if (x.back() > 1.5 * maxnew) {
      out.push_back(*std::find_if(x.begin(), x.end(), [&](int v) { return v > 1.5 * maxnew; }));
    } else {
      return out;
    }
    maxnew = out.back();
  }
  return out;
}

const double kAllowedDmSteps[] = {0.01, 0.02, 0.03, 0.05, 0.1,  0.2,  0.3,  0.5,   1.0,  2.0,
                                  3.0,  5.0,  10.0, 20.0, 30.0, 50.0, 100., 200.0, 300.0};
constexpr int kNumAllowedDmSteps = sizeof(kAllowedDmSteps) / sizeof(kAllowedDmSteps[0]);

// DDplan.dedisp_method.__init__ (numDMs = 0, smearfact = 2).
// to_end: the range runs to hi_dm whatever the smearing (see the plan's loop).
DmPlanStep make_method(const DmPlanObservation& obs, int downsamp, double lo_dm, double hi_dm, double ddm, int nsub,
                       int nprocs, bool to_end = false) {
  const double chanwidth = obs.bw_mhz / obs.nchans;
  DmPlanStep m;
  m.lo_dm = lo_dm;
  m.dm_step = ddm;
  m.downsample = downsamp;
  const double bw_smearing = bw_smear(ddm, obs.bw_mhz, obs.fctr_mhz);
  double sub_smearing = 0.0;
  if (nsub != 0) {
    int per = 2;
    for (;;) {
      const double next_dsub = (per + 2) * ddm;
      const double next_ss = subband_smear(next_dsub, nsub, obs.bw_mhz, obs.fctr_mhz);
      if (next_ss > 0.8 * std::min(bw_smearing, 1000.0 * obs.tsamp_s * downsamp)) {
        m.dsub_dm = per * ddm;
        m.dms_per_call = per;
        sub_smearing = subband_smear(m.dsub_dm, nsub, obs.bw_mhz, obs.fctr_mhz);
        break;
      }
      per += 2;
    }
  } else {
    m.dsub_dm = ddm;
  }
  const double other = std::sqrt(std::pow(1000.0 * obs.tsamp_s, 2.0) + std::pow(1000.0 * obs.tsamp_s * downsamp, 2.0) +
                                 std::pow(bw_smearing, 2.0) + std::pow(sub_smearing, 2.0));
  double cross_dm = 2.0 * 0.001 * other / chanwidth * 0.0001205 * std::pow(obs.fctr_mhz, 3.0) + obs.coherent_dm;
  if (cross_dm > hi_dm || to_end) cross_dm = hi_dm;
  m.ndms = static_cast<int>(std::ceil((cross_dm - lo_dm) / ddm));
  if (nsub != 0) {
    m.calls = static_cast<int>(std::ceil(m.ndms * ddm / m.dsub_dm));
    if (nprocs > 1 && m.calls % nprocs != 0) {
      m.calls = (m.calls / nprocs + 1) * nprocs;
      while (m.dms_per_call > 1 && m.calls * m.dms_per_call > m.ndms) m.dms_per_call -= 1;
    }
    m.ndms = m.calls * m.dms_per_call;
  }
  if (nprocs > 1 && m.ndms % nprocs != 0) m.ndms = (m.ndms / nprocs + 1) * nprocs;
  m.hi_dm = lo_dm + m.ndms * ddm;
  return m;
}

// printf formatting, because DDplan.py's table is printf formatted (%g and %.4g differ from fmt's).
[[gnu::format(printf, 1, 2)]] std::string cfmt(const char* format, ...) {
  char buf[128];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

}  // namespace

std::vector<double> parse_dm_range(std::string_view spec) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = spec.find(':', start);
    parts.push_back(spec.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (parts.size() == 1) {
    const double dm = parse_number(parts[0], "DM");
    FASTPSR_EXPECTS(dm >= 0.0, "DM {} is negative", dm);
    return {dm};
  }
  FASTPSR_EXPECTS(parts.size() == 3, "DM range '{}' is not lo:hi:step", spec);
  const double lo = parse_number(parts[0], "lowest DM");
  const double hi = parse_number(parts[1], "highest DM");
  const double step = parse_number(parts[2], "DM step");
  FASTPSR_EXPECTS(step > 0.0, "DM step {} must be positive (range '{}')", step, spec);
  FASTPSR_EXPECTS(lo >= 0.0, "lowest DM {} is negative (range '{}')", lo, spec);
  FASTPSR_EXPECTS(hi >= lo, "DM range '{}' is empty: the highest DM {} is below the lowest {}", spec, hi, lo);
  const double n = std::floor((hi - lo) / step + 1e-6) + 1.0;
  FASTPSR_EXPECTS(n <= 1e7, "DM range '{}' has {} trials; that is more than 10 million", spec, n);
  std::vector<double> dms(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < dms.size(); ++i) dms[i] = lo + static_cast<double>(i) * step;
  return dms;
}

std::vector<double> read_dm_list(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(ErrorCode::io, "cannot open the DM list", path);
  std::vector<double> dms;
  std::string line;
  while (std::getline(in, line)) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream words(line);
    std::string w;
    while (words >> w) {
      try {
        const double dm = parse_number(w, "DM");
        FASTPSR_EXPECTS(dm >= 0.0, "DM {} is negative", dm);
        dms.push_back(dm);
      } catch (const Error& e) {
        throw Error(ErrorCode::invalid_argument, e.what(), path);
      }
    }
  }
  if (dms.empty()) throw Error(ErrorCode::invalid_argument, "the DM list is empty", path);
  return dms;
}

DmPlanObservation DmPlanObservation::from_header(const SigprocHeader& h) {
  DmPlanObservation o;
  o.tsamp_s = h.tsamp;
  o.nchans = h.nchans;
  o.bw_mhz = std::fabs(h.foff) * h.nchans;
  o.fctr_mhz = h.fch1 + 0.5 * h.foff * h.nchans - 0.5 * h.foff;
  return o;
}

std::vector<double> DmPlanStep::dms() const {
  std::vector<double> v(static_cast<std::size_t>(ndms));
  for (int i = 0; i < ndms; ++i) v[static_cast<std::size_t>(i)] = static_cast<double>(i) * dm_step + lo_dm;
  return v;
}

std::size_t DmPlan::total_dms() const {
  std::size_t n = 0;
  for (const auto& s : steps) n += static_cast<std::size_t>(s.ndms);
  return n;
}

double dm_smear_ms(double dm, double bw_mhz, double fctr_mhz) { return smear_ms(dm, bw_mhz, fctr_mhz); }

DmPlan make_ddplan(const DmPlanObservation& obs, const DdplanOptions& opts) {
  FASTPSR_EXPECTS(obs.tsamp_s > 0.0 && obs.nchans > 0 && obs.bw_mhz > 0.0 && obs.fctr_mhz > 0.5 * obs.bw_mhz,
                  "the DM plan needs tsamp > 0, channels and a band above 0 MHz (tsamp {} s, {} channels, "
                  "{} MHz wide at {} MHz)",
                  obs.tsamp_s, obs.nchans, obs.bw_mhz, obs.fctr_mhz);
  FASTPSR_EXPECTS(opts.lo_dm >= 0.0, "lowest DM {} is negative", opts.lo_dm);
  FASTPSR_EXPECTS(opts.hi_dm > opts.lo_dm, "the DM plan's highest DM {} is not above its lowest {}", opts.hi_dm,
                  opts.lo_dm);
  FASTPSR_EXPECTS(opts.tolerance >= 1.0, "DM plan tolerance {} must be at least 1", opts.tolerance);
  FASTPSR_EXPECTS(opts.blocklen >= 1 && opts.nprocs >= 1 && opts.nsub >= 0, "bad DM plan block length, CPUs or nsub");

  const double ff = opts.tolerance;
  const double dt = obs.tsamp_s;
  const double dtms = 1000.0 * dt;
  const double chanwidth = obs.bw_mhz / obs.nchans;
  const std::vector<int> downsamps = choose_downsamps(opts.blocklen);
  const auto last_ds = downsamps.size() - 1;

  DmPlan plan;
  plan.sample_time_ms = dtms;
  plan.min_total_smearing_ms = total_smear(opts.lo_dm + 0.5 * kAllowedDmSteps[0], kAllowedDmSteps[0], dt, obs.fctr_mhz,
                                           obs.bw_mhz, obs.nchans, kAllowedDmSteps[0], obs.coherent_dm, 0);
  // min over numpy.linspace(loDM, hiDM, 10000)
  const double lin_step = (opts.hi_dm - opts.lo_dm) / 9999.0;
  double min_chan = 1e300;
  for (int i = 0; i < 10000; ++i) {
    const double dm = i == 9999 ? opts.hi_dm : i * lin_step + opts.lo_dm;
    min_chan = std::min(min_chan, smear_ms(dm, chanwidth, obs.fctr_mhz, obs.coherent_dm));
  }
  plan.min_channel_smearing_ms = min_chan;
  plan.min_bw_smearing_ms = bw_smear(kAllowedDmSteps[0], obs.bw_mhz, obs.fctr_mhz);
  plan.ok_smearing_ms = std::max({opts.ok_smearing_ms, min_chan, plan.min_bw_smearing_ms, dtms});

  std::size_t ids = 0;
  int ddm_index = 0;
  if (ff * min_chan > dtms || plan.ok_smearing_ms > dtms) {
    const double okval = plan.ok_smearing_ms > ff * min_chan ? plan.ok_smearing_ms : ff * min_chan;
    while (ids < last_ds && dtms * downsamps[ids + 1] < okval) ++ids;
  }
  plan.guess_dm_step = guess_dm_step(dt * downsamps[ids], obs.bw_mhz, obs.fctr_mhz);
  while (ddm_index + 1 < kNumAllowedDmSteps && kAllowedDmSteps[ddm_index + 1] < ff * plan.guess_dm_step) ++ddm_index;

  plan.steps.push_back(
      make_method(obs, downsamps[ids], opts.lo_dm, opts.hi_dm, kAllowedDmSteps[ddm_index], opts.nsub, opts.nprocs));
  while (plan.steps.back().hi_dm < opts.hi_dm) {
    if (ids < last_ds) ++ids;  // DDplan.py fails here when it runs out of factors; we keep the last
    const double eff_dt = dtms * downsamps[ids];
    while (ddm_index + 1 < kNumAllowedDmSteps &&
           bw_smear(kAllowedDmSteps[ddm_index + 1], obs.bw_mhz, obs.fctr_mhz) < ff * eff_dt) {
      ++ddm_index;
    }
    const double from = plan.steps.back().hi_dm;
    DmPlanStep next =
        make_method(obs, downsamps[ids], from, opts.hi_dm, kAllowedDmSteps[ddm_index], opts.nsub, opts.nprocs);
    // Out of downsampling factors (and so of larger steps), a range's crossover DM no longer grows
    // with its start: at low frequencies it falls below it and the range would be empty. The
    // channel smearing there exceeds any step's, so the last range runs on to the end at this step
    // (QA pass 20: LOFAR HBA above DM ~820, an LBA band from DM 100, never converged).
    if (next.hi_dm <= from) {
      next = make_method(obs, downsamps[ids], from, opts.hi_dm, kAllowedDmSteps[ddm_index], opts.nsub, opts.nprocs,
                         /*to_end=*/true);
    }
    plan.steps.push_back(next);
    FASTPSR_EXPECTS(plan.steps.size() < 1000, "the DM plan does not converge (DM {} to {})", opts.lo_dm, opts.hi_dm);
  }
  double work = 0;
  for (const auto& s : plan.steps) work += s.ndms / static_cast<double>(s.downsample);
  for (auto& s : plan.steps) s.work_fraction = s.ndms / static_cast<double>(s.downsample) / work;
  return plan;
}

std::string format_ddplan(const DmPlan& plan, const DmPlanObservation& obs, const DdplanOptions& opts,
                          const std::string& source) {
  std::string s = "\nUsing:\n";
  s += "        dt = " + cfmt("%g", obs.tsamp_s) + " s\n";
  s += "   numchan = " + std::to_string(obs.nchans) + "\n";
  s += "  blocklen = " + std::to_string(opts.blocklen) + "\n";
  s += "        BW = " + cfmt("%g", obs.bw_mhz) + " MHz\n";
  s += "      fctr = " + cfmt("%g", obs.fctr_mhz) + " MHz\n";
  if (!source.empty()) s += "from '" + source + "'\n";
  s += "\n\n";
  s += "Minimum total smearing     : " + cfmt("%.3g", plan.min_total_smearing_ms) + " ms\n";
  s += "--------------------------------------------\n";
  s += "Minimum channel smearing   : " + cfmt("%.3g", plan.min_channel_smearing_ms) + " ms\n";
  s += "Minimum smearing across BW : " + cfmt("%.3g", plan.min_bw_smearing_ms) + " ms\n";
  s += "Minimum sample time        : " + cfmt("%.3g", plan.sample_time_ms) + " ms\n\n";
  s += "Setting the new 'best' resolution to : " + cfmt("%.3g", plan.ok_smearing_ms) + " ms\n";
  const double ff_min_chan = opts.tolerance * plan.min_channel_smearing_ms;
  if (ff_min_chan > plan.sample_time_ms || plan.ok_smearing_ms > plan.sample_time_ms) {
    if (plan.ok_smearing_ms > ff_min_chan) {
      s += "   Note: ok_smearing > dt (i.e. data is higher resolution than needed)\n";
    } else {
      s += "   Note: min_chan_smearing > dt (i.e. data is higher resolution than needed)\n";
    }
    const int ds = plan.steps.front().downsample;
    s += fmt::format("         New dt is {} x {} ms = {} ms\n", ds, cfmt("%.12g", plan.sample_time_ms),
                     cfmt("%.12g", plan.sample_time_ms * ds));
  }
  s += "Best guess for optimal initial dDM is " + cfmt("%.3f", plan.guess_dm_step) + "\n";
  char line[256];
  if (opts.nsub != 0) {
    s += "\n  Low DM    High DM     dDM  DownSamp  dsubDM   #DMs  DMs/call  calls  WorkFract\n";
  } else {
    s += "\n  Low DM    High DM     dDM  DownSamp   #DMs  WorkFract\n";
  }
  for (const auto& m : plan.steps) {
    if (opts.nsub != 0) {
      std::snprintf(line, sizeof line, "%9.3f  %9.3f  %6.2f    %4d  %6.2f  %6d  %6d  %6d ", m.lo_dm, m.hi_dm, m.dm_step,
                    m.downsample, m.dsub_dm, m.ndms, m.dms_per_call, m.calls);
    } else {
      std::snprintf(line, sizeof line, "%9.3f  %9.3f  %6.2f    %4d  %6d", m.lo_dm, m.hi_dm, m.dm_step, m.downsample,
                    m.ndms);
    }
    s += line;
    s += "   " + cfmt("%.4g", m.work_fraction) + "\n";
  }
  s += "\n\n\n";
  return s;
}

}  // namespace fastpsr
