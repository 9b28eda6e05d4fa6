// SPDX-License-Identifier: MIT
#pragma once
/// accelsearch --sift: candidates read back from ACCEL text files (ours or PRESTO's), as
/// ACCEL_sift.py reads them, for a sift across DM trials searched by other runs (the parts of a
/// --part job array, or PRESTO's own accelsearch).
#include <string>
#include <vector>

#include "fastpsr/accel_sift.hpp"

namespace fastpsr::app {

/// Reads each ACCEL text file: its candidates, and its DM from "DM<dm>" in the name (as
/// sifting.py takes it) or else from the .inf appended to the file. Throws Error naming the
/// file for a missing or unreadable one, a binary .cand or other side file given instead, an
/// ACCEL file cut short or malformed.
std::vector<SiftInput> read_accel_files(const std::vector<std::string>& paths);

/// The DM trials that wrote no ACCEL file (PRESTO and we write none when nothing passes the
/// threshold) still count where the sifter asks whether a candidate's DMs are adjacent trials:
/// ACCEL_sift.py takes the trials from the *DM*.inf files in its folder. Adds to `inputs` (as
/// trials without candidates) the DM of each such .inf file in the folders of `paths` that no
/// input has; returns how many.
std::size_t add_trials_without_candidates(const std::vector<std::string>& paths, std::vector<SiftInput>& inputs);

}  // namespace fastpsr::app
