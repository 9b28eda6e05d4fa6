// SPDX-License-Identifier: MIT
#pragma once
/// Side files that are never large (a PRESTO .inf, a list of channels or birdies), read whole
/// with a bound: a path that is /dev/zero, a FIFO that never ends or a huge file by mistake must
/// not grow memory without limit, and a directory is an error, not an empty file.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fastpsr {

/// A .inf, zaplist or channel list is a few KiB; 1 MiB is far beyond any real one.
inline constexpr std::uint64_t kMaxSideFileBytes = std::uint64_t{1} << 20;

/// Reads the whole file (or stdin, "-"). Error(io) naming the path for one that cannot be opened
/// or is a directory; Error(format) naming it when it holds more than `max_bytes` ("holds more
/// than N bytes: too large for <what>"), known from a regular file's size before reading, and
/// after at most max_bytes + 64 KiB of anything else.
std::vector<std::uint8_t> read_side_file(const std::string& path, std::string_view what,
                                         std::uint64_t max_bytes = kMaxSideFileBytes);

}  // namespace fastpsr
