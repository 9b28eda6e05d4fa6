// SPDX-License-Identifier: MIT
#include "edit.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

#include "fastpsr/error.hpp"
#include "fastpsr/format_detect.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr::app {

namespace {

// What an edit may not leave behind, beyond validate_sigproc_header's checks: a header that no
// longer describes the data in ways the readers would not notice (man header: "the result must
// still be a valid header that describes the data"). Only the keys edited are judged, so a file
// that was already odd can still have other keys changed.
void check_edited(const SigprocHeader& h, const std::vector<std::string>& sets,
                  const std::vector<std::string>& unsets) {
  auto touched = [&](std::string_view key) {
    for (const auto& kv : sets) {
      if (std::string_view(kv).substr(0, kv.find('=')) == key) return true;
    }
    for (const auto& k : unsets) {
      if (k == key) return true;
    }
    return false;
  };
  auto refuse = [](const std::string& what) { throw Error(ErrorCode::invalid_argument, what); };
  if ((touched("data_type") || touched("nchans")) && h.data_type == 2 && h.nchans > 1) {
    refuse(fmt::format("data_type 2 is a time series, but the header has {} channels", h.nchans));
  }
  const bool has_width = h.has("foff") && h.foff != 0.0;
  if ((touched("foff") || touched("nchans")) && h.nchans > 1 && !has_width && h.frequency_table.empty()) {
    refuse(
        fmt::format("{} channels need a non-zero foff (the channel width, MHz): without it every channel "
                    "sits at fch1",
                    h.nchans));
  }
  if ((touched("fch1") || touched("data_type")) && !h.is_time_series() && !(h.has("fch1") && h.fch1 > 0.0) &&
      h.frequency_table.empty()) {
    refuse(fmt::format("a filterbank needs a positive fch1 (the first channel's frequency, MHz), not {}",
                       h.has("fch1") ? fmt::format("{}", h.fch1) : std::string("none")));
  }
  // Packed sky angles (hhmmss.s, ddmmss.s).
  if (touched("src_raj") && !(h.src_raj >= 0.0 && h.src_raj < 240000.0)) {
    refuse(fmt::format("src_raj {} is not a packed right ascension hhmmss.s from 0 to 235959.9", h.src_raj));
  }
  if (touched("src_dej") && !(std::abs(h.src_dej) <= 900000.0)) {
    refuse(fmt::format("src_dej {} is not a packed declination ddmmss.s from -900000 to 900000", h.src_dej));
  }
}

// tsamp's value in seconds, SIGPROC's unit, from a number with a unit (64us, 0.064ms, 6.4e-5s,
// 64000ns) or a bare number of seconds. A bare value of 1 or more is refused: `header -tsamp`
// prints microseconds, and tsamp=64 would silently make 64-second samples (QA pass 15).
std::string tsamp_seconds(const std::string& text) {
  static constexpr std::array<std::pair<std::string_view, double>, 5> units{
      {{"ns", 1e9}, {"us", 1e6}, {"\u00b5s", 1e6}, {"ms", 1e3}, {"s", 1.0}}};
  std::string_view number = text;
  double per_second = 0.0;  // 0: no unit given
  for (const auto& [suffix, div] : units) {
    if (number.ends_with(suffix)) {
      number.remove_suffix(suffix.size());
      per_second = div;
      break;
    }
  }
  const std::string digits(number);
  char* end = nullptr;
  const double v = std::strtod(digits.c_str(), &end);
  if (digits.empty() || end != digits.c_str() + digits.size() || !std::isfinite(v)) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("--set tsamp={}: not a sample time (a number of seconds, or with a unit: 64us, 0.064ms, "
                            "6.4e-5s, 64000ns)",
                            text));
  }
  if (per_second == 0.0) {
    if (v >= 1.0) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("--set tsamp={}: SIGPROC stores seconds, so that is a {} s sample (header -tsamp "
                              "prints microseconds); give the unit: tsamp={}us, or tsamp={}s if you mean seconds",
                              text, text, text, text));
    }
    return text;
  }
  return fmt::format("{:.17g}", v / per_second);
}

}  // namespace

void rewrite_sigproc(const std::string& in, const std::string& out, const std::vector<std::string>& sets,
                     const std::vector<std::string>& unsets) {
  auto src = open_source(in);
  const FileFormat f = detect_format(*src);
  if (f != FileFormat::sigproc_filterbank && f != FileFormat::sigproc_timeseries) {
    throw Error(ErrorCode::unsupported,
                fmt::format("is a {}: --set/--unset/-o rewrite SIGPROC files only", format_name(f)), src->name());
  }
  SigprocHeader h = read_sigproc_header(*src);
  const std::uint64_t bytes_per_sample_before = h.bytes_per_sample();
  for (const auto& kv : sets) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw Error(ErrorCode::invalid_argument, fmt::format("--set wants key=value, not '{}'", kv));
    }
    const std::string key = kv.substr(0, eq);
    const std::string value = key == "tsamp" ? tsamp_seconds(kv.substr(eq + 1)) : kv.substr(eq + 1);
    sigproc_set_value(h, key, value);
  }
  for (const auto& key : unsets) {
    try {
      (void)sigproc_key_type(key);  // an unknown name is a typo, not a no-op
    } catch (const Error& e) {
      throw Error(ErrorCode::invalid_argument, fmt::format("--unset {}: {}", key, e.what()));
    }
    h.remove_key(key);
  }
  check_edited(h, sets, unsets);
  // A refused edit is a usage error about the input's edited header (the output is never made).
  try {
    validate_sigproc_header(h, src->name());
  } catch (const Error& e) {
    throw Error(ErrorCode::invalid_argument, fmt::format("the edited header is not valid: {}", e.what()), src->name());
  }
  auto sink = open_sink(out);
  write_sigproc_header(*sink, h);
  std::vector<std::uint8_t> buffer(std::size_t{1} << 20);
  std::uint64_t data_bytes = 0;
  for (;;) {
    const std::size_t got = src->read(buffer.data(), buffer.size());
    sink->write(buffer.data(), got);
    data_bytes += got;
    if (got < buffer.size()) break;
  }
  // The new header must describe the data: whole samples (unless the data already ended inside
  // one: a file cut short keeps its partial last sample, warned of), at least nsamples of them.
  if (data_bytes % h.bytes_per_sample() != 0 && data_bytes % bytes_per_sample_before == 0) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("the edited header does not describe the data: {} data bytes are not a whole number of "
                            "{}-byte samples",
                            data_bytes, h.bytes_per_sample()),
                sink->name());
  }
  // An nsamples key set by hand must count the samples there are (a smaller one would pass the
  // readers' check and describe other data).
  for (const auto& kv : sets) {
    if (std::string_view(kv).substr(0, kv.find('=')) != "nsamples") continue;
    const std::uint64_t there = data_bytes / h.bytes_per_sample();
    if (h.nsamples < 0 || static_cast<std::uint64_t>(h.nsamples) != there) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("--set nsamples={}: the data hold {} samples", h.nsamples, there), src->name());
    }
  }
  SigprocHeader written = h;
  written.header_bytes = 0;
  (void)sigproc_nsamples_from_size(written, data_bytes, sink->name());
  sink->commit();
}

}  // namespace fastpsr::app
