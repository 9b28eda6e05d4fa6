// SPDX-License-Identifier: MIT
#pragma once
/// PRESTO .inf files (formats.md §3.2-3.4): written exactly as PRESTO's C writer does, read by
/// label like PRESTO's Python reader (both spellings of the labels accepted).
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fastpsr {

struct PrestoInf {
  std::string name;        ///< data file name without suffix
  std::string telescope;   ///< "None (Artificial Data Set)" for artificial data
  std::string instrument;
  std::string object;
  std::string ra;          ///< hh:mm:ss.ssss
  std::string dec;         ///< [-]dd:mm:ss.ssss
  std::string observer;
  int mjd_i = 0;           ///< integer part of the epoch (MJD)
  double mjd_f = 0.0;      ///< fractional part of the epoch
  int bary = 0;
  double N = 0;            ///< number of bins in the time series
  double dt = 0;           ///< bin width, s
  std::vector<std::pair<double, double>> onoff;  ///< on/off bin pairs; more than one means breaks
  std::string band = "Radio";
  double fov = 0;          ///< beam diameter, arcsec
  double dm = 0;
  double freq = 0;         ///< centre of the lowest channel, MHz
  double freqband = 0;     ///< total bandwidth, MHz
  int num_chan = 0;
  double chan_wid = 0;     ///< channel width, MHz (positive)
  std::string analyzer;
  std::string notes;       ///< as PRESTO stores them: lines after the first indented by 4 spaces, ending in '\n'

  [[nodiscard]] bool artificial() const { return telescope == "None (Artificial Data Set)"; }
  [[nodiscard]] bool breaks() const { return onoff.size() > 1; }
  /// Epoch as one number (loses sub-microsecond precision; keep mjd_i/mjd_f where it matters).
  [[nodiscard]] double epoch_mjd() const { return mjd_i + mjd_f; }
  /// Observation length N * dt, s.
  [[nodiscard]] double duration_s() const { return N * dt; }
};

/// The text PRESTO's writeinf would write for `inf`.
std::string format_inf(const PrestoInf& inf);
/// Parses .inf text; `name` is used in messages. Throws Error(format) for missing required lines.
PrestoInf parse_inf(std::string_view text, const std::string& name);
/// Reads `path` (a .inf file).
PrestoInf read_inf(const std::string& path);
/// Writes `path` atomically.
void write_inf(const std::string& path, const PrestoInf& inf);

/// "foo.dat" / "foo.fft" / "foo.sdat" / "foo" -> "foo" (PRESTO's root: suffix after the last
/// dot of the file name removed only for those suffixes).
std::string presto_root(const std::string& path);

/// "<root>_DM12.50" as prepsubband names its outputs (`decimals` after the point; PRESTO: 2).
std::string presto_dm_root(const std::string& root, double dm, int decimals);

/// Telescope names as PRESTO spells them for SIGPROC telescope_id codes (formats.md §1.7).
std::string presto_telescope_name(int telescope_id);
/// Backend names as PRESTO spells them for SIGPROC machine_id codes; "Unknown" for the others
/// (PRESTO's table has no BPSR, code 10).
std::string presto_backend_name(int machine_id);
/// Beam FWHM in arcsec as PRESTO puts in the .inf: 1.2 lambda / D at the band centre for the
/// dishes PRESTO knows, else its default of 1 degree (3600 arcsec).
double presto_beam_fwhm_arcsec(int telescope_id, double centre_freq_mhz);

}  // namespace fastpsr
