// SPDX-License-Identifier: MIT
#pragma once
/// The CUDA acceleration searcher (fastpsr/accel.hpp's FdotSearcher on a GPU). No CUDA types.
///
/// Data flow per group of `batch` spectra (DM trials): upload of the spectra and their power-scale
/// tables (pinned, on a copy stream that overlaps the previous group's search) -> the scale as a
/// factor per plane column -> overlap-save segments and their forward FFTs (cuFFT, once per
/// segment, shared by every z) -> correlation with every template, powers times the scale ->
/// f-fdot plane in device memory (4 bytes, or 2 with plane=f16, per (rk, z)) -> harmonic sums,
/// thresholds and hit compaction in one kernel -> only the hits come back, range by range to the
/// AccelHitSink. The spectra are normalised on the host (lib/dsp/accel_spectrum.cpp).
/// The layout (segments, (z, -z) template pairs, plane columns) is fastpsr/accel_layout.hpp.
///
/// --gpu-config keys (AccelSearchOptions::gpu_config; unknown keys and bad values throw
/// Error(invalid_argument) naming the key; limits are checked against the device):
///   path=custom|cufft   correlation path (default custom):
///                       custom: one kernel per (segment group, z pair) multiplies by the
///                         template, inverse-FFTs in shared memory (Stockham, no reordering),
///                         takes powers (+ interbinning) and writes only the good outputs;
///                       cufft: template products, batched cuFFT inverse C2C, power kernel
///                         (the segments go through device memory: the FDAS paper's baseline).
///   fft_len=<points>    overlap-save length in the numbetween-spread domain (as the CPU backend
///                       and benchmarks.md count it: each transform has fft_len/2 points with
///                       Fourier interpolation, fft_len with interbinning); a power of two with
///                       transforms of 128 .. 8192 points (custom) or 128 .. 32768 (cufft), at
///                       least 4 hmax + 4. Default: the cheapest by M log M / good points
///                       (custom, transforms up to 4096) or 8192 (cufft). Overrides
///                       AccelSearchOptions::fft_len.
///   batch=<n>           spectra searched together by search_batch (1 .. 64; default: up to 8
///                       while their planes stay within 256 MiB, and within a quarter of the
///                       free device memory).
///   fft_radix=8|16      custom: points per thread (threads per block = transform / radix).
///   segs_per_block=<n>  custom: segments each block loops over (1 .. 64, default 2).
///   zchunk=<rows>       cufft: plane rows per batched inverse FFT (default: 512 MiB of
///                       products).
///   hs_threads=<n>      harmonic sums: rk per block (multiple of 32, 32 .. 1024; default 256 with
///                       hs=pipe (128 or 64 where the windows of 256 do not fit), else 128).
///   hs_rows=1|2|4|8|16  harmonic sums: z rows per thread (default 16; 4 for hs=pipe on a
///                       float32 plane where the GPU has at least 30 GB/s of peak memory
///                       bandwidth an SM, e.g. an H200).
///   hs=auto|pipe|tiled|gather  harmonic-sum kernel: tiled copies the sub-harmonic windows of a
///                       block's tile into shared memory first; pipe (sm_90 or newer; hs_rows 4,
///                       8 or 16) does the same in persistent blocks that copy the next tile's
///                       windows by bulk copies while they sum the current one; gather reads
///                       every term through the caches. All give identical hits. auto (default):
///                       pipe where the device and shape allow it, else tiled when its shared
///                       memory fits the device, else gather.
///   hs_pair=0|1         hs=pipe: 1 sums neighbouring rk in pairs, as one upper bound (the larger
///                       of the two sub-harmonic columns a term of the pair reads), and sums the
///                       pair exactly only where a bound passes a stage's cut: about half the
///                       instructions, the same hits to the bit. Default 0.
///   hits=<n>            hit capacity per spectrum (default 2^20, at most 2^28; at least numz * stages so that
///                       one rk always fits). An overflow is never lost: the range is searched
///                       again in halves until each part fits.
///   plane=auto|f32|f16|f16bound  plane storage: f32, f16 (P/256 as IEEE half: half the plane
///                       traffic, powers within 2^-11 relative) or f16bound: f16 rounded up, so
///                       its sums bound the f32 plane's from above, and each hit found on it
///                       summed again exactly from f32 powers recomputed for it (custom path,
///                       overlap=0): f32's hits bit for bit with f16's plane traffic and memory
///                       (H200, fdas-8m zmax 200, 16 harmonics: 17.1 -> 14.2 ms a trial). auto
///                       (default): f16bound where it runs, else f32.
///   overlap=0|1         1: two planes; the correlation of group g + 1 runs on one stream while
///                       the harmonic sums of group g run on another (higher priority), so the
///                       L1-bound correlation fills the SMs the DRAM-bound sums leave idle. Needs
///                       twice the plane memory; same hits. Default 0: measured no faster (H100,
///                       fdas-8m: 21.1 against 20.9 ms a trial; docs/PERFORMANCE.md).
///   block_rk=<n>        the block search with blocks of n rk (a multiple of 16384; custom path):
///                       each block correlates only the plane windows its harmonic sums read,
///                       into device memory for one block, so a plane larger than the GPU's
///                       memory is searched there (same hits to the bit, about sum_h (h/H)^2 times
///                       the correlations). Default: the whole plane where it fits the free
///                       device memory, else the widest blocks that fit (AccelSearchOptions::
///                       block_rk forces it too). Blocks search one spectrum at a time.
///   rescore_tasks=<n>   plane=f16bound: (segment, pair) correlations a chunk of re-scored hits
///                       may need (at least 2^stages; default: as many as 128 MiB of their f32
///                       rows hold, at most a 16th of the free memory). For tests of the
///                       chunking; the hits are the same.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "fastpsr/accel.hpp"

namespace fastpsr::cuda {

enum class AccelGpuPath { custom, cufft };
/// automatic: f16_bound where it runs (custom path, overlap=0), else f32 (settings() says which).
enum class AccelPlaneStorage { automatic, f32, f16, f16_bound };
enum class AccelHarmonicKernel { automatic, tiled, gather, pipe };
/// The custom FFT's twiddle powers: multiplied out from one loaded twiddle (chain), or each loaded
/// from a table (table); automatic: table for Fourier interpolation, chain for interbinning.
enum class AccelFftTwiddles { automatic, chain, table };

/// --gpu-config as parsed (0 where the device and problem decide).
struct AccelGpuSettings {
  AccelGpuPath path = AccelGpuPath::custom;
  int fft_len = 0;
  int batch = 0;
  int fft_radix = 0;  ///< custom path: 8 or 16 points a thread; 0: 16 for Fourier from M = 1024, else 8
  AccelFftTwiddles fft_twiddles = AccelFftTwiddles::automatic;  ///< settings() reports the one chosen
  int segs_per_block = 2;
  int zchunk = 0;
  int hs_threads = 0;                                       ///< 0: the kernel's default
  int hs_rows = 0;                                          ///< 0: the default rule (see hs_rows above)
  AccelHarmonicKernel hs = AccelHarmonicKernel::automatic;  ///< settings() reports the one chosen
  int hs_pair = 0;                                          ///< 1: hs=pipe sums rk in bounded pairs
  std::int64_t hits = std::int64_t{1} << 20;
  AccelPlaneStorage plane = AccelPlaneStorage::automatic;  ///< settings() reports the one chosen
  int overlap = 0;            ///< 1: a group's correlation overlaps the previous group's harmonic sums
  std::int64_t block_rk = 0;  ///< rk a block of the block search; settings(): 0 = the whole plane
  int rescore_tasks = 0;      ///< plane=f16bound: (segment, pair) tasks a re-scoring chunk; 0: 128 MiB of rows
  /// rk a thread of the pipe kernel sums at a time: 2 with hs_pair=1, else 1.
  [[nodiscard]] int pipe_rk_step() const noexcept { return hs_pair == 1 ? 2 : 1; }
};

/// Parses the --gpu-config keys above (device limits are checked by make_fdot_searcher).
/// Throws Error(invalid_argument) naming the key for an unknown key or a bad value.
AccelGpuSettings parse_accel_gpu_config(const std::map<std::string, std::string>& config);

/// Device times (CUDA events) of the last search()/search_batch() call, summed over its spectra.
struct AccelGpuTimings {
  int spectra = 0;
  double upload_ms = 0;             ///< host-to-device copies of the spectra (overlapped in batches)
  double segments_ms = 0;           ///< segment gather and forward FFTs
  double correlate_ms = 0;          ///< templates, inverse FFTs, powers: the plane
  double harmonics_ms = 0;          ///< harmonic sums, thresholds, hit compaction (first pass)
  double hits_ms = 0;               ///< hit downloads and any overflow re-searches (host clock)
  double rescore_ms = 0;            ///< plane=f16bound: re-scoring the hits (host clock; part of hits_ms)
  std::int64_t rescored = 0;        ///< plane=f16bound: hits re-scored (found on the bounds)
  std::int64_t rescore_chunks = 0;  ///< plane=f16bound: task chunks they took
  double wall_ms = 0;               ///< the whole call (host clock), including delivery to the sinks
  std::int64_t overflows = 0;       ///< spectra whose hits overflowed the capacity
};

/// The searcher with its GPU-specific extras (benchmarks, tests).
class CudaFdotSearcher : public FdotSearcher {
 public:
  [[nodiscard]] virtual AccelGpuSettings settings() const = 0;  ///< in effect (auto values resolved)
  [[nodiscard]] virtual AccelGpuTimings last_timings() const = 0;
  /// Bytes the plane and segments move in device memory per spectrum (the model behind GB/s).
  [[nodiscard]] virtual double modelled_bytes_per_spectrum() const = 0;
  /// FFT work per spectrum, 5 M log2 M flops per transform (forward and inverse), plus 6 per
  /// template product: the model behind GFLOP/s.
  [[nodiscard]] virtual double modelled_flops_per_spectrum() const = 0;
  /// The plane P(rk, zi) of one spectrum with its power scale for rk in
  /// [sub_rk(rk_begin, 1, numharm), rk_end), row by row ([zi][rk - first rk]), after poisoning the
  /// device plane with NaN: for tests.
  virtual std::vector<float> plane_for_test(std::span<const std::complex<float>> spectrum,
                                            const AccelPowerScale& scale) = 0;
};

/// Makes the searcher on GPU `device`. Throws Error(invalid_argument) for a bad problem or
/// --gpu-config, Error(resource) when the device lacks memory (the message says what to lower),
/// Error(device) for a CUDA failure.
std::unique_ptr<CudaFdotSearcher> make_cuda_fdot_searcher(const AccelSearchProblem& problem,
                                                          const AccelSearchOptions& options, int device);
/// The same as an FdotSearcher (the dispatcher's entry, fastpsr/accel_backends.hpp).
std::unique_ptr<FdotSearcher> make_fdot_searcher(const AccelSearchProblem& problem, const AccelSearchOptions& options,
                                                 int device);

/// presto_realfft (fastpsr/presto_fft.hpp) on GPU `device`: the same PRESTO packing (bin 0
/// holds the DC and Nyquist real parts), float32 rounding of cuFFT rather than FFTW. For the time
/// series of DM trials, whose lengths (the samples each DM keeps) are seldom products of small
/// primes: FFTW plans each such length anew, under its global planner lock, and runs it at a
/// fraction of a power of two's speed (a 2^22-sample trial took ~0.3 s of a host thread); cuFFT
/// runs it in 0.2 ms but spends ~10 ms making its plan, one plan at a time in the process. So
/// lengths whose half has a prime factor above 7 are transformed by Bluestein's algorithm on
/// power-of-two cuFFT plans (bluestein_kernels.hpp), which one workspace keeps from trial to
/// trial; other lengths by a cuFFT real-to-complex plan of their own, kept for the next series of
/// the same length. Which of the two a length takes depends on the length only, never on what
/// ran before. Safe to call from several threads at once: each call takes a workspace (stream,
/// device buffers, plans) from the pool, or makes one. Throws Error(resource) when the device
/// memory is short, Error(device) for other CUDA or cuFFT failures.
class RealFftCuda {
 public:
  /// `bluestein_from_bins`: lengths of fewer bins (n / 2) keep a plan of their own (tests lower it).
  explicit RealFftCuda(int device, std::size_t bluestein_from_bins = 4096);
  ~RealFftCuda();
  RealFftCuda(const RealFftCuda&) = delete;
  RealFftCuda& operator=(const RealFftCuda&) = delete;
  /// The n / 2 bins of the even-length series `x` in PRESTO's packing.
  std::vector<std::complex<float>> transform(std::span<const float> x);
  /// Whether a series of `n` samples is transformed by Bluestein's algorithm.
  [[nodiscard]] bool uses_bluestein(std::size_t n) const;

 private:
  struct Workspace;
  std::unique_ptr<Workspace> acquire(std::size_t n);
  void release(std::unique_ptr<Workspace> w);
  int device_;
  std::size_t bluestein_from_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Workspace>> idle_;
};

/// One transform by a RealFftCuda of its own (tests, single calls).
std::vector<std::complex<float>> presto_realfft_cuda(std::span<const float> x, int device);

/// The device's own ceilings for the benchmark (benchmarks.md "Limits").
struct Fp32Ceilings {
  std::string device;
  double copy_bytes_per_s = 0;  ///< device-to-device copy, bytes read + written per second
  double fma_per_s = 0;         ///< FP32 fused multiply-adds per second (2 flops each)
};
/// Measures them on GPU `device` (about a second).
Fp32Ceilings measure_fp32_ceilings(int device);

}  // namespace fastpsr::cuda
