// SPDX-License-Identifier: MIT
#include "fastpsr/dedisp_setups.hpp"

#include <cmath>

#include "fastpsr/dm_plan.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr {
namespace {

// A band of nchans channels from top_mhz down over bw_mhz; fch1 is the centre of the top channel.
SigprocHeader band_header(int nchans, double top_mhz, double bw_mhz, double tsamp_s) {
  SigprocHeader h;
  h.source_name = "bench";
  h.telescope_id = 0;
  h.machine_id = 0;
  h.data_type = 1;
  h.nchans = nchans;
  h.foff = -bw_mhz / nchans;
  h.fch1 = top_mhz + 0.5 * h.foff;
  h.tsamp = tsamp_s;
  h.nbits = 8;
  h.nifs = 1;
  h.tstart = 60000.0;
  h.keys = sigproc_filterbank_keys(h);
  return h;
}

DedispPlan plan_for(const SigprocHeader& h, std::vector<double> dms, int downsample, int presto_nsub = 0) {
  DedispProblem p;
  p.input = DedispInput::from_header(h);
  p.dms = std::move(dms);
  p.downsample = downsample;
  p.model = DelayModel::presto;
  p.presto_nsub = presto_nsub;
  return make_dedisp_plan(p);
}

std::vector<double> dm_grid(double lo, double step, int n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = lo + i * step;
  return v;
}

}  // namespace

DedispSetup make_dedisp_setup(const std::string& name, int ndms, double seconds) {
  DedispSetup s;
  s.name = name;
  if (name == "apertif") {
    s.header = band_header(1024, 1720.0, 300.0, 50e-6);
    const int n = ndms > 0 ? ndms : 2048;
    s.plans.push_back(plan_for(s.header, dm_grid(0.0, 0.25, n), 1));
    s.description = fmt::format("apertif: 1024 ch 1420-1720 MHz, 50 us, 8-bit, {} DMs 0..{:.2f}", n, (n - 1) * 0.25);
  } else if (name == "lofar") {
    s.header = band_header(32, 145.0, 6.0, 5e-6);
    const int n = ndms > 0 ? ndms : 2048;
    s.plans.push_back(plan_for(s.header, dm_grid(0.0, 0.25, n), 1));
    s.description = fmt::format("lofar: 32 ch 139-145 MHz, 5 us, 8-bit, {} DMs 0..{:.2f}", n, (n - 1) * 0.25);
  } else if (name == "artemis") {
    s.header = band_header(496, 145.0, 6.05, 81.92e-6);
    const int n = ndms > 0 ? ndms : 800;
    s.plans.push_back(plan_for(s.header, dm_grid(0.0, 0.1, n), 1));
    s.description = fmt::format("artemis: 496 ch 138.95-145 MHz, 81.92 us, 8-bit, {} DMs 0..{:.1f}", n, (n - 1) * 0.1);
  } else if (name == "meerkat") {
    s.header = band_header(4096, 1712.0, 856.0, 76.56e-6);
    DdplanOptions o;
    o.lo_dm = 0;
    o.hi_dm = 2000;
    const DmPlan plan = make_ddplan(DmPlanObservation::from_header(s.header), o);
    for (const auto& step : plan.steps) s.plans.push_back(plan_for(s.header, step.dms(), step.downsample));
    s.description = fmt::format(
        "meerkat: 4096 ch 856-1712 MHz, 76.56 us, 8-bit, DM 0-2000 by the automatic plan "
        "(tolerance 1.25): {} DMs in {} ranges",
        plan.total_dms(), plan.steps.size());
  } else if (name == "presto-iso" || name == "presto-nsub") {
    s.header = band_header(256, 1500.25, 128.0, 64e-6);
    const int n = ndms > 0 ? ndms : 32;
    const bool nsub = name == "presto-nsub";
    s.plans.push_back(plan_for(s.header, dm_grid(58.0, 0.3, n), 1, nsub ? 32 : 0));
    s.description = fmt::format(
        "{}: 256 ch 1372.5-1500 MHz, 64 us, 8-bit, {} DMs 58.0..{:.1f}, {} (the prepsubband comparison of the issue{})",
        name, n, 58.0 + (n - 1) * 0.3, nsub ? "delays of prepsubband -nsub 32" : "per-channel delays",
        nsub ? ", as compare_prepsubband.sh runs it" : "");
  } else {
    throw Error(ErrorCode::invalid_argument, fmt::format("unknown setup '{}' ({})", name, kDedispSetupNames));
  }
  std::size_t longest = 0;
  for (const auto& p : s.plans) {
    longest = std::max(longest, static_cast<std::size_t>(p.max_delay) * static_cast<std::size_t>(p.downsample()));
  }
  const auto nout = static_cast<std::size_t>(std::llround(seconds / s.header.tsamp));
  // presto-iso/-nsub are the file of the prepsubband timing: 2^21 samples whatever `seconds` says.
  const bool presto = name.starts_with("presto-");
  s.nin = presto ? std::size_t{1} << 21 : (nout + longest + 239) / 240 * 240;
  for (const auto& p : s.plans) {
    const auto d = static_cast<std::size_t>(p.downsample());
    s.plan_nin.push_back(presto ? s.nin
                                : std::min(s.nin, (nout + static_cast<std::size_t>(p.max_delay) * d + d - 1) / d * d));
  }
  return s;
}

}  // namespace fastpsr
