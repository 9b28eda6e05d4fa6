// SPDX-License-Identifier: MIT
#include "fastpsr/sample_mask.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/log.hpp"

namespace fastpsr {
namespace {

void write_sample(std::uint8_t* p, std::size_t index, int nbits, std::uint32_t code) {
  switch (nbits) {
    case 8:
      p[index] = static_cast<std::uint8_t>(code);
      return;
    case 16:
      std::memcpy(p + 2 * index, &code, 2);  // little-endian host, as the formats
      return;
    case 32:
      std::memcpy(p + 4 * index, &code, 4);
      return;
    default: {
      const std::size_t bit = index * static_cast<std::size_t>(nbits);
      const auto shift = static_cast<unsigned>(bit % 8);
      const auto field = static_cast<std::uint8_t>(((1U << nbits) - 1U) << shift);
      p[bit / 8] = static_cast<std::uint8_t>((p[bit / 8] & ~field) | ((code << shift) & field));
    }
  }
}

// The bit pattern of `value` stored as one sample (rounded and clipped as pack_from_float).
std::uint32_t sample_code(float value, int nbits, bool is_signed) {
  std::uint8_t bytes[4] = {};
  pack_from_float(&value, bytes, 1, nbits, is_signed);
  std::uint32_t code = 0;
  std::memcpy(&code, bytes, sizeof code);
  return nbits < 32 ? code & ((std::uint32_t{1} << nbits) - 1U) : code;
}

}  // namespace

SampleMasker::SampleMasker(PrestoMask mask, std::vector<float> pad, const SigprocHeader& h, std::string mask_path)
    : mask_(std::move(mask)),
      path_(std::move(mask_path)),
      nchans_(h.nchans),
      nbits_(h.nbits),
      is_signed_(h.data_signed()),
      flipped_(h.foff < 0.0) {
  if (mask_.nchans != h.nchans) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("the mask is for {} channels; the data have {}: made from another file?", mask_.nchans, h.nchans),
        path_);
  }
  const double width = std::fabs(h.foff);
  const double lowest = h.foff < 0.0 ? h.fch1 + (h.nchans - 1) * h.foff : h.fch1;
  if (std::fabs(mask_.lofreq_mhz - lowest) > 0.5 * width || std::fabs(mask_.dfreq_mhz - width) > 1e-3 * width) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("the mask's band (lowest channel {:.6f} MHz, width {:.6f} MHz) is not the data's (lowest "
                            "{:.6f} MHz, width {:.6f} MHz): made from another file?",
                            mask_.lofreq_mhz, mask_.dfreq_mhz, lowest, width),
                path_);
  }
  const double expected = mask_.samples_per_interval * h.tsamp;
  if (std::fabs(mask_.interval_s - expected) > 1e-3 * expected) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("the mask's intervals are {} s of {} samples; {} samples of these data are {} s: made "
                            "from data of another sample time?",
                            mask_.interval_s, mask_.samples_per_interval, mask_.samples_per_interval, expected),
                path_);
  }
  FASTPSR_EXPECTS(packed_bytes(static_cast<std::size_t>(nchans_), nbits_) * 8 ==
                      static_cast<std::size_t>(nchans_) * static_cast<std::size_t>(nbits_),
                  "a spectrum of {} channels of {} bits is not whole bytes", nchans_, nbits_);
  for (const int c : mask_.zap_chans) throughout_.push_back(file_channel(c));
  std::sort(throughout_.begin(), throughout_.end());
  if (!pad.empty()) {
    FASTPSR_EXPECTS(pad.size() == static_cast<std::size_t>(nchans_), "{} padding values for {} channels", pad.size(),
                    nchans_);
    std::vector<float> file_order(pad.size());
    for (int c = 0; c < nchans_; ++c) file_order[file_channel(c)] = pad[static_cast<std::size_t>(c)];
    use_padding(file_order);
    pad_source_ = PadSource::stats;
  }
}

template <typename T>
void SampleMasker::use_padding(const std::vector<T>& values) {
  FASTPSR_EXPECTS(values.size() == static_cast<std::size_t>(nchans_), "{} padding values for {} channels",
                  values.size(), nchans_);
  pad_.assign(values.begin(), values.end());
  code_.resize(pad_.size());
  for (std::size_t c = 0; c < pad_.size(); ++c) code_[c] = sample_code(pad_[c], nbits_, is_signed_);
}

const std::vector<std::uint32_t>& SampleMasker::channels_of(std::uint64_t interval) {
  if (interval == cached_interval_) return cached_;
  cached_interval_ = interval;
  cached_ = throughout_;
  if (interval < static_cast<std::uint64_t>(mask_.nintervals)) {
    const auto i = static_cast<int>(interval);
    if (std::binary_search(mask_.zap_ints.begin(), mask_.zap_ints.end(), i)) {
      cached_.resize(static_cast<std::size_t>(nchans_));
      for (std::size_t c = 0; c < cached_.size(); ++c) cached_[c] = static_cast<std::uint32_t>(c);
      return cached_;
    }
    for (const int c : mask_.chans[static_cast<std::size_t>(i)]) cached_.push_back(file_channel(c));
    std::sort(cached_.begin(), cached_.end());
    cached_.erase(std::unique(cached_.begin(), cached_.end()), cached_.end());
  }
  return cached_;
}

// Without the .stats file, each channel's padding is its mean over the unmasked samples of the
// first spectra masked (PRESTO pads with 0 then, a step of the whole band's level at every masked
// sample); a channel masked in all of them takes the mean of the other channels' values.
void SampleMasker::pad_from_data(const std::uint8_t* spectra, std::size_t n, std::uint64_t first) {
  const auto nc = static_cast<std::size_t>(nchans_);
  std::vector<double> sum(nc, 0.0);
  std::vector<std::uint64_t> count(nc, 0);
  std::vector<std::uint8_t> masked(nc);
  std::vector<float> row(nc);
  const std::size_t spectrum_bytes = packed_bytes(nc, nbits_);
  for (std::size_t s = 0; s < n; ++s) {
    std::fill(masked.begin(), masked.end(), 0);
    for (const auto c : channels_of((first + s) / static_cast<std::uint64_t>(mask_.samples_per_interval))) {
      masked[c] = 1;
    }
    unpack_to_float(spectra + s * spectrum_bytes, row.data(), nc, nbits_, is_signed_);
    for (std::size_t c = 0; c < nc; ++c) {
      const float v = row[c];
      if (masked[c] != 0 || !std::isfinite(v)) continue;
      sum[c] += static_cast<double>(v);
      ++count[c];
    }
  }
  double all = 0.0;
  std::uint64_t nall = 0;
  for (std::size_t c = 0; c < nc; ++c) {
    all += sum[c];
    nall += count[c];
  }
  const double fallback = nall > 0 ? all / static_cast<double>(nall) : 0.0;
  std::vector<float> means(nc);
  for (std::size_t c = 0; c < nc; ++c) {
    means[c] = static_cast<float>(count[c] > 0 ? sum[c] / static_cast<double>(count[c]) : fallback);
  }
  use_padding(means);
}

void SampleMasker::set_padding(const std::vector<double>& levels) {
  use_padding(levels);
  pad_source_ = PadSource::clipper;
}

bool SampleMasker::wholly_masked(std::uint64_t first, std::size_t n) {
  if (n == 0) return false;
  const auto per = static_cast<std::uint64_t>(mask_.samples_per_interval);
  for (std::uint64_t i = first / per; i <= (first + n - 1) / per; ++i) {
    if (channels_of(i).size() != static_cast<std::size_t>(nchans_)) return false;
  }
  return true;
}

void SampleMasker::apply(std::uint8_t* spectra, std::size_t n, std::uint64_t first) {
  if (n == 0) return;
  if (pad_.empty()) pad_from_data(spectra, n, first);
  const std::size_t spectrum_bytes = packed_bytes(static_cast<std::size_t>(nchans_), nbits_);
  const auto per = static_cast<std::uint64_t>(mask_.samples_per_interval);
  for (std::size_t s = 0; s < n;) {
    const std::uint64_t interval = (first + s) / per;
    const std::size_t end = static_cast<std::size_t>(std::min<std::uint64_t>(n, (interval + 1) * per - first));
    const auto& channels = channels_of(interval);
    for (; s < end; ++s) {
      std::uint8_t* row = spectra + s * spectrum_bytes;
      for (const auto c : channels) write_sample(row, c, nbits_, code_[c]);
      replaced_ += channels.size();
    }
  }
  seen_ += static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(nchans_);
}

std::string SampleMasker::describe() const {
  std::size_t listed = 0;
  for (const auto& c : mask_.chans) listed += c.size();
  return fmt::format(
      "{}: {} intervals of {} samples ({:.6g} s); {} channel{} masked throughout, {} interval{} wholly, {} "
      "channel-intervals listed; padding from {}",
      path_, mask_.nintervals, mask_.samples_per_interval, mask_.interval_s, mask_.zap_chans.size(),
      mask_.zap_chans.size() == 1 ? "" : "s", mask_.zap_ints.size(), mask_.zap_ints.size() == 1 ? "" : "s", listed,
      pad_source_ == PadSource::clipper ? "the clipper's running channel averages (as PRESTO while it clips)"
      : pad_source_ == PadSource::stats
          ? "the rfifind .stats file (mid-80% channel averages)"
          : "each channel's mean over its unmasked samples of the first gulp (no .stats file)");
}

SampleMasker open_rfifind_mask(const std::string& mask_path, const SigprocHeader& header) {
  PrestoMask mask = read_presto_mask(mask_path);
  std::vector<float> pad;
  const auto stats = rfifind_stats_path(mask_path);
  std::error_code ec;
  if (stats && std::filesystem::is_regular_file(*stats, ec)) {
    pad = read_rfifind_pad_values(*stats, mask.nchans);
  } else {
    log_warning(
        "{}: no {} beside it: masked samples take each channel's mean over its unmasked samples of the first "
        "gulp (PRESTO pads with 0 then)",
        mask_path, stats ? *stats : std::string("rfifind .stats file"));
  }
  const double days_apart = std::fabs(mask.mjd - header.tstart);
  if (std::isfinite(header.tstart) && header.tstart > 0.0 && days_apart * 86400.0 > mask.interval_s) {
    log_warning("{}: the mask starts at MJD {:.8f}, the data at MJD {:.8f} ({:.1f} s apart): made from another file?",
                mask_path, mask.mjd, header.tstart, days_apart * 86400.0);
  }
  return {std::move(mask), std::move(pad), header, mask_path};
}

}  // namespace fastpsr
