// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include "fastpsr/backends.hpp"
#include "fastpsr/device.hpp"
#include "fastpsr/error.hpp"

using namespace fastpsr;

TEST_CASE("device spec: auto, cpu, gpu, gpu:N and errors") {
  CHECK(parse_device_spec("auto").kind == DeviceSpec::Kind::automatic);
  CHECK(parse_device_spec("cpu").kind == DeviceSpec::Kind::cpu);
  CHECK(parse_device_spec("gpu").kind == DeviceSpec::Kind::gpu);
  const auto g3 = parse_device_spec("gpu:3");
  CHECK(g3.kind == DeviceSpec::Kind::gpu);
  CHECK(g3.index == 3);
  for (const char* bad : {"", "GPU", "gpu:", "gpu:-1", "gpu:x", "tpu"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_device_spec(bad), Error);
  }
  CHECK(resolve_device(parse_device_spec("cpu")).backend == Backend::cpu);
}

TEST_CASE("device spec: without a GPU, auto falls back to the CPU and gpu is an error") {
  if (gpu_count() > 0) return;  // covered by the gpu tests on a machine with a GPU
  const auto choice = resolve_device(parse_device_spec("auto"));
  CHECK(choice.backend == Backend::cpu);
  CHECK(choice.description.find("CPU") != std::string::npos);
  CHECK_THROWS_AS(resolve_device(parse_device_spec("gpu")), Error);
}

TEST_CASE("key=value lists") {
  const auto kv = parse_key_values("a=1, b = two,,c=3.5");
  CHECK(kv.size() == 3);
  CHECK(kv.at("a") == "1");
  CHECK(kv.at("b") == "two");
  CHECK(kv.at("c") == "3.5");
  CHECK_THROWS_AS(parse_key_values("a"), Error);
  CHECK_THROWS_AS(parse_key_values("=1"), Error);
  CHECK_THROWS_AS(parse_key_values("a="), Error);
}
