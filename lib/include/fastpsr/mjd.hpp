// SPDX-License-Identifier: MIT
#pragma once
/// Calendar dates of Modified Julian Dates, and the date strings SIGPROC and PRESTO print.
#include <cstdint>
#include <string>

namespace fastpsr {

struct CalendarDate {
  int year = 0;
  int month = 0;  ///< 1-12
  int day = 0;    ///< 1-31
};

/// The Gregorian date of the integer MJD `mjd_day` (MJD 0 = 1858-11-17).
CalendarDate calendar_date_of_mjd(std::int64_t mjd_day);

/// The integer MJD of a Gregorian date (the inverse of calendar_date_of_mjd).
std::int64_t mjd_of_calendar_date(int year, int month, int day);

/// SIGPROC `header`'s "Gregorian date (YYYY/MM/DD)": the MJD is first rounded to 0.1 day, as
/// SIGPROC's slaDjcal(1, ...) call does, so 60000.96 prints as the next day.
std::string sigproc_date_string(double mjd);
/// SIGPROC `header -utstart`: hh:mm:ss of the fraction of the day, each field floored.
std::string sigproc_utstart_string(double mjd);

/// PRESTO's "YYYY-MM-DDThh:mm:ss" date (mjd_to_datestr): seconds printed with "%.6g", with a
/// leading zero below 10 s, e.g. "2023-02-25T00:00:00" or "2019-03-01T07:55:14.3605".
std::string presto_date_string(double mjd);

}  // namespace fastpsr
