// SPDX-License-Identifier: MIT
#pragma once
// Subband output: a band cut into nsub subbands of adjacent channels, each dedispersed at one DM
// to its own reference frequency (SIGPROC dedisperse -b N; the first stage of PRESTO's
// prepsubband -sub). Each subband is an ordinary dedispersion problem over a slice of the
// channels, so either backend runs it unchanged.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fastpsr/dedisp.hpp"

namespace fastpsr {

struct SubbandSplit {
  int chans_per_subband = 0;
  /// One problem a subband, file order: the subband's channels only (a frequency table, the
  /// model's channel frequencies of the whole band), one DM, its reference frequency set.
  std::vector<DedispProblem> problems;
  /// Per subband: every channel killed. Its problem then keeps all its channels at DM 0 (so its
  /// length is the input's) and is given zeros for data (SubbandSlicer leaves its spectra out),
  /// so its output is zeros, as SIGPROC writes for it.
  std::vector<std::uint8_t> all_killed;
  /// The subbands' reference frequencies, MHz, file order: sigproc, SIGPROC's dmshift(): the
  /// first channel of the subband, fch1 + b (cpb foff) walked by repeated addition; presto, the
  /// centre of the subband's highest channel as PRESTO's subband_delays() computes it.
  std::vector<double> ref_freq_mhz;
};

/// Splits `whole` (one DM, downsampling and kill mask as given; presto_nsub must be 0) into `nsub`
/// subbands. nsub must divide the channels, and the band must be regular (foff != 0, channel c
/// at fch1 + c foff): its subbands are labelled fch1' + b foff' in a filterbank. Throws
/// Error(invalid_argument) naming what is wrong.
SubbandSplit split_into_subbands(const DedispProblem& whole, int nsub);

/// Cuts gulps of packed spectra into the subbands' own spectra. A subband of whole bytes takes
/// its bytes as they are; one that is not (1, 2 or 4 bits with a channel count that ends inside
/// a byte) takes float32 values, which hold those integers exactly (and split_into_subbands
/// gives its problems 32 bits then).
class SubbandSlicer {
 public:
  SubbandSlicer(const DedispInput& whole, int nsub);
  /// Bits a sample of a subband's spectra: the input's, or 32.
  [[nodiscard]] int nbits() const noexcept { return nbits_; }
  /// Bytes of one subband spectrum.
  [[nodiscard]] std::size_t row_bytes() const noexcept { return row_bytes_; }
  /// Writes the n spectra of every subband: out[b] gets n * row_bytes() bytes; a null out[b]
  /// (a subband whose every channel is killed) is left out.
  void slice(const std::uint8_t* spectra, std::size_t n, const std::vector<std::uint8_t*>& out);

 private:
  int nchans_ = 0;
  int nsub_ = 0;
  int in_nbits_ = 0;
  bool in_signed_ = false;
  int nbits_ = 0;
  std::size_t row_bytes_ = 0;
  std::vector<float> unpacked_;  // the float path's spectra
};

}  // namespace fastpsr
