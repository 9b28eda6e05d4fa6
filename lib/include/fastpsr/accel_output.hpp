// SPDX-License-Identifier: MIT
#pragma once
/// accelsearch's output files exactly as PRESTO writes them (formats.md §5): the
/// <root>_ACCEL_<zmax> text (fundamental table, harmonic table, the .inf appended), the .cand
/// array of 88-byte fourierprops records (padding zeroed), and .txtcand lines.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fastpsr/accel_candidates.hpp"

namespace fastpsr {

/// PRESTO's nice_output_1 / nice_output_2 (left-justified, len 0): `val` rounded to the precision
/// of `err`, with `err` to 1 or 2 digits in parentheses, e.g. " 4.569829(31)", " 1.2(3)x10^-4".
std::string nice_output_1(double val, double err);
std::string nice_output_2(double val, double err);
/// PRESTO's center_string: `text` centred in `width` columns, cut to `width` when longer.
std::string center_string(const std::string& text, int width);

/// What the ACCEL text needs besides the candidates.
struct AccelTextInfo {
  double T_s = 0;        ///< N * dt
  double nph = 0;        ///< photon count when normalised by it (-photon), else 0
  std::string inf_text;  ///< the input's .inf, appended byte for byte
  /// PRESTO pads harmonic rows' notes to 20 characters for artificial data ("None" telescope)
  /// and, through an uninitialised buffer, to 19 otherwise; both are reproduced.
  bool artificial = false;
};

/// The fundamental props PRESTO writes to .cand and uses for the notes: calc_props of the
/// optimised fundamental at the search-grid r, z, w, with rerr = 0.5/numharm, zerr = 2/numharm,
/// werr = 20/numharm.
FourierProps fundamental_props(const AccelCandidate& cand);

/// The whole <root>_ACCEL_<zmax> text for optimised candidates in output order.
std::string format_accel_text(const std::vector<AccelCandidate>& cands, const AccelTextInfo& info);
/// The .cand bytes: one 88-byte record per candidate, little-endian, padding zeroed.
std::vector<std::uint8_t> format_cand_records(const std::vector<AccelCandidate>& cands);
/// Decodes .cand bytes (for tests and the sifter); throws Error(format) for a partial record.
std::vector<FourierProps> parse_cand_records(std::span<const std::uint8_t> bytes, const std::string& name);

}  // namespace fastpsr
