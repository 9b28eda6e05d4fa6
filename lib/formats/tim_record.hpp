// SPDX-License-Identifier: MIT
#pragma once
// Shared by the time-series readers (timeseries.cpp, tim_stream.cpp): checks on a SIGPROC
// time-series header and reading its samples in bounded pieces.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr::detail {

/// Error(format) unless `h` is a single-channel, single-IF time series (data_type 2 or 6 with
/// one channel are accepted, since `dedisperse` writes 6 for one subband). `what` prefixes the
/// message ("record 3: ").
void require_timeseries_header(const SigprocHeader& h, const std::string& name, const std::string& what);

/// Appends to `out` the samples of a record whose header was just read from `src`: exactly
/// `count` samples when given (Error(format) "<what>truncated ..." if the stream ends sooner),
/// else everything up to the end (Error(format) for a trailing partial sample). Memory grows
/// with the data actually read, never with the count a header claims.
void read_tim_samples(ByteSource& src, const SigprocHeader& h, std::optional<std::uint64_t> count,
                      std::vector<float>& out, const std::string& what);

}  // namespace fastpsr::detail
