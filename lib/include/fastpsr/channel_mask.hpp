// SPDX-License-Identifier: MIT
#pragma once
/// Channels to leave out of a sum (--kill-chans), in the forms users already have.
#include <cstdint>
#include <string>
#include <vector>

namespace fastpsr {

/// A keep-mask (1 keep, 0 kill) for `nchans` channels from `spec`:
///  - a list of 0-based channel numbers in file order and inclusive ranges, separated by
///    commas or whitespace: "0:40,800:823" (PRESTO's -ignorechan form);
///  - or the name of a file holding such a list ('#' starts a comment);
///  - or the name of a SIGPROC killfile (dedisperse_all -k): exactly nchans lines of 1 (keep)
///    or 0 (kill).
/// Throws Error(invalid_argument) for a channel outside 0..nchans-1 or text that is neither,
/// naming the file when there is one; Error(io) for a directory; Error(format) for a file over
/// 1 MiB.
std::vector<std::uint8_t> parse_kill_channels(const std::string& spec, int nchans);

/// A keep-mask from a SIGPROC dedisperse -i file: channel numbers counted from 1. Error(io) for
/// a directory or a file that cannot be read, Error(format) for one over 1 MiB.
std::vector<std::uint8_t> read_sigproc_ignore_file(const std::string& path, int nchans);

/// "0:40,800:823" for the killed channels of a mask (for -v and notes); "none" if none.
std::string describe_killed(const std::vector<std::uint8_t>& keep);

}  // namespace fastpsr
