// SPDX-License-Identifier: MIT
#pragma once
/// The tim-stream format, the pipe between `dedisp` and `accelsearch` (docs/formats-fastpsr.md):
/// a concatenation of complete SIGPROC time-series records. Each record is a .tim header
/// (data_type 2, nchans 1, nifs 1, nbits 32, refdm = the DM, fch1 = the reference frequency, and
/// nsamples = the number of samples in this record) followed by that many float32 values.
/// A plain .tim is a valid one-record stream; a record without `nsamples` runs to the end.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/sigproc.hpp"
#include "fastpsr/timeseries.hpp"

namespace fastpsr {

/// The most samples one record can hold: `nsamples` is a SIGPROC int32.
inline constexpr std::uint64_t kMaxTimStreamRecord = 2147483647;

/// Appends records to a sink. Either write(header, samples) for a record in memory, or
/// begin(header, n) then append() pieces adding up to exactly n samples.
class TimStreamWriter {
 public:
  explicit TimStreamWriter(std::unique_ptr<ByteSink> sink);
  /// Opens `path` for writing ("-" for stdout).
  static std::unique_ptr<TimStreamWriter> open(const std::string& path);

  /// One whole record. `header` describes the series (make_tim_header's output is the usual
  /// start); data_type, nchans, nifs, nbits and nsamples are set here. Error(invalid_argument)
  /// for more than kMaxTimStreamRecord samples or while a begun record is incomplete.
  void write(const SigprocHeader& header, std::span<const float> samples);
  /// Starts a record of exactly `nsamples` samples, to be given through append().
  void begin(const SigprocHeader& header, std::uint64_t nsamples);
  /// Adds samples to the begun record; Error(invalid_argument) past its declared length.
  void append(std::span<const float> samples);
  /// Ends the stream (flushes; a file is renamed into place). Error(invalid_argument) when a
  /// begun record is incomplete.
  void commit();

  [[nodiscard]] std::uint64_t records_written() const noexcept { return records_; }
  [[nodiscard]] const std::string& name() const noexcept { return sink_->name(); }

 private:
  void require_no_open_record(const char* what) const;
  std::unique_ptr<ByteSink> sink_;
  std::uint64_t remaining_ = 0;  // samples still owed to the begun record
  std::uint64_t records_ = 0;
};

/// Reads records one by one; memory use is one record.
class TimStreamReader {
 public:
  explicit TimStreamReader(std::unique_ptr<ByteSource> src);
  /// Opens `path` ("-" for stdin).
  static std::unique_ptr<TimStreamReader> open(const std::string& path);

  /// The next record, or nullopt at the end of the stream. Throws Error(format) naming the stream
  /// and the record index (from 0) for a bad header or a record cut short.
  std::optional<TimeSeries> next();
  [[nodiscard]] std::uint64_t records_read() const noexcept { return records_; }
  [[nodiscard]] const std::string& name() const noexcept { return src_->name(); }

 private:
  std::unique_ptr<ByteSource> src_;
  std::uint64_t records_ = 0;
  bool ended_ = false;
};

/// The SigprocHeader of a record: `header` with the fields a tim-stream fixes set
/// (data_type 2, nchans 1, nifs 1, nbits 32, nsamples) and the keys in SIGPROC dedisperse's
/// order plus nsamples.
SigprocHeader tim_stream_record_header(const SigprocHeader& header, std::uint64_t nsamples);

}  // namespace fastpsr
