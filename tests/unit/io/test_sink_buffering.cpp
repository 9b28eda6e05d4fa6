// SPDX-License-Identifier: MIT
// File sinks with a chosen buffer size and early writeback: whatever the mix of write sizes and
// writeback hints, the committed file holds exactly the bytes written, and nothing appears
// under the final name before commit().
#include <doctest/doctest.h>

#include <filesystem>
#include <random>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/error.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

TEST_CASE("file sink: any buffer size and writeback hints keep the bytes, in order") {
  const std::uint64_t seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  test::TempDir tmp;
  for (const std::size_t buffer :
       {std::size_t{0}, std::size_t{1}, std::size_t{4096}, std::size_t{65536}, kSinkBufferBytes}) {
    CAPTURE(buffer);
    const auto path = tmp / "out.bin";
    std::vector<std::uint8_t> expected;
    {
      auto sink = open_sink(path.string(), buffer);
      // Writes below, at and above the buffer size, with writeback hints in between.
      for (int k = 0; k < 60; ++k) {
        const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 3 * buffer + 100)(rng);
        std::vector<std::uint8_t> piece(n);
        for (auto& b : piece) b = static_cast<std::uint8_t>(rng());
        sink->write(piece.data(), piece.size());
        expected.insert(expected.end(), piece.begin(), piece.end());
        if (rng() % 3 == 0) sink->start_writeback();
        CHECK(sink->position() == expected.size());
      }
      CHECK_FALSE(std::filesystem::exists(path));
      sink->commit();
    }
    CHECK(test::read_file(path) == expected);
    std::filesystem::remove(path);
  }
}

TEST_CASE("file sink: an uncommitted sink leaves no file, and writeback hints on memory sinks do nothing") {
  test::TempDir tmp;
  {
    auto sink = open_sink((tmp / "never.bin").string(), 16);
    const std::vector<std::uint8_t> bytes(100, 7);
    sink->write(bytes.data(), bytes.size());
    sink->start_writeback();
  }
  CHECK(std::filesystem::is_empty(tmp.path()));
  MemorySink m;
  const std::uint8_t b[3] = {1, 2, 3};
  m.write(b, 3);
  m.start_writeback();
  CHECK(m.bytes() == std::vector<std::uint8_t>{1, 2, 3});
}

TEST_CASE("file sink: bytes written are read back and overwritten in place, the length kept") {
  const std::uint64_t seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  test::TempDir tmp;
  const auto path = tmp / "rw.bin";
  std::vector<std::uint8_t> expected(100000);
  for (auto& b : expected) b = static_cast<std::uint8_t>(rng());
  auto sink = open_sink(path.string(), 4096);
  sink->write(expected.data(), 60000);
  sink->write(expected.data() + 60000, 1000);  // still in the buffer: read_back flushes it
  std::vector<std::uint8_t> back(2000);
  REQUIRE(sink->read_back(59500, back.data(), 1500));
  CHECK(std::equal(back.begin(), back.begin() + 1500, expected.begin() + 59500));
  CHECK_FALSE(sink->read_back(60500, back.data(), 1000));  // past what is written
  const std::vector<std::uint8_t> patch(3000, 0xAB);
  REQUIRE(sink->overwrite(100, patch.data(), patch.size()));
  std::copy(patch.begin(), patch.end(), expected.begin() + 100);
  CHECK_FALSE(sink->overwrite(60000, patch.data(), 2000));        // would extend the file
  sink->write(expected.data() + 61000, expected.size() - 61000);  // appends after, not over, the patch
  CHECK(sink->position() == expected.size());
  sink->commit();
  CHECK(test::read_file(path) == expected);
  MemorySink m;
  CHECK_FALSE(m.read_back(0, back.data(), 0));
  CHECK_FALSE(m.overwrite(0, patch.data(), 0));
}
