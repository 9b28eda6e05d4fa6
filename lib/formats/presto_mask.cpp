// SPDX-License-Identifier: MIT
#include "fastpsr/presto_mask.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "fastpsr/error.hpp"
#include "fastpsr/side_file.hpp"

namespace fastpsr {
namespace {

// A mask of 65536 channels by 100000 intervals, every channel listed, is 26 GB; real ones are
// KiB to tens of MiB. 1 GiB bounds what a wrong path (/dev/zero) can take.
constexpr std::uint64_t kMaxMaskBytes = std::uint64_t{1} << 30;

// Reads values in order from a file's bytes; a read past the end is the file's error.
class Cursor {
 public:
  Cursor(const std::vector<std::uint8_t>& bytes, const std::string& path) : bytes_(bytes), path_(path) {}
  template <typename T>
  T next(const char* what) {
    if (bytes_.size() - pos_ < sizeof(T)) {
      throw Error(ErrorCode::format,
                  fmt::format("ends at byte {} inside {}: not a whole rfifind file", bytes_.size(), what), path_);
    }
    T v;
    std::memcpy(&v, bytes_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  [[nodiscard]] std::size_t pos() const { return pos_; }
  [[nodiscard]] std::size_t left() const { return bytes_.size() - pos_; }

 private:
  const std::vector<std::uint8_t>& bytes_;
  const std::string& path_;
  std::size_t pos_ = 0;
};

// `count` channel or interval numbers, each in [0, limit), strictly rising (rfifind writes them
// sorted, and PRESTO's merge of a block's channels relies on it).
std::vector<int> read_list(Cursor& in, int count, int limit, const char* what, const std::string& path) {
  if (count < 0 || count > limit) {
    throw Error(ErrorCode::format, fmt::format("{}: count {} is outside 0..{}", what, count, limit), path);
  }
  if (static_cast<std::size_t>(count) * 4 > in.left()) {
    throw Error(
        ErrorCode::format,
        fmt::format("{}: {} numbers do not fit in the {} bytes left: not a whole rfifind mask", what, count, in.left()),
        path);
  }
  std::vector<int> v(static_cast<std::size_t>(count));
  for (auto& x : v) {
    x = in.next<std::int32_t>(what);
    if (x < 0 || x >= limit || (&x != v.data() && x <= *(&x - 1))) {
      throw Error(ErrorCode::format, fmt::format("{}: {} is out of order or outside 0..{}", what, x, limit - 1), path);
    }
  }
  return v;
}

}  // namespace

PrestoMask read_presto_mask(const std::string& path) {
  const auto bytes = read_side_file(path, "an rfifind mask", kMaxMaskBytes);
  Cursor in(bytes, path);
  PrestoMask m;
  m.time_sigma = in.next<double>("the header");
  m.freq_sigma = in.next<double>("the header");
  m.mjd = in.next<double>("the header");
  m.interval_s = in.next<double>("the header");
  m.lofreq_mhz = in.next<double>("the header");
  m.dfreq_mhz = in.next<double>("the header");
  m.nchans = in.next<std::int32_t>("the header");
  m.nintervals = in.next<std::int32_t>("the header");
  m.samples_per_interval = in.next<std::int32_t>("the header");
  if (m.nchans <= 0 || m.nchans > (1 << 24) || m.nintervals <= 0 || m.samples_per_interval <= 0 ||
      !std::isfinite(m.interval_s) || m.interval_s <= 0.0 || !std::isfinite(m.lofreq_mhz) ||
      !std::isfinite(m.dfreq_mhz)) {
    throw Error(ErrorCode::format,
                fmt::format("not an rfifind mask: {} channels, {} intervals of {} samples ({} s), lowest channel {} "
                            "MHz, width {} MHz",
                            m.nchans, m.nintervals, m.samples_per_interval, m.interval_s, m.lofreq_mhz, m.dfreq_mhz),
                path);
  }
  m.zap_chans = read_list(in, in.next<std::int32_t>("the channel count"), m.nchans, "channels masked throughout", path);
  m.zap_ints = read_list(in, in.next<std::int32_t>("the interval count"), m.nintervals, "intervals masked", path);
  if (static_cast<std::size_t>(m.nintervals) * 4 > in.left()) {
    throw Error(ErrorCode::format,
                fmt::format("{} intervals' counts do not fit in the {} bytes left: not a whole rfifind mask",
                            m.nintervals, in.left()),
                path);
  }
  std::vector<int> counts(static_cast<std::size_t>(m.nintervals));
  for (auto& c : counts) c = in.next<std::int32_t>("the counts per interval");
  m.chans.resize(counts.size());
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == m.nchans) {  // every channel: no list follows
      m.chans[i].resize(static_cast<std::size_t>(m.nchans));
      for (int c = 0; c < m.nchans; ++c) m.chans[i][static_cast<std::size_t>(c)] = c;
    } else {
      m.chans[i] = read_list(in, counts[i], m.nchans, "channels masked in an interval", path);
    }
  }
  if (in.left() != 0) {
    throw Error(ErrorCode::format,
                fmt::format("{} bytes follow the mask's last list: not an rfifind mask, or a damaged one", in.left()),
                path);
  }
  return m;
}

std::optional<std::string> rfifind_stats_path(const std::string& mask_path) {
  const auto slash = mask_path.find_last_of('/');
  const auto dot = mask_path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == slash + 1) {
    return std::nullopt;
  }
  return mask_path.substr(0, dot) + ".stats";
}

std::vector<float> read_rfifind_pad_values(const std::string& stats_path, int nchans) {
  const auto bytes = read_side_file(stats_path, "an rfifind statistics file", std::uint64_t{4} << 30);
  Cursor in(bytes, stats_path);
  const int numchan = in.next<std::int32_t>("the header");
  const int numint = in.next<std::int32_t>("the header");
  in.next<std::int32_t>("the header");  // ptsperint
  in.next<std::int32_t>("the header");  // lobin
  in.next<std::int32_t>("the header");  // numbetween
  if (numchan != nchans || numint <= 0) {
    throw Error(ErrorCode::format,
                fmt::format("holds {} channels and {} intervals; the mask has {} channels", numchan, numint, nchans),
                stats_path);
  }
  const std::size_t cells = static_cast<std::size_t>(numchan) * static_cast<std::size_t>(numint);
  if (in.left() != 3 * 4 * cells) {
    throw Error(ErrorCode::format,
                fmt::format("{} bytes after the header; {} channels by {} intervals take {} (powers, averages and "
                            "deviations)",
                            in.left(), numchan, numint, 3 * 4 * cells),
                stats_path);
  }
  const std::size_t averages = in.pos() + 4 * cells;  // the powers come first
  const auto n = static_cast<std::size_t>(numint);
  // The middle 80% (rounded) of each channel's sorted interval averages, as PRESTO pads.
  const std::size_t len = static_cast<std::size_t>(static_cast<double>(n) * 0.8 + 0.5);
  const std::size_t first = (n - len) / 2;
  std::vector<float> pad(static_cast<std::size_t>(nchans));
  std::vector<float> column(n);
  for (std::size_t c = 0; c < pad.size(); ++c) {
    for (std::size_t i = 0; i < n; ++i) {
      std::memcpy(&column[i], bytes.data() + averages + 4 * (i * pad.size() + c), 4);
      if (!std::isfinite(column[i])) {
        throw Error(ErrorCode::format, fmt::format("channel {}'s average in interval {} is not finite", c, i),
                    stats_path);
      }
    }
    std::sort(column.begin(), column.end());
    double sum = 0.0;
    for (std::size_t i = first; i < first + len; ++i) sum += static_cast<double>(column[i]);
    pad[c] = len > 0 ? static_cast<float>(sum / static_cast<double>(len)) : column[n / 2];
  }
  return pad;
}

}  // namespace fastpsr
