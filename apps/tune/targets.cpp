// SPDX-License-Identifier: MIT
#include "targets.hpp"

#include <algorithm>

#include "fastpsr/accel_search.hpp"
#include "fastpsr/dedisp_setups.hpp"
#include "fastpsr/dm_plan.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/presto_inf.hpp"
#include "fastpsr/sigproc_view.hpp"
#include "fastpsr/tune_timing.hpp"
#include "fastpsr/tuning_keys.hpp"

namespace fastpsr::tune {
namespace {

std::vector<std::string> ints(std::initializer_list<int> v) {
  std::vector<std::string> s;
  for (int x : v) s.push_back(std::to_string(x));
  return s;
}

// bench/dedisp_gpu's quick and full sweeps of the staged kernel, its subband, register-cap and
// reuse sweeps: every key once, the most consequential first.
std::vector<TuneAxis> dedisp_axes() {
  return {{"subband", ints({0, 4, 8, 16})},
          {"threads_time", ints({32, 64, 128})},
          {"threads_dm", ints({2, 4, 8, 16})},
          {"items_time", ints({1, 2, 4})},
          {"items_dm", ints({2, 4, 8})},
          {"chans_per_stage", ints({16, 32, 64})},
          {"stages", ints({2, 3})},
          {"max_regs", ints({128, 168, 255})},
          {"reuse", ints({0, 1, 2})},
          {"bulk_copy", ints({0, 1})},
          {"mad_hi", ints({0, 1})}};
}

// bench/accel_gpu's sweep for fdas-8m, without the keys that change the results or the problem
// (plane storage and interpolation are the user's choice, part of the key) and without batch
// (accelsearch groups its DM trials by the batch the user gives).
std::vector<TuneAxis> accel_axes() {
  return {{"path", {"custom", "cufft"}},       {"fft_len", ints({2048, 4096, 8192, 16384, 32768})},
          {"fft_radix", ints({8, 16})},        {"segs_per_block", ints({1, 2, 4, 8})},
          {"hs", {"pipe", "tiled", "gather"}}, {"hs_rows", ints({4, 8, 16})},
          {"hs_threads", ints({64, 128, 256})}, {"hs_pair", ints({0, 1})}};
}

// bench/ppf's sweep, split into its keys.
std::vector<TuneAxis> ppf_axes(bool complex_out) {
  std::vector<TuneAxis> a;
  a.push_back({"fft", complex_out ? std::vector<std::string>{"persist", "cufft", "cluster"}
                                  : std::vector<std::string>{"fused", "cufft"}});
  if (complex_out) {  // the persistent kernel's (rejected, so skipped, with the other paths)
    a.push_back({"sched", {"static", "dynamic"}});
    a.push_back({"occ", ints({2, 3, 4})});
    a.push_back({"persist_fir", ints({45, 50, 60, 65})});
  }
  a.push_back({"fir", {"register", "cache", "shared"}});
  a.push_back({"cb", ints({32, 64, 128, 256})});
  a.push_back({"sb", ints({4, 8, 16, 32, 64})});
  a.push_back({"cpt", ints({1, 2})});
  a.push_back({"pipe", ints({1, 2})});
  a.push_back({"ry", ints({2, 4, 8})});
  a.push_back({"chunk", ints({64, 256, 1024, 4096})});
  if (!complex_out) {
    a.push_back({"radix", ints({8, 16})});
    a.push_back({"seg", ints({8, 16, 32})});
  }
  return a;
}

DedispPlan plan_for(const DedispInput& in, std::vector<double> dms, int downsample) {
  DedispProblem p;
  p.input = in;
  p.dms = std::move(dms);
  p.downsample = downsample;
  p.model = DelayModel::presto;
  return make_dedisp_plan(p);
}

}  // namespace

std::vector<TuneTarget> dedisp_targets(const DedispSetupOptions& o, int gpu, int repeats) {
  std::vector<DedispPlan> plans;
  std::string where;
  double tsamp = 0.0;
  if (!o.setup.empty()) {
    const DedispSetup s = make_dedisp_setup(o.setup, 0, o.seconds);
    plans = s.plans;
    where = s.description;
    tsamp = s.header.tsamp;
  } else {
    // The reader dedisp takes: a search-mode PSRFITS file is the float32 filterbank dedisp reads.
    auto reader = std::make_unique<FilterbankReader>(open_sigproc_source(o.fil));
    const SigprocHeader& h = reader->header();
    DedispInput in = DedispInput::from_header(h);
    if (o.zero_dm) {
      in.nbits = 32;
      in.is_signed = false;
    }
    tsamp = h.tsamp;
    if (!o.dm.empty()) {
      plans.push_back(plan_for(in, parse_dm_range(o.dm), o.downsample));
    } else {
      DdplanOptions po;
      po.lo_dm = o.dm_min;
      po.hi_dm = o.dm_max;
      for (const auto& step : make_ddplan(DmPlanObservation::from_header(h), po).steps) {
        plans.push_back(plan_for(in, step.dms(), step.downsample));
      }
    }
    where = fmt::format("{}: {} channels, {}-bit, tsamp {} us", o.fil, h.nchans, in.nbits, h.tsamp * 1e6);
  }
  std::vector<TuneTarget> targets;
  for (const auto& plan : plans) {
    const std::string shape = dedisp_shape_key(plan);
    if (std::any_of(targets.begin(), targets.end(), [&](const TuneTarget& t) { return t.shape == shape; })) continue;
    // A gulp of `seconds` of output, within 2 GiB of DM-time.
    const auto n_out = std::min(static_cast<std::size_t>(o.seconds / (tsamp * plan.downsample())),
                                (std::size_t{2} << 30) / (4 * plan.ndms()));
    TuneTarget t;
    t.algorithm = "dedisp";
    t.shape = shape;
    t.description = fmt::format(
        "{}; {} DMs {:.3f}..{:.3f}, downsample {}, max delay {} samples; kernels on a gulp "
        "of {} output samples, median of {}",
        where, plan.ndms(), plan.problem.dms.front(), plan.problem.dms.back(), plan.downsample(), plan.max_delay, n_out,
        repeats);
    t.axes = dedisp_axes();
    t.time = [plan, gpu, n_out, repeats](const GpuConfig& c) {
      return time_dedisp_config(plan, c, gpu, n_out, repeats);
    };
    targets.push_back(std::move(t));
  }
  return targets;
}

TuneTarget accel_target(const AccelSetupOptions& o, int gpu, int repeats) {
  std::int64_t numbins = 0;
  double T = 0.0;
  std::string where;
  if (!o.setup.empty()) {
    if (o.setup != "fdas-2m" && o.setup != "fdas-8m") {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("--setup {}: the accel setups are fdas-2m and fdas-8m", o.setup));
    }
    const std::int64_t n = o.setup == "fdas-2m" ? std::int64_t{1} << 21 : std::int64_t{1} << 23;
    numbins = n / 2;
    T = static_cast<double>(n) * 64e-6;
    where = fmt::format("{}: {} samples of 64 us", o.setup, n);
  } else {
    const auto dot = o.dat.rfind('.');
    const std::string root = dot == std::string::npos ? o.dat : o.dat.substr(0, dot);
    const PrestoInf inf = read_inf(root + ".inf");
    numbins = static_cast<std::int64_t>(inf.N) / 2;
    T = inf.N * inf.dt;
    where = fmt::format("{}: {} samples of {} us", o.dat, static_cast<std::int64_t>(inf.N), inf.dt * 1e6);
  }
  AccelConfig c;
  c.zmax = o.zmax;
  c.numharm = o.numharm;
  c.interp = o.interbin ? AccelInterp::interbin : AccelInterp::fourier;
  const AccelPlan plan = make_accel_plan(c, numbins, T);
  GpuConfig user;
  if (o.plane != "auto") user["plane"] = o.plane;
  TuneTarget t;
  t.algorithm = "accel";
  t.shape = accel_shape_key(plan.problem, user);
  t.description = fmt::format("{}; zmax {}, {} harmonics, {}, plane {}; device time per spectrum, median of {}", where,
                              plan.problem.zmax, plan.problem.numharm,
                              o.interbin ? "interbinning" : "Fourier interpolation", o.plane, repeats);
  t.axes = accel_axes();
  t.time = [problem = plan.problem, user, gpu, repeats](const GpuConfig& cfg) {
    GpuConfig all = cfg;
    all.insert(user.begin(), user.end());
    return time_accel_config(problem, all, gpu, repeats);
  };
  return t;
}

TuneTarget ppf_target(const PpfSetupOptions& o, int gpu, int repeats) {
  ChanneliserProblem p;
  p.nchans = o.channels;
  p.ntaps = o.taps;
  p.ncoarse = o.coarse;
  p.npol = o.npol;
  p.input = parse_voltage_type(o.format);
  p.output = o.complex_out ? PpfOutput::complex : PpfOutput::power;
  p.detection = parse_detection(o.detect);
  p.nint = o.complex_out ? 1 : o.nint;
  const ChanneliserPlan plan = make_channeliser_plan(p);
  const auto per = static_cast<double>(o.channels) * o.npol * o.coarse;
  const auto rows =
      std::max<std::size_t>(static_cast<std::size_t>(o.samples / per) / static_cast<std::size_t>(p.nint), 1);
  const std::size_t nspectra = rows * static_cast<std::size_t>(p.nint);
  TuneTarget t;
  t.algorithm = "ppf";
  t.shape = ppf_shape_key(plan);
  t.description =
      fmt::format("C={} T={} {}{} x{} coarse -> {}; the device-resident PPF over {} spectra, median of {}", o.channels,
                  o.taps, o.format, o.npol == 2 ? "x2" : "", o.coarse,
                  o.complex_out ? std::string("complex") : fmt::format("{} x{}", o.detect, p.nint), nspectra, repeats);
  t.axes = ppf_axes(o.complex_out);
  t.time = [plan, gpu, nspectra, repeats](const GpuConfig& c) {
    return time_ppf_config(plan, c, gpu, nspectra, repeats);
  };
  return t;
}

}  // namespace fastpsr::tune
