// SPDX-License-Identifier: MIT
// A set of outputs renamed into place one by one (temp_files::OutputSet, dedisp's DM trials) is
// left whole or not at all by a signal that ends the process (QA pass 16 leftovers): before,
// the handler removed the temporaries only, so a SIGINT while dedisp renamed its files left
// some under their final names and not the others. Each case runs in a child process, because
// remove_all_for_exit (what the handler calls) ends this process's file creation for good.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/temp_registry.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;
namespace fs = std::filesystem;

namespace {

std::size_t count_files(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    (void)e;
    ++n;
  }
  return n;
}

// Runs `body` in a child process; returns its wait status.
int in_child(const std::function<void()>& body) {
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    body();
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  return status;
}

// Four files of a set, written to their temporaries and not yet renamed.
std::vector<std::unique_ptr<ByteSink>> open_four(const fs::path& dir) {
  std::vector<std::unique_ptr<ByteSink>> sinks;
  const std::uint8_t bytes[3] = {1, 2, 3};
  for (int k = 0; k < 4; ++k) {
    sinks.push_back(open_sink((dir / ("f" + std::to_string(k))).string(), 0));
    sinks.back()->write(bytes, sizeof bytes);
  }
  return sinks;
}

void commit(temp_files::OutputSet& set, std::vector<std::unique_ptr<ByteSink>>& sinks, std::size_t k) {
  set.commit(k, sinks[k]->name(), [&] { sinks[k]->commit(); });
}

// The signal handler of the tools (apps/common/tool_main.cpp), reduced: sweep, then end.
void sweep_and_exit(int /*sig*/) {
  temp_files::remove_all_for_exit();
  ::_exit(3);
}

}  // namespace

TEST_CASE("output set: a signal while the set is renamed removes the renamed files and the temporaries") {
  test::TempDir tmp;
  const int status = in_child([&] {
    temp_files::OutputSet set(4);
    auto sinks = open_four(tmp.path());
    commit(set, sinks, 0);
    commit(set, sinks, 1);
    temp_files::remove_all_for_exit();  // what the handler does
  });
  REQUIRE(WIFEXITED(status));
  CHECK(count_files(tmp.path()) == 0);  // neither f0, f1 nor the temporaries of f2, f3
}

TEST_CASE("output set: once complete a signal leaves every file") {
  test::TempDir tmp;
  const int status = in_child([&] {
    temp_files::OutputSet set(4);
    auto sinks = open_four(tmp.path());
    for (std::size_t k = 0; k < 4; ++k) commit(set, sinks, k);
    set.complete();
    temp_files::remove_all_for_exit();
  });
  REQUIRE(WIFEXITED(status));
  CHECK(count_files(tmp.path()) == 4);
  for (int k = 0; k < 4; ++k) CHECK(test::read_file(tmp / ("f" + std::to_string(k))).size() == 3);
}

TEST_CASE("output set: a signal that arrives during a rename is handled after it, and removes that file too") {
  test::TempDir tmp;
  const int status = in_child([&] {
    struct sigaction sa {};
    sa.sa_handler = sweep_and_exit;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGTERM, &sa, nullptr);
    temp_files::OutputSet set(4);
    auto sinks = open_four(tmp.path());
    commit(set, sinks, 0);
    // SIGTERM raised inside the rename of f1: held until f1 is in place and registered.
    set.commit(1, sinks[1]->name(), [&] {
      sinks[1]->commit();
      ::raise(SIGTERM);
    });
    ::_exit(4);  // not reached: the handler ends the process when the rename is done
  });
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
  CHECK(count_files(tmp.path()) == 0);
}

TEST_CASE("output set: complete() after the sweep began waits for the end, its files removed") {
  test::TempDir tmp;
  const int status = in_child([&] {
    temp_files::OutputSet set(4);
    auto sinks = open_four(tmp.path());
    for (std::size_t k = 0; k < 4; ++k) commit(set, sinks, k);
    temp_files::remove_all_for_exit();  // another thread's handler, first
    ::alarm(1);                         // ends the child if complete() waits, as it must
    set.complete();
    ::_exit(5);
  });
  REQUIRE(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGALRM);
  CHECK(count_files(tmp.path()) == 0);
}

TEST_CASE("output set: an empty final path registers nothing, and the destructor unregisters") {
  test::TempDir tmp;
  REQUIRE(temp_files::live() == 0);
  {
    temp_files::OutputSet set(2);
    auto a = open_sink((tmp / "a").string(), 0);
    auto b = open_sink((tmp / "b").string(), 0);
    set.commit(0, "", [&] { a->commit(); });  // e.g. a device written in place
    set.commit(1, b->name(), [&] { b->commit(); });
    CHECK(temp_files::live() == 1);  // b's final name
    set.complete();
  }
  CHECK(temp_files::live() == 0);
  CHECK(temp_files::remove_all() == 0);
  CHECK(fs::exists(tmp / "a"));
  CHECK(fs::exists(tmp / "b"));
}
