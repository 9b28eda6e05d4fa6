// SPDX-License-Identifier: MIT
// The registry of temporary output files that a signal removes (temp_registry.hpp): a sweep
// unlinks exactly the paths registered and not yet unregistered, whichever threads registered
// them; file sinks keep their temporary registered until commit or destruction; a sweep racing
// with commits never removes a finished file; a full registry only stops registering.
// The signal handler itself (remove_all_for_exit, which ends the process) is run by the CLI
// test tests/cli/signal_cleanup.sh.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/temp_registry.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;
namespace fs = std::filesystem;

namespace {

void touch(const fs::path& p) {
  const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  ::close(fd);
}

std::size_t count_temporaries(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    n += e.path().filename().string().find(".tmp.") != std::string::npos;
  return n;
}

}  // namespace

TEST_CASE("temp registry: a sweep unlinks exactly the live registrations made on many threads") {
  test::TempDir tmp;
  REQUIRE(temp_files::live() == 0);  // nothing else in this process has a temporary open
  constexpr int kThreads = 4;
  constexpr int kPerThread = 800;  // 3200 in all: more than dedisp's 2000+ open outputs
  std::vector<std::vector<std::uint32_t>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < kPerThread; ++k) {
        const auto name = "f" + std::to_string(t) + "_" + std::to_string(k);
        touch(tmp / name);  // a finished output: never registered
        const temp_files::CreationScope creating;
        touch(tmp / ("." + name + ".tmp"));
        ids[t].push_back(temp_files::add((tmp / ("." + name + ".tmp")).string()));
      }
    });
  }
  for (auto& th : threads) th.join();
  // Every third one is unregistered (as after a commit) while its file stays: a sweep must not
  // touch it.
  std::size_t still = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (int k = 0; k < kPerThread; ++k) {
      REQUIRE(ids[t][k] != temp_files::kNotRegistered);
      if (k % 3 == 0) {
        temp_files::remove(ids[t][k]);
      } else {
        ++still;
      }
    }
  }
  CHECK(temp_files::live() == still);

  CHECK(temp_files::remove_all() == still);
  CHECK(temp_files::live() == 0);
  std::size_t wrong = 0;
  for (int t = 0; t < kThreads; ++t) {
    for (int k = 0; k < kPerThread; ++k) {
      const auto name = "f" + std::to_string(t) + "_" + std::to_string(k);
      wrong += !fs::exists(tmp / name);
      wrong += fs::exists(tmp / ("." + name + ".tmp")) != (k % 3 == 0);
    }
  }
  CHECK(wrong == 0);
  CHECK(temp_files::remove_all() == 0);  // a second sweep finds nothing

  // The owners' remove() after a sweep frees the slots, which are then used again.
  for (const auto& v : ids) {
    for (const auto id : v) temp_files::remove(id);
  }
  const std::uint32_t again = temp_files::add((tmp / "again").string());
  CHECK(again < static_cast<std::uint32_t>(kThreads * kPerThread));
  CHECK(temp_files::live() == 1);
  temp_files::remove(again);
  temp_files::remove(temp_files::kNotRegistered);  // what a failed add() gives: accepted
  CHECK(temp_files::live() == 0);
}

TEST_CASE("temp registry: a reserved path is swept only once published, and a reservation can be dropped") {
  test::TempDir tmp;
  REQUIRE(temp_files::live() == 0);
  touch(tmp / ".a.tmp");
  touch(tmp / ".b.tmp");
  const std::uint32_t a = temp_files::reserve((tmp / ".a.tmp").string());
  const std::uint32_t b = temp_files::reserve((tmp / ".b.tmp").string());
  REQUIRE(a != temp_files::kNotRegistered);
  REQUIRE(b != temp_files::kNotRegistered);
  CHECK(temp_files::live() == 0);
  CHECK(temp_files::remove_all() == 0);  // not created yet, as far as the registry knows
  CHECK(fs::exists(tmp / ".a.tmp"));
  temp_files::publish(a);
  CHECK(temp_files::live() == 1);
  CHECK(temp_files::remove_all() == 1);
  CHECK_FALSE(fs::exists(tmp / ".a.tmp"));
  CHECK(fs::exists(tmp / ".b.tmp"));  // b's open "failed": dropped unpublished
  temp_files::remove(b);
  temp_files::remove(a);
  temp_files::publish(temp_files::kNotRegistered);  // what a failed reserve() gives: accepted
  CHECK(temp_files::live() == 0);
  CHECK(temp_files::remove_all() == 0);
  CHECK(fs::exists(tmp / ".b.tmp"));
}

TEST_CASE("temp registry: a file sink's temporary is registered until commit or destruction") {
  test::TempDir tmp;
  REQUIRE(temp_files::live() == 0);
  auto a = open_sink((tmp / "a.dat").string(), 16);
  auto b = open_sink((tmp / "b.dat").string(), 16);
  auto c = open_sink((tmp / "c.dat").string(), 16);
  const std::uint8_t bytes[5] = {1, 2, 3, 4, 5};
  for (auto* s : {a.get(), b.get(), c.get()}) s->write(bytes, sizeof bytes);
  CHECK(temp_files::live() == 3);
  a->commit();
  CHECK(temp_files::live() == 2);
  b.reset();  // abandoned: removed by the sink itself
  CHECK(temp_files::live() == 1);
  CHECK(count_temporaries(tmp.path()) == 1);

  // What a signal does: c's temporary goes, the committed a.dat stays.
  CHECK(temp_files::remove_all() == 1);
  CHECK(count_temporaries(tmp.path()) == 0);
  CHECK(test::read_file(tmp / "a.dat") == std::vector<std::uint8_t>{1, 2, 3, 4, 5});
  CHECK_THROWS_AS(c->commit(), Error);  // its temporary is gone: nothing to rename
  CHECK_FALSE(fs::exists(tmp / "c.dat"));
  c.reset();
  CHECK(temp_files::live() == 0);
  CHECK(fs::exists(tmp / "a.dat"));
}

TEST_CASE("temp registry: sweeps racing with commits never remove a finished file") {
  test::TempDir tmp;
  REQUIRE(temp_files::live() == 0);
  constexpr int kFiles = 300;
  std::vector<char> committed(kFiles, 0);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; i < kFiles; ++i) {
      const std::vector<std::uint8_t> data(static_cast<std::size_t>(i) + 1, static_cast<std::uint8_t>(i));
      try {
        auto sink = open_sink((tmp / ("out" + std::to_string(i))).string(), 0);
        sink->write(data.data(), data.size());
        sink->commit();
        committed[i] = 1;
      } catch (const Error&) {  // the sweep took its temporary before the rename
      }
    }
    done = true;
  });
  std::size_t sweeps = 0;
  while (!done) {
    temp_files::remove_all();
    ++sweeps;
    std::this_thread::yield();
  }
  writer.join();
  CAPTURE(sweeps);
  for (int i = 0; i < kFiles; ++i) {
    const auto p = tmp / ("out" + std::to_string(i));
    CAPTURE(i);
    if (committed[i] != 0) {
      REQUIRE(fs::exists(p));
      CHECK(test::read_file(p) ==
            std::vector<std::uint8_t>(static_cast<std::size_t>(i) + 1, static_cast<std::uint8_t>(i)));
    } else {
      CHECK_FALSE(fs::exists(p));
    }
  }
  CHECK(count_temporaries(tmp.path()) == 0);
  CHECK(temp_files::live() == 0);
}

TEST_CASE("temp registry: when full, further temporaries are just not registered") {
  test::TempDir tmp;
  REQUIRE(temp_files::live() == 0);
  // Registration does not look at the file system: one short path, capacity() times.
  const std::string path = (tmp / ".x.tmp").string();
  std::vector<std::uint32_t> ids;
  ids.reserve(temp_files::capacity());
  while (ids.size() <= temp_files::capacity()) {
    const std::uint32_t id = temp_files::add(path);
    if (id == temp_files::kNotRegistered) break;
    ids.push_back(id);
  }
  CHECK(ids.size() == temp_files::capacity());
  CHECK(temp_files::live() == temp_files::capacity());
  // A file sink still works, unregistered.
  {
    auto sink = open_sink((tmp / "out.bin").string());
    const std::uint8_t b = 42;
    sink->write(&b, 1);
    sink->commit();
  }
  CHECK(test::read_file(tmp / "out.bin") == std::vector<std::uint8_t>{42});
  for (const auto id : ids) temp_files::remove(id);
  CHECK(temp_files::live() == 0);
  const std::uint32_t id = temp_files::add(path);
  CHECK(id != temp_files::kNotRegistered);
  temp_files::remove(id);
}

TEST_CASE("file sink: an output directory that exists but takes no file is named with the reason") {
  test::TempDir tmp;
  const auto message = [](const fs::path& p) -> std::string {
    try {
      open_sink(p.string());
    } catch (const Error& e) {
      return e.what();
    }
    return "(opened)";
  };
  // A directory that is missing, and only then, "does not exist".
  CHECK(message(tmp / "nowhere" / "obs.tim") ==
        "cannot create output file: directory '" + (tmp / "nowhere").string() + "' does not exist");
  touch(tmp / "plain");
  CHECK(message(tmp / "plain" / "obs.tim") ==
        "cannot create output file: '" + (tmp / "plain").string() + "' is not a directory");
  // /proc exists but takes no new files (open says ENOENT there).
  if (fs::is_directory("/proc")) {
    const std::string m = message("/proc/obs.tim");
    CHECK(m == "cannot create output file in '/proc': Permission denied");
  }
  // A directory without write permission (root writes anyway).
  if (::geteuid() != 0) {
    fs::create_directory(tmp / "ro");
    fs::permissions(tmp / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    CHECK(message(tmp / "ro" / "obs.tim") ==
          "cannot create output file in '" + (tmp / "ro").string() + "': Permission denied");
    fs::permissions(tmp / "ro", fs::perms::owner_all);
  }
  CHECK(temp_files::live() == 0);
}
