// SPDX-License-Identifier: MIT
#include "common/option_checks.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <utility>

namespace fastpsr::app {
namespace {

// The value of `text` where all of it is a number as strtod reads it (decimal, hexadecimal,
// "nan", "inf"; out of range: +-HUGE_VAL, which is not finite); nullopt otherwise.
std::optional<double> as_number(const std::string& text) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double value = std::strtod(begin, &end);
  if (end == begin || *end != '\0') return std::nullopt;
  return value;
}

}  // namespace

CLI::Validator finite_number() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        const std::optional<double> v = as_number(s);
        if (v && !std::isfinite(*v)) return s + " is not a finite number";
        return {};
      },
      "");
}

CLI::Validator number_in(double lo, double hi, std::string expected, Ends ends) {
  return CLI::Validator(
      [lo, hi, ends, expected = std::move(expected)](std::string& s) -> std::string {
        const std::optional<double> v = as_number(s);
        if (!v) return {};
        if (!std::isfinite(*v)) return s + " is not a finite number";
        if (*v < 0.0 && lo >= 0.0) return s + " is negative: " + expected;
        const bool below = *v < lo || (ends != Ends::closed && *v == lo);
        const bool above = *v > hi || (ends == Ends::open && *v == hi);
        if (below || above) return s + " is out of range: " + expected;
        return {};
      },
      "");
}

CLI::Validator not_negative_number(std::string expected) { return number_in(0.0, kNoLimit, std::move(expected)); }

CLI::Validator positive_number(std::string expected) {
  return number_in(0.0, kNoLimit, std::move(expected), Ends::above_lo);
}

CLI::Validator thread_count() {
  return number_in(0.0, kMaxThreads, fmt::format("give 0 (all cores) to {} threads", kMaxThreads));
}

}  // namespace fastpsr::app
