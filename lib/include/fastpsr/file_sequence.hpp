// SPDX-License-Identifier: MIT
#pragma once
/// Several files of one observation, in time order, read as one (a recorder that splits its
/// output, as PUPPI/GUPPI and many search backends do; PRESTO's tools take such lists). The
/// files must describe the same data (channels, bits, IFs or polarisations, sample time); file k
/// starts at PRESTO's sample round((tstart_k - tstart_0) x 86400 / tsamp), where the files
/// before it end or later: the samples between (a recorder's gap) are read as zeros, as PRESTO
/// pads them, and listed by gaps(). An overlap, or a gap longer than a hundred times the data
/// before it (files of another observation), is refused, naming both files and the samples.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/if_choice.hpp"
#include "fastpsr/psrfits.hpp"
#include "fastpsr/sigproc.hpp"
#include "fastpsr/spectra_source.hpp"

namespace fastpsr {

/// The samples missing between `before` samples that started at MJD `tstart0` and a file that
/// starts at MJD `tstart` (PRESTO's rounding of the start to a sample). Throws Error(format)
/// naming `name` where the file starts before they end, or implausibly long after.
std::uint64_t samples_missing_before(const std::string& name, const std::string& previous, double tstart0,
                                     double tstart, double tsamp_s, std::uint64_t before);

/// SIGPROC filterbanks as the bytes of one: the first file's header (its nsamples, if it has
/// one, made the total), then the whole samples of every file in turn, packed as they are.
/// Checks every file's header and length at construction; opens one file at a time.
class FilterbankSequence final : public ByteSource {
 public:
  explicit FilterbankSequence(const std::vector<std::string>& paths);
  [[nodiscard]] std::optional<std::uint64_t> size() const override;
  /// The gaps between files, read as zero bytes (samples of value 0).
  [[nodiscard]] std::vector<SampleGap> gaps() const override { return gaps_; }

 protected:
  std::size_t read_some(void* dst, std::size_t n) override;
  bool seek_forward(std::uint64_t n) override;

 private:
  struct Part {
    std::string path;
    std::uint64_t header_bytes = 0;
    std::uint64_t data_bytes = 0;  // whole samples only
    std::uint64_t pad_bytes = 0;   // zeros before the data: the gap after the part before
  };
  bool open_next();  // the next part with data left, positioned at its first data byte
  std::vector<Part> parts_;
  std::vector<std::uint8_t> header_;
  std::size_t header_pos_ = 0;
  std::size_t part_ = 0;                 // the part open (or next to open)
  std::unique_ptr<ByteSource> current_;  // parts_[part_] when open
  std::uint64_t left_ = 0;               // data bytes of the open part not yet served
  std::uint64_t pad_left_ = 0;           // zeros before them not yet served
  std::vector<SampleGap> gaps_;
};

/// Search-mode PSRFITS files as one SpectraSource: each file's spectra in turn, each read by its
/// own PsrfitsReader (one open at a time), with the first file's header and description.
class PsrfitsSequence final : public SpectraSource {
 public:
  PsrfitsSequence(const std::vector<std::string>& paths, PsrfitsScaling scaling, IfChoice pols);

  [[nodiscard]] const SigprocHeader& header() const noexcept override { return header_; }
  [[nodiscard]] const std::string& name() const noexcept override { return paths_.front(); }
  [[nodiscard]] std::optional<std::uint64_t> nsamples() const noexcept override { return total_; }
  [[nodiscard]] std::uint64_t position() const noexcept override { return position_; }
  std::size_t read_float(float* dst, std::size_t n) override;
  std::uint64_t skip(std::uint64_t n) override;
  /// The first file's description (source, epoch, backend, rows: for the .inf files).
  [[nodiscard]] const PsrfitsInfo& info() const noexcept { return info_; }
  /// The gaps between files, and the rows missing from the files read so far.
  [[nodiscard]] std::vector<SampleGap> gaps() const override;

 private:
  bool advance();  // opens the next file when the current one is spent; false after the last
  // Takes up to n samples across the files, take(reader, taken so far, count) -> taken, and
  // pad(taken so far, count) for the zeros of a gap between files.
  template <class Take, class Pad>
  std::uint64_t walk(std::uint64_t n, Take take, Pad pad);
  std::vector<std::string> paths_;
  std::vector<std::uint64_t> counts_;              // samples of each file
  std::vector<std::uint64_t> pads_;                // samples missing before each file
  std::vector<std::vector<SampleGap>> file_gaps_;  // rows missing from the files read to their end
  std::uint64_t pad_left_ = 0;                     // zeros before the current file not yet handed out
  PsrfitsScaling scaling_;
  IfChoice pols_;
  SigprocHeader header_;
  PsrfitsInfo info_;
  std::uint64_t total_ = 0;
  std::uint64_t position_ = 0;
  std::size_t file_ = 0;
  std::uint64_t used_ = 0;  // samples of the current file handed out or skipped
  std::unique_ptr<PsrfitsReader> current_;
};

/// `paths` (two or more, in time order; not stdin) for a SIGPROC reader, as open_sigproc_source
/// opens one: SIGPROC filterbanks through a FilterbankSequence, PSRFITS files through a
/// PsrfitsSequence behind a SigprocFloatView. Mixed formats are refused.
std::unique_ptr<ByteSource> open_sigproc_sequence(const std::vector<std::string>& paths, PsrfitsScaling scaling,
                                                  IfChoice pols);

}  // namespace fastpsr
