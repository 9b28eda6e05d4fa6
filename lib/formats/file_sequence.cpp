// SPDX-License-Identifier: MIT
#include "fastpsr/file_sequence.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "fastpsr/error.hpp"
#include "fastpsr/format_detect.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/sigproc_view.hpp"

namespace fastpsr {

namespace {

bool nearly_equal(double a, double b) {
  return a == b || std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

// The header fields that must agree for files to be one observation; "" when they do.
std::string mismatch(const SigprocHeader& first, const SigprocHeader& h) {
  if (h.nchans != first.nchans) return fmt::format("{} channels, not {}", h.nchans, first.nchans);
  if (h.nbits != first.nbits) return fmt::format("{}-bit samples, not {}-bit", h.nbits, first.nbits);
  if (h.nifs != first.nifs) return fmt::format("{} IFs, not {}", h.nifs, first.nifs);
  if (h.data_signed() != first.data_signed()) return "signed samples where the first file's are unsigned, or back";
  if (!nearly_equal(h.tsamp, first.tsamp)) return fmt::format("tsamp {} s, not {} s", h.tsamp, first.tsamp);
  if (!nearly_equal(h.fch1, first.fch1) || !nearly_equal(h.foff, first.foff)) {
    return fmt::format("fch1 {} MHz and foff {} MHz, not {} and {}", h.fch1, h.foff, first.fch1, first.foff);
  }
  if (h.frequency_table != first.frequency_table) return "another frequency table";
  if (h.is_time_series() != first.is_time_series()) return "another data type";
  return {};
}

void check_same(const SigprocHeader& first, const SigprocHeader& h, const std::string& first_name,
                const std::string& name) {
  const std::string why = mismatch(first, h);
  if (!why.empty()) {
    throw Error(ErrorCode::format, fmt::format("not the same data as {}: {}", first_name, why), name);
  }
}

}  // namespace

std::uint64_t samples_missing_before(const std::string& name, const std::string& previous, double tstart0,
                                     double tstart, double tsamp_s, std::uint64_t before) {
  const double at = std::floor((tstart - tstart0) * 86400.0 / tsamp_s + 0.5);
  const auto was = static_cast<double>(before);
  if (!std::isfinite(at) || at < was) {
    throw Error(ErrorCode::format,
                fmt::format("starts at sample {:.0f} of the observation (tstart {:.12f}), where {} ends at sample {}: "
                            "an overlap of {:.0f} samples; files are read as one only in time order, each starting "
                            "where the one before ends or later",
                            at, tstart, previous, before, was - at),
                name);
  }
  // More missing than a hundred times the data so far and this file's is not a recorder's gap
  // but files of other observations (PRESTO would pad it all).
  if (at - was > 100.0 * (was + 1.0)) {
    throw Error(ErrorCode::format,
                fmt::format("starts at sample {:.0f} of the observation (tstart {:.12f}), {:.0f} samples after {} "
                            "ends (sample {}): too long a gap to pad for files of one observation",
                            at, tstart, at - was, previous, before),
                name);
  }
  return static_cast<std::uint64_t>(at - was);
}

void append_gaps(std::vector<SampleGap>& into, const std::vector<SampleGap>& gaps, std::uint64_t offset) {
  for (const SampleGap& g : gaps) {
    if (g.count == 0) continue;
    if (!into.empty() && into.back().first + into.back().count == g.first + offset) {
      into.back().count += g.count;
    } else {
      into.push_back({g.first + offset, g.count});
    }
  }
}

// --- SIGPROC ---

FilterbankSequence::FilterbankSequence(const std::vector<std::string>& paths) : ByteSource(paths.at(0)) {
  SigprocHeader first;
  std::uint64_t total = 0;
  for (const auto& path : paths) {
    if (path == "-") throw Error(ErrorCode::invalid_argument, "stdin cannot be one of several input files", path);
    auto src = open_source(path);
    const SigprocHeader h = read_sigproc_header(*src);
    const auto size = src->size();
    if (!size)
      throw Error(ErrorCode::invalid_argument, "one of several input files must be a file of known size", path);
    const std::uint64_t n = sigproc_nsamples_from_size(h, *size, path);
    std::uint64_t pad = 0;
    if (parts_.empty()) {
      first = h;
    } else {
      check_same(first, h, parts_.front().path, path);
      pad = samples_missing_before(path, parts_.back().path, first.tstart, h.tstart, first.tsamp, total);
      if (pad > 0) gaps_.push_back({total, pad});
    }
    parts_.push_back({path, h.header_bytes, n * h.bytes_per_sample(), pad * h.bytes_per_sample()});
    total += pad + n;
  }
  if (first.has("nsamples")) {
    // The total, where the legacy 32-bit key can hold it; else no count (the size says it).
    if (total <= static_cast<std::uint64_t>(INT32_MAX)) {
      first.nsamples = static_cast<std::int32_t>(total);
    } else {
      first.remove_key("nsamples");
    }
  }
  header_ = encode_sigproc_header(first);
}

std::optional<std::uint64_t> FilterbankSequence::size() const {
  std::uint64_t bytes = header_.size();
  for (const auto& p : parts_) bytes += p.pad_bytes + p.data_bytes;
  return bytes;
}

bool FilterbankSequence::open_next() {
  while (!current_ || (pad_left_ == 0 && left_ == 0)) {
    if (current_) {
      current_.reset();
      ++part_;
    }
    if (part_ >= parts_.size()) return false;
    current_ = open_source(parts_[part_].path);
    if (current_->skip(parts_[part_].header_bytes) != parts_[part_].header_bytes) {
      throw Error(ErrorCode::format, "file became shorter than its header while being read", parts_[part_].path);
    }
    left_ = parts_[part_].data_bytes;
    pad_left_ = parts_[part_].pad_bytes;
  }
  return true;
}

std::size_t FilterbankSequence::read_some(void* dst, std::size_t n) {
  if (header_pos_ < header_.size()) {
    const std::size_t k = std::min(n, header_.size() - header_pos_);
    std::memcpy(dst, header_.data() + header_pos_, k);
    header_pos_ += k;
    return k;
  }
  if (!open_next()) return 0;
  if (pad_left_ > 0) {  // the gap before this part: zeros
    const auto k = static_cast<std::size_t>(std::min<std::uint64_t>(n, pad_left_));
    std::memset(dst, 0, k);
    pad_left_ -= k;
    return k;
  }
  const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(n, left_));
  const std::size_t got = current_->read(dst, want);
  if (got < want) {
    throw Error(ErrorCode::format, "file became shorter while being read", parts_[part_].path);
  }
  left_ -= got;
  return got;
}

bool FilterbankSequence::seek_forward(std::uint64_t n) {
  if (header_pos_ < header_.size()) return false;
  while (n > 0) {
    if (!open_next()) return false;  // ByteSource::skip asks only within size()
    if (pad_left_ > 0) {
      const std::uint64_t k = std::min(n, pad_left_);
      pad_left_ -= k;
      n -= k;
      continue;
    }
    const std::uint64_t k = std::min(n, left_);
    if (current_->skip(k) != k)
      throw Error(ErrorCode::format, "file became shorter while being read", parts_[part_].path);
    left_ -= k;
    n -= k;
  }
  return true;
}

// --- PSRFITS ---

PsrfitsSequence::PsrfitsSequence(const std::vector<std::string>& paths, PsrfitsScaling scaling, IfChoice pols)
    : paths_(paths), scaling_(scaling), pols_(pols) {
  for (const auto& path : paths_) {
    if (path == "-") throw Error(ErrorCode::invalid_argument, "stdin cannot be one of several input files", path);
    auto reader = std::make_unique<PsrfitsReader>(open_source(path), scaling_, pols_);
    const PsrfitsReader& r = *reader;
    const std::uint64_t n = r.nsamples().value_or(0);
    std::uint64_t pad = 0;
    if (counts_.empty()) {
      header_ = r.header();
      info_ = r.info();
      current_ = std::move(reader);  // the first file is read from here (its first row is loaded)
    } else {
      check_same(header_, r.header(), paths_.front(), path);
      if (r.info().npol != info_.npol || r.info().intensity_from != info_.intensity_from) {
        throw Error(ErrorCode::format,
                    fmt::format("not the same data as {}: {} polarisations ({}), not {} ({})", paths_.front(),
                                r.info().npol, r.info().intensity_from, info_.npol, info_.intensity_from),
                    path);
      }
      pad = samples_missing_before(path, paths_[counts_.size() - 1], header_.tstart, r.header().tstart, header_.tsamp,
                                   total_);
    }
    pads_.push_back(pad);
    counts_.push_back(n);
    total_ += pad + n;
  }
}

bool PsrfitsSequence::advance() {
  while (!current_ || used_ == counts_[file_]) {
    if (current_) {
      file_gaps_.push_back(current_->gaps());
      current_.reset();
      ++file_;
      used_ = 0;
    }
    if (file_ >= paths_.size()) return false;
    current_ = std::make_unique<PsrfitsReader>(open_source(paths_[file_]), scaling_, pols_);
    pad_left_ = pads_[file_];
  }
  return true;
}

std::vector<SampleGap> PsrfitsSequence::gaps() const {
  std::vector<SampleGap> all;
  std::uint64_t start = 0;  // file f's first sample in the observation
  for (std::size_t f = 0; f < paths_.size(); ++f) {
    append_gaps(all, {{start, pads_[f]}}, 0);
    start += pads_[f];
    if (f < file_gaps_.size()) {
      append_gaps(all, file_gaps_[f], start);
    } else if (f == file_ && current_) {
      append_gaps(all, current_->gaps(), start);
    }
    start += counts_[f];
  }
  return all;
}

template <class Take, class Pad>
std::uint64_t PsrfitsSequence::walk(std::uint64_t n, Take take, Pad pad) {
  std::uint64_t done = 0;
  while (done < n && advance()) {
    if (pad_left_ > 0) {  // the gap before this file
      const std::uint64_t k = std::min(n - done, pad_left_);
      pad(done, k);
      pad_left_ -= k;
      done += k;
      continue;
    }
    const std::uint64_t want = std::min(n - done, counts_[file_] - used_);
    const std::uint64_t got = take(*current_, done, want);
    if (got < want) throw Error(ErrorCode::format, "file became shorter while being read", paths_[file_]);
    used_ += got;
    done += got;
  }
  position_ += done;
  return done;
}

std::size_t PsrfitsSequence::read_float(float* dst, std::size_t n) {
  const auto nchans = static_cast<std::size_t>(header_.nchans);
  return static_cast<std::size_t>(walk(
      n,
      [&](PsrfitsReader& r, std::uint64_t done, std::uint64_t want) {
        return static_cast<std::uint64_t>(r.read_float(dst + done * nchans, static_cast<std::size_t>(want)));
      },
      [&](std::uint64_t done, std::uint64_t k) { std::fill(dst + done * nchans, dst + (done + k) * nchans, 0.0F); }));
}

std::uint64_t PsrfitsSequence::skip(std::uint64_t n) {
  return walk(
      n, [](PsrfitsReader& r, std::uint64_t, std::uint64_t want) { return r.skip(want); },
      [](std::uint64_t, std::uint64_t) {});
}

std::unique_ptr<ByteSource> open_sigproc_sequence(const std::vector<std::string>& paths, PsrfitsScaling scaling,
                                                  IfChoice pols) {
  std::vector<bool> fits;
  for (const auto& path : paths) {
    if (path == "-") throw Error(ErrorCode::invalid_argument, "stdin cannot be one of several input files", path);
    auto src = open_source(path);
    fits.push_back(!looks_like_sigproc(src->peek(16)) && detect_format(*src) == FileFormat::psrfits);
    if (fits.back() != fits.front()) {
      throw Error(
          ErrorCode::format,
          fmt::format("{} while {} is {}: several input files must be of one format",
                      fits.back() ? "PSRFITS" : "not PSRFITS", paths.front(), fits.front() ? "PSRFITS" : "not PSRFITS"),
          path);
    }
  }
  if (!fits.front()) {
    auto seq = std::make_unique<FilterbankSequence>(paths);
    log_verbose("{} and {} more file{}: one observation, read in turn", paths.front(), paths.size() - 1,
                paths.size() == 2 ? "" : "s");
    return seq;
  }
  auto seq = std::make_unique<PsrfitsSequence>(paths, scaling, pols);
  log_verbose(
      "{} and {} more search-mode PSRFITS file{}: one observation of {} samples, read in turn as a float32 "
      "filterbank (intensity from {})",
      paths.front(), paths.size() - 1, paths.size() == 2 ? "" : "s", seq->nsamples().value_or(0),
      seq->info().intensity_from);
  return std::make_unique<SigprocFloatView>(std::move(seq));
}

}  // namespace fastpsr
