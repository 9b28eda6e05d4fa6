// SPDX-License-Identifier: MIT
// Harmonic sums in persistent blocks with double-buffered sub-harmonic windows (hs=pipe, sm_90).
// The tiles and windows are those of hs=tiled (harmonic_sum_tiled.cu: a tile is `threads` rk x
// `Rows` z rows; term h/H reads a window of at most floor((threads - 1) h/H) + 2 columns by the
// term's sub-harmonic rows of the band), but each block is resident for many tiles:
// - a block owns one z band and a contiguous run of rk tiles (a "lane": spectrum x chunk of the rk
//   range x band, bands fastest, so the bands of one chunk walk the same rk at the same time and
//   the rows they share come from L2). The band's sub-harmonic row tables are computed once.
// - the windows of tile i+1 are copied by the Tensor Memory Accelerator (cp.async.bulk, one
//   instruction per window row, completion counted in bytes by an mbarrier) while the block sums
//   tile i from the other buffer; the highest harmonic's own powers of tile i+1 are loaded into
//   registers meanwhile. Window rows start at a 16-byte aligned plane column (the bulk copy's
//   alignment): each term's window is shifted by `mis` < 16 bytes, its pitch rounded up.
// - the term loop is unrolled (h, H and the term's row-offset slots are constants), and the column
//   of term h/H is computed in 32 bits from the tile's first rk.
// The sums run in the CPU backend's order (stage by stage, odd h ascending): hits are bit-identical
// to hs=tiled and hs=gather. On devices below sm_90 the kernel is not built (it traps; the host
// never selects it there: harmonic_sums_pipe_limits reports it unavailable).
//
// Step 2 (hs_pair=1): a thread sums a pair of neighbouring rk (rk, rk + 1) at once as an upper
// bound. Term h/H of rk + 1 reads the sub-harmonic column of rk or the one after it (h < H), in
// the same rows, so the sum of max(column, column + 1) over the terms, in the same order, is >=
// both rk's sums (float addition rounds monotonically). A stage's bound is mostly far below the
// threshold; where it is not, the thread sums both rk again exactly, term by term from the same
// windows in the same order, and emits what the step-1 kernel emits, to the bit. The bound costs
// about the instructions of one rk (two shared loads and a max a term instead of one load), so
// the pairs halve the sums' instruction stream; the windows (bytes) stay the same.
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>

#include "accel/accel_kernels.hpp"
#include "accel/harmonic_hits.cuh"
#include "accel/harmonic_terms.cuh"
#include "accel/plane_io.cuh"

namespace fastpsr::cuda::accel {
namespace {

constexpr int kPipeMaxStages = 6;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
template <typename P>
struct PipeValue;

template <>
struct PipeValue<float> {
  static __device__ __forceinline__ float add(float acc, float v) { return acc + v; }
};

template <>
struct PipeValue<__half> {
  // As PlaneIo<__half>::load: the product by 256 is exact, so acc + v * 256 rounds once either way.
  static __device__ __forceinline__ float add(float acc, __half v) { return acc + __half2float(v) * 256.0F; }
};

__device__ __forceinline__ unsigned smem_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void barrier_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void barrier_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void barrier_expect_bytes(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void barrier_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
__device__ __forceinline__ void barrier_wait(unsigned bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (done == 0);
}
// Generic-proxy reads of a buffer before the async proxy writes it again.
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
__device__ __forceinline__ void bulk_copy(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}
#endif

// Plane values of a window row: the widest window plus the alignment shift, in whole 16 bytes. A
// tile spans threads x step rk; with pairs (step 2) the window holds one more column, the
// neighbour of the last rk's.
__host__ __device__ constexpr int pipe_pitch(int threads, int step, int h, int s, int per16) {
  return ((((threads * step - 1) * h) >> s) + 2 + (step - 1) + per16 - 1 + per16 - 1) / per16 * per16;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
template <typename P>
__device__ __forceinline__ P larger(P a, P b);
template <>
__device__ __forceinline__ float larger(float a, float b) {
  return fmaxf(a, b);  // a NaN gives the other value: never below a number it hides
}
template <>
__device__ __forceinline__ __half larger(__half a, __half b) {
  return __hmax(a, b);  // likewise
}

// Column, within the tile's window of term h/H (H = 2^s), of the rk `at` past the tile's first
// rk r_first: the low 32 bits of r_first h + H/2 give its bits below s and the window's alignment
// shift (the first column's offset from a 16-byte boundary of plane values) exactly.
__device__ __forceinline__ unsigned window_column(unsigned first_lo, unsigned base_lo, int h, int s, unsigned at,
                                                  int per16) {
  const unsigned H = 1U << s;
  const unsigned u = first_lo * static_cast<unsigned>(h) + (H >> 1);
  return (((u & (H - 1U)) + at * static_cast<unsigned>(h)) >> s) +
         (((u >> s) - base_lo) & static_cast<unsigned>(per16 - 1));
}

// The exact sums of stage s of the pair (rk, rk + 1) at one z row, in the step-1 order: the top
// term `own` (the row's plane values, indexed by rk), then every term of stages 1 .. s from the
// tile's windows (`offsets`: that row's byte offset of each term's window row). It runs only
// where a bound passes a cut.
template <typename P>
__device__ __forceinline__ float2 exact_pair(const P* own, long long rk, bool second, const unsigned char* window,
                                             const int* offsets, int offset_stride, int s, unsigned first_lo,
                                             unsigned base_lo, unsigned my) {
  constexpr int kPer16 = 16 / static_cast<int>(sizeof(P));
  float e0 = PlaneIo<P>::load(own + rk);
  float e1 = second ? PlaneIo<P>::load(own + rk + 1) : 0.0F;
  for (int t = 0; t < (1 << s) - 1; ++t) {
    const SumTerm term = sum_term(t);
    const P* w = reinterpret_cast<const P*>(window + offsets[t * offset_stride]);
    e0 = PipeValue<P>::add(e0, w[window_column(first_lo, base_lo, term.harmonic, term.stage, my, kPer16)]);
    e1 = PipeValue<P>::add(e1, w[window_column(first_lo, base_lo, term.harmonic, term.stage, my + 1U, kPer16)]);
  }
  return make_float2(e0, e1);
}

// The same, called rather than inlined: inlined into the 8-row kernel (capped at 128 registers)
// ptxas spilled 1.2-1.6 KiB; called, 0-96 bytes. Inlined is the better of the two at 4 and 16 rows
// (16 rows, f16: 8 bytes spilled against 168).
template <typename P>
__device__ __noinline__ float2 exact_pair_call(const P* own, long long rk, bool second, const unsigned char* window,
                                               const int* offsets, int offset_stride, int s, unsigned first_lo,
                                               unsigned base_lo, unsigned my) {
  return exact_pair(own, rk, second, window, offsets, offset_stride, s, first_lo, base_lo, my);
}

#endif

template <int Rows, typename P, int Step>
__device__ __forceinline__ void pipe_sums(const P* __restrict__ plane, const int* __restrict__ sub_zi,
                                          const HarmonicGeometry& g, const PipeLayout& layout, int chunks,
                                          DeviceHit* __restrict__ hits, unsigned long long* __restrict__ counts,
                                          unsigned long long capacity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr int kPer16 = 16 / static_cast<int>(sizeof(P));        // plane values in 16 bytes
  extern __shared__ __align__(128) unsigned char smem[];          // [2 buffers][window values], then the row list
  __shared__ __align__(16) int row_offset[kTiledMaxTerms][Rows];  // bytes from the buffer's start
  __shared__ int term_row0[kTiledMaxTerms];
  __shared__ int term_rows[kTiledMaxTerms];
  __shared__ int term_first[kTiledMaxTerms + 1];
  __shared__ TermView term_view[kTiledMaxTerms];  // g.view[1 + t], for the copies' divergent t
  __shared__ __align__(8) unsigned long long full[2];

  const int threads = static_cast<int>(blockDim.x);
  const int span = threads * Step;  // rk a tile
  const int tid = static_cast<int>(threadIdx.x);
  const int terms = (1 << (g.stages - 1)) - 1;
  const int bands = (g.numz + Rows - 1) / Rows;
  const int band = static_cast<int>(blockIdx.x % static_cast<unsigned>(bands));
  const int lane = static_cast<int>(blockIdx.x / static_cast<unsigned>(bands));
  const int chunk = lane % chunks;
  const long long b = lane / chunks;
  const long long tiles = (g.rk_hi - g.rk_lo + span - 1) / span;
  const long long tile_begin = tiles * chunk / chunks;
  const long long tile_end = tiles * (chunk + 1) / chunks;
  if (tile_begin >= tile_end) return;  // the whole block
  const int z_first = band * Rows;
  const int z_last = min(z_first + Rows, g.numz) - 1;
  const P* pl = plane + b * g.plane_stride;
  const P* own = pl + g.view[0].origin;
  DeviceHit* my_hits = hits + b * static_cast<long long>(capacity);
  unsigned long long* my_count = counts + b;
  const unsigned buffer_bytes = static_cast<unsigned>(layout.offset[terms]) * static_cast<unsigned>(sizeof(P));
  int2* list = reinterpret_cast<int2*>(smem + 2 * buffer_bytes);  // per window row: (byte offset, row | term << 16)

  // The band's tables, once: rows of each term and where the top rows' sub-harmonic rows lie.
  for (int t = tid; t < terms; t += threads) {
    const SumTerm term = sum_term(t);
    const int* rows_of_term = sub_zi + t * g.numz;
    const int row0 = __ldg(rows_of_term + z_first);
    const int rows = __ldg(rows_of_term + z_last) - row0 + 1;
    const int pitch = pipe_pitch(threads, Step, term.harmonic, term.stage, kPer16);
    if (rows * pitch > layout.offset[t + 1] - layout.offset[t]) __trap();  // host layout wrong
    term_row0[t] = row0;
    term_rows[t] = rows;
    term_view[t] = g.view[t + 1];
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
      row_offset[t][r] = (layout.offset[t] + (__ldg(rows_of_term + min(z_first + r, z_last)) - row0) * pitch) *
                         static_cast<int>(sizeof(P));
    }
  }
  if (tid == 0) {
    barrier_init(smem_address(&full[0]), static_cast<unsigned>(threads));
    barrier_init(smem_address(&full[1]), static_cast<unsigned>(threads));
    barrier_init_fence();
  }
  __syncthreads();
  if (tid == 0) {
    int n = 0;
    for (int t = 0; t < terms; ++t) {
      term_first[t] = n;
      n += term_rows[t];
    }
    term_first[terms] = n;
    if (n > layout.rows) __trap();  // host layout wrong
  }
  __syncthreads();
  for (int t = 0; t < terms; ++t) {
    const SumTerm term = sum_term(t);
    const int pitch = pipe_pitch(threads, Step, term.harmonic, term.stage, kPer16);
    for (int j = tid; j < term_rows[t]; j += threads) {
      list[term_first[t] + j] =
          make_int2((layout.offset[t] + j * pitch) * static_cast<int>(sizeof(P)), (term_row0[t] + j) | (t << 16));
    }
  }
  __syncthreads();
  const int list_rows = term_first[terms];
  const unsigned smem_base = smem_address(smem);

  // Every window row of `tile` into buffer `buf`: one bulk copy each, counted by full[buf].
  auto issue = [&](long long tile, int buf) {
    const long long r_first = g.rk_lo + tile * span;
    const long long r_last = min(r_first + span, g.rk_hi) - 1;
    const unsigned bar = smem_address(&full[buf]);
    const unsigned dst = smem_base + static_cast<unsigned>(buf) * buffer_bytes;
    fence_proxy_async();
    for (int q = tid; q < list_rows; q += threads) {
      const int2 e = list[q];
      const int t = e.y >> 16;
      const int row = e.y & 0xffff;
      const auto [s, h] = sum_term(t);
      const int H = 1 << s;
      const long long c0 = (r_first * h + (H >> 1)) >> s;
      const long long c1 = ((r_last * h + (H >> 1)) >> s) + (Step - 1);
      const long long column = c0 - g.plane_base;
      const int mis = static_cast<int>(column & (kPer16 - 1));
      const int values = (static_cast<int>(c1 - c0) + 1 + mis + kPer16 - 1) / kPer16 * kPer16;
      if (values > pipe_pitch(threads, Step, h, s, kPer16)) __trap();
      const unsigned bytes = static_cast<unsigned>(values) * static_cast<unsigned>(sizeof(P));
      barrier_expect_bytes(bar, bytes);
      const TermView view = term_view[t];
      bulk_copy(dst + static_cast<unsigned>(e.x), pl + view.origin + row * view.pitch + (column - mis), bytes, bar);
    }
    barrier_arrive(bar);
  };
  // The highest harmonic's own powers of `tile` (idle threads load the last rk's); with pairs the
  // larger of the pair's two (the second clamped to the tile's last rk).
  auto load_own = [&](long long tile, float(&out)[Rows]) {
    const long long r_first = g.rk_lo + tile * span;
    const long long r_last = min(r_first + span, g.rk_hi) - 1;
    const long long rk = min(r_first + Step * tid, r_last);
#pragma unroll
    for (int r = 0; r < Rows; ++r) {
      const P* row = own + min(z_first + r, z_last) * g.view[0].pitch - g.plane_base;
      out[r] = PlaneIo<P>::load(row + rk);
      if constexpr (Step == 2) out[r] = fmaxf(out[r], PlaneIo<P>::load(row + min(rk + 1, r_last)));
    }
  };

  float next[Rows];
  issue(tile_begin, 0);
  load_own(tile_begin, next);
  int i = 0;
  for (long long tile = tile_begin; tile < tile_end; ++tile, ++i) {
    const int buf = i & 1;
    float acc[Rows];
#pragma unroll
    for (int r = 0; r < Rows; ++r) acc[r] = next[r];
    const long long r_first = g.rk_lo + tile * span;
    const long long r_last = min(r_first + span, g.rk_hi) - 1;
    const bool valid = r_first + Step * tid <= r_last;
    const long long rk = valid ? r_first + Step * tid : r_last;  // idle threads still take part in the votes
    const bool valid2 = Step == 2 && rk + 1 <= r_last && valid;  // the pair's second rk
    const unsigned first_lo = static_cast<unsigned>(r_first);
    const unsigned my = static_cast<unsigned>(rk - r_first);
    const unsigned char* window = smem + static_cast<unsigned>(buf) * buffer_bytes;
    const unsigned base_lo = static_cast<unsigned>(g.plane_base);
    // Stage s's hits. Pairs: where a bound passes the cut, both rk summed again exactly in the
    // step-1 order from the same windows (the top term from the plane); the window is still the
    // tile's (the barrier that frees it comes after the last stage).
    auto emit = [&](const float(&bound)[Rows], int s) {
      if constexpr (Step == 1) {
        emit_hits(bound, s, g.powcut[s], rk, valid, z_first, g.numz, my_hits, my_count, capacity);
      } else {
        const float cut = g.powcut[s];
        if (!warp_any_over(bound, cut, valid)) return;  // the common case: one vote a stage
                                                        // r a constant (unrolled): the bounds stay in registers.
#pragma unroll
        for (int r = 0; r < Rows; ++r) {
          const bool over = valid && z_first + r < g.numz && bound[r] > cut;
          if (__ballot_sync(0xffffffffU, over) == 0) continue;
          float2 e = make_float2(0.0F, 0.0F);
          if (over) {
            const P* own_row = own + (z_first + r) * g.view[0].pitch - g.plane_base;
            if constexpr (Rows == 8) {
              e = exact_pair_call(own_row, rk, valid2, window, &row_offset[0][r], Rows, s, first_lo, base_lo, my);
            } else {
              e = exact_pair(own_row, rk, valid2, window, &row_offset[0][r], Rows, s, first_lo, base_lo, my);
            }
          }
          emit_one(over && e.x > cut, e.x, rk, z_first + r, s, my_hits, my_count, capacity);
          emit_one(over && valid2 && e.y > cut, e.y, rk + 1, z_first + r, s, my_hits, my_count, capacity);
        }
      }
    };
    if (tile + 1 < tile_end) {
      issue(tile + 1, buf ^ 1);
      load_own(tile + 1, next);
    }
    emit(acc, 0);
    barrier_wait(smem_address(&full[buf]), static_cast<unsigned>(i >> 1) & 1U);

#pragma unroll
    for (int s = 1; s < kPipeMaxStages; ++s) {
      if (s >= g.stages) break;
#pragma unroll
      for (int h = 1; h < (1 << s); h += 2) {
        const int t = sum_term_index(s, h);
        const unsigned char* w =
            window + window_column(first_lo, base_lo, h, s, my, kPer16) * static_cast<unsigned>(sizeof(P));
        int offsets[Rows];
        if constexpr (Rows % 4 == 0) {
#pragma unroll
          for (int k = 0; k < Rows / 4; ++k) {
            const int4 o = reinterpret_cast<const int4*>(row_offset[t])[k];
            offsets[4 * k] = o.x;
            offsets[4 * k + 1] = o.y;
            offsets[4 * k + 2] = o.z;
            offsets[4 * k + 3] = o.w;
          }
        } else {
#pragma unroll
          for (int r = 0; r < Rows; ++r) offsets[r] = row_offset[t][r];
        }
#pragma unroll
        for (int r = 0; r < Rows; ++r) {
          const P* v = reinterpret_cast<const P*>(w + offsets[r]);
          acc[r] = PipeValue<P>::add(acc[r], Step == 1 ? v[0] : larger(v[0], v[1]));
        }
      }
      emit(acc, s);
    }
    __syncthreads();  // buffer `buf` is read: the next iteration's copies may overwrite it
  }
#else
  (void)plane;
  (void)sub_zi;
  (void)g;
  (void)layout;
  (void)chunks;
  (void)hits;
  (void)counts;
  (void)capacity;
  __trap();
#endif
}

template <int Rows, typename P>
__global__ void harmonic_sum_pipe_kernel(const P* __restrict__ plane, const int* __restrict__ sub_zi,
                                         HarmonicGeometry g, PipeLayout layout, int chunks,
                                         DeviceHit* __restrict__ hits, unsigned long long* __restrict__ counts,
                                         unsigned long long capacity) {
  pipe_sums<Rows, P, 1>(plane, sub_zi, g, layout, chunks, hits, counts, capacity);
}

// Pairs (step 2) capped at 128 registers: two blocks of 256 threads an SM, as the step-1 kernel
// gets by itself (uncapped the pair kernel took 138 with 16 rows, and one block an SM).
template <int Rows, typename P>
__global__ void __maxnreg__(128)
    harmonic_sum_pair_kernel(const P* __restrict__ plane, const int* __restrict__ sub_zi, HarmonicGeometry g,
                             PipeLayout layout, int chunks, DeviceHit* __restrict__ hits,
                             unsigned long long* __restrict__ counts, unsigned long long capacity) {
  pipe_sums<Rows, P, 2>(plane, sub_zi, g, layout, chunks, hits, counts, capacity);
}

template <int Rows, typename P, int Step>
constexpr auto sums_kernel() {
  if constexpr (Step == 1) {
    return harmonic_sum_pipe_kernel<Rows, P>;
  } else {
    return harmonic_sum_pair_kernel<Rows, P>;
  }
}

template <typename P, int Rows, int Step>
cudaError_t launch_rows(const P* plane, const int* sub_zi, const HarmonicGeometry& g, const PipeLayout& layout,
                        DeviceHit* hits, unsigned long long* counts, unsigned long long capacity, int threads,
                        int batch, int multiprocessors, cudaStream_t stream) {
  const auto kernel = sums_kernel<Rows, P, Step>();
  const std::size_t smem =
      pipe_dynamic_smem_bytes(layout, g.stages, sizeof(P) == 2 ? PlaneFormat::f16 : PlaneFormat::f32);
  cudaError_t status =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  if (status != cudaSuccess) return status;
  status = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
  if (status != cudaSuccess) return status;
  int per_sm = 0;
  status = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem);
  if (status != cudaSuccess) return status;
  if (per_sm < 1) return cudaErrorInvalidConfiguration;
  // Lanes (spectrum x chunk x band) in whole waves of the resident blocks, as nearly as chunks allow.
  const long long tiles = (g.rk_hi - g.rk_lo + threads * Step - 1) / (threads * Step);
  if (tiles < 1) return cudaSuccess;
  const long long resident = static_cast<long long>(per_sm) * multiprocessors;
  const long long per_chunk = static_cast<long long>(batch) * ((g.numz + Rows - 1) / Rows);
  const long long most = std::max(1LL, std::min(tiles, (4 * resident + per_chunk - 1) / per_chunk));
  long long chunks = 1;
  double best = 0.0;
  for (long long c = 1; c <= most; ++c) {
    const long long lanes = c * per_chunk;
    const long long waves = (lanes + resident - 1) / resident;
    const double use = static_cast<double>(lanes) / static_cast<double>(waves * resident);
    if (use > best + 1e-9) {
      best = use;
      chunks = c;
    }
  }
  if (chunks * per_chunk >= (1LL << 31)) return cudaErrorInvalidConfiguration;
  kernel<<<static_cast<unsigned>(chunks * per_chunk), threads, smem, stream>>>(
      plane, sub_zi, g, layout, static_cast<int>(chunks), hits, counts, capacity);
  return cudaGetLastError();
}

template <typename P, int Step>
cudaError_t launch_typed(const P* plane, const int* sub_zi, const HarmonicGeometry& g, const PipeLayout& layout,
                         DeviceHit* hits, unsigned long long* counts, unsigned long long capacity, int threads,
                         int rows, int batch, int multiprocessors, cudaStream_t stream) {
  switch (rows) {
    case 4:
      return launch_rows<P, 4, Step>(plane, sub_zi, g, layout, hits, counts, capacity, threads, batch, multiprocessors,
                                     stream);
    case 8:
      return launch_rows<P, 8, Step>(plane, sub_zi, g, layout, hits, counts, capacity, threads, batch, multiprocessors,
                                     stream);
    case 16:
      return launch_rows<P, 16, Step>(plane, sub_zi, g, layout, hits, counts, capacity, threads, batch, multiprocessors,
                                      stream);
    default:
      return cudaErrorInvalidValue;
  }
}

template <int Step>
cudaError_t launch_stepped(const void* plane, PlaneFormat format, const int* sub_zi, const HarmonicGeometry& g,
                           const PipeLayout& layout, DeviceHit* hits, unsigned long long* counts,
                           unsigned long long capacity, int threads, int rows, int batch, int multiprocessors,
                           cudaStream_t stream) {
  if (format == PlaneFormat::f16) {
    return launch_typed<__half, Step>(static_cast<const __half*>(plane), sub_zi, g, layout, hits, counts, capacity,
                                      threads, rows, batch, multiprocessors, stream);
  }
  return launch_typed<float, Step>(static_cast<const float*>(plane), sub_zi, g, layout, hits, counts, capacity, threads,
                                   rows, batch, multiprocessors, stream);
}

template <int Rows, int Step>
PipeKernelLimits limits_of() {
  cudaFuncAttributes f32{};
  cudaFuncAttributes f16{};
  if (cudaFuncGetAttributes(&f32, sums_kernel<Rows, float, Step>()) != cudaSuccess ||
      cudaFuncGetAttributes(&f16, sums_kernel<Rows, __half, Step>()) != cudaSuccess) {
    return {};
  }
  PipeKernelLimits l;
  l.available = f32.ptxVersion >= 90 && f16.ptxVersion >= 90 && f32.binaryVersion >= 90 && f16.binaryVersion >= 90;
  l.static_smem_bytes = std::max(f32.sharedSizeBytes, f16.sharedSizeBytes);
  l.max_threads = std::min(f32.maxThreadsPerBlock, f16.maxThreadsPerBlock);
  return l;
}

template <int Step>
PipeKernelLimits limits_of_rows(int rows) {
  switch (rows) {
    case 4:
      return limits_of<4, Step>();
    case 8:
      return limits_of<8, Step>();
    case 16:
      return limits_of<16, Step>();
    default:
      return {};
  }
}

}  // namespace

int pipe_window_pitch(int threads, int step, int h, int s, PlaneFormat format) {
  return pipe_pitch(threads, step, h, s, format == PlaneFormat::f16 ? 8 : 4);
}

PipeKernelLimits harmonic_sums_pipe_limits(int rows, int step) {
  if (step == 1) return limits_of_rows<1>(rows);
  if (step == 2) return limits_of_rows<2>(rows);
  return {};
}

cudaError_t launch_harmonic_sums_pipe(const void* plane, PlaneFormat format, const int* sub_zi,
                                      const HarmonicGeometry& g, const PipeLayout& layout, DeviceHit* hits,
                                      unsigned long long* counts, unsigned long long capacity, int threads, int rows,
                                      int step, int batch, int multiprocessors, cudaStream_t stream) {
  if (g.stages < 1 || g.stages > kPipeMaxStages || threads < 32 || multiprocessors < 1 || batch < 1 ||
      g.plane_stride % 8 != 0 || reinterpret_cast<std::uintptr_t>(plane) % 16 != 0 || g.numz > 0xffff ||
      (step != 1 && step != 2)) {
    return cudaErrorInvalidValue;
  }
  for (int v = 0; v < (1 << (g.stages - 1)); ++v) {
    if (g.view[v].origin % 8 != 0 || g.view[v].pitch % 8 != 0) return cudaErrorInvalidValue;  // bulk copy alignment
  }
  if (step == 2) {
    return launch_stepped<2>(plane, format, sub_zi, g, layout, hits, counts, capacity, threads, rows, batch,
                             multiprocessors, stream);
  }
  return launch_stepped<1>(plane, format, sub_zi, g, layout, hits, counts, capacity, threads, rows, batch,
                           multiprocessors, stream);
}

}  // namespace fastpsr::cuda::accel
