// SPDX-License-Identifier: MIT
#pragma once
/// A blocking first-in first-out queue of bounded length, for pipelines of threads whose stages
/// must not run ahead of each other by more than a few items (memory stays bounded).
#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
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

/// Items numbered 0, 1, 2 ... made by several threads in any order, taken in number order by one
/// consumer. A producer waits while its number is `window` or more ahead of the next one to be
/// taken, so memory stays bounded.
template <class T>
class ReorderQueue {
 public:
  explicit ReorderQueue(std::size_t window) : window_(window) {
    FASTPSR_EXPECTS(window > 0, "ReorderQueue: the window must be positive");
  }

  /// Waits while `index` is too far ahead; returns false (dropping the item) once the queue is
  /// cancelled or the item lies at or past the end set by end_at().
  bool push(std::size_t index, T item) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return cancelled_ || index >= end_ || index < next_ + window_; });
    if (cancelled_ || index >= end_) return false;
    items_.emplace(index, std::move(item));
    changed_.notify_all();
    return true;
  }

  /// Waits for item next(); std::nullopt once next() reaches the end (or on cancel).
  std::optional<T> pop() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return cancelled_ || next_ >= end_ || items_.count(next_) > 0; });
    if (cancelled_ || next_ >= end_) return std::nullopt;
    auto node = items_.extract(next_);
    ++next_;
    changed_.notify_all();
    return std::move(node.mapped());
  }

  /// There are no items at `end` or past it (it only ever lowers the end): pop() stops there and
  /// items already pushed past it are dropped.
  void end_at(std::size_t end) {
    const std::lock_guard lock(mutex_);
    end_ = std::min(end_, end);
    std::erase_if(items_, [&](const auto& kv) { return kv.first >= end_; });
    changed_.notify_all();
  }

  /// Whether an item numbered `index` would still be taken (not cancelled, before the end).
  [[nodiscard]] bool wanted(std::size_t index) {
    const std::lock_guard lock(mutex_);
    return !cancelled_ && index < end_;
  }

  /// Drops everything and releases every waiting thread.
  void cancel() {
    const std::lock_guard lock(mutex_);
    cancelled_ = true;
    items_.clear();
    changed_.notify_all();
  }

 private:
  std::size_t window_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::size_t, T> items_;
  std::size_t next_ = 0;
  std::size_t end_ = static_cast<std::size_t>(-1);
  bool cancelled_ = false;
};

}  // namespace fastpsr
