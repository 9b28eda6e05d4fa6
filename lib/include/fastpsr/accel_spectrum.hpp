// SPDX-License-Identifier: MIT
#pragma once
/// Preparing a spectrum for the acceleration search (formats.md §4, §5.2): PRESTO's red-noise
/// removal (rednoise / dered_engine), birdie zapping, and the power normalisations
/// (block median, local power, photon count). All work on PRESTO's packed layout, in place or
/// into a copy, on the CPU; they are shared by every backend.
#include <complex>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace fastpsr {

/// PRESTO's median of float powers (GSL's: the mean of the two central values when the count is
/// even), returned as float. Reorders `v`. An empty span gives 0.
float presto_median(std::span<float> v);

/// PRESTO's de-reddening parameters: block lengths growing as startwidth*ln(bin) up to endwidth,
/// growth stopping at endfreq_hz. The defaults are PRESTO rednoise's (and realfft -deredden's).
struct DereddenOptions {
  int startwidth = 6;
  int endwidth = 100;
  double endfreq_hz = 6.0;
};
/// What PRESTO's accelsearch itself does to a time series it transforms (a .dat; accel_utils.c:
/// deredden(..., 6, 200, 0.5 / dt, T)): blocks of 6 ln(bin) growing all the way to Nyquist (so
/// at most ~6 ln(N/2) bins, never 200), where rednoise stops growing them at 6 Hz, at 100 bins.
/// An endfreq beyond Nyquist gives the same blocks as Nyquist.
inline constexpr DereddenOptions kAccelsearchSeriesDered{6, 200, std::numeric_limits<double>::infinity()};

/// De-reddens `fft` in place exactly as PRESTO's dered_engine (same float arithmetic, same
/// fast inverse square root): bin 0 becomes (1, 0); each bin is divided by the square root of the
/// block median power / ln 2, linearly interpolated between block midpoints. T_s = N dt.
/// Returns the number of bins written. Throws Error(invalid_argument) for fewer bins than
/// 1 + startwidth or bad widths.
std::int64_t deredden(std::span<std::complex<float>> fft, const DereddenOptions& options, double T_s);

/// A frequency range to zap, in Fourier bins.
struct Birdie {
  double lobin = 0.0;
  double hibin = 0.0;
};
/// Reads a PRESTO zaplist (lines "freq_hz width_hz"; '#' starts a comment line; a leading 'B'
/// marks a barycentric frequency, others are scaled by (1 + baryv)); each range is at least one
/// bin wide; sorted by lobin. Throws Error(format) naming the file and line for a bad line;
/// Error(io) for a directory or a file that cannot be read, Error(format) for one over 1 MiB.
std::vector<Birdie> read_zaplist(const std::string& path, double T_s, double baryv);
/// Replaces bins floor(lobin) .. ceil(hibin)-1 of each birdie with chi^2(2 dof) noise of the
/// local median-based mean power (200 bins each side, after a 100-bin guard), random phases,
/// a fixed seed (the same input gives the same output). Bins beyond the spectrum are ignored.
/// Returns the number of bins replaced.
std::int64_t zap_birdies(std::span<std::complex<float>> fft, const std::vector<Birdie>& birdies);

/// How powers are normalised before the search (PRESTO's -median (default), -locpow, -photon).
enum class AccelNorm { block_median, local_power, photon, none };

/// PRESTO's correlation block geometry for the highest harmonic at zmax (accel_utils.c): FFT
/// length, good outputs per block (interpolated points) and template half width (bins). The
/// block-median normaliser and PRESTO's candidate order use it.
struct PrestoBlocks {
  int fftlen = 0;
  int uselen = 0;     ///< even; the r step between blocks is uselen / 2 bins
  int halfwidth = 0;  ///< bins; each block reads fftlen/2 bins from r_block - halfwidth
  [[nodiscard]] int rstep() const noexcept { return uselen / 2; }
};
PrestoBlocks presto_blocks(int zmax);

/// What the searcher gets: a spectrum and a power scale (accel.hpp).
struct SearchSpectrum {
  std::vector<std::complex<float>> bins;
  std::vector<std::int64_t> scale_rk_start;  ///< where each factor starts (half bins)
  std::vector<float> scale;                  ///< empty: no scaling
};

/// The spectrum and power scale the searcher works on.
///  - block_median (PRESTO's default): the spectrum unchanged and one power factor per PRESTO r
///    block: ln 2 / median of the fftlen/2 raw powers the block reads from r_block - halfwidth
///    (zeros beyond the spectrum). PRESTO scales the block's whole correlation window by the
///    square root of it, so scaling the block's powers is the same thing. The blocks are
///    PRESTO's in-memory ones: from rlo in steps of rstep, and below rlo (where only
///    sub-harmonics look) from r = 8 in the same steps; r below the first block is never
///    computed by PRESTO and gets factor 0.
///  - local_power: each bin scaled by 1/sqrt of the mean power of the 20 bins 6..15 away on
///    both sides; photon: by 1/sqrt(nph); none: unchanged.
/// A zero median or local power gives a zero factor.
/// Blocks from `presto_end_r` on are ones PRESTO never searches (it walks whole blocks only):
/// the part of a series shorter than one block, or beyond the last whole block with
/// --full-range. Their windows can lie mostly outside the spectrum, where PRESTO's zero padding
/// would make the median 0 or tiny and the scale absurd (noise at sigma 50 in a 1024-sample
/// series), so their median is taken over the bins the spectrum has. Blocks before it keep
/// PRESTO's padding bit for bit.
SearchSpectrum normalise_for_search(std::span<const std::complex<float>> fft, AccelNorm norm,
                                    const PrestoBlocks& blocks, std::int64_t rlo, double nph,
                                    double presto_end_r = std::numeric_limits<double>::infinity());

}  // namespace fastpsr
