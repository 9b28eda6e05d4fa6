// SPDX-License-Identifier: MIT
#pragma once
/// Holds many time series that are produced side by side (one block of every series at a
/// time) until they can be written one after the other (tim-stream records, more files than
/// can be open at once). Memory stays under a budget: beyond it everything goes to an
/// anonymous temporary file (deleted when the spool is destroyed, or if the process dies).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fastpsr {

class SeriesSpool {
 public:
  /// `nseries` byte series; `memory_budget` bytes in memory before spilling to a file in
  /// `tmpdir` ("" = $TMPDIR or /tmp). Throws Error(io) if the file cannot be made.
  SeriesSpool(std::size_t nseries, std::size_t memory_budget, std::string tmpdir = "");
  ~SeriesSpool();
  SeriesSpool(const SeriesSpool&) = delete;
  SeriesSpool& operator=(const SeriesSpool&) = delete;

  /// Appends bytes to series `i`.
  void append(std::size_t i, const void* data, std::size_t nbytes);
  [[nodiscard]] std::uint64_t bytes(std::size_t i) const { return lengths_.at(i); }
  /// Passes series `i` in order, in pieces of at most 4 MiB.
  void read(std::size_t i, const std::function<void(const std::uint8_t*, std::size_t)>& f) const;
  /// Frees series `i` (memory only; file space is reclaimed at destruction).
  void release(std::size_t i);
  [[nodiscard]] std::uint64_t spilled_bytes() const noexcept { return file_end_; }
  [[nodiscard]] const std::string& tmpdir() const noexcept { return tmpdir_; }

 private:
  struct Segment {
    bool in_file = false;
    std::uint64_t offset = 0;  // file offset, or index into chunks_[i]
    std::uint64_t size = 0;
  };
  void spill();
  void write_at_end(const void* data, std::size_t n, std::size_t series);
  void flush_pending(std::size_t i);

  std::size_t budget_;
  std::string tmpdir_;
  std::vector<std::vector<Segment>> segments_;
  std::vector<std::vector<std::vector<std::uint8_t>>> chunks_;
  std::vector<std::uint64_t> lengths_;
  std::size_t in_memory_ = 0;
  // Once spilled, each series' latest appends gather here up to flush_bytes_ (the budget shared
  // out over the series) and go to the file as one piece: many DMs in small gulps (meerkat's
  // automatic plan: 21953 series, 3.8 KB appends) would otherwise cost a write and, when read
  // back, a read per append.
  std::vector<std::vector<std::uint8_t>> pending_;
  std::size_t flush_bytes_ = 0;
  int fd_ = -1;
  std::uint64_t file_end_ = 0;
};

}  // namespace fastpsr
