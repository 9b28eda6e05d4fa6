// SPDX-License-Identifier: MIT
#include "tim_record.hpp"

#include <algorithm>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr::detail {

void require_timeseries_header(const SigprocHeader& h, const std::string& name, const std::string& what) {
  if (h.data_type != 2 && !(h.data_type == 6 && h.nchans == 1)) {
    throw Error(ErrorCode::format, fmt::format("{}not a time series: data_type is {} (2 expected)", what, h.data_type),
                name);
  }
  if (h.nchans != 1 || h.nifs != 1) {
    throw Error(ErrorCode::format,
                fmt::format("{}a time series must have one channel and one IF, the header says nchans {} nifs {}", what,
                            h.nchans, h.nifs),
                name);
  }
}

void read_tim_samples(ByteSource& src, const SigprocHeader& h, std::optional<std::uint64_t> count,
                      std::vector<float>& out, const std::string& what) {
  constexpr std::size_t kPiece = std::size_t{1} << 20;  // samples per read
  const std::size_t bps = h.bytes_per_sample();         // nchans = nifs = 1, so nbits >= 8 here
  std::vector<std::uint8_t> packed;
  std::uint64_t done = 0;
  for (;;) {
    std::size_t want = kPiece;
    if (count) want = static_cast<std::size_t>(std::min<std::uint64_t>(kPiece, *count - done));
    if (want == 0) return;
    packed.resize(want * bps);
    const std::size_t got_bytes = src.read(packed.data(), packed.size());
    const std::size_t got = got_bytes / bps;
    const std::size_t old = out.size();
    out.resize(old + got);
    unpack_to_float(packed.data(), out.data() + old, got, h.nbits, h.data_signed());
    done += got;
    if (got_bytes < packed.size()) {
      if (count) {
        throw Error(ErrorCode::format,
                    fmt::format("{}truncated: the data end after {} of the {} samples its header announces", what, done,
                                *count),
                    src.name());
      }
      if (got_bytes % bps != 0) {
        throw Error(ErrorCode::format,
                    fmt::format("{}trailing partial sample: the data end {} bytes into a {}-byte sample", what,
                                got_bytes % bps, bps),
                    src.name());
      }
      return;
    }
  }
}

}  // namespace fastpsr::detail
