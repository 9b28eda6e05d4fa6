// SPDX-License-Identifier: MIT
#pragma once
/// Reading on a thread of its own, one buffer ahead of the caller: while the caller works on one
/// chunk (a channeliser's push), the next is read from the file or pipe, so reading and
/// computing overlap instead of taking turns. Memory: `depth` buffers.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <thread>
#include <vector>

#include "fastpsr/bounded_queue.hpp"

namespace fastpsr {

class ReadAhead {
 public:
  /// One chunk: `n` as `read` returned it (0: the end), the buffer (valid until the next call
  /// of next()) and `position` as it was after the read.
  struct Chunk {
    const std::uint8_t* data = nullptr;
    std::size_t n = 0;
    std::uint64_t position = 0;
  };

  /// `read(dst)` fills up to `buffer_bytes` of dst and returns how much it read, in its own
  /// unit, 0 at the end; `position()`, where given, is called after each read. Both run on the reading
  /// thread only, one after another; an exception either throws is rethrown by next(), after
  /// the chunks read before it. depth >= 2 buffers (the caller's and the one being read).
  ReadAhead(std::size_t buffer_bytes, std::function<std::size_t(std::uint8_t*)> read,
            std::function<std::uint64_t()> position = {}, std::size_t depth = 2);
  /// The same with the caller's buffers (at least two, each as large as `read` fills), e.g.
  /// memory a GPU uploads from without a copy; they must outlive this object.
  ReadAhead(std::vector<std::uint8_t*> buffers, std::function<std::size_t(std::uint8_t*)> read,
            std::function<std::uint64_t()> position = {});
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;
  /// Stops the reading thread: waits for a read in progress to return (a pipe that never
  /// delivers again keeps it waiting, as a read on the caller's thread would).
  ~ReadAhead();

  /// The next chunk in order; the buffer of the previous one goes back to the reader.
  Chunk next();

 private:
  struct Filled {
    std::size_t buffer = 0;
    std::size_t n = 0;
    std::uint64_t position = 0;
    std::exception_ptr error;
  };
  void start();
  void run();

  std::vector<std::vector<std::uint8_t>> owned_;  // the buffers when the caller gives none
  std::vector<std::uint8_t*> buffers_;
  std::function<std::size_t(std::uint8_t*)> read_;
  std::function<std::uint64_t()> position_;
  BoundedQueue<std::size_t> free_;
  BoundedQueue<Filled> filled_;
  std::optional<std::size_t> held_;  // the buffer of the chunk the caller has
  bool ended_ = false;               // the end or an error was taken
  std::thread thread_;
};

}  // namespace fastpsr
