// SPDX-License-Identifier: MIT
#pragma once
/// A fixed team of threads for work split by index: writing many output series at once (run:
/// index i always on member i % size()), or tiles of uneven cost (run_dynamic: indices handed to
/// whichever member is free). Threads are started once and reused by every run. Not OpenMP on
/// purpose: between runs the caller reads input and writes output, and OpenMP's idle workers
/// (libgomp's default wait policy) spin for milliseconds after every region on the cores the
/// caller needs (on a 2-core machine that doubled the CPU time of a whole dedisp run); these
/// members sleep on a condition variable, so a run costs a wake-up (microseconds).
#include <atomic>
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
  /// `threads` members (at least 1): the caller of run() and threads - 1 threads of the team's
  /// own; with 1 every call runs on the caller's thread.
  explicit WorkerTeam(std::size_t threads);
  ~WorkerTeam();
  WorkerTeam(const WorkerTeam&) = delete;
  WorkerTeam& operator=(const WorkerTeam&) = delete;

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  /// Calls fn(i) for i in [0, n), member m taking m, m + size(), m + 2 size() ... in that order.
  /// When calls throw, the other members still finish their indices and the first exception
  /// (lowest member) is rethrown here. Not reentrant: one run at a time.
  void run(std::size_t n, const std::function<void(std::size_t)>& fn);
  /// Calls fn(i, member) for i in [0, n), handing the indices out one at a time in increasing
  /// order to whichever member asks next (dynamic scheduling); `member` < size() names the
  /// running thread, e.g. for per-thread scratch. A member whose call throws stops; the others
  /// take the remaining indices, and the first exception (lowest member) is rethrown here.
  void run_dynamic(std::size_t n, const std::function<void(std::size_t, std::size_t)>& fn);

 private:
  void stop_and_join();
  /// Runs job(m) on every member m (the caller is member 0) and returns when all have returned,
  /// each member's exception kept in errors_[m].
  void run_members(const std::function<void(std::size_t)>& job);
  void member(std::size_t m);
  void work(std::size_t m);
  void rethrow_first();

  std::size_t size_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  std::size_t generation_ = 0;
  std::size_t running_ = 0;
  bool stop_ = false;
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::atomic<std::size_t> next_{0};  // run_dynamic: the next index to hand out
  std::vector<std::exception_ptr> errors_;
};

}  // namespace fastpsr
