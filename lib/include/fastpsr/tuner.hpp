// SPDX-License-Identifier: MIT
#pragma once
/// The search `tune` runs for one problem, independent of the GPU (the timing is a callback, so
/// tests drive it with a synthetic cost): the default configuration timed three times (its
/// run-to-run spread), then coordinate descent over the candidate axes (each key through its
/// values with the other keys at the best so far; a move only when it gains more than that
/// spread, so noise does not pick keys; passes repeated while one moves), within the time budget.
/// The best is then timed three times interleaved with the default (so a drift of the clocks
/// during the search cannot favour either) and wins only by more than the spread of those runs.
#include <functional>
#include <string>
#include <vector>

#include "fastpsr/tuning.hpp"

namespace fastpsr {

struct ConfigTiming {
  double ms = 0.0;       ///< median device time of the configuration (the unit is the target's)
  std::string resolved;  ///< the configuration as the backend resolved it, for -v
};

/// One key of --gpu-config and the values to try.
struct TuneAxis {
  std::string key;
  std::vector<std::string> values;
};

/// One problem to tune.
struct TuneTarget {
  std::string algorithm;    ///< dedisp, accel, ppf
  std::string shape;        ///< its tuning key
  std::string description;  ///< for the table's title
  std::vector<TuneAxis> axes;
  /// Times a configuration; throws fastpsr::Error for one the backend or device rejects.
  std::function<ConfigTiming(const GpuConfig&)> time;
};

struct TuneCandidate {
  GpuConfig config;
  double ms = -1.0;   ///< < 0: skipped
  std::string error;  ///< why it was skipped
};

struct TuneResult {
  double default_ms = 0.0;      ///< median of the first three runs
  double default_spread = 0.0;  ///< (max - min) / median of them
  std::vector<TuneCandidate> tried;
  bool out_of_time = false;  ///< the budget ended the search
  GpuConfig best;            ///< the search's best (empty: the defaults)
  double final_best_ms = 0.0;
  double final_default_ms = 0.0;
  double final_spread = 0.0;  ///< of the interleaved final runs
  bool wins = false;          ///< best beats the defaults by more than final_spread
  double seconds = 0.0;
  TuningEntry entry;  ///< what to store: best if it wins, else the defaults
};

/// The candidate count of one pass and the size of the full grid, for --dry-run.
std::pair<std::size_t, std::size_t> tune_space_size(const TuneTarget& t);
/// Runs the search within `budget_s` seconds (the first and final runs always happen).
TuneResult run_tuning(const TuneTarget& t, double budget_s, const std::string& device_model);

}  // namespace fastpsr
