// SPDX-License-Identifier: MIT
#pragma once
// The search `tune` runs for one problem: the default configuration timed three times (its
// run-to-run spread), then coordinate descent over the candidate axes (each key through its
// values with the others at the best so far, passes repeated while one improves), within the
// time budget; the best is timed three times more and stored only if it beats the default by
// more than the spread measured.
#include <functional>
#include <string>
#include <vector>

#include "fastpsr/tune_timing.hpp"
#include "fastpsr/tuning.hpp"

namespace fastpsr::tune {

/// One key of --gpu-config and the values to try (the benchmarks' sweep values).
struct Axis {
  std::string key;
  std::vector<std::string> values;
};

/// One problem to tune.
struct Target {
  std::string algorithm;    ///< dedisp, accel, ppf
  std::string shape;        ///< its tuning key
  std::string description;  ///< for the table's title
  std::vector<Axis> axes;
  std::function<ConfigTiming(const GpuConfig&)> time;  ///< throws for a configuration that cannot run
};

struct TuneRun {
  double budget_s = 60.0;
  std::string device_model;
  std::string database;  ///< where to store; empty: do not store
};

/// Lists the candidate axes (for --dry-run): no GPU needed.
void print_candidates(const Target& t);
/// Tunes `t` (prints the table on stdout) and stores the result. Returns the entry stored.
TuningEntry tune_target(const Target& t, const TuneRun& run);

}  // namespace fastpsr::tune
