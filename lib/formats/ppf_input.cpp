// SPDX-License-Identifier: MIT
#include "fastpsr/ppf_input.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "fastpsr/dada.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/escape.hpp"
#include "fastpsr/format_detect.hpp"
#include "fastpsr/guppi.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/mjd.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr {
namespace {

std::vector<double> coarse_centres(double band_centre_mhz, double chan_bw_mhz, int ncoarse) {
  std::vector<double> c(static_cast<std::size_t>(ncoarse));
  for (int i = 0; i < ncoarse; ++i) {
    c[static_cast<std::size_t>(i)] = band_centre_mhz - ncoarse * chan_bw_mhz / 2.0 + (i + 0.5) * chan_bw_mhz;
  }
  return c;
}

// Header RA/Dec strings to SIGPROC's packed form; a malformed one is warned about, not fatal.
void read_position(const std::optional<std::string>& ra, const std::optional<std::string>& dec, VoltageInfo& info,
                   const std::string& name) {
  try {
    if (ra) info.src_raj = sigproc_angle_from_string(*ra, true);
    if (dec) info.src_dej = sigproc_angle_from_string(*dec, false);
  } catch (const Error& e) {
    log_warning("{}: {}; the position is left at 0", name, e.what());
  }
}

// A header's frequency, bandwidth, time or epoch value must be a finite number (strtod takes
// "nan", "inf" and 1e999).
double finite_value(double v, const std::string& what, const std::string& name) {
  if (!std::isfinite(v)) throw Error(ErrorCode::format, fmt::format("{} {} is not a finite number", what, v), name);
  return v;
}

// A band's centre frequency must be above 0 MHz.
double centre_frequency(double mhz, const std::string& what, const std::string& name) {
  if (!(finite_value(mhz, what, name) > 0.0)) {
    throw Error(ErrorCode::format, fmt::format("{} {} MHz is not a positive frequency", what, mhz), name);
  }
  return mhz;
}

// Reads exactly n bytes unless the data end first; returns the count.
std::size_t read_full(ByteSource& src, void* dst, std::size_t n) {
  std::size_t got = 0;
  auto* p = static_cast<std::uint8_t*>(dst);
  while (got < n) {
    const std::size_t k = src.read(p + got, n - got);
    if (k == 0) break;
    got += k;
  }
  return got;
}

// Time-major readers: raw and PSRDADA. One time sample holds every coarse channel (and
// polarisation) in the file's axis order; `pol_major` marks PSRDADA's TPF order.
class TimeMajorReader final : public VoltageReader {
 public:
  TimeMajorReader(std::unique_ptr<ByteSource> src, VoltageInfo info, bool pol_major,
                  std::optional<std::uint64_t> data_bytes)
      : src_(std::move(src)), pol_major_(pol_major), data_bytes_(data_bytes) {
    info_ = std::move(info);
  }
  [[nodiscard]] const std::string& name() const noexcept override { return src_->name(); }
  [[nodiscard]] std::uint64_t position_bytes() const noexcept override { return src_->position(); }
  [[nodiscard]] std::optional<std::uint64_t> size_bytes() const noexcept override { return src_->size(); }

  std::size_t read(void* dst, std::size_t n_wanted) override {
    const std::size_t row = info_.time_sample_bytes();
    std::size_t n = n_wanted;  // coarse channel f goes to f·n_wanted samples
    if (data_bytes_) n = static_cast<std::size_t>(std::min<std::uint64_t>(n, (*data_bytes_ - consumed_) / row));
    const bool direct = info_.ncoarse == 1 && (info_.npol == 1 || !pol_major_);
    auto* out = static_cast<std::uint8_t*>(dst);
    std::uint8_t* buf = direct ? out : scratch(n * row);
    const std::size_t got = read_full(*src_, buf, n * row);
    consumed_ += got;
    if (got % row != 0) {
      throw Error(
          ErrorCode::format,
          fmt::format("the data end inside a sample: {} bytes after the last whole {}-byte sample", got % row, row),
          src_->name());
    }
    const std::size_t samples = got / row;
    if (!direct) reorder(buf, out, samples, n_wanted);
    return samples;
  }

 private:
  std::uint8_t* scratch(std::size_t bytes) {
    if (scratch_.size() < bytes) scratch_.resize(bytes);
    return scratch_.data();
  }

  // [n][F][P] (TFP) or [n][P][F] (TPF) → [F][stride][P], complex values of `value` bytes.
  void reorder(const std::uint8_t* in, std::uint8_t* out, std::size_t n, std::size_t stride) const {
    const std::size_t value = 2 * component_bytes(info_.type);
    const std::size_t f_count = static_cast<std::size_t>(info_.ncoarse);
    const std::size_t p_count = static_cast<std::size_t>(info_.npol);
    for (std::size_t t = 0; t < n; ++t) {
      for (std::size_t f = 0; f < f_count; ++f) {
        for (std::size_t p = 0; p < p_count; ++p) {
          const std::size_t src_index = pol_major_ ? (t * p_count + p) * f_count + f : (t * f_count + f) * p_count + p;
          const std::size_t dst_index = (f * stride + t) * p_count + p;
          std::memcpy(out + dst_index * value, in + src_index * value, value);
        }
      }
    }
  }

  std::unique_ptr<ByteSource> src_;
  bool pol_major_;
  std::optional<std::uint64_t> data_bytes_;
  std::uint64_t consumed_ = 0;
  std::vector<std::uint8_t> scratch_;
};

class GuppiReader final : public VoltageReader {
 public:
  GuppiReader(std::unique_ptr<ByteSource> src, GuppiHeader first) : src_(std::move(src)) {
    const std::string& name = src_->name();
    const long long nchan = first.get_int("OBSNCHAN", name);
    const long long npol_card = first.get_int("NPOL", name);
    const long long nbits = first.get_int("NBITS", name);
    if (nchan < 1) throw Error(ErrorCode::format, fmt::format("GUPPI OBSNCHAN {} is not >= 1", nchan), name);
    if (nchan > kMaxCoarse) {
      throw Error(ErrorCode::format, fmt::format("GUPPI OBSNCHAN {} is out of range (at most {})", nchan, kMaxCoarse),
                  name);
    }
    if (npol_card != 1 && npol_card != 2 && npol_card != 4) {
      throw Error(ErrorCode::unsupported, fmt::format("GUPPI NPOL {} is not 1, 2 or 4", npol_card), name);
    }
    if (nbits != 8 && nbits != 16) {
      throw Error(ErrorCode::unsupported, fmt::format("GUPPI NBITS {}: ppf reads 8- and 16-bit components only", nbits),
                  name);
    }
    if (first.get_int_or("NANTS", 1, name) > 1) {
      throw Error(ErrorCode::unsupported, "GUPPI files of several antennas (NANTS > 1) are not supported", name);
    }
    info_.format = "GUPPI RAW";
    info_.type = nbits == 8 ? VoltageType::ci8 : VoltageType::ci16;
    info_.npol = npol_card == 1 ? 1 : 2;
    info_.ncoarse = static_cast<int>(nchan);
    npol_card_ = npol_card;
    nbits_ = nbits;
    const double obsfreq = centre_frequency(first.get_double("OBSFREQ", name), "GUPPI OBSFREQ", name);
    const double chan_bw = first.get("CHAN_BW") ? first.get_double("CHAN_BW", name)
                                                : first.get_double("OBSBW", name) / static_cast<double>(nchan);
    if (!(chan_bw != 0.0) || !std::isfinite(chan_bw)) {
      throw Error(ErrorCode::format, "GUPPI CHAN_BW (or OBSBW) is zero or not a number", name);
    }
    info_.chan_bw_mhz = chan_bw;
    info_.coarse_centre_mhz = coarse_centres(obsfreq, chan_bw, info_.ncoarse);
    info_.tsamp_s = first.get_double_or("TBIN", 1e-6 / std::abs(chan_bw), name);
    if (!(finite_value(info_.tsamp_s, "GUPPI TBIN", name) > 0.0)) {
      throw Error(ErrorCode::format, "GUPPI TBIN is not positive", name);
    }
    if (std::abs(info_.tsamp_s * std::abs(chan_bw) * 1e6 - 1.0) > 1e-3) {
      log_warning(
          "{}: TBIN {} s and CHAN_BW {} MHz disagree for critically sampled channels; using TBIN for time "
          "and CHAN_BW for frequency",
          name, info_.tsamp_s, chan_bw);
    }
    const long long overlap = first.get_int_or("OVERLAP", 0, name);
    if (overlap < 0) throw Error(ErrorCode::format, fmt::format("GUPPI OVERLAP {} is negative", overlap), name);
    overlap_ = static_cast<std::size_t>(overlap);
    pktsize_ = first.get_int_or("PKTSIZE", 0, name);
    if (pktsize_ < 0) throw Error(ErrorCode::format, fmt::format("GUPPI PKTSIZE {} is negative", pktsize_), name);
    info_.source_name = first.get("SRC_NAME").value_or("");
    info_.telescope = first.get("TELESCOP").value_or("");
    read_position(first.get("RA_STR"), first.get("DEC_STR"), info_, name);
    if (first.get("STT_IMJD")) {
      info_.tstart_mjd = static_cast<double>(first.get_int("STT_IMJD", name)) +
                         (finite_value(first.get_double_or("STT_SMJD", 0.0, name), "GUPPI STT_SMJD", name) +
                          finite_value(first.get_double_or("STT_OFFS", 0.0, name), "GUPPI STT_OFFS", name)) /
                             86400.0;
      info_.tstart_mjd +=
          static_cast<double>(packet_samples(first.get_int_or("PKTIDX", 0, name))) * info_.tsamp_s / 86400.0;
      info_.has_tstart = true;
    }
    (void)start_block(first);  // the first block throws when cut short
  }

  [[nodiscard]] const std::string& name() const noexcept override { return src_->name(); }
  [[nodiscard]] std::uint64_t position_bytes() const noexcept override { return src_->position(); }
  [[nodiscard]] std::optional<std::uint64_t> size_bytes() const noexcept override { return src_->size(); }
  // The first block's payload is in memory from the constructor on; later blocks of the same
  // BLOCSIZE reuse it.
  [[nodiscard]] std::size_t held_bytes() const noexcept override { return payload_.capacity(); }

  std::size_t read(void* dst, std::size_t n) override {
    const std::size_t value = static_cast<std::size_t>(info_.npol) * 2 * component_bytes(info_.type);
    const std::size_t f_count = static_cast<std::size_t>(info_.ncoarse);
    auto* out = static_cast<std::uint8_t*>(dst);
    std::size_t done = 0;
    while (done < n) {
      if (gap_samples_ > 0) {  // zeros for dropped blocks
        const auto k = static_cast<std::size_t>(std::min<std::uint64_t>(gap_samples_, n - done));
        for (std::size_t f = 0; f < f_count; ++f) std::memset(out + (f * n + done) * value, 0, k * value);
        gap_samples_ -= k;
        done += k;
        continue;
      }
      if (pos_ == usable_) {
        if (!next_block()) break;
        continue;
      }
      const std::size_t k = std::min(n - done, usable_ - pos_);
      for (std::size_t f = 0; f < f_count; ++f) {
        std::memcpy(out + (f * n + done) * value, payload_.data() + (f * ntime_ + pos_) * value, k * value);
      }
      pos_ += k;
      done += k;
    }
    return done;
  }

 private:
  // A forward PKTIDX jump is filled with zeros only up to this many blocks, or the samples the
  // file holds (read so far, for a pipe) when more: a corrupt PKTIDX or PKTSIZE would otherwise
  // ask for up to 2^64 samples of zeros.
  static constexpr std::uint64_t kMaxGapBlocks = 64;
  static constexpr long long kMaxCoarse = 1'000'000;
  // Largest block payload allocated in one step when the file's size is unknown (a pipe): the
  // buffer then grows with the bytes that arrive, not with what BLOCSIZE claims.
  static constexpr std::size_t kPayloadStep = std::size_t{64} << 20;

  // Samples per coarse channel that `pktidx` packets hold (baseband's formula, NPOL counting
  // components as GUPPI writes it); 0 without PKTSIZE. Error(format) for a negative PKTIDX or a
  // sample number past 2^62 (a corrupt PKTIDX or PKTSIZE).
  [[nodiscard]] std::uint64_t packet_samples(long long pktidx) const {
    if (pktsize_ <= 0) return 0;
    const std::string& name = src_->name();
    if (pktidx < 0) {
      throw Error(ErrorCode::format, fmt::format("GUPPI block {}: PKTIDX {} is negative", block_, pktidx), name);
    }
    __extension__ using wide = unsigned __int128;
    const auto per = static_cast<wide>(info_.ncoarse) * static_cast<wide>(npol_card_) * static_cast<wide>(nbits_);
    const wide samples = static_cast<wide>(pktidx) * static_cast<wide>(pktsize_) * 8 / per;
    if (samples > (wide{1} << 62)) {
      throw Error(ErrorCode::format,
                  fmt::format("GUPPI block {}: PKTIDX {} with PKTSIZE {} is out of range (past sample 2^62 of the "
                              "observation): a corrupt PKTIDX or PKTSIZE card?",
                              block_, pktidx, pktsize_),
                  name);
    }
    return static_cast<std::uint64_t>(samples);
  }

  // Reads the block's `bytes` of payload into payload_; returns the count read (less at the end
  // of the data). A file too short for the block is known from its size before anything is
  // allocated; for a pipe the buffer grows in steps as the bytes arrive.
  std::size_t read_payload(std::size_t bytes) {
    const auto size = src_->size();
    if (size && *size - std::min(*size, src_->position()) < bytes) return 0;
    std::size_t got = 0;
    while (got < bytes) {
      const std::size_t step = size ? bytes - got : std::min(bytes - got, std::max(got, kPayloadStep));
      if (payload_.size() < got + step) payload_.resize(got + step);
      const std::size_t k = read_full(*src_, payload_.data() + got, step);
      got += k;
      if (k < step) break;
    }
    return got;
  }

  // Reads the block's payload; false when the file ends inside it (after the first block).
  bool start_block(const GuppiHeader& h) {
    const std::string& name = src_->name();
    if (h.get_int("OBSNCHAN", name) != info_.ncoarse || h.get_int("NPOL", name) != npol_card_ ||
        h.get_int("NBITS", name) != nbits_) {
      throw Error(ErrorCode::format,
                  fmt::format("GUPPI block {} changes OBSNCHAN, NPOL or NBITS within the file", block_), name);
    }
    const long long blocsize = h.get_int("BLOCSIZE", name);
    const std::size_t value = static_cast<std::size_t>(info_.npol) * 2 * component_bytes(info_.type);
    const std::size_t per_time = value * static_cast<std::size_t>(info_.ncoarse);
    if (blocsize <= 0 || static_cast<std::uint64_t>(blocsize) % per_time != 0) {
      throw Error(ErrorCode::format,
                  fmt::format("GUPPI block {}: BLOCSIZE {} is not a whole number of {}-byte time samples", block_,
                              blocsize, per_time),
                  name);
    }
    ntime_ = static_cast<std::size_t>(blocsize) / per_time;
    if (overlap_ >= ntime_) {
      throw Error(ErrorCode::format,
                  fmt::format("GUPPI block {}: OVERLAP {} leaves no new samples of {}", block_, overlap_, ntime_),
                  name);
    }
    usable_ = ntime_ - overlap_;
    if (read_payload(static_cast<std::size_t>(blocsize)) != static_cast<std::size_t>(blocsize)) {
      // A recording cut short: the whole blocks before are data (as a cut filterbank's whole
      // samples are); a first block cut short leaves nothing.
      if (block_ == 0) {
        throw Error(
            ErrorCode::format,
            fmt::format("GUPPI block {} is truncated: its payload of BLOCSIZE {} bytes ends early", block_, blocsize),
            name);
      }
      log_warning(
          "{}: GUPPI block {} is truncated (its payload of BLOCSIZE {} bytes ends early): the file is taken "
          "to end with the {} whole blocks before it",
          name, block_, blocsize, block_);
      return false;
    }
    // Packet index continuity: a forward jump is a gap of dropped blocks.
    if (pktsize_ > 0 && h.get("PKTIDX")) {
      const long long pkt = h.get_int("PKTIDX", name);
      const std::uint64_t at = packet_samples(pkt);
      if (block_ > 0) {
        if (at < expected_sample_) {
          throw Error(ErrorCode::format,
                      fmt::format("GUPPI block {}: PKTIDX {} goes back in time (expected sample {}, got {})", block_,
                                  pkt, expected_sample_, at),
                      name);
        }
        if (at > expected_sample_) {
          // Bounded: every gap of the file together fills at most max(64 blocks, the file's samples).
          const std::uint64_t gap = at - expected_sample_;
          const std::uint64_t file_samples = src_->size().value_or(src_->position()) / per_time;
          const std::uint64_t limit = std::max(kMaxGapBlocks * usable_, file_samples);
          if (gap > limit - std::min(limit, gap_total_)) {
            throw Error(
                ErrorCode::format,
                fmt::format("GUPPI block {}: PKTIDX {} is {} samples past the expected sample {}: more than ppf "
                            "fills with zeros for dropped blocks (at most {} samples in all here: {} blocks "
                            "or the file's own length, whichever is more): a corrupt PKTIDX or PKTSIZE card?",
                            block_, pkt, gap, expected_sample_, limit, kMaxGapBlocks),
                name);
          }
          gap_total_ += gap;
          gap_samples_ = gap;
          log_warning("{}: {} samples missing before block {} (PKTIDX {}); filled with zeros", name, gap_samples_,
                      block_, pkt);
        }
      }
      expected_sample_ = at + usable_;
    }
    pos_ = 0;
    ++block_;
    return true;
  }

  // False at the end of the data, and from then on (a block cut short is not read again).
  bool next_block() {
    if (ended_) return false;
    const auto h = read_guppi_header(*src_);
    if (h && start_block(*h)) return true;
    ended_ = true;
    pos_ = usable_ = 0;
    return false;
  }

  std::unique_ptr<ByteSource> src_;
  long long npol_card_ = 4;
  long long nbits_ = 8;
  long long pktsize_ = 0;
  std::size_t overlap_ = 0;
  std::size_t ntime_ = 0;   // samples per channel in the block
  std::size_t usable_ = 0;  // ntime_ − overlap_
  std::size_t pos_ = 0;
  std::uint64_t block_ = 0;
  std::uint64_t expected_sample_ = 0;
  std::uint64_t gap_samples_ = 0;
  std::uint64_t gap_total_ = 0;  // zeros filled in so far
  bool ended_ = false;
  std::vector<std::uint8_t> payload_;
};

std::unique_ptr<VoltageReader> open_raw(std::unique_ptr<ByteSource> src, const RawVoltageOptions& o) {
  const std::string& name = src->name();
  FASTPSR_EXPECTS(o.npol == 1 || o.npol == 2, "--npol must be 1 or 2, got {}", o.npol);
  FASTPSR_EXPECTS(o.bw_mhz != 0.0 || o.tsamp_s > 0.0, "raw input needs --bw or --tsamp (the sample rate)");
  FASTPSR_EXPECTS(o.tsamp_s >= 0.0, "--tsamp must be positive, got {}", o.tsamp_s);
  VoltageInfo info;
  info.format = "raw";
  info.type = o.type;
  info.npol = o.npol;
  info.ncoarse = 1;
  info.tsamp_s = o.tsamp_s > 0.0 ? o.tsamp_s : 1e-6 / std::abs(o.bw_mhz);
  info.chan_bw_mhz = o.bw_mhz != 0.0 ? o.bw_mhz : 1e-6 / o.tsamp_s;
  if (o.bw_mhz != 0.0 && o.tsamp_s > 0.0) {
    FASTPSR_EXPECTS(std::abs(std::abs(o.bw_mhz) * o.tsamp_s * 1e6 - 1.0) < 1e-6,
                    "--bw {} MHz and --tsamp {} s disagree: complex samples at 1/tsamp = {} MHz", o.bw_mhz, o.tsamp_s,
                    1e-6 / o.tsamp_s);
  }
  info.coarse_centre_mhz = {o.fcentre_mhz};
  info.source_name = o.source_name;
  if (const auto size = src->size()) {
    const std::size_t row = info.time_sample_bytes();
    if (*size % row != 0) {
      throw Error(ErrorCode::format,
                  fmt::format("{} bytes is not a whole number of {} samples ({} bytes each with {} polarisation{})",
                              *size, to_string(o.type), row, o.npol, o.npol == 1 ? "" : "s"),
                  name);
    }
    info.nsamples = *size / row;
  }
  return std::make_unique<TimeMajorReader>(std::move(src), std::move(info), false, std::nullopt);
}

// Strips the axes of length 1 from a PSRDADA ORDER and returns whether it is pol-major (TPF).
bool dada_pol_major(const std::string& order, int nchan, int npol, const std::string& name) {
  std::string kept;
  for (char ch : order) {
    if ((ch == 'F' && nchan == 1) || (ch == 'P' && npol == 1)) continue;
    kept += ch;
  }
  const std::string full = std::string("T") + (nchan > 1 ? "F" : "") + (npol > 1 ? "P" : "");
  std::string swapped = full;
  if (swapped.size() == 3) std::swap(swapped[1], swapped[2]);
  if (kept == full) return false;
  if (kept == swapped) return true;
  throw Error(ErrorCode::unsupported,
              fmt::format("PSRDADA ORDER {} with NCHAN {} and NPOL {} is not supported (ppf reads TFP and TPF, "
                          "time slowest, (re, im) innermost)",
                          escape_for_message(order), nchan, npol),
              name);
}

std::unique_ptr<VoltageReader> open_dada(std::unique_ptr<ByteSource> src) {
  const std::string name = src->name();
  const DadaHeader h = read_dada_header(*src);
  const long long ndim = h.get_int_or("NDIM", 2, name);
  const long long nbit = h.get_int("NBIT", name);
  const long long npol = h.get_int_or("NPOL", 1, name);
  const long long nchan = h.get_int_or("NCHAN", 1, name);
  if (ndim != 2) {
    throw Error(ErrorCode::unsupported, fmt::format("PSRDADA NDIM {}: ppf channelises complex voltages (NDIM 2)", ndim),
                name);
  }
  VoltageInfo info;
  info.format = "PSRDADA";
  switch (nbit) {
    case 8:
      info.type = VoltageType::ci8;
      break;
    case 16:
      info.type = VoltageType::ci16;
      break;
    case 32:
      info.type = VoltageType::cf32;
      break;
    default:
      throw Error(ErrorCode::unsupported, fmt::format("PSRDADA NBIT {}: ppf reads 8, 16 and 32 (float)", nbit), name);
  }
  if (npol != 1 && npol != 2) {
    throw Error(ErrorCode::unsupported, fmt::format("PSRDADA NPOL {}: ppf reads 1 or 2", npol), name);
  }
  if (nchan < 1 || nchan > 1'000'000) {
    throw Error(ErrorCode::format, fmt::format("PSRDADA NCHAN {} is out of range", nchan), name);
  }
  info.npol = static_cast<int>(npol);
  info.ncoarse = static_cast<int>(nchan);
  const double tsamp_us = finite_value(h.get_double("TSAMP", name), "PSRDADA TSAMP", name);
  if (!(tsamp_us > 0.0))
    throw Error(ErrorCode::format, fmt::format("PSRDADA TSAMP {} is not positive", tsamp_us), name);
  info.tsamp_s = tsamp_us * 1e-6;
  const double bw =
      finite_value(h.get_double_or("BW", static_cast<double>(nchan) / tsamp_us, name), "PSRDADA BW", name);
  if (!(bw != 0.0)) throw Error(ErrorCode::format, "PSRDADA BW is zero", name);
  info.chan_bw_mhz = bw / static_cast<double>(nchan);
  if (std::abs(tsamp_us * std::abs(info.chan_bw_mhz) - 1.0) > 1e-3) {
    log_warning(
        "{}: TSAMP {} us and BW {} MHz over {} channels disagree for critically sampled channels; using "
        "TSAMP for time and BW for frequency",
        name, tsamp_us, bw, nchan);
  }
  info.coarse_centre_mhz = coarse_centres(centre_frequency(h.get_double("FREQ", name), "PSRDADA FREQ", name),
                                          info.chan_bw_mhz, info.ncoarse);
  const bool pol_major = dada_pol_major(h.get("ORDER").value_or("TFP"), info.ncoarse, info.npol, name);
  info.source_name = h.get("SOURCE").value_or("");
  info.telescope = h.get("TELESCOPE").value_or("");
  read_position(h.get("RA"), h.get("DEC"), info, name);
  const std::size_t row = info.time_sample_bytes();
  if (h.get("MJD_START")) {
    info.tstart_mjd = finite_value(h.get_double("MJD_START", name), "PSRDADA MJD_START", name);
    info.has_tstart = true;
  } else if (const auto utc = h.get("UTC_START")) {
    const double offset_s =
        static_cast<double>(h.get_int_or("OBS_OFFSET", 0, name) / static_cast<long long>(row)) * info.tsamp_s +
        finite_value(h.get_double_or("PICOSECONDS", 0.0, name), "PSRDADA PICOSECONDS", name) * 1e-12;
    info.tstart_mjd = mjd_from_utc(*utc, name) + offset_s / 86400.0;
    info.has_tstart = true;
  }
  // Data size: FILE_SIZE or the rest of the file. A pipe is read to its end (FILE_SIZE of a
  // multi-file observation says nothing about a stream).
  std::optional<std::uint64_t> data_bytes;
  if (const auto size = src->size()) {
    data_bytes = *size - std::min<std::uint64_t>(*size, h.hdr_size);
    if (h.get("FILE_SIZE")) {
      const long long n = h.get_int("FILE_SIZE", name);
      if (n < 0) throw Error(ErrorCode::format, fmt::format("PSRDADA FILE_SIZE {} is negative", n), name);
      if (static_cast<std::uint64_t>(n) > *data_bytes) {
        log_warning("{}: FILE_SIZE {} is more than the {} data bytes in the file; reading those", name, n, *data_bytes);
      } else {
        data_bytes = static_cast<std::uint64_t>(n);
      }
    }
    if (*data_bytes % row != 0) {
      // A recording that stopped early: its whole samples are read, as for GUPPI RAW and SIGPROC.
      log_warning("{}: {} data bytes end inside a {}-byte time sample: reading the {} whole samples", name, *data_bytes,
                  row, *data_bytes / row);
      data_bytes = *data_bytes / row * row;
    }
    info.nsamples = *data_bytes / row;
  }
  return std::make_unique<TimeMajorReader>(std::move(src), std::move(info), pol_major, data_bytes);
}

}  // namespace

double mjd_from_utc(const std::string& utc, const std::string& source) {
  int y = 0, mo = 0, d = 0, hh = 0, mm = 0;
  double ss = 0.0;
  char sep = 0;
  if (std::sscanf(utc.c_str(), "%d-%d-%d%c%d:%d:%lf", &y, &mo, &d, &sep, &hh, &mm, &ss) != 7 ||
      (sep != '-' && sep != 'T' && sep != ' ') || mo < 1 || mo > 12 || d < 1 || d > 31 || hh < 0 || hh > 23 || mm < 0 ||
      mm > 59 || ss < 0.0 || ss >= 61.0) {
    throw Error(ErrorCode::format, fmt::format("UTC '{}' is not YYYY-MM-DD-hh:mm:ss", escape_for_message(utc)), source);
  }
  return static_cast<double>(mjd_of_calendar_date(y, mo, d)) + (hh * 3600.0 + mm * 60.0 + ss) / 86400.0;
}

std::unique_ptr<VoltageReader> open_voltage_reader(std::unique_ptr<ByteSource> src,
                                                   const std::optional<RawVoltageOptions>& raw) {
  const auto first_bytes = src->peek(kDetectBytes);
  const FileFormat format = detect_format(first_bytes, src->name());
  if (format == FileFormat::dada) return open_dada(std::move(src));
  if (format == FileFormat::guppi_raw) {
    auto first = read_guppi_header(*src);
    if (!first) throw Error(ErrorCode::format, "empty GUPPI file", src->name());
    return std::make_unique<GuppiReader>(std::move(src), std::move(*first));
  }
  if (!raw) {
    if (starts_with_header_card(first_bytes)) {
      throw Error(ErrorCode::format,
                  "the file starts with header cards but holds no BLOCSIZE card before its end: a GUPPI RAW file "
                  "cut short inside its first header?",
                  src->name());
    }
    throw Error(ErrorCode::invalid_argument,
                "not a PSRDADA or GUPPI RAW file: give --format (and --fcentre, --bw or --tsamp) to read raw samples",
                src->name());
  }
  return open_raw(std::move(src), *raw);
}

}  // namespace fastpsr
