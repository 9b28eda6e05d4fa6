// SPDX-License-Identifier: MIT
#pragma once
/// Byte streams: the one way the library reads and writes bytes. Files, stdin/stdout ("-")
/// and memory share these interfaces so that every reader and writer works on all three.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fastpsr/sample_gap.hpp"

namespace fastpsr {

/// A source of bytes read front to back. Reads may be shorter than asked only at the end.
class ByteSource {
 public:
  explicit ByteSource(std::string name) : name_(std::move(name)) {}
  virtual ~ByteSource() = default;
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  /// Reads up to n bytes into dst; returns the number read, fewer than n only at end of data.
  /// Throws Error(io) on a read error.
  std::size_t read(void* dst, std::size_t n);
  /// Reads exactly n bytes or throws Error(format) naming `what` ("header", "data", ...).
  void read_exact(void* dst, std::size_t n, const char* what);
  /// Returns up to n bytes from the front without consuming them (format detection).
  std::span<const std::uint8_t> peek(std::size_t n);
  /// Skips n bytes (seeks when it can, reads otherwise); returns the number skipped.
  std::uint64_t skip(std::uint64_t n);

  /// Bytes consumed so far.
  [[nodiscard]] std::uint64_t position() const noexcept { return position_; }
  /// Total size when known (regular files, memory), else nullopt (pipes).
  [[nodiscard]] virtual std::optional<std::uint64_t> size() const { return std::nullopt; }
  /// Reads exactly n bytes at `offset` from the start, leaving the position where it is, where
  /// the source allows it (regular files, memory); false where it does not (pipes) or where the
  /// data end first. Throws Error(io) on a read error.
  virtual bool read_at(std::uint64_t offset, void* dst, std::size_t n) {
    static_cast<void>(offset);
    static_cast<void>(dst);
    static_cast<void>(n);
    return false;
  }
  /// Where the bytes are a filterbank's data: its stretches of padding found so far (see
  /// SpectraSource::gaps), in samples. None for other sources.
  [[nodiscard]] virtual std::vector<SampleGap> gaps() const { return {}; }
  /// The path given by the user ("-" shows as "<stdin>"), for messages.
  [[nodiscard]] const std::string& name() const noexcept { return name_; }

 protected:
  /// One read from the underlying object; 0 means end of data.
  virtual std::size_t read_some(void* dst, std::size_t n) = 0;
  /// Seeks forward by n bytes from the current underlying position if possible.
  virtual bool seek_forward(std::uint64_t /*n*/) { return false; }

 private:
  std::string name_;
  std::vector<std::uint8_t> peeked_;  // bytes read ahead by peek(), served first
  std::size_t peeked_pos_ = 0;
  std::uint64_t position_ = 0;
};

/// A destination of bytes. A file sink writes to a temporary name in the target directory and
/// renames it on commit(); destroying an uncommitted file sink removes the temporary, so a
/// failed run never leaves a file that looks finished.
class ByteSink {
 public:
  explicit ByteSink(std::string name) : name_(std::move(name)) {}
  virtual ~ByteSink() = default;
  ByteSink(const ByteSink&) = delete;
  ByteSink& operator=(const ByteSink&) = delete;

  /// Writes all n bytes or throws Error(io) (BrokenPipe when the reader of a pipe went away).
  virtual void write(const void* src, std::size_t n) = 0;
  virtual void flush() {}
  /// Asks the system to start writing to storage what has reached the file so far (bytes still
  /// in the sink's buffer wait for their write), without waiting: a hint that bounds the dirty
  /// pages of a large output and lets the disk work while the producer computes. A no-op for
  /// memory, pipes and devices. Throws Error(io) as write() does.
  virtual void start_writeback() {}
  /// A file's bytes already written, read back: n bytes at `offset` (flushing first). False
  /// where the sink cannot (pipes, devices, memory) or the bytes are not there. Throws
  /// Error(io) on a read error.
  virtual bool read_back(std::uint64_t offset, void* dst, std::size_t n) {
    static_cast<void>(offset);
    static_cast<void>(dst);
    static_cast<void>(n);
    return false;
  }
  /// Replaces n bytes a file already holds at `offset` (flushing first; the end of the file
  /// stays where it is). False where the sink cannot (pipes, devices, memory) or where the
  /// bytes are not all written yet. Throws Error(io) on a write error.
  virtual bool overwrite(std::uint64_t offset, const void* src, std::size_t n) {
    static_cast<void>(offset);
    static_cast<void>(src);
    static_cast<void>(n);
    return false;
  }
  /// Finishes the output: flushes and, for files, renames the temporary to the final name.
  virtual void commit() { flush(); }
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// Bytes written so far.
  [[nodiscard]] std::uint64_t position() const noexcept { return position_; }

 protected:
  std::uint64_t position_ = 0;

 private:
  std::string name_;
};

/// Opens a file for reading; "-" is stdin. Throws Error(io) naming the path.
std::unique_ptr<ByteSource> open_source(const std::string& path);
/// A source over bytes in memory (the bytes are copied).
std::unique_ptr<ByteSource> memory_source(std::vector<std::uint8_t> bytes, std::string name = "<memory>");

/// Bytes a sink gathers before a system call, unless told otherwise.
inline constexpr std::size_t kSinkBufferBytes = std::size_t{1} << 20;

/// Opens a file for writing through a temporary name; "-" is stdout, and an existing device or
/// FIFO (/dev/null, a named pipe) is written in place (never replaced by a rename).
/// `buffer_bytes`: writes smaller than this are gathered up to it (allocated on the first such
/// write); larger ones go straight to the file. Many sinks open at once want a small buffer.
std::unique_ptr<ByteSink> open_sink(const std::string& path, std::size_t buffer_bytes = kSinkBufferBytes);

/// From now on open_sink refuses to write over this file (the same file by device and inode,
/// through any name, symbolic or hard link): Error(invalid_argument) naming the output. A tool
/// calls it for the inputs its outputs must not replace (dedisp, ppf); `header --set -o` edits
/// its input in place on purpose and does not. stdin ("-"), missing files and anything not a
/// regular file are ignored.
void protect_input(const std::string& path);

/// A sink that keeps what is written in memory.
class MemorySink final : public ByteSink {
 public:
  explicit MemorySink(std::string name = "<memory>") : ByteSink(std::move(name)) {}
  void write(const void* src, std::size_t n) override;
  [[nodiscard]] const std::vector<std::uint8_t>& bytes() const noexcept { return bytes_; }

 private:
  std::vector<std::uint8_t> bytes_;
};

/// Reads a whole file (or stdin) into memory.
std::vector<std::uint8_t> read_all(const std::string& path);
/// Writes bytes to a file atomically (temporary + rename).
void write_all(const std::string& path, std::span<const std::uint8_t> bytes);

}  // namespace fastpsr
