// SPDX-License-Identifier: MIT
#pragma once
/// Checks of numeric option values, shared by the tools (CLI11 validators). Each looks at the
/// text before it is converted, so that a value that makes no sense is a usage error (status 2)
/// naming the option and the value as CLI11 reports a validator's refusal:
///   dedisp: error: --dm-tol: inf is not a finite number
///   dedisp: error: --threads: -1 is negative: give 0 (all cores) to 1024 threads
/// They have no description, so --help stays as it was. Text that is no number at all ("abc",
/// "5s") is left to CLI11's conversion, which refuses it by itself. See also not_negative()
/// (tool_main.hpp) for the unsigned counts.
#include <CLI/CLI.hpp>
#include <limits>
#include <string>

namespace fastpsr::app {

/// The most CPU threads a --threads or --ncpus option takes: more than any machine has cores,
/// and below the counts at which OpenMP and the thread teams fail (100000 threads crashed
/// accelsearch and fake-pulsar and hung dedisp).
inline constexpr int kMaxThreads = 1024;

/// The largest -zmax of accelsearch and tune accel: templates of about 1.1 million bins, more
/// than the CPU search's longest FFT (2^24 points) can correlate; far larger values overflowed
/// the plan's 32-bit template sizes.
inline constexpr int kMaxZmax = 1000000;

/// Which ends of number_in()'s interval belong to it.
enum class Ends {
  closed,    ///< lo <= value <= hi
  above_lo,  ///< lo < value <= hi
  open,      ///< lo < value < hi
};

/// NaN and the infinities (strtod reads "nan", "inf", "-inf" and 1e999 as such) are refused:
/// "<value> is not a finite number".
CLI::Validator finite_number();

/// A finite number within lo..hi (which ends count: `ends`). A refusal says "<value> is not a
/// finite number", "<value> is negative: <expected>" (where lo >= 0) or "<value> is out of range:
/// <expected>"; `expected` says what to give, e.g. "give a factor of 1 or more".
CLI::Validator number_in(double lo, double hi, std::string expected, Ends ends = Ends::closed);

/// A finite number of 0 or more: number_in(0, max, expected).
CLI::Validator not_negative_number(std::string expected);

/// A finite number above 0: number_in(0, max, expected, Ends::above_lo).
CLI::Validator positive_number(std::string expected);

/// A --threads or --ncpus value: 0 (all cores) to kMaxThreads.
CLI::Validator thread_count();

/// The most a double option may be: number_in(lo, kNoLimit, ...) bounds it below only.
inline constexpr double kNoLimit = std::numeric_limits<double>::max();

}  // namespace fastpsr::app
