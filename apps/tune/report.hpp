// SPDX-License-Identifier: MIT
#pragma once
// What tune prints on stdout: a problem's candidate space (--dry-run) and the table of a search.
#include "fastpsr/tuner.hpp"

namespace fastpsr::tune {

/// The key, the description and the candidate axes.
void print_candidates(const TuneTarget& t);
/// The title, every configuration tried (fastest first, skipped ones with the reason) against the
/// default, and the decision.
void print_result(const TuneTarget& t, const TuneResult& r);

}  // namespace fastpsr::tune
