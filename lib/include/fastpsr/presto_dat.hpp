// SPDX-License-Identifier: MIT
#pragma once
/// PRESTO's headerless time-series files (formats.md §3.1): .dat holds float32 samples and .sdat
/// int16 samples, in native (little-endian) order; the .inf beside them describes them.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fastpsr/byte_stream.hpp"

namespace fastpsr {

enum class DatSampleType { float32, int16 };

/// Streams samples out of a .dat or .sdat. Memory use is one read buffer for .sdat, none for .dat.
class DatReader {
 public:
  DatReader(std::unique_ptr<ByteSource> src, DatSampleType type);
  /// Opens `path` ("-" for stdin); `.sdat` (any case) means int16, anything else float32.
  static std::unique_ptr<DatReader> open(const std::string& path);

  [[nodiscard]] const std::string& name() const noexcept { return src_->name(); }
  [[nodiscard]] DatSampleType sample_type() const noexcept { return type_; }
  [[nodiscard]] std::size_t bytes_per_sample() const noexcept { return type_ == DatSampleType::int16 ? 2 : 4; }
  /// Samples in the file when its size is known; nullopt for pipes. Throws Error(format) at
  /// construction when the size is not a whole number of samples.
  [[nodiscard]] std::optional<std::uint64_t> nsamples() const noexcept { return nsamples_; }
  [[nodiscard]] std::uint64_t position() const noexcept { return position_; }

  /// Reads up to n samples as float into dst; returns the number read (fewer only at the end).
  /// A stream that ends inside a sample is an Error(format).
  std::size_t read(float* dst, std::size_t n);

 private:
  std::unique_ptr<ByteSource> src_;
  DatSampleType type_;
  std::optional<std::uint64_t> nsamples_;
  std::uint64_t position_ = 0;
  std::vector<std::int16_t> scratch_;
};

/// Writes float32 samples, streaming; call commit() when complete (a file sink renames its
/// temporary into place then).
class DatWriter {
 public:
  explicit DatWriter(std::unique_ptr<ByteSink> sink);
  /// Opens `path` for writing ("-" for stdout).
  static std::unique_ptr<DatWriter> open(const std::string& path);

  void write(std::span<const float> samples);
  [[nodiscard]] std::uint64_t samples_written() const noexcept { return written_; }
  [[nodiscard]] const std::string& name() const noexcept { return sink_->name(); }
  void commit();

 private:
  std::unique_ptr<ByteSink> sink_;
  std::uint64_t written_ = 0;
};

}  // namespace fastpsr
