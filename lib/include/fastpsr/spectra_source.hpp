// SPDX-License-Identifier: MIT
#pragma once
/// Where spectra come from, whatever the file format: a SIGPROC filterbank (FilterbankReader) or
/// a PSRFITS search-mode file (PsrfitsReader). Both describe themselves with a SigprocHeader and
/// hand out float32 samples, so the stages after them need not know the format.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "fastpsr/sample_gap.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr {

class SpectraSource {
 public:
  SpectraSource() = default;
  virtual ~SpectraSource() = default;
  SpectraSource(const SpectraSource&) = delete;
  SpectraSource& operator=(const SpectraSource&) = delete;

  /// The data described as a SIGPROC filterbank header: nchans, nifs, fch1/foff (MHz), tsamp
  /// (s), tstart (MJD), source, position. `nbits` is the width of the samples in the file;
  /// read_float always delivers float32.
  [[nodiscard]] virtual const SigprocHeader& header() const noexcept = 0;
  /// The path given by the user, for messages.
  [[nodiscard]] virtual const std::string& name() const noexcept = 0;
  /// Samples in the file when known (nullopt for a SIGPROC pipe).
  [[nodiscard]] virtual std::optional<std::uint64_t> nsamples() const noexcept = 0;
  /// Samples handed out (or skipped) so far.
  [[nodiscard]] virtual std::uint64_t position() const noexcept = 0;
  /// Reads up to n samples, each header().nifs x header().nchans float values (channel fastest,
  /// channel 0 = fch1), into host memory at dst; returns the number read (fewer only at the end).
  virtual std::size_t read_float(float* dst, std::size_t n) = 0;
  /// Skips up to n samples; returns the number skipped.
  virtual std::uint64_t skip(std::uint64_t n) = 0;
  /// The stretches read as padding (zeros) found so far: all of them once the data have been
  /// read to the end (a PSRFITS file's missing rows are found as they are reached).
  [[nodiscard]] virtual std::vector<SampleGap> gaps() const { return {}; }
};

/// Opens a SIGPROC filterbank or a PSRFITS search-mode file ("-" for stdin), by its content.
/// Throws Error naming the file for any other format.
std::unique_ptr<SpectraSource> open_spectra(const std::string& path);

}  // namespace fastpsr
