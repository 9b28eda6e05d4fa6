// SPDX-License-Identifier: MIT
#pragma once
/// Launchers of the PPF kernels (ppf_fir_kernels.cu, ppf_detect_kernel.cu), called by the host
/// orchestration in ppf_cuda.cpp. Internal to the CUDA backend.
///
/// Data layouts (device memory):
///  - raw input of one coarse channel: samples [n][P][re, im] of int8, int16 or float32;
///    coarse channel f starts `in_coarse_stride` samples after coarse channel f − 1;
///  - filtered spectra: float2 [P][F][s][C] (complex float32): a plane per polarisation, so
///    that cuFFT reads unit-stride transforms;
///  - power rows: float [r][nifs][F·C], IF i of row r at r·row_floats + i·if_stride.
#include <cuda_runtime_api.h>
#include <vector_types.h>

#include <cstddef>

namespace fastpsr::cuda::ppf {

enum class InType { ci8 = 0, ci16 = 1, cf32 = 2 };

/// One FIR launch: filtered spectra s < nspectra of every coarse channel f,
///   out[p][f][s][c] = phase[c] · Σ_{t<T} coeff[t·C + c] · in_f[(s + t)·C + c][p].
struct FirArgs {
  const void* in = nullptr;
  std::size_t in_coarse_stride = 0;  ///< samples
  const float* coeff = nullptr;      ///< [T][C]
  const float2* phase = nullptr;     ///< [C]
  float2* out = nullptr;
  std::size_t out_coarse_stride = 0;  ///< complex values between coarse channels
  std::size_t out_pol_stride = 0;     ///< complex values between polarisation planes
  int nchans = 0;
  int ntaps = 0;
  int nspectra = 0;
  int ncoarse = 1;
  int npol = 1;
  InType type = InType::ci8;
};

/// The paper's cache kernel (Algorithm 2): a thread per channel keeps `spectra_per_thread`
/// accumulators and reads taps through the L1/texture path.
struct FirCacheConfig {
  int block_channels = 128;     ///< threads per block, over channels
  int spectra_per_thread = 8;   ///< 1, 2, 4, 8, 16 or 32
  int channels_per_thread = 1;  ///< register kernel: 1, or 2 adjacent channels (one wide load and store)
};
/// The paper's shared-memory kernel (Algorithm 3): a block stages (sb + T − 1) raw spectra ×
/// block_channels of input (converted to float once) and T × block_channels coefficients in
/// shared memory; thread (x, y) computes spectra y·R ... y·R + R − 1 of channel x.
struct FirSharedConfig {
  int block_channels = 32;     ///< blockDim.x
  int block_rows = 8;          ///< blockDim.y
  int spectra_per_thread = 4;  ///< R: 1, 2, 4 or 8; spectra per block = block_rows · R
};

/// Dynamic shared memory of a shared-kernel block, bytes.
std::size_t fir_shared_bytes(const FirSharedConfig& cfg, int ntaps, int npol);
/// Raises the kernels' dynamic shared-memory limit to `bytes` (needed above 48 KiB).
cudaError_t fir_shared_prepare(InType type, int npol, int spectra_per_thread, std::size_t bytes);

cudaError_t launch_fir_cache(const FirArgs& a, const FirCacheConfig& cfg, cudaStream_t stream);

/// The register kernel: the cache kernel with T a compile-time constant (4, 8, 16, 32 or 64)
/// and spectra_per_thread 4, 8 or 16: coefficients in registers, each input sample loaded and
/// converted once per thread. Uses FirCacheConfig.
bool fir_register_supports(int ntaps, int spectra_per_thread);
cudaError_t launch_fir_register(const FirArgs& a, const FirCacheConfig& cfg, cudaStream_t stream);
cudaError_t launch_fir_shared(const FirArgs& a, const FirSharedConfig& cfg, cudaStream_t stream);

/// Detection + integration of one chunk: spectra g0 ... g0 + n − 1 of the push (spectrum g
/// belongs to row g / spectra_per_row) of every coarse channel are detected and added to their
/// rows (which the caller zeroes first).
struct DetectArgs {
  const float2* spec = nullptr;        ///< [P][F][n][C], spectrum g0 first
  std::size_t spec_coarse_stride = 0;  ///< complex values between coarse channels
  std::size_t spec_pol_stride = 0;     ///< complex values between polarisation planes
  int nchans = 0;
  int npol = 1;
  int ncoarse = 1;
  bool descending = false;  ///< coarse channel f goes to output block F − 1 − f
  long long g0 = 0;
  int n = 0;
  int spectra_per_row = 1;
  int detection = 0;     ///< 0 I, 1 AA, 2 BB, 3 IQUV
  float* out = nullptr;  ///< row 0 of the push
  std::size_t row_floats = 0;
  std::size_t if_stride = 0;  ///< floats between IFs (F·C)
};
cudaError_t launch_detect(const DetectArgs& a, cudaStream_t stream);

/// The FFT and detection of power output in one kernel (ppf_fft_detect_kernel.cu: the Stockham
/// FFT of common/stockham_fft.cuh, radix R = 2^log2r per thread, C / R threads per block), for
/// C = 2^log2n, 256 <= C <= 4096, chunks of whole rows: segment j of row r (spectra
/// r·spr + j·segment_spectra ...) is transformed in registers and shared memory and its detected
/// products are summed in registers, in spectrum order; with one segment per row the sums are
/// the row, else they go to `partial` and launch_sum_segments adds them in order (so the result
/// does not depend on the gulp).
struct FftDetectArgs {
  const float2* spec = nullptr;  ///< filtered spectra [P][F][chunk][C], spectrum 0 = the chunk's first
  std::size_t spec_coarse_stride = 0;
  std::size_t spec_pol_stride = 0;
  const float2* twiddle = nullptr;  ///< exp(+2πi·t/C), t < C (the Stockham FFT's table)
  int log2n = 0;
  int log2r = 3;
  int ncoarse = 1;
  bool descending = false;
  bool inverse = false;
  int spectra_per_row = 1;
  int segment_spectra = 1;
  int segments_per_row = 1;
  int detection = 0;
  float* out = nullptr;      ///< the chunk's first row
  float* partial = nullptr;  ///< [rows][segments][nifs][F·C]
  std::size_t row_floats = 0;
  std::size_t if_stride = 0;  ///< F·C
};
/// Whether the fused kernel is built for C = 2^log2n and radix 2^log2r (radix 8 for
/// C = 256 ... 4096, radix 16 for C = 1024 ... 4096).
bool fft_detect_supports(int log2n, int log2r);
/// The radix (log2) used unless configured: 16 for C >= 2048 (faster on an H100 at C = 4096 for
/// one and two polarisations), else 8; 8 for IQUV (its four sums per bin need the registers).
int fft_detect_default_log2r(int log2n, bool iquv);
/// Dynamic shared memory of a block (P padded transforms), bytes; 0 when not built.
std::size_t fft_detect_shared_bytes(int log2n, int log2r, int npol);
/// Raises the fused kernel's shared-memory limit.
cudaError_t fft_detect_prepare(int log2n, int log2r, int npol, bool iquv);
cudaError_t launch_fft_detect(const FftDetectArgs& a, int npol, int rows, cudaStream_t stream);
cudaError_t launch_sum_segments(const FftDetectArgs& a, int nifs, int rows, cudaStream_t stream);

/// Complex output, FIR and FFT fused (ppf_fir_fft_kernel.cu, sm_90 thread-block clusters): a
/// cluster of 8 blocks (2·C/16 threads each, one channel per thread, its T taps and a ring of T
/// accumulators, so each input sample is loaded and converted once) slides over a range of
/// spectra of one coarse channel; per batch of 16/P spectra the blocks share the raw input
/// through distributed shared memory, filter, transform 16 decimated C/16-point sequences
/// (two per block, Stockham radix 16) and combine them (ppf_cluster_fft.hpp); only the input and
/// the output rows touch device memory. For C = 1024, 2048, 4096 and T = 4, 8, 16.
struct FirFftArgs {
  const void* in = nullptr;
  std::size_t in_coarse_stride = 0;  ///< samples
  const float* coeff = nullptr;      ///< [T][C]
  const float2* phase = nullptr;     ///< [C] (unused: the kernel places the bins instead)
  const float2* twiddle = nullptr;   ///< exp(+2πi·t/C), t < C, then exp(+2πi·t/M), t < M = C/16
  float2* out = nullptr;             ///< rows [s][F][C][P] (complex output)
  std::size_t row_complex = 0;       ///< complex values per row (F·C·P)
  int nchans = 0;
  int ntaps = 0;
  int npol = 1;
  int ncoarse = 1;
  int nspectra = 0;             ///< output spectra per coarse channel
  int clusters_per_coarse = 1;  ///< clusters over each coarse channel's spectra
  int spectra_per_cluster = 1;  ///< output spectra per cluster (the last may have fewer)
  bool descending = false;
  bool inverse = false;
  bool lean = false;  ///< the variant of 2 blocks per SM where it exists (fir_fft_lean_exists)
  InType type = InType::ci8;
};
/// Whether a fused kernel exists for C, T (P and the input type are all compiled).
bool fir_fft_supports(int nchans, int ntaps);
/// Whether the lean variant (FIR window from a raw ring, one FFT buffer, 2 blocks per SM) exists
/// for this shape (one polarisation, its shared memory small enough).
bool fir_fft_lean_exists(int nchans, int ntaps, int npol, InType type);
/// Dynamic shared memory per block, bytes (lean: of the lean variant where it exists).
std::size_t fir_fft_shared_bytes(int nchans, int ntaps, int npol, InType type, bool lean);
/// Raises the kernel's shared-memory limit and returns in `max_clusters` how many clusters of
/// it the GPU runs at once (0: it cannot run there).
cudaError_t fir_fft_prepare(int nchans, int ntaps, int npol, InType type, bool lean, int* max_clusters);
cudaError_t launch_fir_fft(const FirFftArgs& a, cudaStream_t stream);

/// The persistent FIR + FFT kernel of complex output (fft=persist, ppf_persist_kernel.cu): FIR
/// producer blocks and FFT consumer blocks of one resident grid, meeting in a ring of filtered
/// spectra that stays in L2. C = 2^kPersistLog2C, one polarisation, one coarse channel.
constexpr int kPersistLog2C = 12;
constexpr int kPersistThreads = 256;
constexpr int kSliceSpectra = 16;  ///< filtered spectra a ring slot holds
/// The FIR role's thread at `blocks_per_sm` blocks an SM: channels (two, one at four blocks an
/// SM: 64 registers) and spectra a pass (16 at two blocks an SM, 128 registers; 8 at three or
/// four, where 16 would not fit their 80 or 64 registers).
constexpr int persist_fir_channels(int blocks_per_sm) { return blocks_per_sm >= 4 ? 1 : 2; }
constexpr int persist_fir_spectra(int blocks_per_sm) { return blocks_per_sm <= 2 ? 16 : 8; }
/// FIR items a slice: 512 channels each (two a thread), or 256 at four blocks an SM (one a thread).
constexpr int persist_groups(int blocks_per_sm) {
  return (1 << kPersistLog2C) / (persist_fir_channels(blocks_per_sm) * kPersistThreads);
}
/// Unsigned ints between the dynamic schedule's two item counters, and between them and the slot
/// counters before them: one 128-byte line each, as every block polls them.
constexpr int kPersistNextStride = 32;
struct PersistArgs {
  FirArgs fir;                      ///< in, coeff, phase, nchans, ntaps, type (out, nspectra: per item)
  const float2* twiddle = nullptr;  ///< exp(+2πi·t/C), t < C
  float2* ring = nullptr;           ///< [nslots][kSliceSpectra][C]
  unsigned* filled = nullptr;       ///< [nslots], zero at launch
  unsigned* consumed = nullptr;     ///< [nslots], zero at launch
  unsigned* next = nullptr;         ///< dynamic: [0] next FIR item, [kPersistNextStride] next FFT item, zero at launch
  float2* out = nullptr;            ///< rows [s][C]
  long long nspectra = 0;
  int nslots = 8;
  int fir_blocks = 1;     ///< static: blocks [0, fir_blocks) run the FIR items (dynamic: 0)
  int fft_blocks = 1;     ///< static: the other blocks run the FFT items (dynamic: the whole grid)
  bool dynamic = false;   ///< every block claims the next ready item of either kind
  int blocks_per_sm = 2;  ///< the compiled variant: 2 (FIR 16 spectra a thread), 3 or 4 (8)
  bool inverse = false;
};
bool persist_supports(int nchans, int ntaps, int npol, int ncoarse);
std::size_t persist_shared_bytes();
/// Blocks of the kernel an SM holds at once (the grid must not exceed that times the SMs).
cudaError_t persist_blocks_per_sm(InType type, int ntaps, int wanted, bool dynamic, int* blocks_per_sm);
cudaError_t launch_persist(const PersistArgs& a, InType type, int ntaps, cudaStream_t stream);

/// Fills n bytes (a multiple of 4) with a deterministic pseudo-random pattern, as floats in
/// [−1, 1) when as_float (benchmarks: input made on the device, no upload).
cudaError_t launch_fill_random(void* dst, std::size_t n, unsigned seed, bool as_float, cudaStream_t stream);

}  // namespace fastpsr::cuda::ppf
