// SPDX-License-Identifier: MIT
// ByteSource::peek reads ahead only what comes: asked for more than a pipe holds (one sample of a
// header that claims 2^30 channels), it returns the bytes there are, which are then read again
// in order; asked across its 1 MiB steps, it returns exactly what was asked.
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "format_test_helpers.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

TEST_CASE("peek: more than the data returns the data, across its steps, and reading gives them again") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> bytes((std::size_t{3} << 20) + 17);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
  auto src = test::pipe_source(bytes, 7000);
  CHECK(src->peek(10).size() == 10);
  const auto some = src->peek((std::size_t{1} << 20) + 5);  // across the first step
  REQUIRE(some.size() == (std::size_t{1} << 20) + 5);
  CHECK(std::equal(some.begin(), some.end(), bytes.begin()));
  const auto all = src->peek(std::size_t{1} << 30);  // a GiB asked, 3 MiB there
  REQUIRE(all.size() == bytes.size());
  CHECK(std::equal(all.begin(), all.end(), bytes.begin()));
  std::vector<std::uint8_t> got(100);
  CHECK(src->read(got.data(), got.size()) == got.size());
  CHECK(std::equal(got.begin(), got.end(), bytes.begin()));
  const auto rest = src->peek(std::size_t{1} << 30);
  REQUIRE(rest.size() == bytes.size() - 100);
  CHECK(std::equal(rest.begin(), rest.end(), bytes.begin() + 100));
  std::vector<std::uint8_t> tail(bytes.size());
  CHECK(src->read(tail.data(), tail.size()) == bytes.size() - 100);
  CHECK(std::equal(tail.begin(), tail.begin() + static_cast<std::ptrdiff_t>(bytes.size() - 100), bytes.begin() + 100));
  CHECK(src->peek(1).empty());
  CHECK(src->position() == bytes.size());
}
