// SPDX-License-Identifier: MIT
#include "fastpsr/worker_team.hpp"

#include <algorithm>

namespace fastpsr {

WorkerTeam::WorkerTeam(std::size_t threads) : size_(std::max<std::size_t>(threads, 1)), errors_(size_) {
  // Member 0 is the caller of run(); the others wait here for work.
  for (std::size_t m = 1; m < size_; ++m) threads_.emplace_back([this, m] { member(m); });
}

WorkerTeam::~WorkerTeam() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerTeam::work(std::size_t m) {
  try {
    for (std::size_t i = m; i < n_; i += size_) (*fn_)(i);
  } catch (...) {
    errors_[m] = std::current_exception();
  }
}

void WorkerTeam::member(std::size_t m) {
  std::size_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    work(m);
    {
      const std::lock_guard lock(mutex_);
      --running_;
    }
    done_.notify_one();
  }
}

void WorkerTeam::run(std::size_t n, const std::function<void(std::size_t)>& fn) {
  std::fill(errors_.begin(), errors_.end(), nullptr);
  n_ = n;
  fn_ = &fn;
  if (size_ > 1 && n > 1) {
    {
      const std::lock_guard lock(mutex_);
      running_ = size_ - 1;
      ++generation_;
    }
    start_.notify_all();
    work(0);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return running_ == 0; });
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      try {
        fn(i);
      } catch (...) {
        errors_[i % size_] = std::current_exception();
        break;
      }
    }
  }
  fn_ = nullptr;
  for (auto& e : errors_) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace fastpsr
