// SPDX-License-Identifier: MIT
#include "fastpsr/mjd.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdio>

namespace fastpsr {
namespace {

// Dates are printed from header values that may be anything; far outside any real epoch the
// conversions to integers below would overflow.
bool printable_mjd(double mjd) { return std::isfinite(mjd) && std::fabs(mjd) < 1e8; }

}  // namespace

CalendarDate calendar_date_of_mjd(std::int64_t mjd_day) {
  // Days since 0000-03-01 in the proleptic Gregorian calendar (civil_from_days).
  const std::int64_t z = mjd_day + 678881;  // MJD 0 = 1858-11-17 is day 678881 after 0000-03-01
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  CalendarDate d;
  d.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  d.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  d.year = static_cast<int>(yoe + era * 400 + (d.month <= 2 ? 1 : 0));
  return d;
}

std::int64_t mjd_of_calendar_date(int year, int month, int day) {
  // days_from_civil, shifted from 1970-01-01 to MJD 0.
  const std::int64_t y = static_cast<std::int64_t>(year) - (month <= 2 ? 1 : 0);
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t mp = month > 2 ? month - 3 : month + 9;
  const std::int64_t doy = (153 * mp + 2) / 5 + day - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 678881;
}

std::string sigproc_date_string(double mjd) {
  if (!printable_mjd(mjd)) return "unknown";
  const double tenths = std::round(mjd * 10.0);  // slaDjcal rounds half away from zero
  const auto day = static_cast<std::int64_t>(std::floor(tenths / 10.0));
  const CalendarDate d = calendar_date_of_mjd(day);
  return fmt::format("{:4d}/{:02d}/{:02d}", d.year, d.month, d.day);
}

std::string sigproc_utstart_string(double mjd) {
  if (!printable_mjd(mjd)) return "unknown";
  double frac = mjd - std::floor(mjd);
  const int h = static_cast<int>(std::floor(24.0 * frac));
  frac -= h / 24.0;
  const int m = static_cast<int>(std::floor(1440.0 * frac));
  frac -= m / 1440.0;
  const int s = static_cast<int>(std::floor(86400.0 * frac));
  return fmt::format("{:02d}:{:02d}:{:02d}", h, m, s);
}

std::string presto_date_string(double mjd) {
  if (!printable_mjd(mjd)) return "unset";
  const double day = std::floor(mjd);
  const double fracday = mjd - day;
  const CalendarDate d = calendar_date_of_mjd(static_cast<std::int64_t>(day));
  const double dh = fracday * 24.0;
  const int hour = static_cast<int>(dh);
  const double dm = (dh - hour) * 60.0;
  const int minute = static_cast<int>(dm);
  const double sec = (dm - minute) * 60.0;
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.6g", sec);
  return fmt::format("{:4d}-{:02d}-{:02d}T{:02d}:{:02d}:{}{}", d.year, d.month, d.day, hour, minute,
                     sec < 10.0 ? "0" : "", seconds);
}

}  // namespace fastpsr
