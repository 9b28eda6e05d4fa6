// SPDX-License-Identifier: MIT
#pragma once
// dedisp --subbands: each gulp cut once into the subbands' own spectra, the input of each
// subband's dedisperser. A subband whose every channel is killed keeps the zeros its buffer
// starts with (its dedisperser, at DM 0, then writes zeros, as SIGPROC does).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fastpsr/dedisp_subbands.hpp"

namespace fastpsr::app {

class SubbandFeed {
 public:
  SubbandFeed(const SubbandSplit& split, const DedispInput& whole, std::size_t gulp)
      : slicer_(whole, static_cast<int>(split.problems.size())),
        buffers_(split.problems.size(), std::vector<std::uint8_t>(gulp * slicer_.row_bytes())) {
    for (std::size_t b = 0; b < buffers_.size(); ++b) {
      pointers_.push_back(split.all_killed[b] != 0 ? nullptr : buffers_[b].data());
    }
  }
  /// Cuts n spectra (at most the gulp) of the whole band.
  void cut(const std::uint8_t* spectra, std::size_t n) { slicer_.slice(spectra, n, pointers_); }
  [[nodiscard]] const std::uint8_t* subband(std::size_t b) const { return buffers_[b].data(); }
  /// Bytes held: the subbands' spectra of one gulp (and the float copy of a gulp where they are
  /// not whole bytes).
  static std::size_t host_bytes(const DedispInput& whole, int nsub, std::size_t gulp) {
    const SubbandSlicer s(whole, nsub);
    const std::size_t floats =
        s.nbits() != whole.nbits ? gulp * static_cast<std::size_t>(whole.nchans) * sizeof(float) : 0;
    return gulp * s.row_bytes() * static_cast<std::size_t>(nsub) + floats;
  }

 private:
  SubbandSlicer slicer_;
  std::vector<std::vector<std::uint8_t>> buffers_;
  std::vector<std::uint8_t*> pointers_;
};

}  // namespace fastpsr::app
