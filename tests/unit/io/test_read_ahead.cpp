// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "fastpsr/read_ahead.hpp"

using fastpsr::ReadAhead;

namespace {

// A source of `total` bytes, byte i = i mod 251, read `chunk` bytes at a time.
struct CountingSource {
  std::size_t total;
  std::size_t chunk;
  std::size_t pos = 0;
  std::atomic<int> reads{0};
  std::size_t read(std::uint8_t* dst) {
    ++reads;
    const std::size_t n = std::min(chunk, total - pos);
    for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<std::uint8_t>((pos + i) % 251);
    pos += n;
    return n;
  }
};

}  // namespace

TEST_CASE("read ahead: chunks arrive in order with their data and positions, then the end, then nothing") {
  for (std::size_t depth : {std::size_t{2}, std::size_t{3}}) {
    CAPTURE(depth);
    CountingSource src{10000, 64};
    ReadAhead ahead(
        64, [&](std::uint8_t* dst) { return src.read(dst); }, [&] { return static_cast<std::uint64_t>(src.pos); },
        depth);
    std::size_t seen = 0;
    for (;;) {
      const ReadAhead::Chunk c = ahead.next();
      if (c.n == 0) break;
      REQUIRE(c.data != nullptr);
      bool same = true;
      for (std::size_t i = 0; i < c.n; ++i) same = same && c.data[i] == static_cast<std::uint8_t>((seen + i) % 251);
      CHECK(same);
      seen += c.n;
      CHECK(c.position == seen);
      // The reader may be this many chunks ahead, never more (bounded memory).
      CHECK(src.reads.load() <= static_cast<int>(seen / 64 + depth + 1));
    }
    CHECK(seen == 10000);
    CHECK(ahead.next().n == 0);  // after the end: still the end, no further read
    CHECK(src.reads.load() == 10000 / 64 + 2);
  }
}

TEST_CASE("read ahead: a read's error comes after the chunks read before it, and stops the reading") {
  int calls = 0;
  ReadAhead ahead(
      8,
      [&](std::uint8_t* dst) -> std::size_t {
        if (++calls == 4) throw std::runtime_error("obs.raw: data end inside a block");
        std::memset(dst, calls, 8);
        return 8;
      },
      [] { return std::uint64_t{0}; });
  for (int i = 1; i <= 3; ++i) {
    const ReadAhead::Chunk c = ahead.next();
    REQUIRE(c.n == 8);
    CHECK(c.data[0] == i);
  }
  CHECK_THROWS_WITH_AS(ahead.next(), "obs.raw: data end inside a block", std::runtime_error);
  CHECK(ahead.next().n == 0);
  CHECK(calls == 4);
}

TEST_CASE("read ahead: destroyed before the end, it stops the reader without reading on") {
  std::atomic<int> calls{0};
  {
    ReadAhead ahead(
        16,
        [&](std::uint8_t* dst) -> std::size_t {
          ++calls;
          std::memset(dst, 0, 16);
          return 16;  // an endless source
        },
        [] { return std::uint64_t{0}; });
    CHECK(ahead.next().n == 16);
  }  // joins here; a hang fails the test by the CTest timeout
  const int after = calls.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(calls.load() == after);
  CHECK(after <= 3);  // the caller's chunk and at most depth more
}

TEST_CASE("read ahead: into the caller's buffers, each chunk in one of them, in turn") {
  CountingSource src{5000, 100};
  std::vector<std::uint8_t> a(100);
  std::vector<std::uint8_t> b(100);
  std::vector<std::uint8_t> c(100);
  ReadAhead ahead({a.data(), b.data(), c.data()}, [&](std::uint8_t* dst) { return src.read(dst); });
  std::size_t seen = 0;
  std::vector<const std::uint8_t*> used;
  for (;;) {
    const ReadAhead::Chunk k = ahead.next();
    if (k.n == 0) break;
    CHECK((k.data == a.data() || k.data == b.data() || k.data == c.data()));
    if (std::find(used.begin(), used.end(), k.data) == used.end()) used.push_back(k.data);
    bool same = true;
    for (std::size_t i = 0; i < k.n; ++i) same = same && k.data[i] == static_cast<std::uint8_t>((seen + i) % 251);
    CHECK(same);
    seen += k.n;
  }
  CHECK(seen == 5000);
  CHECK(used.size() == 3);  // every buffer given was read into
  CHECK_THROWS(ReadAhead({a.data()}, [&](std::uint8_t* dst) { return src.read(dst); }));
}
