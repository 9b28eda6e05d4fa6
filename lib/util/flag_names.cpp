// SPDX-License-Identifier: MIT
#include "fastpsr/flag_names.hpp"

#include <cctype>
#include <cstddef>

namespace fastpsr {
namespace {

bool flag_character(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_'; }

}  // namespace

std::vector<FlagAlias> parse_flag_aliases(std::string_view spec) {
  std::vector<FlagAlias> out;
  std::size_t i = 0;
  while (i < spec.size()) {
    while (i < spec.size() && std::isspace(static_cast<unsigned char>(spec[i])) != 0) ++i;
    std::size_t end = i;
    while (end < spec.size() && std::isspace(static_cast<unsigned char>(spec[end])) == 0) ++end;
    const std::string_view entry = spec.substr(i, end - i);
    const std::size_t eq = entry.find('=');
    if (eq != std::string_view::npos && eq > 1 && eq + 1 < entry.size() && entry.front() == '-' &&
        entry[eq + 1] == '-') {
      out.push_back({std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1))});
    }
    i = end;
  }
  return out;
}

std::string rename_flags(std::string_view text, const std::vector<FlagAlias>& aliases) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const FlagAlias* match = nullptr;
    if (text[i] == '-' && (i == 0 || !flag_character(text[i - 1]))) {
      for (const FlagAlias& a : aliases) {
        const std::size_t end = i + a.ours.size();
        if (text.substr(i, a.ours.size()) == a.ours && (end == text.size() || !flag_character(text[end]))) {
          match = &a;
          break;
        }
      }
    }
    if (match != nullptr) {
      out += match->theirs;
      i += match->ours.size();
    } else {
      out += text[i];
      ++i;
    }
  }
  return out;
}

}  // namespace fastpsr
