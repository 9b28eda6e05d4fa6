// SPDX-License-Identifier: MIT
#include "fastpsr/channel_mask.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <optional>
#include <sstream>

#include "fastpsr/error.hpp"
#include "fastpsr/escape.hpp"
#include "fastpsr/side_file.hpp"

namespace fastpsr {
namespace {

long parse_channel(std::string_view text, const std::string& where) {
  long v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size()) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("'{}' is not a channel number or range", escape_for_message(text)), where);
  }
  return v;
}

// Applies "a", "a:b" items separated by commas/whitespace to `keep`.
void apply_list(const std::string& text, std::vector<std::uint8_t>& keep, const std::string& where) {
  std::string cleaned = text;
  std::replace(cleaned.begin(), cleaned.end(), ',', ' ');
  std::istringstream words(cleaned);
  std::string w;
  const auto n = static_cast<long>(keep.size());
  while (words >> w) {
    const auto colon = w.find(':');
    const long lo = parse_channel(std::string_view(w).substr(0, colon), where);
    const long hi = colon == std::string::npos ? lo : parse_channel(std::string_view(w).substr(colon + 1), where);
    if (lo < 0 || hi >= n || hi < lo) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("channel range '{}' is outside 0..{} (or reversed)", escape_for_message(w), n - 1),
                  where);
    }
    for (long c = lo; c <= hi; ++c) keep[static_cast<std::size_t>(c)] = 0;
  }
}

// A directory is an error (std::ifstream read it as an empty file: nothing killed, exit 0), an
// unreadable file says why, and /dev/zero or an endless FIFO is not read without bound.
std::string read_text(const std::string& path, std::string_view what) {
  const auto bytes = read_side_file(path, what);
  return {bytes.begin(), bytes.end()};
}

std::string strip_comments(const std::string& text) {
  std::string out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    out += line;
    out += '\n';
  }
  return out;
}

// The lines of a file that has only single 0s and 1s on its lines (a SIGPROC killfile has
// nchans of them); nullopt when any line holds something else.
std::optional<std::vector<char>> zero_one_lines(const std::string& text) {
  std::istringstream lines(text);
  std::string line;
  std::vector<char> values;
  while (std::getline(lines, line)) {
    line.erase(std::remove_if(line.begin(), line.end(), [](char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; }),
               line.end());
    if (line.empty()) continue;
    if (line != "0" && line != "1") return std::nullopt;
    values.push_back(line[0]);
  }
  return values;
}

}  // namespace

std::vector<std::uint8_t> parse_kill_channels(const std::string& spec, int nchans) {
  std::vector<std::uint8_t> keep(static_cast<std::size_t>(nchans), 1);
  std::error_code ec;
  if (std::filesystem::is_directory(spec, ec)) throw Error(ErrorCode::io, "is a directory, not a file", spec);
  if (!std::filesystem::is_regular_file(spec, ec)) {
    apply_list(spec, keep, "");
    return keep;
  }
  const std::string text = read_text(spec, "a channel list");
  if (const auto values = zero_one_lines(text)) {
    if (values->size() == static_cast<std::size_t>(nchans)) {
      for (std::size_t c = 0; c < values->size(); ++c) keep[c] = (*values)[c] == '1' ? 1 : 0;
      return keep;
    }
    // As a channel list it would name channel 0 or 1 twice: a killfile for another channel count,
    // whose 1s (keep) read as channel numbers would kill the wrong channels.
    const bool repeats = values->size() > 2 || (values->size() == 2 && (*values)[0] == (*values)[1]);
    if (repeats) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("a SIGPROC killfile needs one line of 0 or 1 per channel: this has {} lines for {} "
                              "channels",
                              values->size(), nchans),
                  spec);
    }
  }
  apply_list(strip_comments(text), keep, spec);
  return keep;
}

std::vector<std::uint8_t> read_sigproc_ignore_file(const std::string& path, int nchans) {
  const std::string text = read_text(path, "a SIGPROC ignore file");
  std::vector<std::uint8_t> keep(static_cast<std::size_t>(nchans), 1);
  std::istringstream words(text);
  std::string w;
  while (words >> w) {
    const long c = parse_channel(w, path);
    if (c < 1 || c > nchans) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("channel {} is outside 1..{} (SIGPROC counts channels from 1)", c, nchans), path);
    }
    keep[static_cast<std::size_t>(c - 1)] = 0;
  }
  return keep;
}

std::string describe_killed(const std::vector<std::uint8_t>& keep) {
  std::string s;
  for (std::size_t c = 0; c < keep.size();) {
    if (keep[c] != 0) {
      ++c;
      continue;
    }
    std::size_t e = c;
    while (e + 1 < keep.size() && keep[e + 1] == 0) ++e;
    if (!s.empty()) s += ',';
    s += e == c ? fmt::format("{}", c) : fmt::format("{}:{}", c, e);
    c = e + 1;
  }
  return s.empty() ? "none" : s;
}

}  // namespace fastpsr
