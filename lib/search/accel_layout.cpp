// SPDX-License-Identifier: MIT
#include "fastpsr/accel_layout.hpp"

#include <bit>
#include <cmath>

#include "fastpsr/accel_templates.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr {
namespace {

int numbetween_of(const AccelSearchProblem& p) { return p.interp == AccelInterp::fourier ? 2 : 1; }

int use_of(int m, int hmax, int numbetween) { return m - 2 * hmax - (numbetween == 1 ? 1 : 0); }

}  // namespace

AccelOverlapSave make_accel_overlap_save(const AccelSearchProblem& p, int fft_len) {
  validate(p);
  AccelOverlapSave os;
  os.numbetween = numbetween_of(p);
  os.hmax = template_halfwidth(p.zmax);
  FASTPSR_EXPECTS(fft_len > 0 && std::has_single_bit(static_cast<unsigned>(fft_len)),
                  "accel: the FFT length must be a power of two, got {}", fft_len);
  os.fft_points = fft_len / os.numbetween;
  FASTPSR_EXPECTS(os.fft_points >= 4 * os.hmax + 4,
                  "accel: FFT length {} is too short for zmax {}: at least {} points ({} per phase) are needed",
                  fft_len, p.zmax, os.numbetween * (4 * os.hmax + 4), 4 * os.hmax + 4);
  os.use = use_of(os.fft_points, os.hmax, os.numbetween);
  os.npairs = p.zmax / 2 + 1;
  os.plane_lo = sub_rk(p.rk_begin, 1, p.numharm);
  os.o_lo = os.plane_lo / 2;
  // Integer r needed: up to (rk_end - 1) / 2 (its C also serves rk_end - 1 when that is odd).
  const std::int64_t o_hi = (p.rk_end - 1) / 2 + 1;
  os.nseg = (o_hi - os.o_lo + os.use - 1) / os.use;
  os.plane_base = 2 * os.o_lo;
  os.plane_cols = (2 * os.nseg * os.use + 63) / 64 * 64;
  return os;
}

int auto_accel_fft_len(const AccelSearchProblem& p, int max_points) {
  const int nb = numbetween_of(p);
  const int hmax = template_halfwidth(p.zmax);
  int best = 0;
  double best_cost = 0.0;
  for (int m = 128; m <= max_points; m *= 2) {
    if (m < 4 * hmax + 4) continue;
    const double cost = m * std::log2(static_cast<double>(m)) / use_of(m, hmax, nb);
    if (best == 0 || cost < best_cost * 0.98) {
      best = m;
      best_cost = cost;
    }
  }
  FASTPSR_EXPECTS(best > 0, "accel: zmax {} needs templates wider than the largest GPU transform ({} points)", p.zmax,
                  max_points);
  return best * nb;
}

std::vector<std::complex<float>> accel_template_row(const AccelOverlapSave& os, int z, int phase) {
  FASTPSR_ASSERT(z >= 0 && phase >= 0 && phase < os.numbetween);
  const int h = template_halfwidth(z);
  FASTPSR_ASSERT(h <= os.hmax);
  const auto taps = correlation_template(z, os.numbetween);  // m: d = -h + m / numbetween
  std::vector<std::complex<float>> g(static_cast<std::size_t>(os.fft_points), {0.0F, 0.0F});
  // Tap n (d = n - phase/2) sits at t = n + hmax; phase 0: n = -h .. h-1, phase 1: n = -h+1 .. h.
  for (int n = -h + phase; n <= h - 1 + phase; ++n) {
    const int m = os.numbetween * (n + h) - phase;
    g[static_cast<std::size_t>(n + os.hmax)] = taps[static_cast<std::size_t>(m)];
  }
  return g;
}

std::vector<AccelHarmonicTerm> accel_harmonic_terms(int stages) {
  std::vector<AccelHarmonicTerm> terms;
  for (int s = 1; s < stages; ++s) {
    const int H = 1 << s;
    for (int h = 1; h < H; h += 2) terms.push_back({s, h, H});
  }
  return terms;
}

std::vector<std::int32_t> accel_sub_zi_table(const AccelSearchProblem& p) {
  const auto terms = accel_harmonic_terms(p.stages());
  const int numz = p.numz();
  std::vector<std::int32_t> table(terms.size() * static_cast<std::size_t>(numz));
  for (std::size_t t = 0; t < terms.size(); ++t) {
    for (int zi = 0; zi < numz; ++zi) {
      table[t * static_cast<std::size_t>(numz) + static_cast<std::size_t>(zi)] =
          (sub_z(p.z_of(zi), terms[t].h, terms[t].H) + p.zmax) / 2;
    }
  }
  return table;
}

}  // namespace fastpsr
