// SPDX-License-Identifier: MIT
#pragma once
/// The PRESTO .inf of a time series dedispersed from a SIGPROC filterbank, with the values
/// PRESTO's prepdata/prepsubband put there for the same input (formats.md §3.4): PRESTO's
/// telescope name and beam width, the lowest channel's centre, all raw channels counted, the
/// epoch of the first output sample, PRESTO's first two note lines. Differences: Instrument is
/// the SIGPROC machine name (PRESTO writes "Unknown" or "unset" for most), and a third note
/// line says what the file holds.
#include <cstdint>
#include <string>

#include "fastpsr/presto_inf.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr {

struct SeriesInfo {
  std::string name;  ///< data file name without suffix (root_DM12.50)
  double dm = 0;
  double dt_s = 0;  ///< output sample time
  std::uint64_t nsamples = 0;
  std::uint64_t start_sample = 0;  ///< input samples skipped before the first output sample
  std::string note;                ///< one line (no newline) appended to PRESTO's notes
};

PrestoInf make_series_inf(const SigprocHeader& filterbank, const SeriesInfo& series);

/// PRESTO's mjd_to_datestr: "2023-02-25T00:00:00" (seconds printed with %.6g).
std::string presto_date_string(double mjd);

}  // namespace fastpsr
