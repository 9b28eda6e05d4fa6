// SPDX-License-Identifier: MIT
#pragma once
/// Launchers of the dedispersion kernels (implemented in the .cu files of this folder). They
/// return the CUDA status of the launch (cudaGetLastError) so host code can check it with
/// FASTPSR_CUDA_TRY; no fmt or exceptions in the .cu files.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace fastpsr::cuda {

/// The run-time shape of the dedispersion kernel (see dedisp_tiling.hpp).
struct KernelShape {
  int lanes = 4;  ///< 4, 2, 1 (integer) or 1 with is_float
  bool is_float = false;
  bool mad_hi = false;       ///< lanes 4: odd bytes through IMAD.HI (Lanes4Mad) instead of PRMT
  int threads_time = 32;     ///< block x, a multiple of 32
  int threads_dm = 4;        ///< block y
  int items_time = 4;        ///< words per thread (instantiated: 1, 2, 4)
  int items_dm = 8;          ///< DMs per thread (instantiated: 1, 2, 4, 8)
  int chans_per_stage = 32;  ///< channel rows staged in shared memory per step
  int stages = 2;            ///< shared-memory stages (1: no overlap, 2: double buffering, 3)
  int subband = 0;           ///< 0: the staged kernel; G > 0: the subband kernel, G channels per unit
  bool bulk_copy = true;     ///< staged kernel on sm_90+: rows staged by bulk (TMA) copies, not cp.async
  int max_regs = 0;          ///< register cap of the staged kernel: 0 = its default, else one of kRegisterCaps
  int reuse = 0;  ///< staged kernel: a DM with the previous DM's delays re-adds its words (1, 2; reuse_compiled)
  [[nodiscard]] int tile_words() const noexcept { return threads_time * items_time; }
  [[nodiscard]] int dms_per_block() const noexcept { return threads_dm * items_dm; }
  [[nodiscard]] int threads() const noexcept { return threads_time * threads_dm; }
};

/// The items_time and items_dm values with a compiled kernel.
constexpr int kItemsTime[] = {1, 2, 4};
constexpr int kItemsDm[] = {1, 2, 4, 8};
/// The tiles compiled also with reuse (ThreadTile::add_rows<true>): the default 4 x 8 and the
/// 4 x 4 of the large-span fallback shape, every lane mode and register cap.
constexpr bool reuse_compiled(int items_time, int items_dm) {
  return items_time == 4 && (items_dm == 4 || items_dm == 8);
}
/// Register caps compiled for the 4 x 8 tile (32 accumulators) besides its default (255): 128
/// regs run four 128-thread blocks per SM (the totals then live in local memory), 168 three.
/// Smaller tiles are compiled at 128 only.
constexpr int kRegisterCaps[] = {128, 168, 255};

struct DedispKernelParams {
  const std::uint32_t* g = nullptr;  ///< prepared input, nkept rows of g_row_words words
  std::int64_t g_row_words = 0;
  const std::int32_t* records = nullptr;  ///< dm_blocks x nkept records of record_ints
  int record_ints = 0;
  float* out = nullptr;  ///< ndms rows of out_pitch floats
  std::int64_t out_pitch = 0;
  int nkept = 0;
  int ndms = 0;
  int dm_blocks = 0;
  std::int64_t q = 0;      ///< samples per lane segment
  std::int64_t n_out = 0;  ///< output samples of this gulp
  int flush_chans = 1;
  std::int64_t signed_offset = 0;
  int row_pitch = 0;  ///< shared-memory words per staged row
  int chans_per_stage = 1;
  int stages = 2;
  std::uint32_t hi_multiplier = 1U << 24;  ///< Lanes4Mad's 2^24, unknown to the compiler
  int bulk_copy = 0;                       ///< staged kernel: 1 = bulk copies (sm_90+ only), 0 = cp.async
  // The subband kernel only (dedisp_subband.hpp): records are per (DM block, unit) there.
  int units = 0;            ///< units of `subband` kept channels (the last may have fewer)
  int units_per_stage = 1;  ///< units staged per step
  int y_pitch = 0;          ///< Y positions (8-byte pairs) per unit in shared memory
  int dm_entry = 0;         ///< record index of the DM offsets
};

/// Dynamic shared memory of the dedispersion kernel, bytes (the stages, then 16 bytes per stage for
/// the mbarrier of the bulk-copy path).
std::size_t dedisp_shared_bytes(const KernelShape& s, int row_pitch, int record_ints);

/// Dynamic shared memory of the subband kernel, bytes: `stages` x (units_per_stage x G rows and
/// records) plus units_per_stage Y regions of y_pitch pairs and one zero row.
std::size_t subband_shared_bytes(const KernelShape& s, int units_per_stage, int row_pitch, int record_ints,
                                 int y_pitch);
/// Whether the subband kernel is compiled for `s` (G 4, 8, 16; items_time 2, 4; items_dm 4, 8; lanes 4, PRMT).
bool subband_compiled(const KernelShape& s);

/// Registers and the largest block the compiled kernel of `s` allows.
struct KernelAttributes {
  int registers = 0;
  int max_threads = 0;
  std::size_t local_bytes = 0;
};
cudaError_t dedisp_kernel_attributes(const KernelShape& s, KernelAttributes* out);
/// Allows `shared_bytes` of dynamic shared memory for the kernel of `s` (opt-in above 48 KiB).
cudaError_t dedisp_kernel_allow_shared(const KernelShape& s, std::size_t shared_bytes);
/// Launches the kernel over dm_blocks x ceil(q / tile_words) blocks.
cudaError_t launch_dedisp_kernel(const KernelShape& s, const DedispKernelParams& p, std::size_t shared_bytes,
                                 cudaStream_t stream);

/// Per-lane-mode entry points (one .cu file each); `op` 0 = attributes, 1 = allow shared, 2 = launch.
cudaError_t dedisp_lanes4_op(int op, const KernelShape& s, const DedispKernelParams* p, std::size_t shared_bytes,
                             cudaStream_t stream, KernelAttributes* attrs);
cudaError_t dedisp_lanes4mad_op(int op, const KernelShape& s, const DedispKernelParams* p, std::size_t shared_bytes,
                                cudaStream_t stream, KernelAttributes* attrs);
cudaError_t dedisp_lanes2_op(int op, const KernelShape& s, const DedispKernelParams* p, std::size_t shared_bytes,
                             cudaStream_t stream, KernelAttributes* attrs);
cudaError_t dedisp_lanes1_op(int op, const KernelShape& s, const DedispKernelParams* p, std::size_t shared_bytes,
                             cudaStream_t stream, KernelAttributes* attrs);
cudaError_t dedisp_subband_op(int op, const KernelShape& s, const DedispKernelParams* p, std::size_t shared_bytes,
                              cudaStream_t stream, KernelAttributes* attrs);
cudaError_t dedisp_float_op(int op, const KernelShape& s, const DedispKernelParams* p, std::size_t shared_bytes,
                            cudaStream_t stream, KernelAttributes* attrs);

/// The unpack / downsample / lane-interleave step, one launch per gulp (see prep_kernel.cu).
struct PrepParams {
  const std::uint8_t* in = nullptr;  ///< n_new * downsample packed input samples
  int nchans = 0;                    ///< channels per input sample (file order)
  const int* kept = nullptr;         ///< nkept file channel indices
  int nkept = 0;
  int downsample = 1;
  bool is_signed = false;
  const void* hist_in = nullptr;  ///< nkept rows of hist_pitch elements: the previous history
  void* hist_out = nullptr;       ///< the new history
  std::int64_t hist_pitch = 0;
  std::int64_t hist_len = 0;     ///< history samples present
  std::int64_t n_new = 0;        ///< new downsampled samples from `in`
  std::int64_t n_zero = 0;       ///< zero samples appended after them (flush)
  std::uint32_t zero_value = 0;  ///< a prepared zero: 128 * downsample for signed input (offset)
  std::int64_t keep_from = 0;    ///< first sample kept as the next history
  std::uint32_t* g = nullptr;    ///< lane-interleaved output, nkept rows of g_row_words words
  std::int64_t g_row_words = 0;
  std::int64_t q = 0;
  std::int64_t cover = 0;  ///< samples [0, cover) are produced
};

/// `nbits` 1, 2, 4, 8, 16, 32; `lanes` 4, 2, 1 with `is_float` for 32-bit input.
cudaError_t launch_prep_kernel(int nbits, int lanes, bool is_float, const PrepParams& p, cudaStream_t stream);

}  // namespace fastpsr::cuda
