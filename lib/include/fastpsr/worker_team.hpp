// SPDX-License-Identifier: MIT
#pragma once
/// A fixed team of threads for work split by index, such as writing many output series at
/// once: run(n, fn) calls fn(i) for every i in [0, n), index i always on member i % size(), and
/// returns when all calls have returned. Threads are started once and reused by every run().
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fastpsr {

class WorkerTeam {
 public:
  /// `threads` members (at least 1); with 1 every call runs on the caller's thread.
  explicit WorkerTeam(std::size_t threads);
  ~WorkerTeam();
  WorkerTeam(const WorkerTeam&) = delete;
  WorkerTeam& operator=(const WorkerTeam&) = delete;

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Calls fn(i) for i in [0, n), member m taking m, m + size(), m + 2 size() ... in that order.
  /// When calls throw, the other members still finish their indices and the first exception
  /// (lowest member) is rethrown here. Not reentrant: one run() at a time.
  void run(std::size_t n, const std::function<void(std::size_t)>& fn);

 private:
  void member(std::size_t m);
  void work(std::size_t m);

  std::size_t size_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  std::size_t generation_ = 0;
  std::size_t running_ = 0;
  bool stop_ = false;
  std::size_t n_ = 0;
  const std::function<void(std::size_t)>* fn_ = nullptr;
  std::vector<std::exception_ptr> errors_;
};

}  // namespace fastpsr
