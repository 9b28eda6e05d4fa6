// SPDX-License-Identifier: MIT
#include "fastpsr/zero_dm.hpp"

#include "fastpsr/bitpack.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr {

void zero_dm_filter(const std::uint8_t* packed, std::size_t n, int nchans, int nbits, bool is_signed,
                    const std::vector<std::uint8_t>& keep, float* out) {
  const auto nc = static_cast<std::size_t>(nchans);
  FASTPSR_EXPECTS(keep.empty() || keep.size() == nc, "channel mask has {} entries for {} channels", keep.size(), nc);
  unpack_to_float(packed, out, n * nc, nbits, is_signed);
  std::size_t nkept = 0;
  for (std::size_t c = 0; c < nc; ++c) nkept += keep.empty() || keep[c] != 0 ? 1 : 0;
  if (nkept == 0) return;
  for (std::size_t s = 0; s < n; ++s) {
    float* spectrum = out + s * nc;
    double sum = 0.0;
    for (std::size_t c = 0; c < nc; ++c) {
      if (keep.empty() || keep[c] != 0) sum += static_cast<double>(spectrum[c]);
    }
    const double mean = sum / static_cast<double>(nkept);
    for (std::size_t c = 0; c < nc; ++c) {
      spectrum[c] = keep.empty() || keep[c] != 0 ? static_cast<float>(static_cast<double>(spectrum[c]) - mean) : 0.0f;
    }
  }
}

}  // namespace fastpsr
