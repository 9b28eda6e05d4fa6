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

}  // namespace fastpsr::app
