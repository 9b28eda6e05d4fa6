// SPDX-License-Identifier: MIT
#pragma once
/// A blocking first-in first-out queue of bounded length, for pipelines of threads whose stages
/// must not run ahead of each other by more than a few items (memory stays bounded).
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

#include "fastpsr/error.hpp"

namespace fastpsr {

template <class T>
class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity) : capacity_(capacity) {
    FASTPSR_EXPECTS(capacity > 0, "BoundedQueue: the capacity must be positive");
  }

  /// Waits while the queue is full; returns false (and drops the item) once it is closed.
  bool push(T item) {
    std::unique_lock lock(mutex_);
    not_full_.wait(lock, [&] { return closed_ || items_.size() < capacity_; });
    if (closed_) return false;
    items_.push_back(std::move(item));
    not_empty_.notify_one();
    return true;
  }

  /// Waits for an item; std::nullopt once the queue is closed and every item taken.
  std::optional<T> pop() {
    std::unique_lock lock(mutex_);
    not_empty_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return item;
  }

  /// No more items: pop() drains what is left, push() refuses.
  void close() {
    const std::lock_guard lock(mutex_);
    closed_ = true;
    not_full_.notify_all();
    not_empty_.notify_all();
  }

  /// Closes and drops what is left (a stage failed: nobody should wait for the rest).
  void cancel() {
    const std::lock_guard lock(mutex_);
    closed_ = true;
    items_.clear();
    not_full_.notify_all();
    not_empty_.notify_all();
  }

 private:
  std::size_t capacity_;
  std::mutex mutex_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::deque<T> items_;
  bool closed_ = false;
};

}  // namespace fastpsr
