// SPDX-License-Identifier: MIT
#include "fastpsr/work_part.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "fastpsr/error.hpp"
#include "fastpsr/escape.hpp"

namespace fastpsr {

std::string WorkPart::describe() const { return fmt::format("part {}/{}", index, count); }

std::string WorkPart::name_suffix() const { return whole() ? std::string() : fmt::format("_part{}of{}", index, count); }

std::string part_file_name(const std::string& path, WorkPart part) {
  if (part.whole() || path == "-") return path;
  const std::filesystem::path p(path);
  const std::string ext = p.extension().string();
  return path.substr(0, path.size() - ext.size()) + part.name_suffix() + ext;
}

WorkPart parse_work_part(std::string_view text, std::string_view option) {
  auto bad = [&](std::string_view why) {
    return Error(ErrorCode::invalid_argument,
                 fmt::format("{} '{}': {}", option, escape_for_message(std::string(text)), why));
  };
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) throw bad("give i/n, part i of n (e.g. 3/8)");
  auto number = [&](std::string_view s, std::size_t& v) {
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
  };
  WorkPart p;
  if (!number(text.substr(0, slash), p.index) || !number(text.substr(slash + 1), p.count)) {
    throw bad("give i/n with whole numbers, part i of n (e.g. 3/8)");
  }
  if (p.count < 1 || p.count > kMaxWorkParts) throw bad(fmt::format("n must be 1 to {}", kMaxWorkParts));
  if (p.index == 0) {
    throw bad(fmt::format("parts are numbered 1 to {} (a 0-based rank or array index r is part r+1)", p.count));
  }
  if (p.index > p.count) throw bad(fmt::format("there are only {} parts", p.count));
  return p;
}

std::pair<std::size_t, std::size_t> part_slice(std::span<const double> weights, WorkPart part) {
  FASTPSR_EXPECTS(part.index >= 1 && part.index <= part.count, "part {}/{} is not a part", part.index, part.count);
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  // The part an item falls in, from the middle of its weight: monotonic in j, so each part's
  // items are contiguous, and every item has exactly one part.
  auto part_of = [&](double before, double w) {
    if (!(total > 0.0)) return std::size_t{1};
    const double mid = (before + 0.5 * w) / total * static_cast<double>(part.count);
    return std::min(part.count, static_cast<std::size_t>(std::floor(mid)) + 1);
  };
  std::size_t first = weights.size();
  std::size_t last = weights.size();
  double before = 0.0;
  for (std::size_t j = 0; j < weights.size(); ++j) {
    const std::size_t k = part_of(before, weights[j]);
    if (k == part.index && first == weights.size()) first = j;
    if (k > part.index) {
      last = j;
      break;
    }
    before += weights[j];
  }
  if (first == weights.size()) return {last, last};  // empty: at the place it would be
  return {first, last};
}

}  // namespace fastpsr
