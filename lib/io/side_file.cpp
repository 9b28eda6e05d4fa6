// SPDX-License-Identifier: MIT
#include "fastpsr/side_file.hpp"

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr {

std::vector<std::uint8_t> read_side_file(const std::string& path, std::string_view what, std::uint64_t max_bytes) {
  auto src = open_source(path);
  auto too_large = [&] {
    return Error(ErrorCode::format, fmt::format("holds more than {} bytes: too large for {}", max_bytes, what),
                 src->name());
  };
  if (const auto n = src->size(); n && *n > max_bytes) throw too_large();
  std::vector<std::uint8_t> bytes;
  std::uint8_t buf[1 << 16];
  for (;;) {
    const std::size_t got = src->read(buf, sizeof buf);
    bytes.insert(bytes.end(), buf, buf + got);
    if (bytes.size() > max_bytes) throw too_large();
    if (got < sizeof buf) break;
  }
  return bytes;
}

}  // namespace fastpsr
