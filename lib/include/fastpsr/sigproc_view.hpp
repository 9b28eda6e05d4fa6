// SPDX-License-Identifier: MIT
#pragma once
/// A filterbank of any format the library reads (SpectraSource: a search-mode PSRFITS file) seen
/// as the bytes of a SIGPROC float32 filterbank, so that the tools that read SIGPROC filterbanks
/// (dedisp) take PSRFITS unchanged: the header, with nbits 32, then each sample's values as
/// SpectraSource::read_float hands them out (float32 total intensity, channel 0 the highest
/// frequency). Four bytes a value whatever the file holds; read row by row, so memory stays
/// bounded.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/psrfits.hpp"
#include "fastpsr/spectra_source.hpp"

namespace fastpsr {

class SigprocFloatView final : public ByteSource {
 public:
  explicit SigprocFloatView(std::unique_ptr<SpectraSource> spectra);
  /// Header plus nsamples x nchans x 4 bytes when the source knows its length.
  [[nodiscard]] std::optional<std::uint64_t> size() const override;
  /// The header the bytes start with (the source's, with nbits 32).
  [[nodiscard]] const SigprocHeader& header() const noexcept { return header_; }
  /// The file behind the bytes (a PsrfitsReader for a PSRFITS file).
  [[nodiscard]] const SpectraSource& spectra() const noexcept { return *spectra_; }
  [[nodiscard]] std::vector<SampleGap> gaps() const override { return spectra_->gaps(); }

 protected:
  std::size_t read_some(void* dst, std::size_t n) override;
  /// Whole samples after the header with none read ahead: the source skips them itself (a PRESTO
  /// subband set seeks its files, so -runavg's blocks start where reading starts, as PRESTO's).
  bool seek_forward(std::uint64_t n) override;

 private:
  std::unique_ptr<SpectraSource> spectra_;
  SigprocHeader header_;
  std::vector<std::uint8_t> header_bytes_;
  std::size_t header_pos_ = 0;
  std::uint64_t values_per_sample_ = 0;
  std::vector<float> samples_;  // whole samples read ahead
  std::size_t samples_bytes_ = 0;
  std::size_t samples_pos_ = 0;  // bytes of samples_ handed out
};

/// `path` for a SIGPROC reader: the file as it is, or a search-mode PSRFITS file through a
/// SigprocFloatView (told apart by content, as open_spectra does).
/// `scaling`: what a PSRFITS file's samples take of DAT_WTS, DAT_SCL and DAT_OFFS; `pols`: which
/// of its polarisations (a SIGPROC file's IFs are chosen by combine_ifs, if_choice.hpp).
std::unique_ptr<ByteSource> open_sigproc_source(const std::string& path, PsrfitsScaling scaling = {},
                                                IfChoice pols = {});

}  // namespace fastpsr
