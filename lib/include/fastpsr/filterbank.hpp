// SPDX-License-Identifier: MIT
#pragma once
/// Streaming SIGPROC filterbank (and .tim) data: a reader that hands out whole samples, a gulp
/// reader with overlap for the stream stages, and a writer. Memory use is bounded by the gulp.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/sigproc.hpp"
#include "fastpsr/spectra_source.hpp"

namespace fastpsr {

/// Reads the header, then whole samples (one sample = nifs x nchans values).
class FilterbankReader final : public SpectraSource {
 public:
  /// Parses and validates the header. For a file of known size the sample count is checked
  /// (no trailing partial sample, not shorter than `nsamples`).
  explicit FilterbankReader(std::unique_ptr<ByteSource> src);
  /// Opens `path` ("-" for stdin).
  static std::unique_ptr<FilterbankReader> open(const std::string& path);

  [[nodiscard]] const SigprocHeader& header() const noexcept override { return header_; }
  [[nodiscard]] const std::string& name() const noexcept override { return src_->name(); }
  /// Samples in the file when its size is known; nullopt for pipes.
  [[nodiscard]] std::optional<std::uint64_t> nsamples() const noexcept override { return nsamples_; }
  /// Samples handed out (or skipped) so far.
  [[nodiscard]] std::uint64_t position() const noexcept override { return position_; }

  /// Whether a whole sample follows (read ahead, not consumed): a pipe's data may end before the
  /// first sample a header promises, which must be known before per-channel tables are built.
  [[nodiscard]] bool has_whole_sample();
  /// Reads up to n samples of packed bytes (n * bytes_per_sample) into dst; returns samples read.
  /// A pipe that ends inside a sample is an Error(format).
  std::size_t read_packed(std::uint8_t* dst, std::size_t n);
  /// Reads up to n samples unpacked to float (n * nifs * nchans values); returns samples read.
  std::size_t read_float(float* dst, std::size_t n) override;
  /// Skips up to n samples; returns samples skipped.
  std::uint64_t skip(std::uint64_t n) override;
  /// Those of the bytes it reads (several files read as one, a PSRFITS file's missing rows).
  [[nodiscard]] std::vector<SampleGap> gaps() const override { return src_->gaps(); }

 private:
  std::unique_ptr<ByteSource> src_;
  SigprocHeader header_;
  std::optional<std::uint64_t> nsamples_;
  std::uint64_t position_ = 0;
  std::vector<std::uint8_t> scratch_;
};

/// One gulp: `nsamples` rows, of which the first `nsamples - nnew` repeat the end of the
/// previous gulp (the overlap) and the rest are new.
struct Gulp {
  std::uint64_t first_sample = 0;  ///< file sample index of row 0
  std::size_t nsamples = 0;        ///< rows present
  std::size_t nnew = 0;            ///< rows read for this gulp
  const std::uint8_t* packed = nullptr;  ///< rows x bytes_per_sample (Layout::packed)
  const float* values = nullptr;         ///< rows x nifs x nchans (Layout::float32)
  bool last = false;               ///< no data follow
};

/// Gulps of `gulp_samples` new samples, each preceded by the last `overlap` samples of the
/// previous gulp, so a stage that needs `overlap` samples of history sees continuous data.
class GulpReader {
 public:
  enum class Layout { packed, float32 };
  GulpReader(FilterbankReader& reader, std::size_t gulp_samples, std::size_t overlap, Layout layout);
  /// The next gulp, or nullopt once the data are exhausted. The pointers stay valid until the
  /// next call.
  std::optional<Gulp> next();
  /// Bytes of buffer this reader holds.
  [[nodiscard]] std::size_t buffer_bytes() const noexcept;

 private:
  FilterbankReader& reader_;
  std::size_t gulp_;
  std::size_t overlap_;
  Layout layout_;
  std::size_t row_values_;
  std::size_t row_bytes_;
  std::vector<std::uint8_t> packed_;
  std::vector<float> values_;
  std::size_t rows_ = 0;  // rows currently in the buffer
  std::uint64_t first_ = 0;
  bool done_ = false;
  bool started_ = false;
};

/// Writes a header (its `keys`, in order) then samples. Call commit() when complete.
class FilterbankWriter {
 public:
  FilterbankWriter(std::unique_ptr<ByteSink> sink, const SigprocHeader& header);
  static std::unique_ptr<FilterbankWriter> open(const std::string& path, const SigprocHeader& header);
  [[nodiscard]] const SigprocHeader& header() const noexcept { return header_; }
  /// n samples already packed at header().nbits.
  void write_packed(const std::uint8_t* src, std::size_t n);
  /// n samples of nifs x nchans floats, packed to header().nbits (rounded and clipped).
  void write_float(const float* src, std::size_t n);
  void commit();
  [[nodiscard]] std::uint64_t samples_written() const noexcept { return written_; }

 private:
  std::unique_ptr<ByteSink> sink_;
  SigprocHeader header_;
  std::vector<std::uint8_t> scratch_;
  std::uint64_t written_ = 0;
};

/// A SIGPROC time-series header (data_type 2, nchans 1, refdm) derived from a filterbank header,
/// with SIGPROC dedisperse's key order (formats.md §2). fch1 is the reference frequency.
SigprocHeader make_tim_header(const SigprocHeader& filterbank, double refdm, double ref_freq_mhz, int nbits = 32);

}  // namespace fastpsr
