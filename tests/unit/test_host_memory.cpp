// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include "fastpsr/host_memory.hpp"

using namespace fastpsr;

TEST_CASE("host memory: cgroup limits as the kernel writes them") {
  CHECK(parse_cgroup_limit("8589934592") == std::optional<std::size_t>(8589934592ULL));
  CHECK(parse_cgroup_limit("max") == std::nullopt);                  // cgroup v2, no limit
  CHECK(parse_cgroup_limit("9223372036854771712") == std::nullopt);  // cgroup v1, no limit
  CHECK(parse_cgroup_limit("") == std::nullopt);                     // file missing
  CHECK(parse_cgroup_limit("garbage") == std::nullopt);
}

TEST_CASE("host memory: what this process may use is positive and at most the RAM") {
  const std::size_t usable = usable_host_memory();
  CHECK(usable > (std::size_t{64} << 20));
  CHECK(usable < (std::size_t{1} << 50));
}
