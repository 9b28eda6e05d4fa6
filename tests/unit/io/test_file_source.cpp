// SPDX-License-Identifier: MIT
// Reading a regular file: large reads go to several threads at once (pread at their offsets),
// small ones and skips use the file offset. Whatever the mix, the bytes come in order, the
// position is right and the end of the file gives a short read, then nothing. Pipes opened by
// name are widened to 1 MiB.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <utility>
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
  test::write_file(path, bytes);
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

#ifdef F_SETPIPE_SZ
namespace {
// What a pipe can be widened to without privileges (the tools ask for 1 MiB).
long expected_pipe_bytes() {
  std::ifstream f("/proc/sys/fs/pipe-max-size");
  long max = 0;
  f >> max;
  return max >= (1L << 20) ? (1L << 20) : -1;  // -1: the request fails, the pipe keeps its size
}

// Opens our end of `fifo` with open_ours() while the other end is opened with `flags` on a
// thread (a FIFO's open waits for its peer); returns ours and the other end's descriptor.
template <typename Open>
auto open_both_ends(const std::filesystem::path& fifo, int flags, Open open_ours) {
  int other = -1;
  std::thread t([&] { other = ::open(fifo.c_str(), flags); });
  auto ours = open_ours();
  t.join();
  return std::pair{std::move(ours), other};
}
}  // namespace

TEST_CASE("pipes: a source or sink on a FIFO holds 1 MiB, so the two sides take fewer turns") {
  const long want = expected_pipe_bytes();
  if (want < 0) {
    MESSAGE("skipped: /proc/sys/fs/pipe-max-size is below 1 MiB here");
    return;
  }
  test::TempDir tmp;
  const auto fifo = tmp / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  {  // the reading end opened as a source
    auto [src, writer] = open_both_ends(fifo, O_WRONLY, [&] { return open_source(fifo.string()); });
    REQUIRE(writer >= 0);
    CHECK(::fcntl(writer, F_GETPIPE_SZ) == want);
    const char msg[] = "through the pipe";
    REQUIRE(::write(writer, msg, sizeof msg) == static_cast<ssize_t>(sizeof msg));
    ::close(writer);
    char got[sizeof msg] = {};
    CHECK(src->read(got, sizeof got) == sizeof msg);
    CHECK(std::string(got) == msg);
  }
  {  // the writing end opened as a sink (written in place: a FIFO is not replaced)
    auto [sink, reader] = open_both_ends(fifo, O_RDONLY, [&] { return open_sink(fifo.string()); });
    REQUIRE(reader >= 0);
    CHECK(::fcntl(reader, F_GETPIPE_SZ) == want);
    sink->write("x", 1);
    sink->commit();
    char c = 0;
    CHECK(::read(reader, &c, 1) == 1);
    CHECK(c == 'x');
    ::close(reader);
  }
}
#endif
