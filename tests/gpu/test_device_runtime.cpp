// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include "fastpsr/backends.hpp"
#include "fastpsr/cuda/runtime.hpp"
#include "fastpsr/device.hpp"

using namespace fastpsr;

TEST_CASE("gpu runtime: the device is visible and described") {
  REQUIRE(cuda::device_count() > 0);
  const auto p = cuda::device_properties(0);
  CHECK(!p.name.empty());
  CHECK(p.multiprocessors > 0);
  CHECK(p.global_memory_bytes > (std::size_t{1} << 30));
  const auto [free_bytes, total_bytes] = cuda::memory_info();
  CHECK(free_bytes <= total_bytes);
  CHECK(total_bytes > 0);
  MESSAGE(p.name << ": sm_" << p.sm_major << p.sm_minor << ", " << p.multiprocessors << " SMs");
}

TEST_CASE("gpu runtime: --device resolution") {
  const auto automatic = resolve_device(parse_device_spec("auto"));
  CHECK(automatic.backend == Backend::cuda);
  const auto gpu0 = resolve_device(parse_device_spec("gpu:0"));
  CHECK(gpu0.backend == Backend::cuda);
  CHECK(gpu0.description.find("GPU 0") != std::string::npos);
  CHECK_THROWS(resolve_device(parse_device_spec("gpu:99")));
}
