// SPDX-License-Identifier: MIT
#include "tuner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "fastpsr/error.hpp"
#include "fastpsr/log.hpp"

namespace fastpsr::tune {
namespace {

using Clock = std::chrono::steady_clock;

struct Measured {
  GpuConfig config;
  double ms = 0.0;  // < 0: failed
  std::string error;
};

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
// (max - min) / median of repeated measurements of one configuration.
double spread_of(const std::vector<double>& v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return (*hi - *lo) / median_of(v);
}

}  // namespace

void print_candidates(const Target& t) {
  std::size_t values = 0;
  std::size_t grid = 1;
  for (const auto& a : t.axes) {
    values += a.values.size();
    grid *= a.values.size();
  }
  std::printf(
      "%s %s\n  %s\n  candidate axes (coordinate descent from the defaults: %zu values a pass, of a grid of "
      "%zu):\n",
      t.algorithm.c_str(), t.shape.c_str(), t.description.c_str(), values, grid);
  for (const auto& a : t.axes) {
    std::string list;
    for (const auto& v : a.values) list += (list.empty() ? "" : " ") + v;
    std::printf("    %-16s %s\n", a.key.c_str(), list.c_str());
  }
}

TuningEntry tune_target(const Target& t, const TuneRun& run) {
  const auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  std::printf("%s %s\n  %s\n", t.algorithm.c_str(), t.shape.c_str(), t.description.c_str());
  std::fflush(stdout);

  // The default, three times: its median is the reference, its spread the noise floor.
  std::vector<double> def;
  std::string def_resolved;
  for (int i = 0; i < 3; ++i) {
    const auto m = t.time({});
    def.push_back(m.ms);
    def_resolved = m.resolved;
  }
  const double default_ms = median_of(def);
  const double default_spread = spread_of(def);
  log_verbose("default: {:.4f} ms (spread {:.1f}%): {}", default_ms, 100.0 * default_spread, def_resolved);
  const double one_run_s = elapsed() / 3.0;

  std::vector<Measured> rows;
  std::map<std::string, double> seen{{format_gpu_config({}), default_ms}};
  GpuConfig best;
  double best_ms = default_ms;
  int skipped = 0;
  bool out_of_time = false;
  for (int pass = 0; pass < 4 && !out_of_time; ++pass) {
    bool improved = false;
    for (const auto& axis : t.axes) {
      GpuConfig axis_best = best;
      double axis_best_ms = best_ms;
      for (const auto& v : axis.values) {
        GpuConfig c = best;
        c[axis.key] = v;
        const std::string key = format_gpu_config(c);
        if (seen.contains(key)) continue;
        if (elapsed() + one_run_s > run.budget_s) {
          out_of_time = true;
          break;
        }
        Measured m{c, -1.0, {}};
        try {
          m.ms = t.time(c).ms;
          log_verbose("{:.4f} ms  {}", m.ms, key);
        } catch (const Error& e) {  // rejected by the backend's checks or the device's limits
          m.error = e.what();
          ++skipped;
          log_verbose("skipped: {}: {}", key, m.error);
        }
        seen[key] = m.ms;
        rows.push_back(m);
        if (m.ms > 0 && m.ms < axis_best_ms) {
          axis_best_ms = m.ms;
          axis_best = c;
        }
      }
      if (axis_best_ms < best_ms) {
        best = axis_best;
        best_ms = axis_best_ms;
        improved = true;
      }
      if (out_of_time) break;
    }
    if (!improved) break;
  }

  // The best again, twice more: a single lucky run must not win.
  std::vector<double> best_runs{best_ms};
  if (!best.empty()) {
    for (int i = 0; i < 2; ++i) best_runs.push_back(t.time(best).ms);
  }
  const double best_median = median_of(best_runs);
  const double spread = std::max(default_spread, best.empty() ? 0.0 : spread_of(best_runs));
  const bool wins = !best.empty() && best_median < default_ms * (1.0 - spread);

  std::sort(rows.begin(), rows.end(), [](const Measured& a, const Measured& b) {
    if ((a.ms < 0) != (b.ms < 0)) return a.ms >= 0;
    return a.ms < b.ms;
  });
  std::printf("  %-10s %9s  %s\n", "ms", "vs default", "configuration");
  std::printf("  %-10.4f %9s  defaults (3 runs, spread %.1f%%)\n", default_ms, "-", 100.0 * default_spread);
  for (const auto& r : rows) {
    if (r.ms < 0) {
      std::printf("  %-10s %9s  %s: %s\n", "skipped", "-", format_gpu_config(r.config).c_str(), r.error.c_str());
    } else {
      std::printf("  %-10.4f %+8.1f%%  %s\n", r.ms, 100.0 * (r.ms / default_ms - 1.0),
                  format_gpu_config(r.config).c_str());
    }
  }
  std::printf("  %zu candidates timed, %d skipped, in %.1f s%s\n", rows.size() - static_cast<std::size_t>(skipped),
              skipped, elapsed(), out_of_time ? " (the budget ended the search)" : "");
  TuningEntry e;
  e.algorithm = t.algorithm;
  e.shape = t.shape;
  e.device = run.device_model;
  e.build = tuning_build_id();
  e.config = wins ? best : GpuConfig{};
  e.time_ms = wins ? best_median : default_ms;
  e.default_ms = default_ms;
  e.date = utc_timestamp();
  if (wins) {
    std::printf("  best: %s, %.4f ms (median of 3) against %.4f ms: %.1f%% faster, above the spread of %.1f%%\n",
                format_gpu_config(best).c_str(), best_median, default_ms, 100.0 * (1.0 - best_median / default_ms),
                100.0 * spread);
  } else if (!best.empty()) {
    std::printf("  best: %s, %.4f ms (median of 3) against %.4f ms: within the spread of %.1f%%, the defaults kept\n",
                format_gpu_config(best).c_str(), best_median, default_ms, 100.0 * spread);
  } else {
    std::printf("  no candidate beat the defaults\n");
  }
  if (!run.database.empty()) {
    TuningDatabase::store(run.database, e);
    std::printf("  stored: %s -> %s\n", format_gpu_config(e.config).c_str(), run.database.c_str());
  }
  std::printf("\n");
  std::fflush(stdout);
  return e;
}

}  // namespace fastpsr::tune
