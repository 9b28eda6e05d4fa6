// SPDX-License-Identifier: MIT
#pragma once
// Launchers of the acceleration-search kernels (C++17: included by the .cu files and by the host
// code). All pointers are device memory; every launcher only enqueues on `stream` and reports
// launch errors through the returned cudaError_t (the host code checks it with FASTPSR_CUDA_TRY).
// Layouts (accel_layout.hpp): segment FFTs [spectrum][segment][M]; templates [pair][phase][M];
// plane [spectrum][zi][column], column = rk - plane_base.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace fastpsr::cuda::accel {

/// Storage of the plane's powers. f16_bound (plane=f16bound) is stored by the correlation only
/// (launch_correlate_custom): f16 rounded up; everything else reads it as f16.
enum class PlaneFormat { f32, f16, f16_bound };

/// The overlap-save geometry the correlation kernels need (plain copy of AccelOverlapSave plus
/// the batch strides).
struct CorrelateGeometry {
  int fft_points = 0;             ///< M
  int use = 0;                    ///< good outputs per segment
  int npairs = 0;                 ///< template pairs (z, -z)
  int phases = 2;                 ///< 2 Fourier, 1 interbin
  int center_row = 0;             ///< zmax / 2: the row of z = 0
  int numz = 0;                   ///< plane rows
  long long nseg = 0;             ///< segments per spectrum
  long long first_bin = 0;        ///< spectrum bin at position 0 of segment 0 (o_lo - hmax)
  long long numbins = 0;          ///< bins per spectrum
  long long spectrum_stride = 0;  ///< complex values between spectra in the spectrum buffer
  long long plane_cols = 0;       ///< columns of a plane row
  // What one launch of the custom kernel correlates and where it stores it: segments [seg_lo,
  // seg_lo + seg_count) and template pairs 0 .. pairs - 1; plane (row, column) goes to
  // out_origin + row * out_pitch + column of the spectrum's plane. The whole plane: 0, nseg,
  // npairs, 0, plane_cols (whole_plane()); the block search stores a term's window instead.
  long long seg_lo = 0;
  long long seg_count = 0;
  int pairs = 0;
  long long out_origin = 0;
  long long out_pitch = 0;
  constexpr void whole_plane() {
    seg_lo = 0;
    seg_count = nseg;
    pairs = npairs;
    out_origin = 0;
    out_pitch = plane_cols;
  }
  [[nodiscard]] constexpr long long segment_stride() const { return nseg * fft_points; }
  [[nodiscard]] constexpr long long plane_stride() const { return static_cast<long long>(numz) * plane_cols; }
};

/// A hit as the harmonic-sum kernel records it (converted to AccelHit on the host).
struct DeviceHit {
  int rk;
  short zi;
  short stage;
  float power;
};

/// Terms of the harmonic sums below the highest harmonic: 31 for 32 harmonics.
inline constexpr int kTiledMaxTerms = 31;

/// Where the harmonic sums read one term's plane values: row zi, column c (= rk - plane_base)
/// at plane[b * plane_stride + origin + zi * pitch + c]. origin and pitch are multiples of 8
/// values (the pipe kernel's bulk copies keep 16-byte alignment). Plain data (no initialisers):
/// the pipe kernel keeps copies in shared memory.
struct TermView {
  long long origin;
  long long pitch;
};

/// The harmonic-sum kernel's view of one problem.
struct HarmonicGeometry {
  long long plane_base = 0;    ///< rk of plane column 0
  long long plane_cols = 0;    ///< columns of a plane row
  long long plane_stride = 0;  ///< plane values between spectra
  long long rk_lo = 0;         ///< first rk searched by this launch
  long long rk_hi = 0;         ///< one past the last
  int numz = 0;
  int stages = 1;
  float powcut[6] = {};  ///< per stage: a hit needs sum > powcut
  /// view[0]: the highest harmonic's own powers; view[1 + t]: term t (stage s, odd h: t = 2^(s-1)
  /// - 1 + (h - 1) / 2). The whole plane (whole_plane()): origin 0, pitch plane_cols for all; the
  /// block search points each term at its window (accel_plane_windows.hpp).
  TermView view[kTiledMaxTerms + 1] = {};
  constexpr void whole_plane() {
    for (auto& v : view) v = TermView{0, plane_cols};
  }
};

/// segments[b][s][i] = spectrum_b[first_bin + s use + i] (zero outside [0, numbins)) for b < batch.
cudaError_t launch_gather_segments(const void* spectra, void* segments, const CorrelateGeometry& g, int batch,
                                   cudaStream_t stream);

/// The power scale (accel.hpp's AccelPowerScale) of `batch` spectra as one factor per plane
/// column: out[b][col] is the factor of rk = plane_base + col. Spectrum b's table is
/// starts[offsets[b] .. offsets[b+1]) with factors[the same range] (empty: 1 everywhere); offsets
/// has batch + 1 entries.
cudaError_t launch_expand_power_scale(const long long* offsets, const long long* starts, const float* factors,
                                      long long plane_base, long long plane_cols, int batch, float* out,
                                      cudaStream_t stream);

/// data[i] *= scale for i < count complex values.
cudaError_t launch_scale_complex(void* data, long long count, float scale, cudaStream_t stream);

/// Custom path: per (segment, pair) multiply by the template, inverse FFT in shared memory
/// (radix 2^log2r Stockham, M / 2^log2r threads), power (+ interbinning) times the column's
/// power scale (scale[b][column]), write the good outputs, for the segments, pairs and output
/// view g names (CorrelateGeometry). segs_per_block: segments each block loops over. twiddles: fill_stockham_twiddles
/// (stockham_fft.cuh); powers: the FFT loads its twiddle powers from the table there instead of multiplying them out.
cudaError_t launch_correlate_custom(const void* segment_ffts, const void* templates, const void* twiddles,
                                    const float* scale, void* plane, PlaneFormat format, const CorrelateGeometry& g,
                                    int log2m, int log2r, bool powers, int segs_per_block, int batch,
                                    cudaStream_t stream);
/// plane=f16bound's exact re-scoring: the float32 powers of `ntasks` (segment, pair) of one
/// spectrum (tasks[i] = segment * npairs + pair; segment_ffts and scale already that spectrum's),
/// computed by the plane's own kernel, into out[2i][0 .. 2 use) (the +z row: column 2 segment use
/// + c of the plane is value c) and out[2i + 1] (-z; not written for pair 0).
cudaError_t launch_correlate_tasks(const void* segment_ffts, const void* templates, const void* twiddles,
                                   const float* scale, const int* tasks, int ntasks, float* out,
                                   const CorrelateGeometry& g, int log2m, int log2r, bool powers, cudaStream_t stream);
/// Then the exact harmonic sums of the n hits found on the bound plane: power[i] = the float32
/// sum of hit i's stage (the sums' own order), or -1 where it is not above that stage's cut.
/// tasks: the sorted keys above, out their powers.
cudaError_t launch_rescore_hits(const DeviceHit* hits, int n, const int* tasks, int ntasks, const float* out,
                                const int* sub_zi, const HarmonicGeometry& hg, const CorrelateGeometry& cg,
                                float* power, cudaStream_t stream);
/// Shared memory (bytes) and threads per block of the custom kernel; 0 when the shape is not built.
std::size_t correlate_custom_smem_bytes(int log2m, int log2r);
int correlate_custom_threads(int log2m, int log2r);
/// Registers per thread of the custom kernel (cudaFuncGetAttributes), for -v; -1 when unknown.
int correlate_custom_registers(int log2m, int log2r, bool fourier, bool powers, PlaneFormat format);

/// cuFFT path, rows [row_begin, row_begin + rows) of the row order (0: z = 0; 2p-1: +2p; 2p: -2p):
/// products[(r * phases + phase) * nseg + s][k] = S'[k] K[pair][phase][k] for one spectrum.
cudaError_t launch_multiply_templates(const void* segment_ffts, const void* templates, void* products,
                                      const CorrelateGeometry& g, int row_begin, int rows, cudaStream_t stream);
/// cuFFT path: powers of the inverse-transformed products of those rows, times the column's
/// power scale (scale[column], one spectrum), into the plane.
cudaError_t launch_products_to_plane(const void* products, const float* scale, void* plane, PlaneFormat format,
                                     const CorrelateGeometry& g, int row_begin, int rows, cudaStream_t stream);

/// Harmonic sums and thresholds for rk in [rk_lo, rk_hi) of `batch` planes: each hit of spectrum
/// b is appended to hits[b * capacity ..] (while there is room) and counted in counts[b], which
/// the caller zeroes. threads: rk per block (multiple of 32); rows: z rows per thread (1..16).
cudaError_t launch_harmonic_sums(const void* plane, PlaneFormat format, const int* sub_zi, const HarmonicGeometry& g,
                                 DeviceHit* hits, unsigned long long* counts, unsigned long long capacity, int threads,
                                 int rows, int batch, cudaStream_t stream);

/// hs=tiled (harmonic_sum_tiled.cu): where each term's window lives in a block's shared memory.
/// Term t (stage s, odd h: t = 2^(s-1) - 1 + (h - 1) / 2) has pitch floor((threads - 1) h / H) + 2
/// plane values a row and as many rows as its widest band of `rows` z; offset[t] is the prefix
/// sum of pitch x rows, offset[terms] the values a block needs (in plane values, f32 or f16).
struct TiledLayout {
  int offset[kTiledMaxTerms + 1] = {};
};
/// The same sums, thresholds and hits as launch_harmonic_sums (bit-identical), with the sub-harmonic
/// windows of a block's tile (threads rk x rows z) copied into shared memory first. threads: 32 ..
/// 1024, a multiple of 32; at most 6 stages; the kernel traps if a window outgrows the layout.
cudaError_t launch_harmonic_sums_tiled(const void* plane, PlaneFormat format, const int* sub_zi,
                                       const HarmonicGeometry& g, const TiledLayout& layout, DeviceHit* hits,
                                       unsigned long long* counts, unsigned long long capacity, int threads, int rows,
                                       int batch, cudaStream_t stream);
/// The tiled kernel for `rows` (either plane format): its static shared memory and the most
/// threads a block may have with its registers; zeros when not built.
struct TiledKernelLimits {
  std::size_t static_smem_bytes = 0;
  int max_threads = 0;
};
TiledKernelLimits harmonic_sums_tiled_limits(int rows);

/// hs=pipe (harmonic_sum_pipe.cu, sm_90): the tiles of hs=tiled in persistent blocks, each window
/// row copied by one bulk copy from a 16-byte aligned plane column, double-buffered. Term t's
/// window rows have pipe_window_pitch(threads, step, h, s, format) values (16-byte multiples) and there
/// are as many as its widest band has sub-harmonic rows; offset[t] is the prefix sum of pitch x rows
/// (plane values of one buffer), rows the sum of those row counts (the copy list of a band).
struct PipeLayout {
  int offset[kTiledMaxTerms + 1] = {};
  int rows = 0;
};
int pipe_window_pitch(int threads, int step, int h, int s, PlaneFormat format);
/// The same sums, thresholds and hits as launch_harmonic_sums (bit-identical). rows: 4, 8 or 16;
/// threads: a multiple of 32; at most 6 stages; the plane 16-byte aligned. step 1: a thread sums
/// one rk; step 2 (hs_pair=1): a pair of rk bounded together, summed exactly only where the bound
/// passes a cut (a tile then spans 2 x threads rk). The grid is sized from the kernel's occupancy
/// on `multiprocessors` SMs (whole waves of resident blocks).
cudaError_t launch_harmonic_sums_pipe(const void* plane, PlaneFormat format, const int* sub_zi,
                                      const HarmonicGeometry& g, const PipeLayout& layout, DeviceHit* hits,
                                      unsigned long long* counts, unsigned long long capacity, int threads, int rows,
                                      int step, int batch, int multiprocessors, cudaStream_t stream);
/// The pipe kernel for `rows` (either format): whether it was built for this device (sm_90 or
/// newer), its static shared memory and the most threads a block may have with its registers.
struct PipeKernelLimits {
  bool available = false;
  std::size_t static_smem_bytes = 0;
  int max_threads = 0;
};
PipeKernelLimits harmonic_sums_pipe_limits(int rows, int step);
/// Dynamic shared memory of the pipe kernel: two buffers and the band's copy list.
inline std::size_t pipe_dynamic_smem_bytes(const PipeLayout& layout, int stages, PlaneFormat format) {
  const std::size_t value = format == PlaneFormat::f16 ? 2 : 4;
  return 2 * static_cast<std::size_t>(layout.offset[(1 << (stages - 1)) - 1]) * value +
         static_cast<std::size_t>(layout.rows) * 8;
}

/// out[zi][i] = plane[zi][col0 + i] as float, i < width (tests read the plane through it).
cudaError_t launch_plane_to_float(const void* plane, PlaneFormat format, long long plane_cols, int numz, long long col0,
                                  long long width, float* out, cudaStream_t stream);

}  // namespace fastpsr::cuda::accel
