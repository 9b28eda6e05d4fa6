// SPDX-License-Identifier: MIT
#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <thread>

#include "fastpsr/dedisp.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/worker_team.hpp"

namespace fastpsr {

DelayModel parse_delay_model(std::string_view text) {
  if (text == "presto") return DelayModel::presto;
  if (text == "sigproc") return DelayModel::sigproc;
  throw Error(ErrorCode::invalid_argument, fmt::format("delay model '{}' is not presto or sigproc", text));
}

std::string_view to_string(DelayModel m) { return m == DelayModel::presto ? "presto" : "sigproc"; }

double dm_constant(DelayModel m) { return m == DelayModel::presto ? 1.0 / 0.000241 : 4148.741601; }

double dm_delay_s(DelayModel m, double dm, double f_mhz, double f_ref_mhz) {
  if (m == DelayModel::presto) {
    // PRESTO: delay_from_dm(dm, f) = dm / (0.000241 * f * f), differenced against the reference.
    return dm / (0.000241 * f_mhz * f_mhz) - dm / (0.000241 * f_ref_mhz * f_ref_mhz);
  }
  // SIGPROC dmdelay(): 4148.741601 * (1/f1^2 - 1/f2^2) * dm.
  return 4148.741601 * (1.0 / (f_mhz * f_mhz) - 1.0 / (f_ref_mhz * f_ref_mhz)) * dm;
}

DedispInput DedispInput::from_header(const SigprocHeader& h, const std::string& name) {
  if (h.nifs != 1) {
    throw Error(ErrorCode::unsupported,
                fmt::format("dedispersion needs one IF (nifs = 1, total intensity); the file has nifs = {}: sum "
                            "or choose them first (dedisp --if)",
                            h.nifs),
                name);
  }
  if (h.frequency_table.empty()) {
    if (!(std::isfinite(h.fch1) && h.fch1 > 0.0)) {
      throw Error(ErrorCode::format,
                  fmt::format("fch1 is {} MHz (missing or not positive): the channel frequencies are unknown", h.fch1),
                  name);
    }
    if (h.nchans > 1 && !(std::isfinite(h.foff) && h.foff != 0.0)) {
      throw Error(ErrorCode::format,
                  fmt::format("foff is {} MHz (missing or zero) with {} channels: every channel would sit at fch1 "
                              "and every DM trial be the same series; set it with `header --set foff=...`",
                              h.foff, h.nchans),
                  name);
    }
  }
  DedispInput in;
  in.nchans = h.nchans;
  in.fch1_mhz = h.fch1;
  in.foff_mhz = h.foff;
  in.tsamp_s = h.tsamp;
  in.nbits = h.nbits;
  in.is_signed = h.data_signed();
  in.chan_freq_mhz.resize(static_cast<std::size_t>(h.nchans));
  for (int c = 0; c < h.nchans; ++c) in.chan_freq_mhz[static_cast<std::size_t>(c)] = h.channel_freq_mhz(c);
  return in;
}

namespace {

// Delays a thread fills at least before the table is split over threads (a thread's start
// costs tens of microseconds; one delay ~5-10 ns).
constexpr std::size_t kDelaysPerThread = std::size_t{1} << 20;

// PRESTO derives channel frequencies from the lowest channel upwards (lofreq + i * chan_wid),
// not from fch1 downwards; the two differ in the last bits, which can move a rounding.
std::vector<double> presto_frequencies(const DedispInput& in) {
  const auto n = static_cast<std::size_t>(in.nchans);
  const bool regular = in.foff_mhz != 0.0 && !in.chan_freq_mhz.empty() && in.chan_freq_mhz.front() == in.fch1_mhz;
  if (!regular || in.foff_mhz > 0.0) return in.chan_freq_mhz;
  const double wid = std::fabs(in.foff_mhz);
  const double lo = in.fch1_mhz - static_cast<double>(in.nchans - 1) * wid;
  std::vector<double> f(n);
  for (std::size_t c = 0; c < n; ++c) f[c] = lo + static_cast<double>(n - 1 - c) * wid;
  return f;
}

// SIGPROC's dmshift() walks the band by repeated addition (fi += df), which differs from
// fch1 + c * foff in the last bits for spacings that are not exact binary fractions.
std::vector<double> sigproc_frequencies(const DedispInput& in) {
  const bool regular = in.foff_mhz != 0.0 && !in.chan_freq_mhz.empty() && in.chan_freq_mhz.front() == in.fch1_mhz;
  if (!regular) return in.chan_freq_mhz;
  std::vector<double> f(static_cast<std::size_t>(in.nchans));
  double fi = in.fch1_mhz;
  for (auto& x : f) {
    x = fi;
    fi += in.foff_mhz;
  }
  return f;
}

// Delays beyond this many samples are refused (the int32 tables and the kernels' row offsets).
constexpr double kMaxDelaySamples = std::numeric_limits<std::int32_t>::max() / 4;
// Conversions saturate far beyond it, so that an absurd delay (a sample time near 0) is refused
// by the range check instead of overflowing the cast (undefined: it gave INT64_MIN, reported as
// a channel-order error; QA pass 16, P3). Sums of two stay in range.
constexpr double kSaturate = 4.0e18;
double saturated(double x) { return std::isnan(x) ? kSaturate : std::clamp(x, -kSaturate, kSaturate); }

std::int64_t nearest_long(double x) {
  x = saturated(x);
  return x < 0.0 ? static_cast<std::int64_t>(x - 0.5) : static_cast<std::int64_t>(x + 0.5);
}

// PRESTO's lowest channel centre: it keeps every band lowest channel first (it flips a SIGPROC
// band whose foff < 0 as it reads), so the lowest channel is fch1's far end or fch1 itself.
double presto_lofreq(const DedispInput& in) {
  const double chanwidth = std::fabs(in.foff_mhz);
  return in.foff_mhz < 0.0 ? in.fch1_mhz - (in.nchans - 1) * chanwidth : in.fch1_mhz;
}

// PRESTO's index (lowest frequency first) of file channel c.
std::size_t presto_channel_index(const DedispInput& in, std::size_t c) {
  return in.foff_mhz < 0.0 ? static_cast<std::size_t>(in.nchans) - 1 - c : c;
}

// PRESTO dispersion.c subband_delays(): delay (s) at the highest channel of each subband,
// lowest subband first.
std::vector<double> presto_subband_top_delays(const DedispInput& in, int nsub, double dm) {
  std::vector<double> d(static_cast<std::size_t>(nsub));
  for (int j = 0; j < nsub; ++j) {
    const double f = presto_subband_top_mhz(in, nsub, j);
    d[static_cast<std::size_t>(j)] = dm / (0.000241 * f * f);
  }
  return d;
}

// prepsubband stage 1: per channel (PRESTO order), the delay within its subband at the mean
// DM, NEAREST_LONG in input samples (subband_search_delays).
std::vector<std::int64_t> presto_subband_stage1(const DedispInput& in, const DedispProblem& p) {
  double avgdm = 0.0;
  for (double dm : p.dms) avgdm += dm;
  avgdm /= static_cast<double>(p.dms.size());
  const double chanwidth = std::fabs(in.foff_mhz);
  const double lofreq = presto_lofreq(in);
  const int cps = in.nchans / p.presto_nsub;
  const std::vector<double> top = presto_subband_top_delays(in, p.presto_nsub, avgdm);
  std::vector<std::int64_t> s(static_cast<std::size_t>(in.nchans));
  for (int ii = 0; ii < in.nchans; ++ii) {
    const double f = lofreq + ii * chanwidth;
    const double d = avgdm / (0.000241 * f * f) - top[static_cast<std::size_t>(ii / cps)];
    s[static_cast<std::size_t>(ii)] = nearest_long(d / in.tsamp_s);
  }
  return s;
}

// prepsubband stage 2: per subband, the delay of its top channel relative to the top
// subband's at `dm`, NEAREST_LONG in output samples.
std::vector<std::int64_t> presto_subband_stage2(const DedispInput& in, const DedispProblem& p, double dm,
                                                double out_tsamp) {
  const std::vector<double> top = presto_subband_top_delays(in, p.presto_nsub, dm);
  std::vector<std::int64_t> s(top.size());
  for (std::size_t j = 0; j < top.size(); ++j) s[j] = nearest_long((top[j] - top.back()) / out_tsamp);
  return s;
}

}  // namespace

double presto_subband_top_mhz(const DedispInput& in, int nsub, int j) {
  const double chanwidth = std::fabs(in.foff_mhz);
  const double subbandwidth = chanwidth * (in.nchans / nsub);
  const double losub_hifreq = presto_lofreq(in) + subbandwidth - chanwidth;
  return losub_hifreq + j * subbandwidth;
}

std::vector<double> model_channel_frequencies(const DedispInput& in, DelayModel model) {
  return model == DelayModel::presto ? presto_frequencies(in) : sigproc_frequencies(in);
}

DedispPlan make_dedisp_plan(const DedispProblem& problem) {
  const DedispInput& in = problem.input;
  FASTPSR_EXPECTS(in.nchans > 0, "dedispersion needs at least one channel, got {}", in.nchans);
  FASTPSR_EXPECTS(static_cast<int>(in.chan_freq_mhz.size()) == in.nchans, "{} channel frequencies for {} channels",
                  in.chan_freq_mhz.size(), in.nchans);
  FASTPSR_EXPECTS(in.tsamp_s > 0.0, "sample time must be positive, got {} s", in.tsamp_s);
  FASTPSR_EXPECTS(!problem.dms.empty(), "the DM list is empty");
  FASTPSR_EXPECTS(problem.downsample >= 1, "downsampling factor must be at least 1, got {}", problem.downsample);
  for (double dm : problem.dms) {
    FASTPSR_EXPECTS(std::isfinite(dm) && dm >= 0.0, "DM trials must be finite and non-negative, got {}", dm);
  }
  FASTPSR_EXPECTS(problem.keep.empty() || static_cast<int>(problem.keep.size()) == in.nchans,
                  "channel mask has {} entries for {} channels", problem.keep.size(), in.nchans);
  FASTPSR_EXPECTS(
      problem.keep.empty() || std::any_of(problem.keep.begin(), problem.keep.end(), [](auto k) { return k; }),
      "every channel is killed: nothing left to dedisperse");
  for (double f : in.chan_freq_mhz) {
    FASTPSR_EXPECTS(std::isfinite(f) && f > 0.0, "channel frequencies must be positive, got {} MHz", f);
  }

  DedispPlan plan;
  plan.problem = problem;
  const auto nchans = static_cast<std::size_t>(in.nchans);
  const double out_tsamp = in.tsamp_s * problem.downsample;
  const std::vector<double> freqs = model_channel_frequencies(in, problem.model);
  plan.ref_freq_mhz =
      problem.model == DelayModel::presto ? *std::max_element(freqs.begin(), freqs.end()) : freqs.front();
  if (problem.ref_freq_mhz) {
    FASTPSR_EXPECTS(std::isfinite(*problem.ref_freq_mhz) && *problem.ref_freq_mhz > 0.0,
                    "the reference frequency must be positive, got {} MHz", *problem.ref_freq_mhz);
    plan.ref_freq_mhz = *problem.ref_freq_mhz;
  }
  const bool two_stage = problem.presto_nsub > 0 && problem.presto_nsub != in.nchans;
  if (problem.presto_nsub != 0) {
    FASTPSR_EXPECTS(problem.model == DelayModel::presto, "subband delays (nsub {}) exist only in the presto model",
                    problem.presto_nsub);
    FASTPSR_EXPECTS(problem.presto_nsub > 0 && in.nchans % problem.presto_nsub == 0,
                    "nsub {} must divide the {} channels", problem.presto_nsub, in.nchans);
    FASTPSR_EXPECTS(!two_stage || problem.downsample == 1,
                    "subband delays (nsub {} < {} channels) need downsample 1: prepsubband shifts channels "
                    "before it downsamples",
                    problem.presto_nsub, in.nchans);
    FASTPSR_EXPECTS(!two_stage || std::fabs(in.foff_mhz) > 0.0, "subband delays need a regular band (foff != 0)");
  }
  const std::vector<std::int64_t> stage1 = two_stage ? presto_subband_stage1(in, problem) : std::vector<std::int64_t>();
  plan.delays.resize(problem.dms.size() * nchans);
  plan.dm_max_delay.assign(problem.dms.size(), 0);
  // One DM row of the table. The rows are independent; large tables (an automatic plan of a
  // 4096-channel band: 22k DMs, 90 M delays, ~0.5-0.9 s on one core) are filled by several
  // threads, each with the same arithmetic, so the table does not depend on the thread count.
  const auto fill_row = [&](std::size_t i) {
    std::int32_t dmax = 0;
    const std::vector<std::int64_t> stage2 =
        two_stage ? presto_subband_stage2(in, problem, problem.dms[i], out_tsamp) : std::vector<std::int64_t>();
    for (std::size_t c = 0; c < nchans; ++c) {
      const double d = saturated(dm_delay_s(problem.model, problem.dms[i], freqs[c], plan.ref_freq_mhz) / out_tsamp);
      std::int64_t s = problem.model == DelayModel::presto ? nearest_long(d) : static_cast<std::int64_t>(d);
      if (two_stage) {
        const std::size_t ii = presto_channel_index(in, c);
        const auto sb = ii / (nchans / static_cast<std::size_t>(problem.presto_nsub));
        s = stage1[ii] + stage2[sb];
      }
      // d too: a delay above -1 sample truncates to 0 and would pass. A channel at the reference
      // reached by another walk of the band (a subband's, split_into_subbands) may lie a few
      // ulps above it: SIGPROC truncates that to 0 too.
      const bool above_ref = freqs[c] - plan.ref_freq_mhz > 1e-12 * plan.ref_freq_mhz;
      if (s < 0 || (d < 0.0 && above_ref)) {
        throw Error(
            ErrorCode::invalid_argument,
            fmt::format("channel {} ({} MHz) is above the reference frequency {} MHz of the {} delay "
                        "model: the sigproc model needs channel 0 to be the highest (foff < 0); --delay-model presto "
                        "takes either order",
                        c, freqs[c], plan.ref_freq_mhz, to_string(problem.model)));
      }
      FASTPSR_EXPECTS(static_cast<double>(s) <= kMaxDelaySamples,
                      "DM {} needs an absurd delay of {:.4g} samples (sample time {} s)", problem.dms[i],
                      static_cast<double>(s), out_tsamp);
      plan.delays[i * nchans + c] = static_cast<std::int32_t>(s);
      if (plan.channel_kept(static_cast<int>(c))) dmax = std::max(dmax, static_cast<std::int32_t>(s));
    }
    plan.dm_max_delay[i] = dmax;
  };
  const std::size_t ndms = problem.dms.size();
  const std::size_t threads =
      std::min<std::size_t>({std::max(1U, std::thread::hardware_concurrency()), 16, ndms * nchans / kDelaysPerThread});
  if (threads <= 1) {
    for (std::size_t i = 0; i < ndms; ++i) fill_row(i);
  } else {
    // Rows in chunks handed to whichever thread is free. The error a serial fill would have
    // thrown (that of the first failing row) is the one rethrown.
    const std::size_t rows_per_chunk = std::max<std::size_t>(1, kDelaysPerThread / 16 / nchans);
    const std::size_t chunks = (ndms + rows_per_chunk - 1) / rows_per_chunk;
    std::vector<std::exception_ptr> errors(chunks);
    WorkerTeam team(threads);
    team.run_dynamic(chunks, [&](std::size_t chunk, std::size_t) {
      try {
        for (std::size_t i = chunk * rows_per_chunk; i < std::min(ndms, (chunk + 1) * rows_per_chunk); ++i) fill_row(i);
      } catch (...) {
        errors[chunk] = std::current_exception();
      }
    });
    for (const auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
  }
  plan.max_delay = *std::max_element(plan.dm_max_delay.begin(), plan.dm_max_delay.end());
  plan.min_dm_max_delay = *std::min_element(plan.dm_max_delay.begin(), plan.dm_max_delay.end());
  return plan;
}

}  // namespace fastpsr
