// SPDX-License-Identifier: MIT
#pragma once
// dedisp --subbands: each gulp cut once into the subbands' own spectra, the input of each
// subband's dedisperser.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fastpsr/dedisp_subbands.hpp"

namespace fastpsr::app {

class SubbandFeed {
 public:
  SubbandFeed(const DedispInput& whole, int nsub, std::size_t gulp)
      : slicer_(whole, nsub),
        buffers_(static_cast<std::size_t>(nsub), std::vector<std::uint8_t>(gulp * slicer_.row_bytes())) {
    for (auto& b : buffers_) pointers_.push_back(b.data());
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
