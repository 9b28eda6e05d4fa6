// SPDX-License-Identifier: MIT
#include "fastpsr/tim_stream.hpp"

#include <algorithm>

#include "fastpsr/error.hpp"
#include "tim_record.hpp"

namespace fastpsr {

SigprocHeader tim_stream_record_header(const SigprocHeader& header, std::uint64_t nsamples) {
  FASTPSR_EXPECTS(nsamples <= kMaxTimStreamRecord, "a tim-stream record holds at most {} samples, not {}",
                  kMaxTimStreamRecord, nsamples);
  SigprocHeader h = header;
  h.data_type = 2;
  h.nchans = 1;
  h.nifs = 1;
  h.nbits = 32;
  h.nsamples = static_cast<std::int32_t>(nsamples);
  h.frequency_table.clear();
  h.keys = sigproc_dedisperse_keys(h);
  const auto nbits_at = std::find(h.keys.begin(), h.keys.end(), "nbits");
  h.keys.insert(nbits_at + 1, "nsamples");
  return h;
}

TimStreamWriter::TimStreamWriter(std::unique_ptr<ByteSink> sink) : sink_(std::move(sink)) {}

std::unique_ptr<TimStreamWriter> TimStreamWriter::open(const std::string& path) {
  return std::make_unique<TimStreamWriter>(open_sink(path));
}

void TimStreamWriter::require_no_open_record(const char* what) const {
  FASTPSR_EXPECTS(remaining_ == 0, "tim-stream '{}': {} while record {} still lacks {} samples", sink_->name(), what,
                  records_ - 1, remaining_);
}

void TimStreamWriter::begin(const SigprocHeader& header, std::uint64_t nsamples) {
  require_no_open_record("a new record begun");
  const SigprocHeader h = tim_stream_record_header(header, nsamples);
  validate_sigproc_header(h, sink_->name());
  write_sigproc_header(*sink_, h);
  remaining_ = nsamples;
  ++records_;
}

void TimStreamWriter::append(std::span<const float> samples) {
  FASTPSR_EXPECTS(samples.size() <= remaining_, "tim-stream '{}': {} samples given, record {} needs only {} more",
                  sink_->name(), samples.size(), records_ - 1, remaining_);
  sink_->write(samples.data(), samples.size_bytes());
  remaining_ -= samples.size();
}

void TimStreamWriter::write(const SigprocHeader& header, std::span<const float> samples) {
  begin(header, samples.size());
  append(samples);
}

void TimStreamWriter::commit() {
  require_no_open_record("the stream ended");
  sink_->commit();
}

TimStreamReader::TimStreamReader(std::unique_ptr<ByteSource> src) : src_(std::move(src)) {}

std::unique_ptr<TimStreamReader> TimStreamReader::open(const std::string& path) {
  return std::make_unique<TimStreamReader>(open_source(path));
}

std::optional<TimeSeries> TimStreamReader::next() {
  if (ended_ || src_->peek(1).empty()) {
    ended_ = true;
    return std::nullopt;
  }
  const std::string what = fmt::format("record {}: ", records_);
  SigprocHeader h;
  try {
    h = read_sigproc_header(*src_);
  } catch (const Error& e) {
    // After a record, more bytes that are no header most often mean a single .tim whose header
    // says fewer samples (nsamples) than it holds: in a stream, nsamples ends each record.
    const std::string hint = records_ > 0
                                 ? fmt::format(
                                       " (record {} ended where its nsamples said: a .tim whose nsamples is below its "
                                       "sample count cannot be streamed; read it as a file, or correct nsamples with "
                                       "header --set)",
                                       records_ - 1)
                                 : std::string();
    throw Error(e.code(), what + e.what() + hint, src_->name());
  }
  detail::require_timeseries_header(h, src_->name(), what);
  std::vector<float> samples;
  std::optional<std::uint64_t> count;
  if (h.has("nsamples")) {
    if (h.nsamples < 0) {
      throw Error(ErrorCode::format, fmt::format("{}negative nsamples {}", what, h.nsamples), src_->name());
    }
    count = static_cast<std::uint64_t>(h.nsamples);
  }
  detail::read_tim_samples(*src_, h, count, samples, what);
  if (!count) ended_ = true;  // a record without nsamples runs to the end
  ++records_;
  return timeseries_from_sigproc(h, std::move(samples), TimeSeriesOrigin::tim_stream, src_->name());
}

}  // namespace fastpsr
