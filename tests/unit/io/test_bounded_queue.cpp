// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "fastpsr/bounded_queue.hpp"

using fastpsr::BoundedQueue;

TEST_CASE("bounded queue: items arrive in order across threads, never more than the capacity waiting") {
  BoundedQueue<int> q(3);
  std::atomic<int> pushed{0};
  std::thread producer([&] {
    for (int i = 0; i < 1000; ++i) {
      if (!q.push(i)) return;
      ++pushed;
    }
    q.close();
  });
  std::vector<int> got;
  int most_ahead = 0;
  while (auto v = q.pop()) {
    got.push_back(*v);
    // Pushed minus taken: at most the capacity, plus one push that may land after this pop.
    most_ahead = std::max(most_ahead, pushed.load() - static_cast<int>(got.size()));
  }
  producer.join();
  REQUIRE(got.size() == 1000);
  for (int i = 0; i < 1000; ++i) CHECK(got[static_cast<std::size_t>(i)] == i);
  CHECK(most_ahead <= 4);
}

TEST_CASE("bounded queue: close drains what is left, cancel drops it, and both release a waiting push") {
  BoundedQueue<int> q(2);
  CHECK(q.push(1));
  CHECK(q.push(2));
  q.close();
  CHECK_FALSE(q.push(3));
  CHECK(q.pop() == 1);
  CHECK(q.pop() == 2);
  CHECK_FALSE(q.pop().has_value());

  BoundedQueue<int> full(1);
  CHECK(full.push(7));
  std::atomic<bool> refused{false};
  std::thread blocked([&] { refused = !full.push(8); });  // waits: the queue is full
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  full.cancel();
  blocked.join();
  CHECK(refused);
  CHECK_FALSE(full.pop().has_value());  // 7 was dropped
  CHECK_THROWS(BoundedQueue<int>(0));
}
