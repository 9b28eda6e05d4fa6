// SPDX-License-Identifier: MIT
#pragma once
// The CPU dedisperser's worker threads. Not OpenMP: between pushes the caller reads input and
// writes output, and OpenMP's idle workers (libgomp's default wait policy) spin for milliseconds
// at every barrier and after every region, on the cores the caller and the machine's other
// processes need. On the 2-core CI-class machine that doubled the CPU time of a whole dedisp
// run with 2 threads (0.97 s of user time against 0.13 s with OMP_WAIT_POLICY=passive). These
// workers sleep on a condition variable instead; a run costs a wake-up (microseconds).
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fastpsr::cpu::dedisp_detail {

class WorkPool {
 public:
  /// `threads` >= 1 threads in all: the calling thread and threads - 1 workers.
  explicit WorkPool(int threads);
  ~WorkPool();
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  [[nodiscard]] int threads() const noexcept { return static_cast<int>(workers_.size()) + 1; }
  /// Runs task(i, thread) for every i < n, handing out indices one at a time (dynamic
  /// scheduling); `thread` < threads() names the running thread, for per-thread scratch.
  /// Returns when all are done; rethrows the first exception a task threw.
  void run(std::size_t n, const std::function<void(std::size_t, int)>& task);

 private:
  void work(int thread);
  void drain(int thread);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(std::size_t, int)>* task_ = nullptr;
  std::size_t n_ = 0;
  std::atomic<std::size_t> next_{0};
  unsigned generation_ = 0;
  int busy_ = 0;  // workers still in the current run
  bool stop_ = false;
  std::exception_ptr error_;
};

}  // namespace fastpsr::cpu::dedisp_detail
