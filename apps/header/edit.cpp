// SPDX-License-Identifier: MIT
#include "edit.hpp"

#include <cstdint>
#include <vector>

#include "fastpsr/error.hpp"
#include "fastpsr/format_detect.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr::app {

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
    sigproc_set_value(h, kv.substr(0, eq), std::string_view(kv).substr(eq + 1));
  }
  for (const auto& key : unsets) {
    (void)sigproc_key_type(key);  // an unknown name is a typo, not a no-op
    h.remove_key(key);
  }
  auto sink = open_sink(out);
  validate_sigproc_header(h, sink->name());
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
  SigprocHeader written = h;
  written.header_bytes = 0;
  (void)sigproc_nsamples_from_size(written, data_bytes, sink->name());
  sink->commit();
}

}  // namespace fastpsr::app
