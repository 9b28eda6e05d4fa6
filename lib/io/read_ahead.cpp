// SPDX-License-Identifier: MIT
#include "fastpsr/read_ahead.hpp"

#include <utility>

#include "fastpsr/error.hpp"
#include "fastpsr/thread_start.hpp"

namespace fastpsr {

ReadAhead::ReadAhead(std::size_t buffer_bytes, std::function<std::size_t(std::uint8_t*)> read,
                     std::function<std::uint64_t()> position, std::size_t depth)
    : read_(std::move(read)), position_(std::move(position)), free_(depth), filled_(depth) {
  FASTPSR_EXPECTS(depth >= 2, "ReadAhead needs two buffers or more, not {}", depth);
  owned_.resize(depth);
  for (auto& b : owned_) {
    b.resize(buffer_bytes);
    buffers_.push_back(b.data());
  }
  start();
}

ReadAhead::ReadAhead(std::vector<std::uint8_t*> buffers, std::function<std::size_t(std::uint8_t*)> read,
                     std::function<std::uint64_t()> position)
    : buffers_(std::move(buffers)),
      read_(std::move(read)),
      position_(std::move(position)),
      free_(buffers_.size()),
      filled_(buffers_.size()) {
  FASTPSR_EXPECTS(buffers_.size() >= 2, "ReadAhead needs two buffers or more, not {}", buffers_.size());
  start();
}

void ReadAhead::start() {
  for (std::size_t i = 0; i < buffers_.size(); ++i) free_.push(i);
  thread_ = start_thread([this] { run(); });
}

ReadAhead::~ReadAhead() {
  free_.cancel();
  filled_.cancel();
  thread_.join();
}

void ReadAhead::run() {
  for (;;) {
    const std::optional<std::size_t> buffer = free_.pop();
    if (!buffer) return;  // cancelled
    Filled f;
    f.buffer = *buffer;
    try {
      f.n = read_(buffers_[*buffer]);
      if (position_) f.position = position_();
    } catch (...) {
      f.error = std::current_exception();
    }
    const bool last = f.error != nullptr || f.n == 0;
    if (!filled_.push(std::move(f)) || last) return;
  }
}

ReadAhead::Chunk ReadAhead::next() {
  if (ended_) return {};
  if (held_) {
    free_.push(*held_);
    held_.reset();
  }
  std::optional<Filled> f = filled_.pop();
  if (!f) {
    ended_ = true;
    return {};
  }
  if (f->error) {
    ended_ = true;
    std::rethrow_exception(f->error);
  }
  if (f->n == 0) ended_ = true;
  held_ = f->buffer;
  return {buffers_[f->buffer], f->n, f->position};
}

}  // namespace fastpsr
