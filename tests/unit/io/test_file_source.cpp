// SPDX-License-Identifier: MIT
// Reading a regular file: large reads go to several threads at once (pread at their offsets),
// small ones and skips use the file offset. Whatever the mix, the bytes come in order, the
// position is right and the end of the file gives a short read, then nothing.
#include <doctest/doctest.h>

#include <fstream>
#include <random>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

TEST_CASE("file source: large (parallel) and small reads and skips give the file's bytes in order") {
  const std::uint64_t seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  test::TempDir tmp;
  // 21 MiB and an odd tail: several large reads, the last one short.
  const std::size_t size = (std::size_t{21} << 20) + 12345;
  std::vector<std::uint8_t> bytes(size);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
  const auto path = tmp / "data.bin";
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(size));
  }
  for (int round = 0; round < 4; ++round) {
    CAPTURE(round);
    auto src = open_source(path.string());
    REQUIRE(src->size() == size);
    if (round == 1) CHECK(src->peek(100).size() == 100);  // peeked bytes come first
    std::size_t at = 0;
    bool same = true;
    while (at < size) {
      // Mostly reads above the parallel threshold (4 MiB), odd sizes, some small ones, skips.
      const auto kind = rng() % 4;
      if (kind == 3) {
        const std::uint64_t n = rng() % 5000;
        at += static_cast<std::size_t>(src->skip(n));
        at = std::min(at, size);
        CHECK(src->position() == at);
        continue;
      }
      const std::size_t n = kind == 0 ? 1 + rng() % 3000 : (std::size_t{4} << 20) + rng() % (std::size_t{5} << 20);
      std::vector<std::uint8_t> got(n, 0xEE);
      const std::size_t k = src->read(got.data(), n);
      CHECK(k == std::min(n, size - at));
      same = same && std::equal(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(k), bytes.begin() + at);
      at += k;
      CHECK(src->position() == at);
    }
    CHECK(same);
    std::vector<std::uint8_t> more(std::size_t{8} << 20);
    CHECK(src->read(more.data(), more.size()) == 0);  // the end: nothing more
  }
}
