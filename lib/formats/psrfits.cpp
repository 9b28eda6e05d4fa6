// SPDX-License-Identifier: MIT
#include "fastpsr/psrfits.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "fastpsr/error.hpp"
#include "fastpsr/escape.hpp"
#include "fastpsr/log.hpp"

namespace fastpsr {
namespace {

// A row wider than this, or a decoded row of more values, is no real file.
constexpr std::uint64_t kMaxRowBytes = std::uint64_t{1} << 31;
constexpr std::uint64_t kMaxRowValues = std::uint64_t{1} << 28;

const FitsColumn* find_column(const std::vector<FitsColumn>& cols, std::string_view name) {
  for (const auto& c : cols) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// Reads `count` values of column `c` of a row as double (D or E columns).
std::vector<double> column_reals(const std::vector<std::uint8_t>& row, const FitsColumn& c, std::size_t count) {
  std::vector<double> v(count);
  fits_read_reals(row.data() + c.offset, c.type, count, v.data());
  return v;
}

// Raw sample k of a row's DATA (flattened [sample][pol][chan]) as a number, before scaling.
// Sub-byte samples: earliest sample in the most significant bits (PSRFITS, opposite of SIGPROC).
template <int Bits>
struct RawSample {
  static float get(const std::uint8_t* data, std::size_t k, bool is_signed, [[maybe_unused]] const FitsColumn& column) {
    if constexpr (Bits < 8) {
      constexpr std::size_t per_byte = 8 / Bits;
      const unsigned shift = 8 - Bits - static_cast<unsigned>(k % per_byte) * Bits;
      return static_cast<float>((data[k / per_byte] >> shift) & ((1U << Bits) - 1U));
    } else if constexpr (Bits == 8) {
      return is_signed ? static_cast<float>(static_cast<std::int8_t>(data[k])) : static_cast<float>(data[k]);
    } else if constexpr (Bits == 16) {
      // FITS 'I' is signed; TZERO = 32768 marks unsigned data (physical = stored x TSCAL + TZERO).
      const auto u = static_cast<std::uint16_t>((data[2 * k] << 8) | data[2 * k + 1]);
      return static_cast<float>(static_cast<double>(static_cast<std::int16_t>(u)) * column.scale + column.zero);
    } else {
      std::uint32_t u = 0;
      for (int i = 0; i < 4; ++i) u = (u << 8) | data[4 * k + static_cast<std::size_t>(i)];
      return std::bit_cast<float>(u);
    }
  }
};

}  // namespace

PsrfitsReader::PsrfitsReader(std::unique_ptr<ByteSource> src, PsrfitsScaling scaling, IfChoice pols)
    : src_(std::move(src)), scaling_(scaling) {
  const std::string& name = src_->name();
  auto fail = [&](ErrorCode code, const std::string& what) { throw Error(code, what, name); };

  const FitsHeader primary = read_fits_header(*src_);
  if (primary.text("FITSTYPE").value_or("") != "PSRFITS")
    fail(ErrorCode::format, "not PSRFITS: no FITSTYPE = 'PSRFITS'");
  info_.obs_mode = primary.text("OBS_MODE").value_or("");
  if (info_.obs_mode != "SEARCH" && info_.obs_mode != "SRCH") {
    fail(ErrorCode::unsupported,
         fmt::format("OBS_MODE is '{}': only search-mode PSRFITS (SEARCH) holds spectra to read",
                     escape_for_message(info_.obs_mode)));
  }
  info_.telescope = primary.text("TELESCOP").value_or("");
  info_.frontend = primary.text("FRONTEND").value_or("");
  info_.backend = primary.text("BACKEND").value_or("");
  info_.observer = primary.text("OBSERVER").value_or("");
  info_.project = primary.text("PROJID").value_or("");
  info_.source = primary.text("SRC_NAME").value_or("");
  info_.ra = primary.text("RA").value_or("");
  info_.dec = primary.text("DEC").value_or("");
  info_.date_obs = primary.text("DATE-OBS").value_or("");
  info_.fd_poln = primary.text("FD_POLN").value_or("");
  info_.obsfreq_mhz = primary.number("OBSFREQ").value_or(0.0);
  info_.obsbw_mhz = primary.number("OBSBW").value_or(0.0);
  info_.chan_dm = primary.number("CHAN_DM").value_or(0.0);
  const auto imjd = primary.integer("STT_IMJD");
  const auto smjd = primary.number("STT_SMJD");
  if (!imjd || !smjd) fail(ErrorCode::format, "primary header lacks the start time STT_IMJD / STT_SMJD");
  info_.stt_imjd = *imjd;
  info_.stt_smjd_s = *smjd;
  info_.stt_offs_s = primary.number("STT_OFFS").value_or(0.0);
  const double be_delay_s = primary.number("BE_DELAY").value_or(0.0);
  src_->skip(primary.data_bytes_padded(name));

  // Walk the extensions to SUBINT (the data come in order, so this also works on a pipe).
  FitsHeader sub;
  for (;;) {
    if (src_->peek(1).empty()) fail(ErrorCode::format, "no SUBINT table in the file");
    FitsHeader h = read_fits_header(*src_);
    if (h.text("EXTNAME").value_or("") == "SUBINT") {
      sub = std::move(h);
      break;
    }
    const std::uint64_t skip = h.data_bytes_padded(name);
    if (src_->skip(skip) != skip) fail(ErrorCode::format, "file ends inside an extension before the SUBINT table");
  }

  auto required_int = [&](const char* key, std::int64_t lo, std::int64_t hi) {
    const auto v = sub.integer(key);
    if (!v || *v < lo || *v > hi) {
      fail(ErrorCode::format, fmt::format("SUBINT {} missing or out of range ({} to {})", key, lo, hi));
    }
    return *v;
  };
  info_.nbits = static_cast<int>(required_int("NBITS", 1, 32));
  info_.nchan = static_cast<int>(required_int("NCHAN", 1, 1 << 24));
  info_.npol = static_cast<int>(required_int("NPOL", 1, 4));
  info_.nsblk = static_cast<int>(required_int("NSBLK", 1, 1 << 24));
  info_.nrows = required_int("NAXIS2", 0, std::int64_t{1} << 40);
  info_.nstot = sub.integer("NSTOT").value_or(0);
  info_.nsuboffs = sub.integer("NSUBOFFS").value_or(0);
  info_.tbin_s = sub.number("TBIN").value_or(0.0);
  info_.zero_off = std::fabs(sub.number("ZERO_OFF").value_or(0.0));  // PRESTO uses |ZERO_OFF|
  info_.signed_ints = sub.integer("SIGNINT").value_or(0) == 1;
  info_.chan_bw_mhz = sub.number("CHAN_BW").value_or(0.0);
  info_.pol_type = sub.text("POL_TYPE").value_or("");
  switch (info_.nbits) {
    case 1:
    case 2:
    case 4:
    case 8:
    case 16:
    case 32:
      break;
    default:
      fail(ErrorCode::unsupported, fmt::format("NBITS {} (1, 2, 4, 8, 16 or 32 expected)", info_.nbits));
  }
  if (!(info_.tbin_s > 0.0) || !std::isfinite(info_.tbin_s)) {
    fail(ErrorCode::format, fmt::format("TBIN must be a positive number of seconds, the header says {}", info_.tbin_s));
  }
  // Which polarisations make the intensity: PRESTO sums AA and BB, takes Stokes I (the first
  // of IQUV) or the only one, and with -if N takes polarisation N alone.
  const bool one_already = info_.npol == 1 || info_.pol_type == "AA+BB" || info_.pol_type == "INTEN";
  const bool power_pair = info_.pol_type == "AABB" || info_.pol_type == "AABBCRCI";
  const std::string pol_text = fmt::format("POL_TYPE '{}' with {} polarisation{}", escape_for_message(info_.pol_type),
                                           info_.npol, info_.npol == 1 ? "" : "s");
  switch (pols.mode) {
    case IfChoice::Mode::one:
      if (pols.index >= info_.npol) {
        fail(ErrorCode::invalid_argument, fmt::format("--if {}: {} (0{})", pols.index, pol_text,
                                                      info_.npol == 1 ? "" : fmt::format(" to {}", info_.npol - 1)));
      }
      pol_first_ = pols.index;
      info_.intensity_from = fmt::format("polarisation {}", pols.index);
      break;
    case IfChoice::Mode::sum:
      if (one_already) {
        info_.intensity_from = "first";
      } else if (power_pair || info_.npol == 2) {
        pol_count_ = 2;  // PRESTO sums any two
        info_.intensity_from = "AA+BB";
      } else {
        fail(ErrorCode::invalid_argument,
             fmt::format("--if sum: {}: only the powers AA and BB sum to an intensity; --if N takes one of them",
                         pol_text));
      }
      break;
    case IfChoice::Mode::automatic:
      if (one_already || info_.pol_type == "IQUV") {
        info_.intensity_from = "first";  // already intensity, or Stokes I first
      } else if (power_pair) {
        pol_count_ = 2;
        info_.intensity_from = "AA+BB";
      } else {
        fail(ErrorCode::unsupported,
             fmt::format("{}: cannot form total intensity; --if sum adds the first two, --if N takes one", pol_text));
      }
      break;
  }

  columns_ = fits_table_columns(sub, name);
  row_bytes_ = static_cast<std::uint64_t>(sub.integer("NAXIS1").value_or(0));
  if (row_bytes_ > kMaxRowBytes) fail(ErrorCode::format, fmt::format("SUBINT rows of {} bytes are absurd", row_bytes_));
  data_col_ = find_column(columns_, "DATA");
  freq_col_ = find_column(columns_, "DAT_FREQ");
  wts_col_ = find_column(columns_, "DAT_WTS");
  offs_col_ = find_column(columns_, "DAT_OFFS");
  scl_col_ = find_column(columns_, "DAT_SCL");
  if (data_col_ == nullptr || freq_col_ == nullptr) fail(ErrorCode::format, "SUBINT table lacks DATA or DAT_FREQ");
  const auto nchan = static_cast<std::uint64_t>(info_.nchan);
  const auto npol = static_cast<std::uint64_t>(info_.npol);
  const auto nsblk = static_cast<std::uint64_t>(info_.nsblk);
  if (nsblk * nchan > kMaxRowValues) fail(ErrorCode::format, "NSBLK x NCHAN is absurd");
  const std::uint64_t data_bytes = nsblk * npol * nchan * static_cast<std::uint64_t>(info_.nbits) / 8;
  const char want_type = info_.nbits <= 8 ? 'B' : (info_.nbits == 16 ? 'I' : 'E');
  if (data_col_->type != want_type || data_col_->bytes != data_bytes) {
    fail(ErrorCode::format,
         fmt::format("DATA column is {}{} ({} bytes); NSBLK x NPOL x NCHAN x NBITS needs {} bytes of {}",
                     data_col_->repeat, data_col_->type, data_col_->bytes, data_bytes, want_type));
  }
  auto check_reals = [&](const FitsColumn* c, const char* what, std::initializer_list<std::uint64_t> counts) {
    if (c == nullptr) return;
    const bool count_ok = std::find(counts.begin(), counts.end(), c->repeat) != counts.end();
    if ((c->type != 'D' && c->type != 'E') || !count_ok) {
      fail(ErrorCode::format, fmt::format("{} column is {}{}, which does not fit NCHAN {} and NPOL {}", what, c->repeat,
                                          c->type, nchan, npol));
    }
  };
  check_reals(freq_col_, "DAT_FREQ", {nchan});
  check_reals(wts_col_, "DAT_WTS", {nchan});
  check_reals(offs_col_, "DAT_OFFS", {nchan * npol, nchan});
  check_reals(scl_col_, "DAT_SCL", {nchan * npol, nchan});
  if (data_col_->type == 'B' && info_.nbits == 8 && data_col_->zero == -128.0) info_.signed_ints = true;

  nsamples_ = static_cast<std::uint64_t>(info_.nrows) * nsblk;
  if (info_.nstot > 0) nsamples_ = std::min(nsamples_, static_cast<std::uint64_t>(info_.nstot));
  if (const auto size = src_->size()) {
    const std::uint64_t table = static_cast<std::uint64_t>(info_.nrows) * row_bytes_;
    if (src_->position() + table > *size) {
      fail(ErrorCode::format,
           fmt::format("truncated: the SUBINT table needs {} bytes, the file has {} after its header", table,
                       *size - std::min(*size, src_->position())));
    }
  }
  info_.table_offset = src_->position();
  info_.row_bytes = row_bytes_;
  row_.resize(static_cast<std::size_t>(row_bytes_));
  values_.resize(static_cast<std::size_t>(nsblk * nchan));
  if (info_.nrows == 0) fail(ErrorCode::format, "SUBINT table has no rows");
  read_row();  // decoded below, once the channel order is known

  // Frequencies and start time from row 0.
  info_.dat_freq_mhz = column_reals(row_, *freq_col_, info_.nchan);
  const auto& f = info_.dat_freq_mhz;
  info_.band_flipped = info_.nchan > 1 && f.back() > f.front();
  double step = info_.nchan > 1 ? std::fabs(f.back() - f.front()) / (info_.nchan - 1) : std::fabs(info_.chan_bw_mhz);
  std::int64_t start_row = info_.nsuboffs;
  const FitsColumn* offs_sub = find_column(columns_, "OFFS_SUB");
  const FitsColumn* index_col = find_column(columns_, "INDEXVAL");
  const double row_seconds = info_.nsblk * info_.tbin_s;
  if (offs_sub != nullptr && offs_sub->type == 'D') {
    const double v = column_reals(row_, *offs_sub, 1)[0];
    if (v != 0.0 && std::isfinite(v) && std::fabs(v) < 1e9) {
      start_row = static_cast<std::int64_t>((v - 0.5 * row_seconds) / row_seconds + 1e-7);
      offs_sub_col_ = offs_sub;
      row_origin_s_ = (static_cast<double>(start_row) + 0.5) * row_seconds;
      row0_sample_ = sample_of_offset(v);
    } else if (index_col != nullptr && index_col->type == 'D') {
      const double idx = column_reals(row_, *index_col, 1)[0];
      if (std::isfinite(idx) && std::fabs(idx) < 1e9) start_row = static_cast<std::int64_t>(idx + 1e-7 - 1.0);
    }
  }
  info_.first_row_offset_s = static_cast<double>(start_row) * row_seconds;
  find_last_row();

  header_.keys = {"source_name", "machine_id", "telescope_id", "src_raj", "src_dej", "data_type", "fch1",
                  "foff",        "nchans",     "nbits",        "tstart",  "tsamp",   "nifs"};
  header_.source_name = info_.source.substr(0, 79);
  header_.machine_id = 0;
  header_.telescope_id = std::max(0, sigproc_telescope_id(info_.telescope));
  try {
    header_.src_raj = info_.ra.empty() ? 0.0 : sigproc_angle_from_string(info_.ra, true);
    header_.src_dej = info_.dec.empty() ? 0.0 : sigproc_angle_from_string(info_.dec, false);
  } catch (const Error&) {
    log_warning("{}: cannot read RA '{}' / DEC '{}'; position left out", name, escape_for_message(info_.ra),
                escape_for_message(info_.dec));
    header_.src_raj = header_.src_dej = 0.0;
  }
  header_.data_type = 1;
  header_.fch1 = info_.band_flipped ? f.back() : f.front();
  header_.foff = -step;
  header_.nchans = info_.nchan;
  header_.nbits = info_.nbits;
  header_.nifs = 1;
  header_.tsamp = info_.tbin_s;
  header_.tstart = static_cast<double>(info_.stt_imjd) +
                   (info_.stt_smjd_s + info_.stt_offs_s + be_delay_s + info_.first_row_offset_s) / 86400.0;
  if (header_.source_name.empty()) header_.remove_key("source_name");
  decode_row();
}

std::int64_t PsrfitsReader::sample_of_offset(double offs_sub_s) const {
  return std::llround((offs_sub_s - row_origin_s_) / info_.tbin_s);
}

std::uint64_t PsrfitsReader::row_start(const std::vector<std::uint8_t>& row, std::int64_t index) const {
  auto fail = [&](const std::string& what) {
    throw Error(ErrorCode::format, fmt::format("row {} of {}: {}", index + 1, info_.nrows, what), src_->name());
  };
  const double v = column_reals(row, *offs_sub_col_, 1)[0];
  if (v == 0.0) fail("OFFS_SUB is 0 where row 1 says when it starts: some rows say and some do not");
  if (!std::isfinite(v) || std::fabs(v) >= 1e9) fail(fmt::format("OFFS_SUB is {}, not a time", v));
  // Rows are dropped whole, so the start is taken to the nearest whole row: an OFFS_SUB a few
  // samples off (a clock's jitter, float rounding in a recorder) is not a gap or an overlap.
  const std::int64_t nsblk = info_.nsblk;
  const std::int64_t offset = sample_of_offset(v) - row0_sample_;
  const std::int64_t at = (offset >= 0 ? (offset + nsblk / 2) / nsblk : -((-offset + nsblk / 2) / nsblk)) * nsblk;
  const std::int64_t contiguous = index * nsblk;
  if (at < contiguous) {
    fail(
        fmt::format("it starts at sample {} by its OFFS_SUB, before the rows before it end (sample {}): rows out "
                    "of order or overlapping",
                    at, contiguous));
  }
  return static_cast<std::uint64_t>(at);
}

// Rows missing from the table (a recorder that dropped some) are told by OFFS_SUB, the seconds
// from the start to the middle of each row: row k starts round((OFFS_SUB - (start row + 1/2) x
// TSUBINT) / TBIN) samples after the start (PRESTO's rule, psrfits.c), here counted from row 0.
// The last row's, read now where the source can read ahead, makes the length; the rows between
// are placed as they come and the missing ones read as zeros. A pipe cannot be read ahead: its
// rows must follow each other, and one that does not is an error then.
void PsrfitsReader::find_last_row() {
  next_row_start_ = static_cast<std::uint64_t>(info_.nsblk);
  if (offs_sub_col_ == nullptr || info_.nrows < 2) return;
  std::vector<std::uint8_t> last(row_.size());
  const std::uint64_t at = info_.table_offset + static_cast<std::uint64_t>(info_.nrows - 1) * row_bytes_;
  if (!src_->read_at(at + offs_sub_col_->offset, last.data() + offs_sub_col_->offset, 8)) return;
  const std::uint64_t start = row_start(last, info_.nrows - 1);
  const auto contiguous = static_cast<std::uint64_t>(info_.nrows - 1) * static_cast<std::uint64_t>(info_.nsblk);
  // More missing than a hundred times what is there is a wrong OFFS_SUB, not a recorder's gaps.
  if (start - contiguous > 100 * (contiguous + static_cast<std::uint64_t>(info_.nsblk))) {
    throw Error(ErrorCode::format,
                fmt::format("the last row starts at sample {} by its OFFS_SUB: {} samples missing between {} rows "
                            "of {}, more likely a wrong OFFS_SUB than gaps",
                            start, start - contiguous, info_.nrows, info_.nsblk),
                src_->name());
  }
  info_.missing_samples = start - contiguous;
  nsamples_ += info_.missing_samples;
  can_pad_ = true;
  row_valid_ = static_cast<std::size_t>(std::min<std::uint64_t>(static_cast<std::uint64_t>(info_.nsblk), nsamples_));
}

std::unique_ptr<PsrfitsReader> PsrfitsReader::open(const std::string& path) {
  return std::make_unique<PsrfitsReader>(open_source(path));
}

void PsrfitsReader::load_row() {
  read_row();
  decode_row();
}

void PsrfitsReader::read_row() {
  try {
    src_->read_exact(row_.data(), row_.size(), "SUBINT row");
  } catch (const Error& e) {
    throw Error(ErrorCode::format,
                fmt::format("row {} of {} is cut short ({})", rows_loaded_ + 1, info_.nrows, e.what()), src_->name());
  }
  const auto nsblk = static_cast<std::uint64_t>(info_.nsblk);
  std::uint64_t before = static_cast<std::uint64_t>(rows_loaded_) * nsblk;
  if (offs_sub_col_ != nullptr && rows_loaded_ > 0) {
    before = row_start(row_, rows_loaded_);
    if (before > next_row_start_) {
      if (!can_pad_) {
        throw Error(ErrorCode::format,
                    fmt::format("row {} starts at sample {} by its OFFS_SUB, not {}: rows are missing, which only a "
                                "file read by name (not a pipe) can be padded for",
                                rows_loaded_ + 1, before, next_row_start_),
                    src_->name());
      }
      // Before this row's samples come those that are missing, as zeros.
      pad_left_ = before - next_row_start_;
      gaps_.push_back({next_row_start_, pad_left_});
    }
    next_row_start_ = before + nsblk;
  }
  ++rows_loaded_;
  row_pos_ = 0;
  row_valid_ = static_cast<std::size_t>(nsamples_ > before ? std::min(nsblk, nsamples_ - before) : 0);
}

void PsrfitsReader::decode_row() {
  const std::size_t nchan = static_cast<std::size_t>(info_.nchan);
  const std::size_t npol = static_cast<std::size_t>(info_.npol);
  const auto pols_used = static_cast<std::size_t>(pol_count_);
  const auto pol_first = static_cast<std::size_t>(pol_first_);
  // Per (pol, chan) scale and offset, and per-chan weight; absent columns (or columns turned
  // off, PRESTO's -noscales, -nooffsets, -noweights) mean 1, 0, 1.
  std::vector<double> scl(npol * nchan, 1.0);
  std::vector<double> offs(npol * nchan, 0.0);
  std::vector<double> wts(nchan, 1.0);
  auto load = [&](const FitsColumn* c, std::vector<double>& dst) {
    if (c == nullptr) return;
    const auto v = column_reals(row_, *c, static_cast<std::size_t>(c->repeat));
    for (std::size_t i = 0; i < dst.size(); ++i) dst[i] = v[i % v.size()];  // NCHAN-only: same for every pol
  };
  if (scaling_.scales) load(scl_col_, scl);
  if (scaling_.offsets) load(offs_col_, offs);
  if (scaling_.weights) load(wts_col_, wts);
  // value = (raw - zero) * scl + offs, times the weight: folded into one multiply-add per sample.
  std::vector<float> gain(pols_used * nchan);
  std::vector<float> bias(pols_used * nchan);
  for (std::size_t p = 0; p < pols_used; ++p) {
    for (std::size_t c = 0; c < nchan; ++c) {
      const std::size_t k = (pol_first + p) * nchan + c;  // the file's (pol, chan)
      gain[p * nchan + c] = static_cast<float>(scl[k] * wts[c]);
      bias[p * nchan + c] = static_cast<float>((offs[k] - info_.zero_off * scl[k]) * wts[c]);
    }
  }
  const std::uint8_t* data = row_.data() + data_col_->offset;
  auto run = [&]<int Bits>() {
    for (std::size_t t = 0; t < static_cast<std::size_t>(info_.nsblk); ++t) {
      float* out = values_.data() + t * nchan;
      std::fill(out, out + nchan, 0.0F);
      for (std::size_t p = 0; p < pols_used; ++p) {
        const std::size_t base = (t * npol + pol_first + p) * nchan;
        for (std::size_t c = 0; c < nchan; ++c) {
          const float raw = RawSample<Bits>::get(data, base + c, info_.signed_ints, *data_col_);
          const std::size_t oc = info_.band_flipped ? nchan - 1 - c : c;
          out[oc] += raw * gain[p * nchan + c] + bias[p * nchan + c];
        }
      }
    }
  };
  switch (info_.nbits) {
    case 1:
      run.template operator()<1>();
      break;
    case 2:
      run.template operator()<2>();
      break;
    case 4:
      run.template operator()<4>();
      break;
    case 8:
      run.template operator()<8>();
      break;
    case 16:
      run.template operator()<16>();
      break;
    default:
      run.template operator()<32>();
      break;
  }
}

template <class Take>
std::uint64_t PsrfitsReader::walk(std::uint64_t n, Take take) {
  std::uint64_t done = 0;
  while (done < n && position_ < nsamples_) {
    if (pad_left_ == 0 && row_pos_ == row_valid_) load_row();
    std::uint64_t k = 0;
    if (pad_left_ > 0) {  // missing rows before the row loaded
      k = std::min(n - done, pad_left_);
      take(done, static_cast<std::size_t>(k), nullptr);
      pad_left_ -= k;
    } else {
      k = std::min<std::uint64_t>(n - done, row_valid_ - row_pos_);
      take(done, static_cast<std::size_t>(k), values_.data() + row_pos_ * static_cast<std::size_t>(info_.nchan));
      row_pos_ += static_cast<std::size_t>(k);
    }
    done += k;
    position_ += k;
  }
  return done;
}

std::size_t PsrfitsReader::read_float(float* dst, std::size_t n) {
  const auto nchan = static_cast<std::size_t>(info_.nchan);
  return static_cast<std::size_t>(walk(n, [&](std::uint64_t done, std::size_t k, const float* values) {
    float* out = dst + done * nchan;
    if (values == nullptr) {
      std::fill(out, out + k * nchan, 0.0F);
    } else {
      std::memcpy(out, values, k * nchan * sizeof(float));
    }
  }));
}

std::uint64_t PsrfitsReader::skip(std::uint64_t n) {
  return walk(n, [](std::uint64_t, std::size_t, const float*) {});
}

}  // namespace fastpsr
