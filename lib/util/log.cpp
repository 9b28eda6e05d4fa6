// SPDX-License-Identifier: MIT
#include "fastpsr/log.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>
#include <utility>

namespace fastpsr {
namespace {
std::atomic<Verbosity> g_verbosity{Verbosity::normal};
std::string g_prefix;              // NOLINT(cert-err58-cpp): set once at start-up
std::mutex g_mutex;                // one message per line even from worker threads
std::vector<FlagAlias> g_aliases;  // NOLINT(cert-err58-cpp): set once at start-up
}  // namespace

void set_verbosity(Verbosity v) noexcept { g_verbosity = v; }
Verbosity verbosity() noexcept { return g_verbosity; }
void set_log_prefix(std::string_view tool) { g_prefix = std::string(tool); }
void set_log_flag_aliases(std::vector<FlagAlias> aliases) { g_aliases = std::move(aliases); }

std::string with_log_flag_names(std::string_view text) {
  return g_aliases.empty() ? std::string(text) : rename_flags(text, g_aliases);
}

void log_line(Verbosity /*level*/, std::string_view text) {
  const std::lock_guard lock(g_mutex);
  if (!g_prefix.empty()) std::fprintf(stderr, "%s: ", g_prefix.c_str());
  const std::string shown = with_log_flag_names(text);
  std::fwrite(shown.data(), 1, shown.size(), stderr);
  std::fputc('\n', stderr);
}

}  // namespace fastpsr
