// SPDX-License-Identifier: MIT
#pragma once
/// The overlap-save layout of the f-fdot plane as the CUDA backend computes it: segments, the
/// templates of each z in the frequency domain, the (z, -z) pairs that share one template, the
/// plane's columns, and the harmonic-sum lookup tables. Plain integer arithmetic and host-side
/// template building, kept here (not in cuda/) so that tests/unit checks it on every build.
///
/// Phases. Fourier interpolation (numbetween 2) is computed as two ordinary correlations of the
/// spectrum (no zero-interleaving): phase 0 gives C(o) and phase 1 gives C(o + 1/2) for integer o,
///     C(o + phase/2) = sum_n X[o + n] g(n),  g(n) = conj(A_z(n - phase/2)),
/// with n in [-h, h-1] (phase 0) or [-h+1, h] (phase 1), h = template_halfwidth(z) (accel.hpp).
/// Interbinning computes phase 0 only and forms the odd rk from C(o) and C(o + 1).
///
/// Segments. Segment s holds the spectrum bins [first_bin(s), first_bin(s) + M) (zeros outside
/// [0, numbins)); its correlation with the template row G (G[t] = g(t - hmax)) gives
/// C(o_lo + s*use + j + phase/2) at its output j, for j in [0, use).
///
/// (z, -z) pairs. A_{-z}(d) = conj(A_z(d)) exp(-2 pi i d), so the -z template of a phase is
/// +-conj of the z template, and with K the frequency-domain template of z and S the segment's
/// forward FFT, |C_{-z}| = |IFFT(conj(S[-k]) K[k])| while C_z = IFFT(S[k] K[k]): one template
/// (z >= 0) serves both rows of a pair.
///
/// Jerk (w), next. If the cubic phase term keeps r and z the averages over the observation, it
/// is proportional to u (u - 1/2)(u - 1), odd about u = 1/2: the same substitution u -> 1 - u
/// flips its sign (check it against the w response before relying on it), so the pairs become
/// (z, w) with (-z, -w), enumerated over z > 0 or (z = 0, w >= 0); a plane row becomes
/// (wi, zi) -> wi * numz + zi, the template rows [pair][phase][M] keep their shape, and the
/// harmonic tables gain the sub-harmonic w row beside the z row. Nothing in the segment layout
/// changes.
#include <complex>
#include <cstdint>
#include <vector>

#include "fastpsr/accel.hpp"

namespace fastpsr {

struct AccelOverlapSave {
  int numbetween = 2;           ///< 2: Fourier interpolation (phases 0 and 1); 1: interbinning (phase 0)
  int hmax = 0;                 ///< template_halfwidth(zmax), bins
  int fft_points = 0;           ///< M: complex points of each segment transform (a power of two)
  int use = 0;                  ///< good outputs per segment: M - 2 hmax (Fourier), M - 2 hmax - 1 (interbin)
  int npairs = 0;               ///< zmax/2 + 1 template pairs (z, -z), z = 2p, p = 0 .. npairs-1
  std::int64_t o_lo = 0;        ///< integer r of segment 0's output 0
  std::int64_t nseg = 0;        ///< segments
  std::int64_t plane_lo = 0;    ///< lowest rk the harmonic sums read: sub_rk(rk_begin, 1, numharm)
  std::int64_t plane_base = 0;  ///< rk of plane column 0 (= 2 o_lo, even)
  std::int64_t plane_cols = 0;  ///< columns of a plane row: >= 2 nseg use, a multiple of 64

  [[nodiscard]] int phases() const noexcept { return numbetween; }
  /// The spectrum bin at position 0 of segment s (negative near r = 0).
  [[nodiscard]] std::int64_t segment_first_bin(std::int64_t s) const noexcept { return o_lo + s * use - hmax; }
  /// The plane column of output j of segment s: 2 (s use + j) + phase (phase 1 is the odd rk).
  [[nodiscard]] std::int64_t column(std::int64_t s, std::int64_t j, int phase) const noexcept {
    return 2 * (s * use + j) + phase;
  }
};

/// The layout for `fft_len` points in the numbetween-spread domain (the CPU backend's and
/// benchmarks.md's convention: M = fft_len / numbetween). Throws Error(invalid_argument) unless
/// fft_len is a power of two with M >= 4 hmax + 4 (at least half of every segment is output).
AccelOverlapSave make_accel_overlap_save(const AccelSearchProblem& p, int fft_len);

/// The fft_len (spread domain) with the least FFT work per good output, M log2 M / use, over
/// powers of two with M in [128, max_points] (a smaller M wins within 2%).
int auto_accel_fft_len(const AccelSearchProblem& p, int max_points);

/// Plane row of the pair p (z = 2p) for sign 0 (+z) or 1 (-z): zmax/2 + p or zmax/2 - p.
[[nodiscard]] inline int accel_pair_row(const AccelSearchProblem& p, int pair, int sign) noexcept {
  return p.zmax / 2 + (sign == 0 ? pair : -pair);
}

/// The time-domain template row G of drift z >= 0 and `phase` for the correlation
/// c[j] = sum_t seg[j + t] G[t]: M values, conj(A_z(t - hmax - phase/2)) on the phase's taps,
/// zero elsewhere (float, from correlation_template).
std::vector<std::complex<float>> accel_template_row(const AccelOverlapSave& os, int z, int phase);

/// One term of the harmonic sums: harmonic h of H = 2^stage (h odd; even h were added at an
/// earlier stage as h/2 of H/2).
struct AccelHarmonicTerm {
  int stage = 0;
  int h = 1;
  int H = 1;
};
/// The terms stage by stage (s = 1 .. stages-1, h = 1, 3, .., 2^s - 1): 2^(stages-1) - 1 terms.
std::vector<AccelHarmonicTerm> accel_harmonic_terms(int stages);
/// sub-harmonic z rows: table[t * numz + zi] = (sub_z(z_of(zi), h_t, H_t) + zmax) / 2.
std::vector<std::int32_t> accel_sub_zi_table(const AccelSearchProblem& p);

}  // namespace fastpsr
