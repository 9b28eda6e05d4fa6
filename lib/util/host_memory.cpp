// SPDX-License-Identifier: MIT
#include "fastpsr/host_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>

namespace fastpsr {
namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// The cgroup path of this process (v2: the "0::" line of /proc/self/cgroup; v1: the memory
// controller's line).
std::optional<std::size_t> cgroup_limit() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const auto colon1 = line.find(':');
    const auto colon2 = line.find(':', colon1 + 1);
    if (colon1 == std::string::npos || colon2 == std::string::npos) continue;
    const std::string controllers = line.substr(colon1 + 1, colon2 - colon1 - 1);
    const std::string path = line.substr(colon2 + 1);
    std::optional<std::size_t> limit;
    if (controllers.empty()) {
      limit = parse_cgroup_limit(read_first_line("/sys/fs/cgroup" + path + "/memory.max"));
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      limit = parse_cgroup_limit(read_first_line("/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes"));
    }
    if (limit) return limit;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::size_t> parse_cgroup_limit(const std::string& text) {
  std::size_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr == text.data()) return std::nullopt;  // "max", empty, garbage
  if (value >= (std::size_t{1} << 62)) return std::nullopt;          // v1's "unlimited"
  return value;
}

HostMemoryLimit host_memory_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  HostMemoryLimit m{pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                                          : std::size_t{8} << 30,  // unknown: a modest guess
                    "RAM"};
  if (const auto limit = cgroup_limit(); limit && *limit < m.bytes) m = {*limit, "the cgroup's memory limit"};
  // An address-space limit (ulimit -v) counts every mapping, not only what is resident: what the
  // process has mapped already (libraries, thread stacks, ~0.5 GB with OpenMP) is not free.
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
    std::size_t mapped = 0;
    std::ifstream statm("/proc/self/statm");
    if (statm >> mapped) mapped *= static_cast<std::size_t>(page > 0 ? page : 4096);
    const auto limit = static_cast<std::size_t>(as.rlim_cur);
    const std::size_t left = limit > mapped ? limit - mapped : 0;
    if (left < m.bytes) m = {left, "ulimit -v"};
  }
  return m;
}

std::size_t usable_host_memory() { return host_memory_limit().bytes; }

}  // namespace fastpsr
