// SPDX-License-Identifier: MIT
#pragma once
/// Messages to stderr (stdout carries data only). Tools set the level from -q / -v.
#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "fastpsr/flag_names.hpp"

namespace fastpsr {

enum class Verbosity { quiet = 0, normal = 1, verbose = 2, debug = 3 };

void set_verbosity(Verbosity v) noexcept;
[[nodiscard]] Verbosity verbosity() noexcept;
/// The tool name printed in front of messages ("dedisp: ...").
void set_log_prefix(std::string_view tool);
/// Flags renamed in every message (the spelling of the command the user ran: flag_names.hpp).
void set_log_flag_aliases(std::vector<FlagAlias> aliases);
/// `text` with those flags renamed: what log_line prints, for messages written elsewhere (errors).
[[nodiscard]] std::string with_log_flag_names(std::string_view text);
void log_line(Verbosity level, std::string_view text);

template <typename... Args>
void log_info(fmt::format_string<Args...> f, Args&&... args) {
  if (verbosity() >= Verbosity::normal) log_line(Verbosity::normal, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void log_verbose(fmt::format_string<Args...> f, Args&&... args) {
  if (verbosity() >= Verbosity::verbose) log_line(Verbosity::verbose, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void log_debug(fmt::format_string<Args...> f, Args&&... args) {
  if (verbosity() >= Verbosity::debug) log_line(Verbosity::debug, fmt::format(f, std::forward<Args>(args)...));
}
/// Warnings are shown unless -q.
template <typename... Args>
void log_warning(fmt::format_string<Args...> f, Args&&... args) {
  if (verbosity() >= Verbosity::normal) {
    log_line(Verbosity::normal, "warning: " + fmt::format(f, std::forward<Args>(args)...));
  }
}

}  // namespace fastpsr
