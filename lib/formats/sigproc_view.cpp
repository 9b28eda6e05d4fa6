// SPDX-License-Identifier: MIT
#include "fastpsr/sigproc_view.hpp"

#include <algorithm>
#include <cstring>

#include "fastpsr/format_detect.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/psrfits.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr {

namespace {
// Samples converted at a time: about a MiB of float32.
constexpr std::size_t kViewBytes = std::size_t{1} << 20;
}  // namespace

SigprocFloatView::SigprocFloatView(std::unique_ptr<SpectraSource> spectra)
    : ByteSource(spectra->name()), spectra_(std::move(spectra)), header_(spectra_->header()) {
  header_.nbits = 32;
  header_.add_key("nbits");
  header_.remove_key("signed");  // float32 data: no signedness byte
  header_bytes_ = encode_sigproc_header(header_);
  header_.header_bytes = header_bytes_.size();
  values_per_sample_ = static_cast<std::uint64_t>(header_.nchans) * static_cast<std::uint64_t>(header_.nifs);
}

std::optional<std::uint64_t> SigprocFloatView::size() const {
  const std::optional<std::uint64_t> n = spectra_->nsamples();
  if (!n) return std::nullopt;
  return header_bytes_.size() + *n * values_per_sample_ * sizeof(float);
}

bool SigprocFloatView::seek_forward(std::uint64_t n) {
  const std::uint64_t sample_bytes = values_per_sample_ * sizeof(float);
  if (header_pos_ < header_bytes_.size() || samples_pos_ != samples_bytes_ || n % sample_bytes != 0) return false;
  // ByteSource::skip asks only within the known size, so every sample is there to skip.
  return spectra_->skip(n / sample_bytes) == n / sample_bytes;
}

std::size_t SigprocFloatView::read_some(void* dst, std::size_t n) {
  if (header_pos_ < header_bytes_.size()) {
    const std::size_t k = std::min(n, header_bytes_.size() - header_pos_);
    std::memcpy(dst, header_bytes_.data() + header_pos_, k);
    header_pos_ += k;
    return k;
  }
  if (samples_pos_ == samples_bytes_) {
    // Allocated at the first read, not before: a header may claim huge spectra over no data, and
    // the reader of the view refuses those (no whole sample) before it reads.
    if (samples_.empty()) {
      const std::size_t per_read = std::max<std::size_t>(1, kViewBytes / (values_per_sample_ * sizeof(float)));
      samples_.resize(per_read * values_per_sample_);
    }
    const std::size_t got = spectra_->read_float(samples_.data(), samples_.size() / values_per_sample_);
    samples_bytes_ = got * values_per_sample_ * sizeof(float);
    samples_pos_ = 0;
    if (got == 0) return 0;
  }
  const std::size_t k = std::min(n, samples_bytes_ - samples_pos_);
  std::memcpy(dst, reinterpret_cast<const std::uint8_t*>(samples_.data()) + samples_pos_, k);
  samples_pos_ += k;
  return k;
}

std::unique_ptr<ByteSource> open_sigproc_source(const std::string& path, PsrfitsScaling scaling, IfChoice pols) {
  auto src = open_source(path);
  // A SIGPROC header is told by its first 16 bytes; format detection would wait for more, which a
  // pipe that stalls after the header may never send (dedisp refuses such runs at once).
  if (looks_like_sigproc(src->peek(16)) || detect_format(*src) != FileFormat::psrfits) return src;
  auto fits = std::make_unique<PsrfitsReader>(std::move(src), scaling, pols);
  log_verbose(
      "{}: search-mode PSRFITS ({}-bit, {} polarisation{}, intensity from {}), read as a "
      "float32 filterbank{}{}{}",
      fits->name(), fits->info().nbits, fits->info().npol, fits->info().npol == 1 ? "" : "s",
      fits->info().intensity_from, scaling.weights ? "" : ", weights ignored", scaling.scales ? "" : ", scales ignored",
      scaling.offsets ? "" : ", offsets ignored");
  return std::make_unique<SigprocFloatView>(std::move(fits));
}

}  // namespace fastpsr
