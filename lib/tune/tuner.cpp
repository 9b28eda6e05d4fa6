// SPDX-License-Identifier: MIT
#include "fastpsr/tuner.hpp"

#include <algorithm>
#include <chrono>
#include <set>

#include "fastpsr/error.hpp"
#include "fastpsr/log.hpp"

namespace fastpsr {
namespace {

using Clock = std::chrono::steady_clock;

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
double spread_of(const std::vector<double>& v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return (*hi - *lo) / median_of(v);
}

}  // namespace

std::pair<std::size_t, std::size_t> tune_space_size(const TuneTarget& t) {
  std::size_t values = 0;
  std::size_t grid = 1;
  for (const auto& a : t.axes) {
    values += a.values.size();
    grid *= a.values.size();
  }
  return {values, grid};
}

TuneResult run_tuning(const TuneTarget& t, double budget_s, const std::string& device_model) {
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  TuneResult r;

  std::vector<double> def;
  for (int i = 0; i < 3; ++i) {
    const auto m = t.time({});
    def.push_back(m.ms);
    if (i == 0) log_verbose("default: {:.4f} ms: {}", m.ms, m.resolved);
  }
  r.default_ms = median_of(def);
  r.default_spread = spread_of(def);
  log_verbose("default: {:.4f} ms, spread {:.2f}% over 3 runs", r.default_ms, 100.0 * r.default_spread);
  const double one_run_s = elapsed() / 3.0;

  std::set<std::string> seen{format_gpu_config({})};
  GpuConfig best;
  double best_ms = r.default_ms;
  for (int pass = 0; pass < 4 && !r.out_of_time; ++pass) {
    bool moved = false;
    for (const auto& axis : t.axes) {
      GpuConfig axis_best;
      double axis_best_ms = best_ms;
      for (const auto& v : axis.values) {
        GpuConfig c = best;
        c[axis.key] = v;
        if (!seen.insert(format_gpu_config(c)).second) continue;
        if (elapsed() + one_run_s > budget_s) {
          r.out_of_time = true;
          break;
        }
        TuneCandidate m{c, -1.0, {}};
        try {
          m.ms = t.time(c).ms;
          log_verbose("{:.4f} ms  {}", m.ms, format_gpu_config(c));
        } catch (const Error& e) {  // rejected by the backend's checks or the device's limits
          m.error = e.what();
          log_verbose("skipped: {}: {}", format_gpu_config(c), m.error);
        }
        r.tried.push_back(m);
        if (m.ms >= 0.0 && m.ms < axis_best_ms) {
          axis_best_ms = m.ms;
          axis_best = c;
        }
      }
      // A move must gain more than the default's run-to-run spread: below it the order is chance.
      if (!axis_best.empty() && axis_best_ms < best_ms * (1.0 - r.default_spread)) {
        best = axis_best;
        best_ms = axis_best_ms;
        moved = true;
      }
      if (r.out_of_time) break;
    }
    if (!moved) break;
  }

  r.best = best;
  r.final_default_ms = r.default_ms;
  r.final_best_ms = r.default_ms;
  r.final_spread = r.default_spread;
  if (!best.empty()) {
    std::vector<double> d;
    std::vector<double> b;
    for (int i = 0; i < 3; ++i) {
      d.push_back(t.time({}).ms);
      b.push_back(t.time(best).ms);
    }
    r.final_default_ms = median_of(d);
    r.final_best_ms = median_of(b);
    r.final_spread = std::max(spread_of(d), spread_of(b));
    r.wins = r.final_best_ms < r.final_default_ms * (1.0 - r.final_spread);
  }
  r.seconds = elapsed();

  TuningEntry& e = r.entry;
  e.algorithm = t.algorithm;
  e.shape = t.shape;
  e.device = device_model;
  e.build = tuning_build_id();
  e.config = r.wins ? best : GpuConfig{};
  e.time_ms = r.wins ? r.final_best_ms : r.final_default_ms;
  e.default_ms = r.final_default_ms;
  e.date = utc_timestamp();
  return r;
}

}  // namespace fastpsr
