// SPDX-License-Identifier: MIT
#include <cmath>
#include <cstdlib>

#include "fastpsr/accel.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr {

int AccelSearchProblem::stages() const noexcept {
  int s = 0;
  while ((1 << s) < numharm) ++s;
  return s + 1;
}

void validate(const AccelSearchProblem& p) {
  FASTPSR_EXPECTS(p.numbins > 0, "accel problem: numbins must be positive, got {}", p.numbins);
  FASTPSR_EXPECTS(p.zmax >= 0 && p.zmax % kAccelDz == 0, "accel problem: zmax must be even and >= 0, got {}", p.zmax);
  FASTPSR_EXPECTS(p.wmax == 0, "accel problem: jerk searches (wmax {}) are not implemented yet", p.wmax);
  FASTPSR_EXPECTS(p.numharm >= 1 && p.numharm <= kAccelMaxHarmonics && (p.numharm & (p.numharm - 1)) == 0,
                  "accel problem: numharm must be 1, 2, 4, 8, 16 or 32, got {}", p.numharm);
  FASTPSR_EXPECTS(p.rk_begin >= 0 && p.rk_begin < p.rk_end,
                  "accel problem: empty or negative r range [{}, {}) half bins", p.rk_begin, p.rk_end);
  FASTPSR_EXPECTS(static_cast<std::size_t>(p.stages()) == p.powcut.size(),
                  "accel problem: {} power thresholds for {} harmonic stages", p.powcut.size(), p.stages());
}

int template_halfwidth(double z) noexcept { return static_cast<int>(0.5 * 1.1 * std::fabs(z)) + 16; }

std::int64_t sub_rk(std::int64_t rk, int h, int H) noexcept {
  return (2 * rk * h + H) / (2 * static_cast<std::int64_t>(H));
}

std::size_t accel_plane_bytes(const AccelSearchProblem& p) noexcept {
  const std::int64_t cols = p.rk_end - sub_rk(p.rk_begin, 1, p.numharm);
  return static_cast<std::size_t>(p.numz()) * static_cast<std::size_t>(std::max<std::int64_t>(cols, 0)) * sizeof(float);
}

int sub_z(int z, int h, int H) noexcept {
  const int num = (z / 2) * h;
  const int mag = (2 * std::abs(num) + H) / (2 * H);
  return 2 * (num < 0 ? -mag : mag);
}

void FdotSearcher::search_batch(const std::complex<float>* spectra, std::size_t stride,
                                std::span<const AccelPowerScale> scales, std::span<AccelHitSink* const> sinks) {
  FASTPSR_EXPECTS(scales.size() == sinks.size(), "search_batch: {} scales for {} spectra", scales.size(), sinks.size());
  const auto n = static_cast<std::size_t>(problem().numbins);
  for (std::size_t b = 0; b < sinks.size(); ++b) search({spectra + b * stride, n}, scales[b], *sinks[b]);
}

void CollectingHitSink::consume(std::int64_t rk_lo, std::int64_t rk_hi, std::span<const AccelHit> more) {
  if (covered_begin < 0) {
    covered_begin = rk_lo;
  } else {
    FASTPSR_ASSERT(rk_lo == covered_end);
  }
  FASTPSR_ASSERT(rk_hi >= rk_lo);
  covered_end = rk_hi;
  hits.insert(hits.end(), more.begin(), more.end());
}

}  // namespace fastpsr
