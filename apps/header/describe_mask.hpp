// SPDX-License-Identifier: MIT
#pragma once
// `header obs_rfifind.mask`: what a PRESTO rfifind mask covers and masks.
#include <string>

#include "describe.hpp"

namespace fastpsr::app {

/// Fills `d` from the rfifind mask at `path`: the data it describes as a SIGPROC-style header
/// (channels from the highest, tstart, the sample time), and what it masks as extra lines and
/// JSON details. Throws fastpsr::Error naming the file.
void describe_presto_mask(FileDescription& d, const std::string& path);

}  // namespace fastpsr::app
