// SPDX-License-Identifier: MIT
#pragma once
/// DM trials: explicit ranges and lists, and the automatic plan of PRESTO's DDplan.py
/// (ranges of constant DM step, each with its own time downsampling, chosen so that no
/// smearing term dominates). Pure functions, no I/O besides read_dm_list.
#include <string>
#include <string_view>
#include <vector>

#include "fastpsr/sigproc.hpp"

namespace fastpsr {

/// "lo:hi:step" -> lo, lo + step, ... (each value lo + i * step) up to hi inclusive (within
/// 1e-6 of a step); "dm" -> one DM. Throws Error(invalid_argument) for an empty range, a step
/// <= 0, a negative or non-finite DM, or text that is not numbers.
std::vector<double> parse_dm_range(std::string_view spec);

/// DMs from a text file, whitespace- or comma-separated, '#' to end of line a comment.
/// Throws Error(io) if unreadable, Error(invalid_argument) naming the file for a bad value.
std::vector<double> read_dm_list(const std::string& path);

/// The observation as DDplan.py sees it (values from a filterbank header: dt = tsamp,
/// BW = nchans * |foff|, fctr = fch1 + foff * (nchans - 1) / 2).
struct DmPlanObservation {
  double tsamp_s = 0;
  double fctr_mhz = 0;
  double bw_mhz = 0;
  int nchans = 0;
  double coherent_dm = 0;  ///< channels coherently dedispersed at this DM (DDplan -c)
  static DmPlanObservation from_header(const SigprocHeader& h);
};

struct DdplanOptions {
  double lo_dm = 0;
  double hi_dm = 1000;
  /// DDplan's fudge factor `ff` deciding when two time scales count as equal (DDplan.py
  /// hard-codes 1.2; fastpsr's default is 1.25).
  double tolerance = 1.25;
  int nsub = 0;               ///< subbands of a prepsubband run (DDplan -s); 0 = direct dedispersion
  int nprocs = 1;             ///< mpiprepsubband CPUs (DDplan -p)
  double ok_smearing_ms = 0;  ///< acceptable smearing floor (DDplan -r)
  int blocklen = 2400;        ///< spectra per block, which limits the downsampling factors (2400 for .fil)
};

/// One range of the plan: DMs lo_dm + i * dm_step for i < ndms, at downsampling `downsample`.
struct DmPlanStep {
  double lo_dm = 0;
  double hi_dm = 0;  ///< lo_dm + ndms * dm_step (the first DM of the next range)
  double dm_step = 0;
  int downsample = 1;
  int ndms = 0;
  double dsub_dm = 0;    ///< subband DM step (nsub > 0)
  int dms_per_call = 0;  ///< DMs per prepsubband call (nsub > 0)
  int calls = 0;         ///< prepsubband calls (nsub > 0)
  double work_fraction = 0;
  [[nodiscard]] std::vector<double> dms() const;
};

struct DmPlan {
  std::vector<DmPlanStep> steps;
  double min_total_smearing_ms = 0;
  double min_channel_smearing_ms = 0;
  double min_bw_smearing_ms = 0;
  double sample_time_ms = 0;
  double ok_smearing_ms = 0;  ///< the "best resolution" the plan aims at
  double guess_dm_step = 0;   ///< DDplan's "best guess for optimal initial dDM"
  [[nodiscard]] std::size_t total_dms() const;
};

/// DDplan.py's dm_steps(): same ranges, steps, downsampling and DM counts for the same inputs.
/// Throws Error(invalid_argument) for hi_dm <= lo_dm, a negative DM, or a bad observation.
DmPlan make_ddplan(const DmPlanObservation& obs, const DdplanOptions& opts);

/// The plan as DDplan.py prints it (its summary lines and table), for --dm-plan show;
/// `source` is the file name DDplan.py prints ("" for none).
std::string format_ddplan(const DmPlan& plan, const DmPlanObservation& obs, const DdplanOptions& opts,
                          const std::string& source = "");

/// Smearing in ms (PRESTO's constant): across `bw_mhz` at `fctr_mhz` for `dm`.
double dm_smear_ms(double dm, double bw_mhz, double fctr_mhz);

}  // namespace fastpsr
