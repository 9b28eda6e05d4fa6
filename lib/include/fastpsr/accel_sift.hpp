// SPDX-License-Identifier: MIT
#pragma once
/// Sifting candidates across DM trials, with the rules of PRESTO's ACCEL_sift.py /
/// sifting.py (defaults as ACCEL_sift sets them):
///  1. Each candidate is read as sifting.py reads the ACCEL text: sigma is recomputed from the
///     printed optimised harmonic powers, candidate_sigma(sum P_k, numharm, 1); S/N =
///     sum_k sqrt(max(P_k - 1, 0)).
///  2. Per DM trial, rejected: period > long_period_s (15 s) or < short_period_s (0.5 ms);
///     sigma < sigma_threshold (4) (for one harmonic only if also coherent power <
///     c_pow_threshold (100)); strongest harmonic power < harm_pow_cutoff (8); a "rogue"
///     harmonic (numharm >= 8, strongest harmonic index > 4 and power > 2x the next; or
///     numharm >= 4, index > 2 and > 3x).
///  3. Duplicates: in r order, candidates within r_err (1.1 bins) of each other are merged into
///     the one of highest sigma, which keeps all their (DM, S/N, sigma) hits.
///  4. DM problems: fewer than min_num_dms (2) hits; best-sigma hit at DM <= low_dm_cutoff (2);
///     hits on DM trials with no two adjacent.
///  5. Harmonics: a candidate whose frequency is within f_err = r_err/T (scaled by the factor)
///     of 1..16 times or 1/1..1/16 of, or 3/2, 5/2, 2/3, 4/3, 5/3, 3/4, 5/4, 2/5, 3/5, 4/5 of, a
///     higher-sigma one is removed.
///  6. The rest, by decreasing sigma.
#include <optional>
#include <string>
#include <vector>

namespace fastpsr {

struct SiftCandidate {
  std::string file;  ///< the ACCEL file name (no directory)
  int candnum = 0;
  double dm = 0;
  std::string dm_str;  ///< "%.2f"
  double sigma = 0;    ///< recomputed (rule 1)
  double ipow = 0;     ///< sum of the optimised harmonic powers
  double cpow = 0;     ///< coherent power
  int numharm = 1;
  double r = 0, z = 0, T = 0;
  std::vector<double> harm_pows;
  double snr = 0;
  struct Hit {
    double dm, snr, sigma;
  };
  std::vector<Hit> hits;  ///< (DM, S/N, sigma) of every merged detection
  [[nodiscard]] double f_hz() const { return r / T; }
  [[nodiscard]] double p_s() const { return T / r; }
};

/// One DM trial's candidates.
struct SiftInput {
  double dm = 0;
  std::vector<SiftCandidate> candidates;
};

/// A DM as the sifter compares and prints DMs ("%.2f", as sifting.py does).
std::string dm_string(double dm);

/// The DM of the first "DM<digits>.<two digits>" in a file name (sifting.py's DM(\d+\.\d{2})).
std::optional<double> dm_from_name(const std::string& name);

/// Reads the candidates of an ACCEL text as sifting.py does. `file` names it (for the DM, taken
/// from "DM<d.dd>" in the name, else `dm`). Throws Error(format) naming the file for a malformed
/// table or a missing N or dt.
SiftInput sift_input_from_accel_text(const std::string& text, const std::string& file, double dm);

struct SiftOptions {
  double sigma_threshold = 4.0;
  double c_pow_threshold = 100.0;
  double harm_pow_cutoff = 8.0;
  double r_err = 1.1;
  double short_period_s = 0.0005;
  double long_period_s = 15.0;
  int min_num_dms = 2;
  double low_dm_cutoff = 2.0;
};

struct SiftResult {
  std::vector<SiftCandidate> candidates;  ///< the good ones, by decreasing sigma
  int read = 0, rejected = 0, duplicates = 0, dm_problems = 0, harmonics = 0;
};

SiftResult sift_candidates(const std::vector<SiftInput>& inputs, const SiftOptions& options);

/// A CSV table: one row per sifted candidate (header line first).
std::string format_sift_csv(const SiftResult& r);
/// ACCEL_sift's text report: the candidate lines and, for each, its hits with stars.
std::string format_sift_summary(const SiftResult& r);

}  // namespace fastpsr
