// SPDX-License-Identifier: MIT
#pragma once
/// accelsearch's DM trials, from input to PRESTO files, in three stages that overlap:
///   prepare (threads of their own): read, real FFT, plan, de-redden and normalise the next
///     trials, several at once (a stream's records are read in order, one at a time, and
///     transformed in parallel);
///   search (the calling thread): the f-fdot search of the trials in input order (batches on a
///     GPU), one searcher kept for all trials it covers (accel_searcher_reuse.hpp);
///   finish (threads of their own): candidates optimised, PRESTO files written.
/// A bounded number of trials is in flight, so memory stays bounded. Outputs are the same as one
/// trial at a time (the stages share no state; the search takes trials in input order).
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "fastpsr/accel.hpp"
#include "fastpsr/accel_search.hpp"
#include "fastpsr/accel_sift.hpp"
#include "fastpsr/device.hpp"
#include "input.hpp"

namespace fastpsr::app {

struct TrialSettings {
  AccelConfig config;
  AccelSearchOptions search;
  DeviceChoice device;
  std::size_t batch = 1;  ///< trials searched together (GPU: search_batch)
  bool serial = false;    ///< one stage at a time, a new searcher whenever the plan changes
  int stage_threads = 1;  ///< trials prepared at once, and trials optimised and written at once
  /// One input file: its line says how many candidates were written where (or that there were
  /// none); with several trials a trial without candidates is named only with -v.
  bool single_input = false;
};

/// Where the trials come from: `count` files read by read_file(i) (called from several threads
/// at once), or, when count is 0, a stream whose next() reads the next record in order (one
/// thread at a time) and returns what completes it into an input (on any thread), nullopt at
/// the end.
struct TrialSource {
  std::size_t count = 0;
  std::function<AccelInput(std::size_t)> read_file;
  std::function<std::optional<std::function<AccelInput()>>()> next;
};

/// Writes `text` to `path` (temporary name, renamed when complete).
void write_text(const std::string& path, const std::string& text);

/// Runs every trial of `source` through the three stages and returns the sift input of each, in
/// input order. An input that cannot be read stops the run there: the trials before it are still
/// searched and written, then its error is thrown; an error in the search or the finish stage
/// stops everything and is thrown.
std::vector<SiftInput> run_trials(const TrialSource& source, const TrialSettings& settings);

}  // namespace fastpsr::app
