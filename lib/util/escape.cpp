// SPDX-License-Identifier: MIT
#include "fastpsr/escape.hpp"

namespace fastpsr {

std::string escape_for_message(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (ch == '\\') {
      out += "\\\\";
    } else if (u >= 0x20 && u < 0x7f) {
      out += ch;
    } else {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    }
  }
  return out;
}

}  // namespace fastpsr
