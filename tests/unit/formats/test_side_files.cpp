// SPDX-License-Identifier: MIT
// Side files read whole (QA pass 16, P4 and P12): a .inf, a zaplist, a channel list or a SIGPROC
// ignore file that is a directory is an error, not an empty file (which zapped or killed nothing,
// exit 0), and one that is huge, a device or a FIFO that keeps sending is refused after a
// bounded read; a .fft is read only from a file of known size.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "fastpsr/accel_spectrum.hpp"
#include "fastpsr/channel_mask.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/presto_fft.hpp"
#include "fastpsr/presto_inf.hpp"
#include "fastpsr/side_file.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

// A FIFO at `path` fed `bytes` bytes of 'x' by a thread (a producer that sends more than any
// side file holds); the writer gives up when the reader closes early or never opens it.
class FedFifo {
 public:
  FedFifo(const std::string& path, std::size_t bytes) {
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
    old_ = std::signal(SIGPIPE, SIG_IGN);  // the reader closing early is EPIPE, not a signal
    writer_ = std::thread([path, bytes] {
      int fd = -1;
      for (int i = 0; i < 2000 && fd < 0; ++i) {  // up to 20 s for the reader to open it
        fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);
        if (fd < 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      if (fd < 0) return;
      (void)::fcntl(fd, F_SETFL, 0);  // blocking writes from here
      const std::vector<char> chunk(65536, 'x');
      for (std::size_t sent = 0; sent < bytes;) {
        const ssize_t k = ::write(fd, chunk.data(), std::min(chunk.size(), bytes - sent));
        if (k <= 0) break;
        sent += static_cast<std::size_t>(k);
      }
      ::close(fd);
    });
  }
  ~FedFifo() {
    writer_.join();
    std::signal(SIGPIPE, old_);
  }
  FedFifo(const FedFifo&) = delete;
  FedFifo& operator=(const FedFifo&) = delete;

 private:
  std::thread writer_;
  void (*old_)(int) = nullptr;
};

}  // namespace

TEST_CASE("side files: a directory is an error naming it, not an empty list") {
  test::TempDir dir;
  const std::string d = (dir / "sub").string();
  std::filesystem::create_directory(d);
  const std::string is_dir = "is a directory, not a file [" + d + "]";
  CHECK(test::error_of([&] { (void)read_sigproc_ignore_file(d, 16); }) == is_dir);
  CHECK(test::error_of([&] { (void)read_zaplist(d, 100.0, 0.0); }) == is_dir);
  CHECK(test::error_of([&] { (void)parse_kill_channels(d, 16); }) == is_dir);
  CHECK(test::error_of([&] { (void)read_inf(d); }) == is_dir);
  // A file that cannot be opened says why.
  CHECK(test::error_of([&] { (void)read_zaplist((dir / "none").string(), 100.0, 0.0); }).find("No such file") !=
        std::string::npos);
  CHECK(test::error_of([&] { (void)read_sigproc_ignore_file((dir / "none").string(), 16); }).find("No such file") !=
        std::string::npos);
  // Ordinary files read as before.
  const std::string list = "3 5\n16\n";
  test::write_file(dir / "ignore", std::vector<std::uint8_t>(list.begin(), list.end()));
  const auto keep = read_sigproc_ignore_file((dir / "ignore").string(), 16);
  CHECK(keep[2] == 0);
  CHECK(keep[4] == 0);
  CHECK(keep[15] == 0);
  CHECK(keep[0] == 1);
  const std::string birds = "# f w\n10 0.5\nB 20 1\n";
  test::write_file(dir / "z", std::vector<std::uint8_t>(birds.begin(), birds.end()));
  CHECK(read_zaplist((dir / "z").string(), 100.0, 0.0).size() == 2);
}

TEST_CASE("side files: a huge file or an endless FIFO is refused after a bounded read") {
  test::TempDir dir;
  // A regular file past 1 MiB: refused from its size, before reading.
  const std::string big = (dir / "big.inf").string();
  test::write_file(big, std::vector<std::uint8_t>((std::size_t{1} << 20) + 1, 'x'));
  CHECK(test::error_of([&] { (void)read_inf(big); }) ==
        "holds more than 1048576 bytes: too large for a PRESTO .inf [" + big + "]");
  test::write_file(dir / "exact", std::vector<std::uint8_t>(std::size_t{1} << 20, ' '));
  CHECK(read_side_file((dir / "exact").string(), "x").size() == (std::size_t{1} << 20));
  // A FIFO whose producer sends 4 MiB (it could as well never stop, as /dev/zero).
  const std::string fifo_inf = (dir / "fifo.inf").string();
  {
    const FedFifo feed(fifo_inf, std::size_t{4} << 20);
    CHECK(test::error_of([&] { (void)read_inf(fifo_inf); })
              .find("holds more than 1048576 bytes: too large for a PRESTO "
                    ".inf") != std::string::npos);
  }
  const std::string fifo_zap = (dir / "fifo.zaplist").string();
  {
    const FedFifo feed(fifo_zap, std::size_t{4} << 20);
    CHECK(test::error_of([&] { (void)read_zaplist(fifo_zap, 100.0, 0.0); }).find("too large for a zaplist") !=
          std::string::npos);
  }
  const std::string fifo_ign = (dir / "fifo.ignore").string();
  {
    const FedFifo feed(fifo_ign, std::size_t{4} << 20);
    CHECK(test::error_of([&] {
            (void)read_sigproc_ignore_file(fifo_ign, 16);
          }).find("too large for a SIGPROC ignore file") != std::string::npos);
  }
  // /dev/zero never ends: the same bound.
  std::error_code ec;
  if (std::filesystem::exists("/dev/zero", ec)) {
    CHECK(test::error_of([] { (void)read_inf("/dev/zero"); }).find("too large for a PRESTO .inf") != std::string::npos);
    CHECK(test::error_of([] { (void)read_presto_fft("/dev/zero"); }) ==
          "not a regular file: a PRESTO .fft is read from a file of known size [/dev/zero]");
  }
  // A .fft from a FIFO: its size is unknown, so it is not read (it was read whole).
  const std::string fifo_fft = (dir / "fifo.fft").string();
  {
    const FedFifo feed(fifo_fft, 4096);
    CHECK(test::error_of([&] { (void)read_presto_fft(fifo_fft); }).find("not a regular file") != std::string::npos);
  }
  // A regular .fft reads as before.
  std::vector<std::uint8_t> bins(64);
  for (std::size_t i = 0; i < bins.size(); ++i) bins[i] = static_cast<std::uint8_t>(i);
  test::write_file(dir / "ok.fft", bins);
  const auto got = read_presto_fft((dir / "ok.fft").string());
  REQUIRE(got.size() == 8);
  CHECK(std::memcmp(got.data(), bins.data(), bins.size()) == 0);
}
