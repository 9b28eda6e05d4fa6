// SPDX-License-Identifier: MIT
#pragma once
/// accelsearch's DM trials, from input to PRESTO files, in three stages that overlap:
///   prepare (a thread): read, real FFT, plan, de-redden and normalise trial k + 1;
///   search (the calling thread): the f-fdot search of trial k (batches on a GPU), one searcher
///     kept for all trials it covers (accel_searcher_reuse.hpp);
///   finish (a thread): candidates of trial k - 1 optimised, its files written.
/// At most two trials wait between two stages, so memory stays bounded. Outputs are the same as
/// one trial at a time (the stages share no state; finish takes trials in input order).
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
  std::size_t batch = 1;       ///< trials searched together (GPU: search_batch)
  bool serial = false;         ///< one stage at a time, a new searcher whenever the plan changes
  std::uint64_t expected = 0;  ///< trials expected (progress), 0 when unknown
};

/// Writes `text` to `path` (temporary name, renamed when complete).
void write_text(const std::string& path, const std::string& text);

/// Runs every trial `next_input` yields (std::nullopt ends) through the three stages and returns
/// the sift input of each, in input order. An error in any stage stops the others and is thrown.
std::vector<SiftInput> run_trials(const std::function<std::optional<AccelInput>()>& next_input,
                                  const TrialSettings& settings);

}  // namespace fastpsr::app
