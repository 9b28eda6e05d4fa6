// SPDX-License-Identifier: MIT
// The subband ("pattern") dedispersion kernel, 8-bit samples in four lanes (dedisp_subband.hpp
// has the plan and the reasons). One block: dms_per_block DMs x tile_words words. Per stage it
// stages the channel rows of units_per_stage units of G channels (with their records) like the
// staged kernel, then phase A builds the units' pattern rows Y in shared memory (warps take
// 64-position pieces in turn), and phase B adds one Y pair per unit and DM word. Opt-in
// (--gpu-config subband=4|8|16): bit-exact but slower than the staged kernel on an H100 (see
// dedisp_subband.hpp and docs/PERFORMANCE.md).
#include "dedisp/dedisp_kernel.cuh"
#include "dedisp/dedisp_subband.hpp"

namespace fastpsr::cuda {
namespace {

// At most 256 threads, and two blocks per SM for the tiles of 16 items (128 registers).
template <int G, int T, int MD>
__global__ void __launch_bounds__(256, T* MD <= 16 ? 2 : 1) subband_kernel(const DedispKernelParams p) {
  extern __shared__ __align__(16) std::uint32_t smem[];
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  const int nthreads = static_cast<int>(blockDim.x * blockDim.y);
  const int tid = ty * static_cast<int>(blockDim.x) + tx;
  const int warp = tid / 32;
  const int lane = tid % 32;
  const int nwarps = nthreads / 32;
  const int tile_words = static_cast<int>(blockDim.x) * T;
  const int dms_per_block = static_cast<int>(blockDim.y) * MD;
  const int dm_block = static_cast<int>(blockIdx.x % static_cast<unsigned>(p.dm_blocks));
  const std::int64_t u0 = static_cast<std::int64_t>(blockIdx.x / static_cast<unsigned>(p.dm_blocks)) * tile_words;
  const int U = p.units_per_stage;
  const int rows_words = U * G * p.row_pitch;
  const int stage_words = rows_words + U * p.record_ints;
  const int nchunks = (p.units + U - 1) / U;
  std::uint32_t* ybuf = smem + p.stages * stage_words;
  std::uint32_t* zero_row = ybuf + U * 2 * p.y_pitch;  // row_pitch zeros (short last unit)
  for (int i = tid; i < p.row_pitch; i += nthreads) zero_row[i] = 0;
  const std::int32_t* block_records =
      p.records + static_cast<std::size_t>(dm_block) * static_cast<std::size_t>(p.units) * p.record_ints;

  // Stages the rows and records of chunk `chunk` (if it exists); one copy group either way.
  auto issue = [&](int chunk) {
    if (chunk < nchunks) {
      std::uint32_t* sdata = smem + (chunk % p.stages) * stage_words;
      const int first_unit = chunk * U;
      const int nu = min(U, p.units - first_unit);
      const int first_chan = first_unit * G;
      const int nrows = min(nu * G, p.nkept - first_chan);
      for (int r = warp; r < nrows; r += nwarps) {
        const std::int32_t* rec = block_records + static_cast<std::size_t>(first_unit + r / G) * p.record_ints;
        const int e = subband::chan_entry(r % G);
        const tiling::RowWindow w = tiling::row_window(u0, __ldg(rec + e), __ldg(rec + e + 1), tile_words);
        const std::uint32_t* src = p.g + static_cast<std::size_t>(first_chan + r) * p.g_row_words + w.start;
        std::uint32_t* dst = sdata + r * p.row_pitch;
        for (int i = lane * 4; i < w.words; i += 128) detail::copy16_async(dst + i, src + i);
      }
      const std::int32_t* rsrc = block_records + static_cast<std::size_t>(first_unit) * p.record_ints;
      std::uint32_t* rdst = sdata + rows_words;
      for (int i = tid * 4; i < nu * p.record_ints; i += nthreads * 4) detail::copy16_async(rdst + i, rsrc + i);
    }
    detail::copy_commit();
  };

  subband::ThreadTile<T, MD> acc;
  for (int s = 0; s + 1 < p.stages; ++s) issue(s);
  const int word0 = tiling::tile_word(tx, 0, T);
  for (int chunk = 0; chunk < nchunks; ++chunk) {
    issue(chunk + p.stages - 1);
    detail::copy_wait(p.stages - 1);
    __syncthreads();
    const std::uint32_t* sdata = smem + (chunk % p.stages) * stage_words;
    const std::int32_t* srec = reinterpret_cast<const std::int32_t*>(sdata + rows_words);
    const int nu = min(U, p.units - chunk * U);
    // Phase A: the pattern rows of every unit, in pieces of kPiece positions dealt to the warps
    // in turn over all the stage's (unit, pattern) rows.
    int piece = 0;
    for (int uu = 0; uu < nu; ++uu) {
      const std::int32_t* rec = srec + uu * p.record_ints;
      const int nch = subband::unit_channels(chunk * U + uu, G, p.nkept);
      const std::uint32_t* rows = sdata + uu * G * p.row_pitch;
      uint2* y = reinterpret_cast<uint2*>(ybuf + uu * 2 * p.y_pitch);
      const int npat = rec[0];
      for (int q = 0; q < npat; ++q) {
        const std::int32_t* e = rec + subband::pattern_entry(G, q);
        const int width = e[1];
        const int npieces = (width + subband::kPiece - 1) / subband::kPiece;
        int mine = (warp - piece) % nwarps;
        if (mine < 0) mine += nwarps;
        if (mine < npieces) {
          const int off = e[0];
          const std::uint32_t* row[G];
          subband::pattern_rows<G>(rows, p.row_pitch, e, nch, zero_row, row);
          for (int s = mine; s < npieces; s += nwarps) {
            const int i0 = s * subband::kPiece + lane;
            const int i1 = i0 + 32;
            std::uint32_t all0, hi0;
            if (i1 < width) {  // both positions: 2 G independent loads
              std::uint32_t all1, hi1;
              subband::build_position<G>(row, i0, all0, hi0);
              subband::build_position<G>(row, i1, all1, hi1);
              y[off + i0] = make_uint2(all0, hi0);
              y[off + i1] = make_uint2(all1, hi1);
            } else if (i0 < width) {
              subband::build_position<G>(row, i0, all0, hi0);
              y[off + i0] = make_uint2(all0, hi0);
            }
          }
        }
        piece += npieces;
      }
    }
    __syncthreads();
    // Phase B: one Y pair per unit, DM and word.
    acc.template add_stage<G>(ybuf, p.y_pitch, srec, p.record_ints, p.dm_entry, ty * MD, chunk * U, nu, p.nkept, word0,
                              p.flush_chans);
    __syncthreads();
  }
  acc.flush_all();

  const int dm_first = dm_block * dms_per_block + ty * MD;
#pragma unroll
  for (int j = 0; j < MD; ++j) {
    const int m = dm_first + j;
    if (m >= p.ndms) continue;
    float* out_row = p.out + static_cast<std::size_t>(m) * static_cast<std::size_t>(p.out_pitch);
#pragma unroll
    for (int k = 0; k < T; ++k) {
      const std::int64_t u = u0 + tiling::tile_word(tx, k, T);
      if (u >= p.q) continue;
#pragma unroll
      for (int l = 0; l < 4; ++l) {
        const std::int64_t t = l * p.q + u;
        if (t >= p.n_out) continue;
        out_row[t] = tiling::integer_output(acc.total[j][k].v[l], p.signed_offset);
      }
    }
  }
}

template <int G, int T, int MD>
cudaError_t subband_op(int op, const KernelShape& s, const DedispKernelParams* p, std::size_t shared_bytes,
                       cudaStream_t stream, KernelAttributes* attrs) {
  return detail::kernel_fn_op(subband_kernel<G, T, MD>, op, s, p, shared_bytes, stream, attrs);
}

template <int G>
cudaError_t subband_tiles_op(int op, const KernelShape& s, const DedispKernelParams* p, std::size_t shared_bytes,
                             cudaStream_t stream, KernelAttributes* attrs) {
#define FASTPSR_SUBBAND_CASE(T, MD) \
  if (s.items_time == (T) && s.items_dm == (MD)) return subband_op<G, T, MD>(op, s, p, shared_bytes, stream, attrs)
  FASTPSR_SUBBAND_CASE(2, 4);
  FASTPSR_SUBBAND_CASE(4, 4);
  FASTPSR_SUBBAND_CASE(2, 8);
  FASTPSR_SUBBAND_CASE(4, 8);
#undef FASTPSR_SUBBAND_CASE
  return cudaErrorInvalidValue;
}

}  // namespace

bool subband_compiled(const KernelShape& s) {
  const bool g = s.subband == 4 || s.subband == 8 || s.subband == 16;
  const bool tiles = (s.items_time == 2 || s.items_time == 4) && (s.items_dm == 4 || s.items_dm == 8);
  return g && tiles && s.lanes == 4 && !s.is_float && !s.mad_hi;
}

cudaError_t dedisp_subband_op(int op, const KernelShape& s, const DedispKernelParams* p, std::size_t shared_bytes,
                              cudaStream_t stream, KernelAttributes* attrs) {
  switch (s.subband) {
    case 4:
      return subband_tiles_op<4>(op, s, p, shared_bytes, stream, attrs);
    case 8:
      return subband_tiles_op<8>(op, s, p, shared_bytes, stream, attrs);
    case 16:
      return subband_tiles_op<16>(op, s, p, shared_bytes, stream, attrs);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace fastpsr::cuda
