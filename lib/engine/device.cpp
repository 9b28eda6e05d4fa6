// SPDX-License-Identifier: MIT
#include "fastpsr/device.hpp"

#include <charconv>

#include "fastpsr/error.hpp"

namespace fastpsr {

DeviceSpec parse_device_spec(std::string_view text) {
  DeviceSpec d;
  if (text == "auto") return d;
  if (text == "cpu") {
    d.kind = DeviceSpec::Kind::cpu;
    return d;
  }
  if (text == "gpu") {
    d.kind = DeviceSpec::Kind::gpu;
    return d;
  }
  if (text.starts_with("gpu:")) {
    const auto digits = text.substr(4);
    int index = -1;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (ec == std::errc() && ptr == digits.data() + digits.size() && index >= 0 && !digits.empty()) {
      d.kind = DeviceSpec::Kind::gpu;
      d.index = index;
      return d;
    }
  }
  throw Error(ErrorCode::invalid_argument,
              fmt::format("--device '{}' is not one of auto, cpu, gpu, gpu:N", text));
}

std::map<std::string, std::string> parse_key_values(std::string_view text) {
  std::map<std::string, std::string> out;
  auto trim = [](std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
  };
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto item = trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size()) {
      throw Error(ErrorCode::invalid_argument, fmt::format("'{}' is not of the form key=value", item));
    }
    out[std::string(trim(item.substr(0, eq)))] = std::string(trim(item.substr(eq + 1)));
  }
  return out;
}

}  // namespace fastpsr
