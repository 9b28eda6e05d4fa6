// SPDX-License-Identifier: MIT
#include "fastpsr/dedisp_subbands.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr {

namespace {

bool whole_bytes(int chans, int nbits) {
  return (static_cast<std::size_t>(chans) * static_cast<std::size_t>(nbits)) % 8 == 0;
}

// The subbands' own spectra: the input's samples where a subband is whole bytes, else float32.
int slice_nbits(const DedispInput& in, int nsub) { return whole_bytes(in.nchans / nsub, in.nbits) ? in.nbits : 32; }

}  // namespace

SubbandSplit split_into_subbands(const DedispProblem& whole, int nsub) {
  const DedispInput& in = whole.input;
  FASTPSR_EXPECTS(whole.dms.size() == 1, "subband output is at one DM, got {} DM trials", whole.dms.size());
  FASTPSR_EXPECTS(whole.presto_nsub == 0 || whole.presto_nsub == in.nchans,
                  "subband output does not go with prepsubband's two-stage delays (nsub {})", whole.presto_nsub);
  FASTPSR_EXPECTS(nsub >= 1 && nsub <= in.nchans && in.nchans % nsub == 0,
                  "{} subbands do not divide the {} channels: give a divisor of {}", nsub, in.nchans, in.nchans);
  bool regular = static_cast<int>(in.chan_freq_mhz.size()) == in.nchans && (in.nchans == 1 || in.foff_mhz != 0.0);
  for (int c = 0; regular && c < in.nchans; ++c) {
    const double want = in.fch1_mhz + c * in.foff_mhz;
    regular = std::fabs(in.chan_freq_mhz[static_cast<std::size_t>(c)] - want) <= 1e-6 * std::fabs(in.foff_mhz);
  }
  FASTPSR_EXPECTS(regular,
                  "subband output needs a regular band (channel c at fch1 + c foff), for its subbands are labelled "
                  "that way; this one has a frequency table");
  SubbandSplit split;
  const int cpb = in.nchans / nsub;
  split.chans_per_subband = cpb;
  const std::vector<double> freqs = model_channel_frequencies(in, whole.model);
  const bool falling = in.foff_mhz < 0.0;
  double sigproc_ref = in.fch1_mhz;  // dmshift(): f1 += cpb * df after each band
  for (int b = 0; b < nsub; ++b) {
    const auto first = static_cast<std::size_t>(b) * static_cast<std::size_t>(cpb);
    const auto last = first + static_cast<std::size_t>(cpb);
    DedispProblem p;
    p.model = whole.model;
    p.downsample = whole.downsample;
    p.dms = whole.dms;
    p.input.nchans = cpb;
    p.input.chan_freq_mhz.assign(freqs.begin() + static_cast<std::ptrdiff_t>(first),
                                 freqs.begin() + static_cast<std::ptrdiff_t>(last));
    // A frequency table (foff 0): the model's frequencies of the whole band, as they are.
    p.input.fch1_mhz = p.input.chan_freq_mhz.front();
    p.input.foff_mhz = 0.0;
    p.input.tsamp_s = in.tsamp_s;
    p.input.nbits = slice_nbits(in, nsub);
    p.input.is_signed = p.input.nbits == in.nbits && in.is_signed;
    const double ref =
        whole.model == DelayModel::sigproc ? sigproc_ref : presto_subband_top_mhz(in, nsub, falling ? nsub - 1 - b : b);
    sigproc_ref += static_cast<double>(cpb) * in.foff_mhz;
    p.ref_freq_mhz = ref;
    bool none_kept = false;
    if (!whole.keep.empty()) {
      p.keep.assign(whole.keep.begin() + static_cast<std::ptrdiff_t>(first),
                    whole.keep.begin() + static_cast<std::ptrdiff_t>(last));
      none_kept = std::none_of(p.keep.begin(), p.keep.end(), [](std::uint8_t k) { return k != 0; });
      if (none_kept || std::all_of(p.keep.begin(), p.keep.end(), [](std::uint8_t k) { return k != 0; })) p.keep.clear();
    }
    if (none_kept) p.dms = {0.0};  // no delay: its zeros are as long as the input
    split.problems.push_back(std::move(p));
    split.all_killed.push_back(none_kept ? 1 : 0);
    split.ref_freq_mhz.push_back(ref);
  }
  return split;
}

SubbandSlicer::SubbandSlicer(const DedispInput& whole, int nsub)
    : nchans_(whole.nchans),
      nsub_(nsub),
      in_nbits_(whole.nbits),
      in_signed_(whole.is_signed),
      nbits_(slice_nbits(whole, nsub)) {
  row_bytes_ = static_cast<std::size_t>(nchans_ / nsub_) * static_cast<std::size_t>(nbits_) / 8;
}

void SubbandSlicer::slice(const std::uint8_t* spectra, std::size_t n, const std::vector<std::uint8_t*>& out) {
  FASTPSR_ASSERT(out.size() == static_cast<std::size_t>(nsub_));
  const auto nchans = static_cast<std::size_t>(nchans_);
  const std::uint8_t* rows = spectra;
  std::size_t in_row = packed_bytes(nchans, in_nbits_);
  if (nbits_ != in_nbits_) {  // subbands ending inside a byte: their values as floats
    unpacked_.resize(n * nchans);
    unpack_to_float(spectra, unpacked_.data(), n * nchans, in_nbits_, in_signed_);
    rows = reinterpret_cast<const std::uint8_t*>(unpacked_.data());
    in_row = nchans * sizeof(float);
  }
  for (std::size_t s = 0; s < n; ++s) {
    for (std::size_t b = 0; b < out.size(); ++b) {
      if (out[b] != nullptr) std::memcpy(out[b] + s * row_bytes_, rows + s * in_row + b * row_bytes_, row_bytes_);
    }
  }
}

}  // namespace fastpsr
