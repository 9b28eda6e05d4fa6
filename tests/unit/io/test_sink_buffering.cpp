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
