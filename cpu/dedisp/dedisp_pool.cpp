// SPDX-License-Identifier: MIT
#include "dedisp_pool.hpp"

namespace fastpsr::cpu::dedisp_detail {

WorkPool::WorkPool(int threads) {
  for (int t = 1; t < threads; ++t) workers_.emplace_back([this, t] { work(t); });
}

WorkPool::~WorkPool() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

// Takes indices until none is left; the first exception is kept, the other indices still run.
void WorkPool::drain(int thread) {
  for (std::size_t i = next_.fetch_add(1); i < n_; i = next_.fetch_add(1)) {
    try {
      (*task_)(i, thread);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::current_exception();
    }
  }
}

void WorkPool::work(int thread) {
  unsigned seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    drain(thread);
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      --busy_;
    }
    done_.notify_one();
  }
}

void WorkPool::run(std::size_t n, const std::function<void(std::size_t, int)>& task) {
  if (n == 0) return;
  if (workers_.empty() || n == 1) {
    for (std::size_t i = 0; i < n; ++i) task(i, 0);
    return;
  }
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    task_ = &task;
    n_ = n;
    next_.store(0);
    error_ = nullptr;
    busy_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  wake_.notify_all();
  drain(0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return busy_ == 0; });
  task_ = nullptr;
  if (error_) std::rethrow_exception(error_);
}

}  // namespace fastpsr::cpu::dedisp_detail
