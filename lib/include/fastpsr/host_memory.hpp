// SPDX-License-Identifier: MIT
#pragma once
/// How much memory this process may use: the machine's RAM, or less where a control group (a
/// batch system's job, a container) limits it. For defaults of memory budgets.
#include <cstddef>
#include <optional>
#include <string>

namespace fastpsr {

/// The smallest of physical memory, the control group's limit (cgroup v2 memory.max or v1
/// memory.limit_in_bytes of this process's group, when readable and set) and what the
/// address-space limit (ulimit -v) leaves beside what the process has already mapped.
struct HostMemoryLimit {
  std::size_t bytes = 0;
  std::string source;  ///< "RAM", "the cgroup's memory limit" or "ulimit -v"
};
HostMemoryLimit host_memory_limit();
std::size_t usable_host_memory();

/// A cgroup memory limit as written in memory.max / memory.limit_in_bytes: a byte count, or
/// nothing for "max" or a value so large it means no limit (v1 writes ~2^63). Exposed for tests.
std::optional<std::size_t> parse_cgroup_limit(const std::string& text);

}  // namespace fastpsr
