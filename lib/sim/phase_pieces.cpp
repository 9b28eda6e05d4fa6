// SPDX-License-Identifier: MIT
#include "phase_pieces.hpp"

#include <cmath>

#include "fastpsr/error.hpp"

namespace fastpsr::sim::detail {

PhasePieces::PhasePieces(const PhaseModel& model, double tsamp_s, std::int64_t piece_samples, double first_position,
                         double last_position)
    : samples_(piece_samples) {
  const auto s = static_cast<double>(piece_samples);
  const auto lo = static_cast<std::int64_t>(std::floor(first_position / s)) - 1;
  const auto hi = static_cast<std::int64_t>(std::floor(last_position / s)) + 1;
  first_index_ = lo;
  pieces_.resize(static_cast<std::size_t>(hi - lo + 1));
  const double piece_s = s * tsamp_s;
  for (std::int64_t m = lo; m <= hi; ++m) {
    // Newton's forward differences in 3u, expanded in powers of u.
    double y[4];
    for (int j = 0; j < 4; ++j) y[j] = model.phase((static_cast<double>(m) + j / 3.0) * piece_s);
    const double d1 = y[1] - y[0];
    const double d2 = y[2] - 2 * y[1] + y[0];
    const double d3 = y[3] - 3 * y[2] + 3 * y[1] - y[0];
    Piece p{};
    p.base = std::floor(y[0]);
    p.c0 = y[0] - p.base;
    p.c1 = 3.0 * (d1 - d2 / 2 + d3 / 3);
    p.c2 = 9.0 * (d2 / 2 - d3 / 2);
    p.c3 = 4.5 * d3;
    p.max_slope = (std::abs(p.c1) + 2 * std::abs(p.c2) + 3 * std::abs(p.c3)) / s;
    pieces_[static_cast<std::size_t>(m - lo)] = p;
  }
}

}  // namespace fastpsr::sim::detail
