// SPDX-License-Identifier: MIT
#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fastpsr::tune {

void print_candidates(const TuneTarget& t) {
  const auto [values, grid] = tune_space_size(t);
  std::printf("%s %s\n  %s\n", t.algorithm.c_str(), t.shape.c_str(), t.description.c_str());
  std::printf("  candidate axes (coordinate descent from the defaults: %zu values a pass, of a grid of %zu):\n", values,
              grid);
  for (const auto& a : t.axes) {
    std::string list;
    for (const auto& v : a.values) list += (list.empty() ? "" : " ") + v;
    std::printf("    %-16s %s\n", a.key.c_str(), list.c_str());
  }
}

void print_result(const TuneTarget& t, const TuneResult& r) {
  std::printf("%s %s\n  %s\n", t.algorithm.c_str(), t.shape.c_str(), t.description.c_str());
  auto rows = r.tried;
  std::stable_sort(rows.begin(), rows.end(), [](const TuneCandidate& a, const TuneCandidate& b) {
    if ((a.ms < 0) != (b.ms < 0)) return a.ms >= 0;
    return a.ms < b.ms;
  });
  std::printf("  %-10s %10s  %s\n", "ms", "vs default", "configuration");
  std::printf("  %-10.4f %10s  defaults (median of 3 runs, spread %.2f%%)\n", r.default_ms, "-",
              100.0 * r.default_spread);
  std::size_t skipped = 0;
  for (const auto& c : rows) {
    if (c.ms < 0) {
      ++skipped;
      std::printf("  %-10s %10s  %s: %s\n", "skipped", "-", format_gpu_config(c.config).c_str(), c.error.c_str());
    } else {
      std::printf("  %-10.4f %+9.1f%%  %s\n", c.ms, 100.0 * (c.ms / r.default_ms - 1.0),
                  format_gpu_config(c.config).c_str());
    }
  }
  std::printf("  %zu candidates timed, %zu skipped, in %.1f s%s\n", rows.size() - skipped, skipped, r.seconds,
              r.out_of_time ? " (the budget ended the search)" : "");
  if (r.best.empty()) {
    std::printf("  no candidate beat the defaults by more than their spread: the defaults kept\n");
  } else {
    std::printf(
        "  best: %s; final runs interleaved with the defaults: %.4f ms against %.4f ms (medians of 3): %s "
        "%.1f%%, %s the spread of %.2f%%: %s\n",
        format_gpu_config(r.best).c_str(), r.final_best_ms, r.final_default_ms,
        r.final_best_ms < r.final_default_ms ? "faster by" : "slower by",
        100.0 * std::abs(1.0 - r.final_best_ms / r.final_default_ms), r.wins ? "above" : "within",
        100.0 * r.final_spread, r.wins ? "stored" : "the defaults kept");
  }
}

}  // namespace fastpsr::tune
