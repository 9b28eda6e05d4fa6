// SPDX-License-Identifier: MIT
// WorkerTeam: every index exactly once, on its owner, in increasing order per owner; errors
// reach the caller after the other members finished; the team is reused across runs.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "fastpsr/worker_team.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

TEST_CASE("worker team: each index once, owner i % size, in order per owner, over many runs") {
  const std::uint64_t seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (const std::size_t size : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{8}}) {
    CAPTURE(size);
    WorkerTeam team(size);
    CHECK(team.size() == size);
    for (int run = 0; run < 50; ++run) {
      const std::size_t n = rng() % 40;
      CAPTURE(n);
      std::vector<int> calls(n, 0);
      std::vector<std::thread::id> thread_of(n);
      std::vector<std::vector<std::size_t>> order(size);
      std::mutex m;
      team.run(n, [&](std::size_t i) {
        ++calls[i];  // each index is written by one thread only
        thread_of[i] = std::this_thread::get_id();
        const std::lock_guard lock(m);
        order[i % size].push_back(i);
      });
      for (std::size_t i = 0; i < n; ++i) CHECK(calls[i] == 1);
      // Indices of one owner ran on one thread, in increasing order.
      for (std::size_t i = size; i < n; ++i) CHECK(thread_of[i] == thread_of[i - size]);
      for (std::size_t o = 0; o < size; ++o) {
        for (std::size_t k = 1; k < order[o].size(); ++k) CHECK(order[o][k] == order[o][k - 1] + size);
      }
    }
  }
}

TEST_CASE("worker team: the first member's error is rethrown after the others finished, the team goes on") {
  WorkerTeam team(4);
  std::atomic<int> done{0};
  auto fail_odd = [&](std::size_t i) {
    if (i == 5 || i == 2) throw std::runtime_error("index " + std::to_string(i));
    ++done;
  };
  // Member 1 fails at 5 (and skips 9, 13, ...); member 2 fails at 2 first: member 1's error wins.
  CHECK_THROWS_WITH(team.run(20, fail_odd), "index 5");
  // Members 0 and 3 did all of theirs (0,4,..,16 and 3,7,..,19); member 1 did index 1 only.
  CHECK(done.load() == 5 + 5 + 1);
  int after = 0;
  std::mutex m;
  team.run(8, [&](std::size_t) {
    const std::lock_guard lock(m);
    ++after;
  });
  CHECK(after == 8);
  WorkerTeam alone(1);
  CHECK_THROWS_WITH(alone.run(3, fail_odd), "index 2");
}

TEST_CASE("worker team, dynamic: each index once, on a member < size, increasing per member, mixed with run") {
  const std::uint64_t seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (const std::size_t size : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{8}}) {
    CAPTURE(size);
    WorkerTeam team(size);
    for (int run = 0; run < 50; ++run) {
      const std::size_t n = rng() % 60;
      CAPTURE(n);
      std::vector<int> calls(n, 0);
      std::vector<std::vector<std::size_t>> order(size);
      std::vector<std::thread::id> thread_of_member(size);
      std::mutex m;
      bool one_thread_per_member = true;
      bool members_in_range = true;
      const std::uint64_t slow = rng();  // which indices take longer, so members take unequal shares
      team.run_dynamic(n, [&](std::size_t i, std::size_t member) {
        ++calls[i];
        if (((slow >> (i % 64)) & 1U) != 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
        const std::lock_guard lock(m);
        if (member >= size) {
          members_in_range = false;
          return;
        }
        if (order[member].empty()) {
          thread_of_member[member] = std::this_thread::get_id();
        } else if (thread_of_member[member] != std::this_thread::get_id()) {
          one_thread_per_member = false;
        }
        order[member].push_back(i);
      });
      CHECK(members_in_range);
      CHECK(one_thread_per_member);
      for (std::size_t i = 0; i < n; ++i) CHECK(calls[i] == 1);
      for (const auto& o : order) {
        for (std::size_t k = 1; k < o.size(); ++k) CHECK(o[k] > o[k - 1]);
      }
      // The static split still holds on the same team after a dynamic run.
      std::vector<int> again(n, 0);
      team.run(n, [&](std::size_t i) { ++again[i]; });
      for (std::size_t i = 0; i < n; ++i) CHECK(again[i] == 1);
    }
  }
}

TEST_CASE("worker team, dynamic: an error stops its member only, the rest of the indices still run") {
  WorkerTeam team(4);
  std::atomic<int> done{0};
  std::vector<std::atomic<int>> calls(200);
  CHECK_THROWS_WITH(team.run_dynamic(200,
                                     [&](std::size_t i, std::size_t) {
                                       ++calls[i];
                                       if (i == 7) throw std::runtime_error("index 7");
                                       ++done;
                                     }),
                    "index 7");
  // Every index ran exactly once (the other members took what the failed one left).
  for (std::size_t i = 0; i < calls.size(); ++i) CHECK(calls[i].load() == 1);
  CHECK(done.load() == 199);
  WorkerTeam alone(1);
  int seen = 0;
  CHECK_THROWS_WITH(alone.run_dynamic(5,
                                      [&](std::size_t i, std::size_t member) {
                                        CHECK(member == 0);
                                        ++seen;
                                        if (i == 2) throw std::runtime_error("index 2");
                                      }),
                    "index 2");
  CHECK(seen == 3);
}
