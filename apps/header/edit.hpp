// SPDX-License-Identifier: MIT
#pragma once
// `header IN --set key=value --unset key -o OUT`: a copy of a SIGPROC file with its header changed.
#include <string>
#include <vector>

namespace fastpsr::app {

/// Copies the SIGPROC file `in` to `out` ("-" for either is stdin/stdout) with the keywords in
/// `sets` ("key=value") set and those in `unsets` removed, streaming the data unchanged. The
/// result must still be a valid header whose samples fit the data; the output appears under its
/// name only when complete. Throws fastpsr::Error.
void rewrite_sigproc(const std::string& in, const std::string& out, const std::vector<std::string>& sets,
                     const std::vector<std::string>& unsets);

}  // namespace fastpsr::app
