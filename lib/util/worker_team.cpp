// SPDX-License-Identifier: MIT
#include "fastpsr/worker_team.hpp"

#include <algorithm>

#include "fastpsr/thread_start.hpp"

namespace fastpsr {

WorkerTeam::WorkerTeam(std::size_t threads) : size_(std::max<std::size_t>(threads, 1)), errors_(size_) {
  // Member 0 is the caller of run(); the others wait here for work.
  threads_.reserve(size_ - 1);  // no push_back throws holding a started thread
  try {
    for (std::size_t m = 1; m < size_; ++m) threads_.push_back(start_thread([this, m] { member(m); }));
  } catch (...) {
    stop_and_join();  // the members started so far: joinable threads must not be destroyed
    throw;
  }
}

WorkerTeam::~WorkerTeam() { stop_and_join(); }

void WorkerTeam::stop_and_join() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (auto& t : threads_) t.join();
}

void WorkerTeam::work(std::size_t m) {
  try {
    (*job_)(m);
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

void WorkerTeam::run_members(const std::function<void(std::size_t)>& job) {
  std::fill(errors_.begin(), errors_.end(), nullptr);
  job_ = &job;
  {
    const std::lock_guard lock(mutex_);
    running_ = size_ - 1;
    ++generation_;
  }
  start_.notify_all();
  work(0);
  {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return running_ == 0; });
  }
  job_ = nullptr;
}

void WorkerTeam::rethrow_first() {
  for (auto& e : errors_) {
    if (e) std::rethrow_exception(e);
  }
}

void WorkerTeam::run(std::size_t n, const std::function<void(std::size_t)>& fn) {
  if (size_ > 1 && n > 1) {
    run_members([&](std::size_t m) {
      for (std::size_t i = m; i < n; i += size_) fn(i);
    });
    rethrow_first();
    return;
  }
  for (std::size_t i = 0; i < n; ++i) fn(i);  // alone: an exception ends the run at once
}

void WorkerTeam::run_dynamic(std::size_t n, const std::function<void(std::size_t, std::size_t)>& fn) {
  if (size_ > 1 && n > 1) {
    next_.store(0);
    run_members([&](std::size_t m) {
      for (std::size_t i = next_.fetch_add(1); i < n; i = next_.fetch_add(1)) fn(i, m);
    });
    rethrow_first();
    return;
  }
  for (std::size_t i = 0; i < n; ++i) fn(i, 0);
}

}  // namespace fastpsr
