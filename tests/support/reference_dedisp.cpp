// SPDX-License-Identifier: MIT
#include "support/reference_dedisp.hpp"

#include "fastpsr/bitpack.hpp"

namespace fastpsr::test {

std::vector<float> reference_dedisperse(const DedispPlan& plan, const std::vector<std::uint8_t>& packed,
                                        std::size_t nin, std::size_t& nout, bool zero_pad) {
  const auto& in = plan.problem.input;
  const auto nchans = static_cast<std::size_t>(in.nchans);
  const auto D = static_cast<std::size_t>(plan.downsample());
  std::vector<float> x(nin * nchans);
  unpack_to_float(packed.data(), x.data(), nin * nchans, in.nbits, in.is_signed);
  const std::size_t nds = nin / D;
  // Downsampled input in double, exact for integer data.
  std::vector<double> xd(nds * nchans, 0.0);
  for (std::size_t t = 0; t < nds; ++t) {
    for (std::size_t k = 0; k < D; ++k) {
      for (std::size_t c = 0; c < nchans; ++c) xd[t * nchans + c] += static_cast<double>(x[(t * D + k) * nchans + c]);
    }
  }
  const auto limit = static_cast<std::size_t>(zero_pad ? plan.min_dm_max_delay : plan.max_delay);
  nout = nds > limit ? nds - limit : 0;
  std::vector<float> out(plan.ndms() * nout);
  for (std::size_t i = 0; i < plan.ndms(); ++i) {
    for (std::size_t t = 0; t < nout; ++t) {
      double sum = 0.0;
      for (std::size_t c = 0; c < nchans; ++c) {
        if (!plan.channel_kept(static_cast<int>(c))) continue;
        const std::size_t row = t + static_cast<std::size_t>(plan.delays[i * nchans + c]);
        if (row < nds) sum += xd[row * nchans + c];
      }
      out[i * nout + t] = static_cast<float>(sum);
    }
  }
  return out;
}

}  // namespace fastpsr::test
