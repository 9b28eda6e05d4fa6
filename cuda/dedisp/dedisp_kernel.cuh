// SPDX-License-Identifier: MIT
#pragma once
/// The direct dedispersion kernel, templated over the lane arithmetic (dedisp_tiling.hpp) and the
/// per-thread register tile (items_time words x items_dm DMs). One block: dms_per_block DMs x
/// tile_words words x lanes samples. Channel rows of the block's window are staged into shared
/// memory chans_per_stage at a time with asynchronous 16-byte copies, `stages` buffers deep, so the
/// copy of the next rows overlaps the adds on the current ones; every staged row serves all the
/// block's DMs (reuse across DMs, Armour & Giles), and every 32-bit load brings `lanes` samples.
/// On sm_90 with p.bulk_copy the rows are staged by one bulk (TMA) copy each, issued by the lanes
/// of one warp and completed on a per-stage mbarrier (one block barrier a stage instead of two);
/// otherwise every thread copies 16-byte pieces with cp.async. (Nsight Compute, apertif: the
/// per-thread copy issue took ~23% of the instructions and ~39% of the stall samples.)
#include <cuda_runtime.h>

#include <type_traits>

#include "dedisp/dedisp_kernels.hpp"
#include "dedisp/dedisp_tiling.hpp"

namespace fastpsr::cuda {
namespace detail {

__device__ __forceinline__ void copy16_async(void* dst_shared, const void* src_global) {
#if __CUDA_ARCH__ >= 800
  const auto dst = static_cast<unsigned>(__cvta_generic_to_shared(dst_shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src_global) : "memory");
#else
  *static_cast<uint4*>(dst_shared) = __ldg(static_cast<const uint4*>(src_global));
#endif
}

__device__ __forceinline__ void copy_commit() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/// Waits until at most `pending` committed groups are still in flight.
__device__ __forceinline__ void copy_wait(int pending) {
#if __CUDA_ARCH__ >= 800
  if (pending <= 0) {
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
  } else if (pending == 1) {
    asm volatile("cp.async.wait_group 1;\n" ::: "memory");
  } else {
    asm volatile("cp.async.wait_group 2;\n" ::: "memory");
  }
#else
  (void)pending;
#endif
}

#if __CUDA_ARCH__ >= 900
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void barrier_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(count) : "memory");
}

/// Announces `bytes` more to arrive on `bar` by bulk copies (before the copy that brings them).
__device__ __forceinline__ void barrier_expect_bytes(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void barrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(bar)) : "memory");
}

/// Waits until the phase of `bar` with parity `parity` has completed.
__device__ __forceinline__ void barrier_wait(std::uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "WAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT;\n"
      "}\n" ::"r"(shared_address(bar)),
      "r"(parity)
      : "memory");
}

/// Copies `bytes` (a multiple of 16, both addresses 16-byte aligned) from global to shared memory
/// with the TMA unit; completion is counted on `bar`. The fence orders this thread's earlier
/// generic-proxy accesses of the destination (after the block barrier that freed it) before it.
__device__ __forceinline__ void bulk_copy(void* dst_shared, const void* src_global, unsigned bytes,
                                          std::uint64_t* bar) {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                   shared_address(dst_shared)),
               "l"(src_global), "r"(bytes), "r"(shared_address(bar))
               : "memory");
}
#endif

/// Default register cap of the kernel for a T x MD tile: 16 accumulators fit 128 registers (two
/// 256-thread blocks per SM; left alone, ptxas takes ~150 for the bulk path and a block then runs
/// alone), larger tiles take what they need unless a cap (CAP > 0, see kRegisterCaps) is compiled.
constexpr int max_registers(int items, int cap) { return cap > 0 ? cap : (items <= 16 ? 128 : 255); }

template <class P, int T, int MD, int CAP = 0, int REUSE = 0>
__global__ void __maxnreg__(max_registers(T* MD, CAP)) dedisp_kernel(const DedispKernelParams p) {
  extern __shared__ __align__(16) std::uint32_t smem[];
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  const int nthreads = static_cast<int>(blockDim.x * blockDim.y);
  const int tid = ty * static_cast<int>(blockDim.x) + tx;
  const int tile_words = static_cast<int>(blockDim.x) * T;
  const int dms_per_block = static_cast<int>(blockDim.y) * MD;
  // DM blocks vary fastest, so the blocks resident at one time share time tiles (L2 reuse).
  const int dm_block = static_cast<int>(blockIdx.x % static_cast<unsigned>(p.dm_blocks));
  const std::int64_t u0 = static_cast<std::int64_t>(blockIdx.x / static_cast<unsigned>(p.dm_blocks)) * tile_words;
  const int cs = p.chans_per_stage;
  const int stage_words = cs * (p.row_pitch + p.record_ints);
  const int nchunks = (p.nkept + cs - 1) / cs;
  const std::int32_t* block_records =
      p.records + static_cast<std::size_t>(dm_block) * static_cast<std::size_t>(p.nkept) * p.record_ints;

  // Stages chunk `chunk` (if it exists) and commits one copy group either way, so that the
  // group count per chunk stays fixed for copy_wait.
  auto issue = [&](int chunk) {
    if (chunk < nchunks) {
      std::uint32_t* sdata = smem + (chunk % p.stages) * stage_words;
      std::int32_t* srec = reinterpret_cast<std::int32_t*>(sdata + cs * p.row_pitch);
      const int first = chunk * cs;
      const int nrows = min(cs, p.nkept - first);
      const int warp = tid / 32;
      const int lane = tid % 32;
      for (int r = warp; r < nrows; r += nthreads / 32) {
        const std::int32_t* rec = block_records + static_cast<std::size_t>(first + r) * p.record_ints;
        const tiling::RowWindow w = tiling::row_window(u0, __ldg(rec), __ldg(rec + 1), tile_words);
        const std::uint32_t* src = p.g + static_cast<std::size_t>(first + r) * p.g_row_words + w.start;
        std::uint32_t* dst = sdata + r * p.row_pitch;
        for (int i = lane * 4; i < w.words; i += 128) copy16_async(dst + i, src + i);
        for (int i = lane * 4; i < p.record_ints; i += 128) copy16_async(srec + r * p.record_ints + i, rec + i);
      }
    }
    copy_commit();
  };

  constexpr bool kLocalTotals = CAP > 0 && CAP < 255 && T * MD > 16;
  tiling::ThreadTile<P, T, MD, kLocalTotals> acc;
  typename P::Total local_totals[kLocalTotals ? MD : 1][kLocalTotals ? T : 1];
  if constexpr (kLocalTotals) acc.bind(local_totals);
  acc.aux = p.hi_multiplier;
  const int word0 = tiling::tile_word(tx, 0, T);
  // REUSE: the leading kept channels of this DM block whose offsets may carry reuse flags
  // (kRecordReuseRows).
  const int reuse_rows = REUSE != 0 ? __ldg(block_records + tiling::kRecordReuseRows) : 0;
  auto add_chunk = [&](int chunk) {
    const std::uint32_t* sdata = smem + (chunk % p.stages) * stage_words;
    const std::int32_t* srec = reinterpret_cast<const std::int32_t*>(sdata + cs * p.row_pitch);
    const int nrows = min(cs, p.nkept - chunk * cs);
    acc.template add_rows<REUSE>(sdata, p.row_pitch, srec + tiling::kRecordHeader, p.record_ints, ty * MD, nrows, word0,
                                 p.flush_chans, REUSE != 0 ? max(0, min(nrows, reuse_rows - chunk * cs)) : 0);
  };
#if __CUDA_ARCH__ >= 900
  if (p.bulk_copy) {
    // One mbarrier per stage, after the stages, completed when the stage's copies have landed. The
    // last warp issues: its lane r copies row r (r + 32, ...) in one piece, lane 0 the chunk's
    // records. One block barrier a chunk frees the buffer for its refill. (Handing the buffers
    // back with a second, per-warp mbarrier instead measured 2% slower on apertif; the warps then
    // waited for the data where they had waited at the barrier.)
    std::uint64_t* bars = reinterpret_cast<std::uint64_t*>(smem + p.stages * stage_words);
    if (tid == 0) {
      for (int s = 0; s < p.stages; ++s) barrier_init(bars + s, 1);
      asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    const bool issuer = tid / 32 == nthreads / 32 - 1;
    const int lane = tid % 32;
    auto issue_bulk = [&](int chunk) {
      if (!issuer || chunk >= nchunks) return;
      std::uint64_t* bar = bars + chunk % p.stages;
      std::uint32_t* sdata = smem + (chunk % p.stages) * stage_words;
      const int first = chunk * cs;
      const int nrows = min(cs, p.nkept - first);
      for (int r = lane; r < nrows; r += 32) {
        const std::int32_t* rec = block_records + static_cast<std::size_t>(first + r) * p.record_ints;
        const tiling::RowWindow w = tiling::row_window(u0, __ldg(rec), __ldg(rec + 1), tile_words);
        const auto bytes = static_cast<unsigned>(w.words) * 4U;
        barrier_expect_bytes(bar, bytes);
        bulk_copy(sdata + r * p.row_pitch, p.g + static_cast<std::size_t>(first + r) * p.g_row_words + w.start, bytes,
                  bar);
      }
      if (lane == 0) {
        const auto bytes = static_cast<unsigned>(nrows * p.record_ints) * 4U;
        barrier_expect_bytes(bar, bytes);
        bulk_copy(sdata + cs * p.row_pitch, block_records + static_cast<std::size_t>(first) * p.record_ints, bytes,
                  bar);
      }
      __syncwarp();
      if (lane == 0) barrier_arrive(bar);
    };
    for (int s = 0; s + 1 < p.stages; ++s) issue_bulk(s);
    for (int chunk = 0; chunk < nchunks; ++chunk) {
      issue_bulk(chunk + p.stages - 1);  // into the buffer the barrier below freed
      barrier_wait(bars + chunk % p.stages, static_cast<unsigned>(chunk / p.stages) & 1U);
      add_chunk(chunk);
      __syncthreads();
    }
  } else
#endif
  {
    for (int s = 0; s + 1 < p.stages; ++s) issue(s);
    for (int chunk = 0; chunk < nchunks; ++chunk) {
      issue(chunk + p.stages - 1);
      copy_wait(p.stages - 1);
      __syncthreads();
      add_chunk(chunk);
      __syncthreads();
    }
  }
  if (P::kFlushes) acc.flush_all();

  const int dm_first = dm_block * dms_per_block + ty * MD;
#pragma unroll
  for (int j = 0; j < MD; ++j) {
    const int m = dm_first + j;
    if (m >= p.ndms) continue;
    float* row = p.out + static_cast<std::size_t>(m) * static_cast<std::size_t>(p.out_pitch);
#pragma unroll
    for (int k = 0; k < T; ++k) {
      const std::int64_t u = u0 + tiling::tile_word(tx, k, T);
      if (u >= p.q) continue;
#pragma unroll
      for (int lane = 0; lane < P::kLanes; ++lane) {
        const std::int64_t t = lane * p.q + u;
        if (t >= p.n_out) continue;
        if constexpr (P::kIsFloat) {
          row[t] = static_cast<float>(acc.total[j][k].v);
        } else {
          row[t] = tiling::integer_output(P::lane_sum(acc.total[j][k], acc.part[j][k], lane), p.signed_offset);
        }
      }
    }
  }
}

/// The three operations every compiled dedispersion kernel offers, for any kernel `fn` taking
/// DedispKernelParams: 0 = read its attributes, 1 = allow `shared_bytes` of dynamic shared
/// memory, 2 = launch over the (time tile x DM block) grid of `s` and `p`.
template <class Kernel>
cudaError_t kernel_fn_op(Kernel* fn, int op, const KernelShape& s, const DedispKernelParams* p,
                         std::size_t shared_bytes, cudaStream_t stream, KernelAttributes* attrs) {
  if (op == 0) {
    cudaFuncAttributes a{};
    const cudaError_t e = cudaFuncGetAttributes(&a, fn);
    if (e != cudaSuccess) return e;
    attrs->registers = a.numRegs;
    attrs->max_threads = a.maxThreadsPerBlock;
    attrs->local_bytes = a.localSizeBytes;
    return cudaSuccess;
  }
  if (op == 1) {
    return cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes));
  }
  const std::int64_t tiles = (p->q + s.tile_words() - 1) / s.tile_words();
  const std::int64_t blocks = tiles * p->dm_blocks;
  if (blocks <= 0) return cudaSuccess;
  if (blocks > 0x7FFFFFFF) return cudaErrorInvalidConfiguration;
  fn<<<dim3(static_cast<unsigned>(blocks)),
       dim3(static_cast<unsigned>(s.threads_time), static_cast<unsigned>(s.threads_dm)), shared_bytes, stream>>>(*p);
  return cudaGetLastError();
}

template <class P, int T, int MD, int REUSE>
cudaError_t kernel_op_reuse(int op, const KernelShape& s, const DedispKernelParams* p, std::size_t shared_bytes,
                            cudaStream_t stream, KernelAttributes* attrs) {
  if constexpr (T * MD > 16) {
    // The large tile: its default (255) or one of the compiled caps.
    if (s.max_regs == 128) {
      return kernel_fn_op(dedisp_kernel<P, T, MD, 128, REUSE>, op, s, p, shared_bytes, stream, attrs);
    }
    if (s.max_regs == 168) {
      return kernel_fn_op(dedisp_kernel<P, T, MD, 168, REUSE>, op, s, p, shared_bytes, stream, attrs);
    }
    if (s.max_regs != 0 && s.max_regs != 255) return cudaErrorInvalidValue;
  } else {
    if (s.max_regs != 0 && s.max_regs != 128) return cudaErrorInvalidValue;
  }
  return kernel_fn_op(dedisp_kernel<P, T, MD, 0, REUSE>, op, s, p, shared_bytes, stream, attrs);
}

template <class P, int T, int MD>
cudaError_t kernel_op(int op, const KernelShape& s, const DedispKernelParams* p, std::size_t shared_bytes,
                      cudaStream_t stream, KernelAttributes* attrs) {
  if (s.reuse != 0) {
    if constexpr (reuse_compiled(T, MD)) {
      // reuse=2 (words kept, odd bytes made again) differs from 1 for Lanes4 only; compiled for its 4 x 8 tile.
      if constexpr (std::is_same_v<P, tiling::Lanes4> && T * MD > 16) {
        if (s.reuse == 2) return kernel_op_reuse<P, T, MD, 2>(op, s, p, shared_bytes, stream, attrs);
      }
      return kernel_op_reuse<P, T, MD, 1>(op, s, p, shared_bytes, stream, attrs);
    } else {
      return cudaErrorInvalidValue;
    }
  }
  return kernel_op_reuse<P, T, MD, 0>(op, s, p, shared_bytes, stream, attrs);
}

/// Picks the compiled kernel for (items_time, items_dm) of lane mode P.
template <class P>
cudaError_t lanes_op(int op, const KernelShape& s, const DedispKernelParams* p, std::size_t shared_bytes,
                     cudaStream_t stream, KernelAttributes* attrs) {
#define FASTPSR_DEDISP_CASE(T, MD) \
  if (s.items_time == (T) && s.items_dm == (MD)) return kernel_op<P, T, MD>(op, s, p, shared_bytes, stream, attrs)
  FASTPSR_DEDISP_CASE(1, 1);
  FASTPSR_DEDISP_CASE(1, 2);
  FASTPSR_DEDISP_CASE(1, 4);
  FASTPSR_DEDISP_CASE(1, 8);
  FASTPSR_DEDISP_CASE(2, 1);
  FASTPSR_DEDISP_CASE(2, 2);
  FASTPSR_DEDISP_CASE(2, 4);
  FASTPSR_DEDISP_CASE(2, 8);
  FASTPSR_DEDISP_CASE(4, 1);
  FASTPSR_DEDISP_CASE(4, 2);
  FASTPSR_DEDISP_CASE(4, 4);
  FASTPSR_DEDISP_CASE(4, 8);
#undef FASTPSR_DEDISP_CASE
  return cudaErrorInvalidValue;
}

}  // namespace detail
}  // namespace fastpsr::cuda
