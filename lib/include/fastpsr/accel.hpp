// SPDX-License-Identifier: MIT
#pragma once
/// Fourier-domain acceleration search: the problem description and the backend-neutral
/// interface of its heavy part (the f-fdot plane, harmonic sums and thresholds), which the CPU
/// and CUDA backends implement. Everything around it (reading, normalising, candidate
/// consolidation, sigma, optimisation, output) is shared code in lib/ (accel_*.hpp).
///
/// ## Definitions (all backends)
///
/// Spectrum. X_k, k = 0 .. numbins-1: complex float32 Fourier amplitudes of a real series of N =
/// 2*numbins samples, prepared by the caller (accel_spectrum.hpp): either normalised so that
/// |X_k|^2 has mean ~1 in noise, or left raw with the normalisation given as a power scale
/// (PRESTO's block medians; see Plane). Bins outside [0, numbins) are taken as zero.
///
/// Grid. r = rk / 2 (rk: the half-bin index), z = -zmax + 2*zi (zi = 0 .. numz-1),
/// w = -wmax + 20*wi (wi = 0 .. numw-1; wmax is 0, numw 1, until jerk searches exist).
/// r is the *average* Fourier frequency over the observation (mid-observation), in bins of 1/T.
///
/// Template. For a signal of average frequency r0 and drift z (bins over the observation), the
/// normalised response of bin k is A_z(k - r0), with
///     A_z(d) = integral_0^1 exp(2 pi i [ -d u + (z/2)(u^2 - u) ]) du
/// (A_0(d) = exp(-i pi d) sin(pi d)/(pi d); sum_k |A_z(k - r0)|^2 ~ 1). This is PRESTO's
/// Fourier response to a constant fdot (gen_z_response) with its sign conventions.
///
/// Plane. The complex correlation C(rk, zi) = sum_k X_k conj(A_z(k - r)), summed over the bins k
/// with -h(z) <= k - r <= h(z) - 1/2, where h(z) = template_halfwidth(z) (PRESTO's LOWACC
/// z_resp_halfwidth: floor(0.55 |z|) + 16). The power is P(rk, zi) = s(rk) |C(rk, zi)|^2, where
/// s(rk) is the spectrum's AccelPowerScale (1 when it has none): PRESTO's block-median
/// normalisation scales each correlation block by one factor, which is applied here to powers.
///  - AccelInterp::fourier (PRESTO's numbetween = 2): C is evaluated as above at every rk.
///  - AccelInterp::interbin (the FDAS paper): C is evaluated at even rk only (integer r); at odd
///    rk, C(rk) = (pi/4) (C(rk-1) - C(rk+1)).
///
/// Harmonic sums. For stage s (H = 2^s harmonics, s = 0 .. stages-1), at a grid point
/// (rk, zi) of the *highest* harmonic,
///     S_s(rk, zi) = sum_{h=1..H} P(sub_rk(rk, h, H), sub_zi(zi, h, H))
/// with sub_rk = floor(rk*h/H + 1/2) (exact integer rounding, half up) and, for z = -zmax + 2 zi,
/// sub_z = 2 * round_half_away_from_zero(z*h/(2H)), sub_zi = (sub_z + zmax) / 2. (This is
/// PRESTO's in-memory search; the harmonic h = H term is P(rk, zi) itself.) A backend thus needs
/// P for every rk from sub_rk(rk_begin, 1, numharm) up to rk_end.
///
/// Hits. Every (stage, rk, zi) with rk in [rk_begin, rk_end) and S_s(rk, zi) > powcut[s]
/// (strictly greater) is a hit. Backends differ only by float rounding: the CPU backend and the
/// double-precision reference agree to a relative 2e-4 in P (tests/unit/accel).
#include <algorithm>
#include <array>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "fastpsr/fftw_effort.hpp"

namespace fastpsr {

/// PRESTO's grid steps (accel.h): r in half bins, z in steps of 2, w in steps of 20.
inline constexpr double kAccelDr = 0.5;
inline constexpr int kAccelDz = 2;
inline constexpr int kAccelDw = 20;
/// Most harmonics summed (PRESTO's limit).
inline constexpr int kAccelMaxHarmonics = 32;
inline constexpr int kAccelMaxStages = 6;

/// How the plane is sampled between integer frequencies.
enum class AccelInterp {
  fourier,   ///< templates at half-bin offsets (PRESTO numbetween = 2): exact to the template
  interbin,  ///< templates at integer r, half bins by interbinning (FDAS paper): ~2x cheaper
};

/// What the heavy part computes: a plain description (no pointers, no memory).
struct AccelSearchProblem {
  std::int64_t numbins = 0;   ///< complex bins in each spectrum (N/2)
  int zmax = 0;               ///< even, >= 0: z = -zmax .. zmax step 2
  int wmax = 0;               ///< reserved for jerk searches; must be 0 for now
  int numharm = 1;            ///< 1, 2, 4, 8, 16 or 32
  std::int64_t rk_begin = 0;  ///< first half-bin index of the highest harmonic searched
  std::int64_t rk_end = 0;    ///< one past the last (exclusive)
  AccelInterp interp = AccelInterp::fourier;
  /// Per stage (size stages()): a hit needs summed power > powcut[s].
  std::vector<float> powcut;

  [[nodiscard]] int numz() const noexcept { return zmax / kAccelDz * 2 + 1; }
  [[nodiscard]] int numw() const noexcept { return wmax / kAccelDw * 2 + 1; }
  [[nodiscard]] int stages() const noexcept;
  [[nodiscard]] int z_of(int zi) const noexcept { return -zmax + kAccelDz * zi; }
};

/// Checks a problem's internal consistency; throws Error(invalid_argument) naming the field.
void validate(const AccelSearchProblem& p);

/// PRESTO's LOWACC template half width (bins) for drift z: floor(0.5*1.1*|z|) + 16.
int template_halfwidth(double z) noexcept;
/// Bytes of the whole plane at 4 bytes a point: every z, rk from sub_rk(rk_begin, 1, numharm) to
/// rk_end (what an in-memory search keeps).
std::size_t accel_plane_bytes(const AccelSearchProblem& p) noexcept;
/// Sub-harmonic lookups of the definition above (exact integer arithmetic).
std::int64_t sub_rk(std::int64_t rk, int h, int H) noexcept;
int sub_z(int z, int h, int H) noexcept;

/// A piecewise-constant power scale: factor[i] applies to rk in [rk_start[i], rk_start[i+1])
/// (the last to the end; rk before rk_start[0] takes factor[0]). rk_start increases. Empty spans
/// mean 1 everywhere. Host memory.
struct AccelPowerScale {
  std::span<const std::int64_t> rk_start;
  std::span<const float> factor;
  [[nodiscard]] float at(std::int64_t rk) const noexcept {
    if (factor.empty()) return 1.0F;
    const auto it = std::upper_bound(rk_start.begin(), rk_start.end(), rk);
    const auto i = it == rk_start.begin() ? 0 : (it - rk_start.begin()) - 1;
    return factor[static_cast<std::size_t>(i)];
  }
};

/// One hit: a grid point above its stage's threshold.
struct AccelHit {
  std::int64_t rk = 0;     ///< half-bin index of the highest harmonic (r_H = rk/2)
  std::int32_t zi = 0;     ///< z index of the highest harmonic (z_H = -zmax + 2 zi)
  std::int16_t wi = 0;     ///< w index (0 until jerk searches exist)
  std::int16_t stage = 0;  ///< log2 of the number of harmonics summed
  float power = 0.0F;      ///< summed normalised power S_stage(rk, zi)
};

/// Receives the hits of one spectrum, range by range. A backend calls consume() with ranges
/// [rk_lo, rk_hi) that are contiguous, increasing, and together cover [rk_begin, rk_end)
/// exactly; each call carries every hit with rk in its range, in any order.
class AccelHitSink {
 public:
  virtual ~AccelHitSink() = default;
  virtual void consume(std::int64_t rk_lo, std::int64_t rk_hi, std::span<const AccelHit> hits) = 0;
};

/// Run-time configuration of a searcher (all optional).
struct AccelSearchOptions {
  int threads = 0;  ///< CPU threads; 0 = OpenMP default
  int fft_len = 0;  ///< overlap-save segment length (complex points); 0 = auto
  /// CPU backend: FFTW planning of the correlation FFTs. estimate (the default) gives the same
  /// bits in every run; measure is ~15% faster (fdas-2m, zmax 200) but reproducible from run to
  /// run only with its plans kept as wisdom (the accelsearch tool does that).
  FftwEffort fftw_effort = FftwEffort::estimate;
  /// CPU backend: the most host memory (bytes) the f-fdot plane may take; 0 = no limit. A larger
  /// plane is searched in blocks of rk (PRESTO's default search; its -inmem keeps the whole
  /// plane): each block computes only the windows its harmonic sums read, from the same
  /// overlap-save segments, so the hits are the same to the bit, for about sum_h (h/H)^2 times
  /// the correlations (3.2x for 8 harmonics, 5.8x for 16).
  std::size_t plane_memory = 0;
  /// rk a block (a multiple of 16384); > 0 forces the block search (both backends; the CUDA
  /// backend also takes it as --gpu-config block_rk). 0 = whole plane unless plane_memory (CPU)
  /// or the free device memory (CUDA) says otherwise.
  std::int64_t block_rk = 0;
  /// --gpu-config key=value pairs for the CUDA backend. Keys it must accept: path=cufft|custom
  /// (correlation path), fft_len=<points>, batch=<spectra per launch>, and launch-shape keys it
  /// documents in its own header; unknown keys are Error(invalid_argument).
  std::map<std::string, std::string> gpu_config;
  bool use_tuning = false;  ///< CUDA backend: the tuning database under gpu_config (as DedispOptions)
};

/// The heavy part: plane, harmonic sums and thresholds for one problem. Made once, used for
/// many spectra (DM trials). Implementations: cpu::make_fdot_searcher, cuda::make_fdot_searcher.
class FdotSearcher {
 public:
  virtual ~FdotSearcher() = default;
  [[nodiscard]] virtual const AccelSearchProblem& problem() const noexcept = 0;
  /// Searches one spectrum (problem().numbins complex values, host memory) with its power scale
  /// and delivers all its hits to `sink` (see AccelHitSink). Throws Error on a device failure.
  virtual void search(std::span<const std::complex<float>> spectrum, const AccelPowerScale& scale,
                      AccelHitSink& sink) = 0;
  /// Searches `sinks.size()` spectra that lie `stride` complex values apart from `spectra`
  /// (host memory), spectrum b with scales[b]; its hits go to sinks[b]. GPU backends batch them;
  /// the default loops over search().
  virtual void search_batch(const std::complex<float>* spectra, std::size_t stride,
                            std::span<const AccelPowerScale> scales, std::span<AccelHitSink* const> sinks);
  /// Replaces the stage thresholds (problem().powcut, one per stage) for the searches that follow.
  /// The plane does not depend on them, so one searcher serves DM trials whose thresholds differ
  /// (accel_searcher_reuse.hpp). Throws Error(invalid_argument) for a wrong count.
  virtual void set_powcut(std::span<const float> powcut) = 0;
  /// Plan, FFT length, launch shapes and memory, for -v.
  [[nodiscard]] virtual std::string describe() const = 0;
  [[nodiscard]] virtual std::size_t host_bytes() const noexcept = 0;
  [[nodiscard]] virtual std::size_t device_bytes() const noexcept { return 0; }
  /// rk a block of the block search (AccelSearchOptions::block_rk); 0 when the whole plane is kept.
  [[nodiscard]] virtual std::int64_t block_rk() const noexcept { return 0; }
};

/// A sink that keeps every hit (tests, small problems).
class CollectingHitSink final : public AccelHitSink {
 public:
  void consume(std::int64_t rk_lo, std::int64_t rk_hi, std::span<const AccelHit> hits) override;
  std::vector<AccelHit> hits;
  std::int64_t covered_begin = -1;  ///< first rk_lo seen
  std::int64_t covered_end = -1;    ///< last rk_hi seen (checked contiguous, else Error(internal))
};

}  // namespace fastpsr
