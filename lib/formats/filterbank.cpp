// SPDX-License-Identifier: MIT
#include "fastpsr/filterbank.hpp"

#include <algorithm>
#include <cstring>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/log.hpp"

namespace fastpsr {

FilterbankReader::FilterbankReader(std::unique_ptr<ByteSource> src) : src_(std::move(src)) {
  header_ = read_sigproc_header(*src_);
  if (const auto size = src_->size()) nsamples_ = sigproc_nsamples_from_size(header_, *size, src_->name());
}

std::unique_ptr<FilterbankReader> FilterbankReader::open(const std::string& path) {
  return std::make_unique<FilterbankReader>(open_source(path));
}

bool FilterbankReader::has_whole_sample() {
  const std::uint64_t bps = header_.bytes_per_sample();
  return src_->peek(static_cast<std::size_t>(bps)).size() == bps;
}

std::size_t FilterbankReader::read_packed(std::uint8_t* dst, std::size_t n) {
  const std::uint64_t bps = header_.bytes_per_sample();
  const std::size_t want = n * bps;
  const std::size_t got = src_->read(dst, want);
  // A file's partial last sample was reported when its size was read (sigproc_nsamples_from_size);
  // a stream's is reported here. Either way the whole samples are the data, as in SIGPROC/PRESTO.
  if (got % bps != 0 && !nsamples_) {
    log_warning("{}: trailing partial sample: the data end {} bytes into a {}-byte sample; the whole samples are used",
                src_->name(), got % bps, bps);
  }
  const std::size_t samples = got / bps;
  if (samples < n && header_.has("nsamples") && header_.nsamples > 0 &&
      position_ + samples < static_cast<std::uint64_t>(header_.nsamples)) {
    throw Error(ErrorCode::format,
                fmt::format("data are shorter than the header says: {} samples, nsamples = {}", position_ + samples,
                            header_.nsamples),
                src_->name());
  }
  position_ += samples;
  return samples;
}

std::size_t FilterbankReader::read_float(float* dst, std::size_t n) {
  // Never a buffer larger than the data left, whatever the caller asks (a header may claim
  // huge spectra over an empty file).
  if (nsamples_) n = static_cast<std::size_t>(std::min<std::uint64_t>(n, *nsamples_ - std::min(*nsamples_, position_)));
  const std::size_t values_per_sample = static_cast<std::size_t>(header_.nchans) * header_.nifs;
  scratch_.resize(n * header_.bytes_per_sample());
  const std::size_t got = read_packed(scratch_.data(), n);
  unpack_to_float(scratch_.data(), dst, got * values_per_sample, header_.nbits, header_.data_signed());
  return got;
}

std::uint64_t FilterbankReader::skip(std::uint64_t n) {
  const std::uint64_t bps = header_.bytes_per_sample();
  const std::uint64_t skipped = src_->skip(n * bps);
  if (skipped % bps != 0 && !nsamples_) {
    log_warning("{}: trailing partial sample: the data end {} bytes into a {}-byte sample; the whole samples are used",
                src_->name(), skipped % bps, bps);
  }
  position_ += skipped / bps;
  return skipped / bps;
}

GulpReader::GulpReader(FilterbankReader& reader, std::size_t gulp_samples, std::size_t overlap, Layout layout)
    : reader_(reader),
      gulp_(gulp_samples),
      overlap_(overlap),
      layout_(layout),
      row_values_(static_cast<std::size_t>(reader.header().nchans) * reader.header().nifs),
      row_bytes_(reader.header().bytes_per_sample()) {
  FASTPSR_EXPECTS(gulp_samples > 0, "gulp size must be at least one sample");
  const std::size_t rows = gulp_ + overlap_;
  packed_.resize(rows * row_bytes_);
  if (layout_ == Layout::float32) values_.resize(rows * row_values_);
  first_ = reader.position();
}

std::size_t GulpReader::buffer_bytes() const noexcept { return packed_.size() + values_.size() * sizeof(float); }

std::optional<Gulp> GulpReader::next() {
  if (done_) return std::nullopt;
  // Keep the last `overlap_` rows of the previous gulp at the front.
  std::size_t keep = 0;
  if (started_) {
    keep = std::min(overlap_, rows_);
    const std::size_t drop = rows_ - keep;
    std::memmove(packed_.data(), packed_.data() + drop * row_bytes_, keep * row_bytes_);
    if (layout_ == Layout::float32) {
      std::memmove(values_.data(), values_.data() + drop * row_values_, keep * row_values_ * sizeof(float));
    }
    first_ += drop;
  }
  const std::size_t got = reader_.read_packed(packed_.data() + keep * row_bytes_, gulp_);
  started_ = true;
  if (got == 0) {
    done_ = true;
    return std::nullopt;
  }
  if (layout_ == Layout::float32) {
    unpack_to_float(packed_.data() + keep * row_bytes_, values_.data() + keep * row_values_, got * row_values_,
                    reader_.header().nbits, reader_.header().data_signed());
  }
  rows_ = keep + got;
  Gulp g;
  g.first_sample = first_;
  g.nsamples = rows_;
  g.nnew = got;
  g.packed = packed_.data();
  g.values = layout_ == Layout::float32 ? values_.data() : nullptr;
  // A short read means the end; for a file of known size, so does reaching its sample count.
  const auto total = reader_.nsamples();
  g.last = got < gulp_ || (total && reader_.position() >= *total);
  if (g.last) done_ = true;
  return g;
}

FilterbankWriter::FilterbankWriter(std::unique_ptr<ByteSink> sink, const SigprocHeader& header)
    : sink_(std::move(sink)), header_(header) {
  validate_sigproc_header(header_, sink_->name());
  write_sigproc_header(*sink_, header_);
}

std::unique_ptr<FilterbankWriter> FilterbankWriter::open(const std::string& path, const SigprocHeader& header) {
  return std::make_unique<FilterbankWriter>(open_sink(path), header);
}

void FilterbankWriter::write_packed(const std::uint8_t* src, std::size_t n) {
  sink_->write(src, n * header_.bytes_per_sample());
  written_ += n;
}

void FilterbankWriter::write_float(const float* src, std::size_t n) {
  const std::size_t values = n * static_cast<std::size_t>(header_.nchans) * header_.nifs;
  if (header_.nbits == 32) {
    sink_->write(src, values * sizeof(float));
  } else {
    scratch_.resize(packed_bytes(values, header_.nbits));
    pack_from_float(src, scratch_.data(), values, header_.nbits, header_.data_signed());
    sink_->write(scratch_.data(), scratch_.size());
  }
  written_ += n;
}

void FilterbankWriter::commit() { sink_->commit(); }

SigprocHeader make_tim_header(const SigprocHeader& fb, double refdm, double ref_freq_mhz, int nbits) {
  SigprocHeader h;
  h.source_name = fb.source_name;
  h.telescope_id = fb.telescope_id;
  h.machine_id = fb.machine_id;
  h.src_raj = fb.src_raj;
  h.src_dej = fb.src_dej;
  h.az_start = fb.az_start;
  h.za_start = fb.za_start;
  h.data_type = 2;
  h.refdm = refdm;
  h.fch1 = ref_freq_mhz;
  h.barycentric = fb.barycentric;
  h.nchans = 1;
  h.nbits = nbits;
  h.tstart = fb.tstart;
  h.tsamp = fb.tsamp;
  h.nifs = 1;
  h.signed_flag = 1;
  h.keys = sigproc_dedisperse_keys(h);
  return h;
}

}  // namespace fastpsr
