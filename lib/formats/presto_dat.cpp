// SPDX-License-Identifier: MIT
#include "fastpsr/presto_dat.hpp"

#include <algorithm>
#include <cctype>

#include "fastpsr/error.hpp"

namespace fastpsr {
namespace {

bool is_sdat(const std::string& path) {
  if (path.size() < 5) return false;
  std::string tail = path.substr(path.size() - 5);
  std::transform(tail.begin(), tail.end(), tail.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return tail == ".sdat";
}

}  // namespace

DatReader::DatReader(std::unique_ptr<ByteSource> src, DatSampleType type) : src_(std::move(src)), type_(type) {
  if (const auto size = src_->size()) {
    const std::size_t bps = bytes_per_sample();
    if (*size % bps != 0) {
      throw Error(
          ErrorCode::format,
          fmt::format("trailing partial sample: {} bytes are not a whole number of {}-byte samples", *size, bps),
          src_->name());
    }
    nsamples_ = *size / bps;
  }
}

std::unique_ptr<DatReader> DatReader::open(const std::string& path) {
  return std::make_unique<DatReader>(open_source(path), is_sdat(path) ? DatSampleType::int16 : DatSampleType::float32);
}

std::size_t DatReader::read(float* dst, std::size_t n) {
  const std::size_t bps = bytes_per_sample();
  std::size_t got_bytes = 0;
  if (type_ == DatSampleType::float32) {
    got_bytes = src_->read(dst, n * bps);
  } else {
    scratch_.resize(n);
    got_bytes = src_->read(scratch_.data(), n * bps);
    std::transform(scratch_.begin(), scratch_.begin() + static_cast<std::ptrdiff_t>(got_bytes / bps), dst,
                   [](std::int16_t v) { return static_cast<float>(v); });
  }
  if (got_bytes % bps != 0) {
    throw Error(
        ErrorCode::format,
        fmt::format("trailing partial sample: the data end {} bytes into a {}-byte sample", got_bytes % bps, bps),
        src_->name());
  }
  position_ += got_bytes / bps;
  return got_bytes / bps;
}

DatWriter::DatWriter(std::unique_ptr<ByteSink> sink) : sink_(std::move(sink)) {}

std::unique_ptr<DatWriter> DatWriter::open(const std::string& path) {
  return std::make_unique<DatWriter>(open_sink(path));
}

void DatWriter::write(std::span<const float> samples) {
  sink_->write(samples.data(), samples.size_bytes());
  written_ += samples.size();
}

void DatWriter::commit() { sink_->commit(); }

}  // namespace fastpsr
