// SPDX-License-Identifier: MIT
#pragma once
// A pulsar's phase model sampled as piecewise cubics on a fixed grid of arrival time (internal
// to lib/sim): the inner loops evaluate a cubic instead of solving Kepler's equation per sample.
#include <cstdint>
#include <vector>

#include "fast_floor.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/sim/phase_model.hpp"

namespace fastpsr::sim::detail {

/// Piece m covers sample positions [m S, (m + 1) S) (position x is time x tsamp); it is the
/// cubic through the exact phase at u = 0, 1/3, 2/3, 1 of the piece. The grid is global, so a
/// phase is a pure function of (model, tsamp, S, x) whatever range the pieces were made for.
/// Error of the cubic: S^4 tsamp^4 max|phi''''| / 384 (1e-11 cycles for a 1 kHz pulsar in a
/// 10-minute orbit with S tsamp = 0.26 s); exact for a spin polynomial up to rounding.
class PhasePieces {
 public:
  struct Piece {
    double base;            // integer part of the phase at the piece's start
    double c0, c1, c2, c3;  // phase - base = c0 + c1 u + c2 u^2 + c3 u^3, u in [0, 1]
    double max_slope;       // bound on the phase advance per sample within the piece
  };
  struct Phase {
    double base;  // integer part of the piece's phase
    double frac;  // phase - base (may exceed 1 within a piece)
    const Piece* piece;
  };
  PhasePieces(const PhaseModel& model, double tsamp_s, std::int64_t piece_samples, double first_position,
              double last_position);
  /// The phase at sample position x, which must lie within the range given to the constructor.
  /// Inline: the simulators' inner loops call it per sample.
  [[nodiscard]] Phase at(double x) const {
    const auto s = static_cast<double>(samples_);
    const auto m = static_cast<std::int64_t>(fast_floor(x / s));
    const auto index = static_cast<std::size_t>(m - first_index_);
    FASTPSR_ASSERT(m >= first_index_ && index < pieces_.size());
    const Piece& p = pieces_[index];
    // x - m S is exact for the integer and half-integer positions used, so u keeps its precision.
    const double u = (x - static_cast<double>(m * samples_)) / s;
    return {p.base, p.c0 + u * (p.c1 + u * (p.c2 + u * p.c3)), &p};
  }

 private:
  std::int64_t samples_;
  std::int64_t first_index_ = 0;
  std::vector<Piece> pieces_;
};

}  // namespace fastpsr::sim::detail
