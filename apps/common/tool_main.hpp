// SPDX-License-Identifier: MIT
#pragma once
/// What every tool shares: exit codes (0 ok, 1 runtime error, 2 usage error), the message
/// `tool: error: <file>: <what>`, quiet exit on a closed pipe, -q/-v/--device options, and
/// PRESTO/SIGPROC single-dash long flags (-zmax) as aliases of GNU ones (--zmax).
#include <CLI/CLI.hpp>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fastpsr/device.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr::app {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRuntime = 1;
inline constexpr int kExitUsage = 2;

/// Runs `body` with the common handling of errors; use as `return run_tool("dedisp", argc, argv, body);`.
int run_tool(std::string_view tool, int argc, char** argv, const std::function<int(int, char**)>& body);

/// Thrown by parse(): carries the exit code when parsing ended the run (help: 0, error: 2).
struct ParseExit {
  int code;
};
/// Parses with CLI11; prints help/version or the usage error, then throws ParseExit. An option of
/// one value given more than once takes the last, with a warning (SIGPROC's and PRESTO's way).
void parse(CLI::App& app, int argc, char** argv);
/// As parse(), over arguments already split (after single-dash normalisation).
void parse(CLI::App& app, std::vector<std::string> args);

/// Rewrites "-name" to "--name" for each single-dash long flag in `names` (also "-name=value").
std::vector<std::string> normalize_single_dash(int argc, char** argv, const std::vector<std::string>& names);

struct CommonOptions {
  bool quiet = false;
  int verbose = 0;
  std::string device = "auto";
};
/// -q/--quiet, -v/--verbose (repeat for more), and with `with_device` --device.
void add_common_options(CLI::App& app, CommonOptions& opts, bool with_device);
/// Sets the log level from the options.
void apply_common_options(const CommonOptions& opts);

/// A usage error raised by a tool after parsing (exit 2).
[[noreturn]] void usage_error(const std::string& message);

/// For an unsigned option: CLI11 takes "-1" as 2^64 - 1 (a huge count, or a buffer size that
/// wraps); this validator refuses a negative value before the conversion, a usage error (exit 2)
/// naming the option. It has no description, so --help stays as it was.
CLI::Validator not_negative();

/// The file that a failure without a file of its own (out of host memory) is reported against:
/// the tool's input, once it is open.
void set_error_file(std::string path);

/// f(), with an Error that names no file of its own reported against `path`: a library call whose
/// refusals are about the caller's file (dedisp's plan of the input's header, accelsearch's plan
/// of one trial among many).
template <typename F>
decltype(auto) naming_file(const std::string& path, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const Error& e) {
    if (!e.path().empty()) throw;
    throw Error(e.code(), e.what(), path);
  }
}

/// A byte count for messages: "64 KiB", "312.4 MiB", "7.63 GiB".
std::string format_bytes(std::size_t bytes);

/// Refuses, before the work, a run whose planned host memory `needed` is more than this process
/// may use (host_memory_limit(): the RAM, a control group's limit or what ulimit -v leaves):
/// throws Error(resource) naming `path`, with the need, its parts (`parts`, e.g. "input 3.81 GiB,
/// dedisperser 4.57 GiB"), what may be used and by which limit, and `hint` (what to lower).
void check_host_memory(std::size_t needed, const std::string& parts, const std::string& hint, const std::string& path);

}  // namespace fastpsr::app
