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

TEST_CASE("reorder queue: items made out of order by several threads are taken in number order") {
  using fastpsr::ReorderQueue;
  ReorderQueue<int> q(4);
  q.end_at(500);
  std::atomic<int> next{0};
  std::vector<std::thread> producers;
  for (int k = 0; k < 3; ++k) {
    producers.emplace_back([&] {
      for (int i = next++; i < 500; i = next++) REQUIRE(q.push(static_cast<std::size_t>(i), i * 7));
    });
  }
  int expected = 0;
  while (auto v = q.pop()) {
    CHECK(*v == expected * 7);
    ++expected;
  }
  for (auto& t : producers) t.join();
  CHECK(expected == 500);
}

TEST_CASE("reorder queue: lowering the end drops what lies past it and refuses later pushes") {
  using fastpsr::ReorderQueue;
  ReorderQueue<int> q(8);
  CHECK(q.push(0, 10));
  CHECK(q.push(3, 13));
  CHECK(q.push(1, 11));
  q.end_at(2);
  CHECK_FALSE(q.wanted(2));
  CHECK(q.wanted(1));
  CHECK_FALSE(q.push(5, 15));
  CHECK(q.pop() == 10);
  CHECK(q.pop() == 11);
  CHECK_FALSE(q.pop().has_value());  // 13 was past the end
  q.end_at(7);                       // an end never rises again
  CHECK_FALSE(q.wanted(3));

  ReorderQueue<int> small(1);
  std::atomic<bool> refused{false};
  std::thread ahead([&] { refused = !small.push(5, 1); });  // waits: 5 is past the window
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  small.cancel();
  ahead.join();
  CHECK(refused);
  CHECK_FALSE(small.pop().has_value());
}
