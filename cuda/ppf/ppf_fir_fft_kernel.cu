// SPDX-License-Identifier: MIT
// Complex output with the FIR and the FFT in one kernel, so that the filtered spectra never leave
// the SMs (ppf_kernels.cuh, FirFftArgs, says what it computes; ppf_cluster_fft.hpp the FFT split
// and every index).
//
// A cluster of 8 blocks (2M threads each, C = 16·M) owns a contiguous range of output spectra of
// one coarse channel. Thread t of block b filters channel 16·n + 8·h + b (h = t / M,
// n = t mod M) with its T taps in registers, in transposed form (a ring of T accumulators), so
// every input sample is loaded and converted once. Per batch of S = 16/P spectra ("phase" k),
// with one cluster barrier per phase:
//   - FIR of batch k from the raw input staged in the cluster's shared memory (DSMEM reads),
//     into the block's FFT buffer: 32 sequences of M points (S spectra × 2 halves × P);
//   - the M-point Stockham FFTs of those (radix 16 in registers, M/16 threads each, one padded
//     shared-memory exchange at M = 256), natural-order output back into the buffer;
//   - combine batch k − 1: read Y_s[k1] of the 16 sequences (8 blocks, DSMEM), twiddle, 16-point
//     DFT in registers, store the output rows (block b takes k1 in [b·M/8, (b + 1)·M/8), so
//     each store is a contiguous run);
//   - the raw input of batch k + 1 goes from device memory straight into shared memory
//     (cp.async, no registers): issued at the start of the phase into the other raw buffer, or,
//     where two raw buffers do not fit, after a split cluster barrier that says every block has
//     read the only one (then the combine hides the load).
// FFT buffers are double-buffered, so a buffer is rewritten only two barriers after the phase
// whose remote reads used it. The direction of the transform and the channel order are folded
// into where the outputs go (ppf_output_channel), so no phase factor is applied.
#include <cooperative_groups.h>

#include <cstdint>

#include "ppf_cluster_fft.hpp"
#include "ppf_kernels.cuh"
#include "ppf_sample.cuh"

namespace cg = cooperative_groups;

namespace fastpsr::cuda::ppf {
namespace {

using fft::Cf;

constexpr int R = kClusterBlocks;
constexpr std::size_t kMaxSmem = 227U * 1024U;  // opt-in limit of sm_90

// LEAN: the variant of 1024 threads per SM (kLeanThreadsPerSm, fir_window); else one block per SM.
template <typename In, int P, int T, int LOG2M, bool LEAN>
struct FirFftShape {
  using V = typename SampleVec<In, P>::type;
  using Plan = fft::StockhamPlan<LOG2M, kClusterLog2R>;
  static constexpr int M = 1 << LOG2M;
  static constexpr int S = cluster_batch(P);
  static constexpr int threads = 2 * M;
  static constexpr int log2vb = sizeof(V) == 2 ? 1 : sizeof(V) == 4 ? 2 : sizeof(V) == 8 ? 3 : 4;
  static constexpr int tf = cluster_transform_floats<Plan>();  // floats per transform
  static constexpr int fft_bufs = LEAN ? 1 : 2;
  static constexpr std::size_t fft_bytes = fft_bufs * kClusterTransforms * tf * sizeof(float);  // [fft_bufs][32][tf]
  static constexpr std::size_t raw_buf_bytes = static_cast<std::size_t>(S) * raw_block_chunks(LOG2M, log2vb) * 16U;
  static constexpr int raw_bufs = LEAN ? lean_ring_batches(T, S) : fft_bytes + 2U * raw_buf_bytes <= kMaxSmem ? 2 : 1;
  static constexpr std::size_t smem_bytes = fft_bytes + raw_bufs * raw_buf_bytes;
  static constexpr int loads_per_thread = static_cast<int>(S * raw_block_chunks(LOG2M, log2vb)) / threads;
  static_assert(loads_per_thread * threads == static_cast<int>(S * raw_block_chunks(LOG2M, log2vb)));
  static_assert(S * 2 * P == kClusterTransforms && threads / Plan::T == kClusterTransforms);
};
// The lean variant runs 1024 threads per SM (2 blocks at C = 4096, 4 at 2048, 8 at 1024), so 64
// registers per thread. It exists for one polarisation (two need 2T accumulator registers in the
// FIR) where those blocks' shared memory fits the 228 KiB of an sm_90 SM (1 KiB reserved per
// block).
constexpr int kLeanThreadsPerSm = 1024;
template <typename In, int P, int T, int LOG2M>
constexpr bool kLeanExists = P == 1 && (FirFftShape<In, P, T, LOG2M, true>::smem_bytes + 1024U) *
                                               (kLeanThreadsPerSm >> (LOG2M + 1)) <=
                                           228U * 1024U;

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900  // used by the cluster kernel only
__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }
__device__ __forceinline__ void copy16_async(void* smem, const void* global, bool valid) {
  const auto dst = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const unsigned src_bytes = valid ? 16U : 0U;  // 0: fill with zeros
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(global), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void copy_async_wait() { asm volatile("cp.async.wait_all;" ::: "memory"); }
// Distributed shared memory through 32-bit shared::cluster addresses: a generic pointer from
// map_shared_rank takes two registers, and the compiler keeps the 8 blocks' ones live through
// the whole kernel, which the lean variant's 64 registers cannot afford. The address is
// recomputed at each use (volatile: not hoisted out of the batch loop).
__device__ __forceinline__ unsigned cluster_address(const void* smem, unsigned rank) {
  unsigned r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(r)
               : "r"(static_cast<unsigned>(__cvta_generic_to_shared(smem))), "r"(rank));
  return r;
}
__device__ __forceinline__ float2 load_cluster_float2(unsigned addr) {
  float2 v;
  asm volatile("ld.shared::cluster.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "r"(addr) : "memory");
  return v;
}
#endif

// The FIR of one batch: inputs r = k·S + i, i < S, with OFF = (k·S) mod T; the output completed
// by input i goes to transform cluster_transform(i, h, p) at position n.
template <typename In, int P, int T, int S, int OFF, int TF, int FI, int LOG2M>
__device__ __forceinline__ void fir_batch(const unsigned char* src, unsigned src_stride, const float* coeff,
                                          float2 (&acc)[T][P], float* dst) {
  using V = typename SampleVec<In, P>::type;
  // The taps come from the read-only cache at every batch rather than living in registers
  // through the FFT and the combine (where they cost spills at T = 16); the empty asm keeps the
  // compiler from hoisting the loads out of the loop.
  asm volatile("" : "+l"(coeff));
  float w[T];
#pragma unroll
  for (int tap = 0; tap < T; ++tap) w[tap] = __ldg(coeff + static_cast<std::size_t>(tap) * (16U << LOG2M));
  constexpr int G0 = 64 / static_cast<int>(sizeof(V)) < 8 ? 64 / static_cast<int>(sizeof(V)) : 8;
  constexpr int G = G0 < S ? G0 : S;  // samples loaded ahead (registers)
  static_assert(S % G == 0);
#pragma unroll
  for (int g = 0; g < S; g += G) {
    V v[G];
#pragma unroll
    for (int i = 0; i < G; ++i) v[i] = *reinterpret_cast<const V*>(src + (g + i) * src_stride);  // loads first
#pragma unroll
    for (int i = 0; i < G; ++i) {
      float2 x[P];
      SampleVec<In, P>::to_float(v[i], x);
#pragma unroll
      for (int t = 0; t < T; ++t) {
        const int slot = fir_ring_slot(OFF + g + i, t, T);
#pragma unroll
        for (int p = 0; p < P; ++p) {
          if (t == 0) {
            acc[slot][p] = make_float2(w[0] * x[p].x, w[0] * x[p].y);
          } else {
            acc[slot][p].x = fmaf(w[t], x[p].x, acc[slot][p].x);
            acc[slot][p].y = fmaf(w[t], x[p].y, acc[slot][p].y);
          }
        }
      }
      const int done = fir_ring_slot(OFF + g + i + 1, 0, T);  // output r − (T − 1)
#pragma unroll
      for (int p = 0; p < P; ++p) {
        float* d = dst + ((2 * (g + i)) * P + p) * TF;  // transform (2i + h)·P + p; h is in dst
        d[0] = acc[done][p].x;
        d[FI] = acc[done][p].y;
      }
    }
  }
}

// The lean kernel's FIR of batch k: outputs i < S (spectrum k·S + i − (T − 1)) from the window of
// S + T − 1 input spectra in the raw ring (T − 1 of history, then the batch's own), so no state
// lives in registers outside this function. Output i sums w[t]·x[i + t] in increasing t, starting
// from w[0]·x[i], as fir_batch does: both variants give the same bits.
template <typename In, int P, int T, int S, int NB, int TF, int FI, int LOG2M>
__device__ __forceinline__ void fir_window(const unsigned char* ring, unsigned src_stride, unsigned buf_bytes, int k,
                                           const float* coeff, float* dst) {
  using V = typename SampleVec<In, P>::type;
  asm volatile("" : "+l"(coeff));  // as in fir_batch: the taps are reloaded at every batch
  float w[T];
#pragma unroll
  for (int tap = 0; tap < T; ++tap) w[tap] = __ldg(coeff + static_cast<std::size_t>(tap) * (16U << LOG2M));
  const unsigned char* base[NB];  // base[m]: the ring buffer of batch k − m
#pragma unroll
  for (int m = 0; m < NB; ++m) base[m] = ring + (static_cast<unsigned>(k + NB - m) % NB) * buf_bytes;
  constexpr int W = S + T - 1;
  constexpr int G = 64 / static_cast<int>(sizeof(V)) < 8 ? 64 / static_cast<int>(sizeof(V)) : 8;  // loads ahead
  float2 acc[T][P];  // output i in slot i mod T (at most T outputs are open at once)
#pragma unroll
  for (int g = 0; g < W; g += G) {
    V v[G];
#pragma unroll
    for (int i = 0; i < G; ++i) {
      const int j = g + i;
      if (j < W) {
        v[i] = *reinterpret_cast<const V*>(base[-lean_window_batch(j, T, S)] + lean_window_index(j, T, S) * src_stride);
      }
    }
#pragma unroll
    for (int i = 0; i < G; ++i) {
      const int j = g + i;
      if (j >= W) continue;
      float2 x[P];
      SampleVec<In, P>::to_float(v[i], x);
#pragma unroll
      for (int t = 0; t < T; ++t) {
        const int o = j - t;  // the output that input j adds tap t to
        if (o < 0 || o >= S) continue;
#pragma unroll
        for (int p = 0; p < P; ++p) {
          float2& a = acc[o % T][p];
          if (t == 0) {
            a = make_float2(w[0] * x[p].x, w[0] * x[p].y);
          } else {
            a.x = fmaf(w[t], x[p].x, a.x);
            a.y = fmaf(w[t], x[p].y, a.y);
          }
        }
      }
      const int done = j - (T - 1);  // output complete after input j
      if (done >= 0 && done < S) {
#pragma unroll
        for (int p = 0; p < P; ++p) {
          float* d = dst + ((2 * done) * P + p) * TF;
          d[0] = acc[done % T][p].x;
          d[FI] = acc[done % T][p].y;
        }
      }
    }
  }
}

template <typename In, int P, int T, int LOG2M, bool LEAN>
__global__ void __launch_bounds__(2 << LOG2M, LEAN ? kLeanThreadsPerSm / (2 << LOG2M) : 1)
    fir_fft_kernel(FirFftArgs a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  // Thread-block clusters exist from compute capability 9.0; the engine refuses fft=cluster on
  // older GPUs, so this body is never run there (it only lets the other architectures build).
  (void)a;
  __trap();
#else
  using Shape = FirFftShape<In, P, T, LOG2M, LEAN>;
  using V = typename Shape::V;
  using Plan = typename Shape::Plan;
  constexpr int M = Shape::M;
  constexpr int S = Shape::S;
  constexpr int TF = Shape::tf;
  constexpr int FI = Plan::smem_floats();  // offset of the imaginary parts in a transform
  constexpr int LOG2VB = Shape::log2vb;
  constexpr unsigned C = 16U * M;
  constexpr bool kTwoRaw = Shape::raw_bufs == 2;
  static_assert(T <= 2 * S && (T & (T - 1)) == 0, "the ring offset of a batch is 0 or S");
  extern __shared__ float4 smem_words[];
  auto* fftbuf = reinterpret_cast<float*>(smem_words);  // [fft_bufs][32][TF]
  auto* raw = reinterpret_cast<unsigned char*>(fftbuf + Shape::fft_bufs * kClusterTransforms * TF);  // [raw_bufs][]
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned b = cluster.block_rank();
  const unsigned t = threadIdx.x;
  const int cid = static_cast<int>(blockIdx.x) / R;
  const int f = static_cast<int>(blockIdx.y);
  const long long s_begin = static_cast<long long>(cid) * a.spectra_per_cluster;
  const int n_out =
      static_cast<int>(max(0LL, min(static_cast<long long>(a.spectra_per_cluster), a.nspectra - s_begin)));
  const int n_in = n_out > 0 ? n_out + T - 1 : 0;
  const int nbatch = (n_in + S - 1) / S;

  // Raw input: this block's share of every spectrum, 16-byte chunks.
  const auto* in =
      static_cast<const unsigned char*>(a.in) +
      (static_cast<std::size_t>(f) * a.in_coarse_stride + static_cast<std::size_t>(s_begin) * C) * sizeof(V) +
      static_cast<std::size_t>(b) * raw_block_chunks(LOG2M, LOG2VB) * 16U;
  const bool aligned = ((reinterpret_cast<std::uintptr_t>(a.in) | (a.in_coarse_stride * sizeof(V))) & 15U) == 0;
  auto load_batch = [&](int k, unsigned char* buf) {
#pragma unroll
    for (int z = 0; z < Shape::loads_per_thread; ++z) {
      const RawLoad l = raw_load(b, t + static_cast<unsigned>(z * Shape::threads), LOG2M, LOG2VB);
      const int r = k * S + static_cast<int>(l.i);
      const bool valid = r < n_in;
      const unsigned char* src = in + (static_cast<std::size_t>(valid ? r : 0) * C * sizeof(V) + l.w * 16U);
      unsigned char* dst = buf + l.dst * 16U;
      if (aligned) {
        copy16_async(dst, src, valid);
      } else {  // samples one by one (pushes of odd sizes with several coarse channels)
#pragma unroll
        for (unsigned o = 0; o < 16U; o += sizeof(V)) {
          *reinterpret_cast<V*>(dst + o) = valid ? __ldg(reinterpret_cast<const V*>(src + o)) : V{};
        }
      }
    }
  };
  auto raw_buf = [&](int k) { return raw + (k % Shape::raw_bufs) * Shape::raw_buf_bytes; };

  // FIR: channel cluster_channel(b, t), its taps; its raw samples sit in block raw_owner(n).
  const unsigned n = t & (M - 1U);
  const unsigned h = t >> LOG2M;
  const unsigned c_fir = cluster_channel(b, t, LOG2M);
  const float* coeff = a.coeff + c_fir;
  const auto* raw_src = cluster.map_shared_rank(raw, raw_owner(n, LOG2M)) + raw_sample_byte(b, t, 0, LOG2M, LOG2VB);
  constexpr unsigned raw_stride = 2U * (1U << (LOG2M - 3)) * raw_group_chunks(LOG2VB) * 16U;  // per spectrum
  float2 acc[LEAN ? 1 : T][P];  // the transposed FIR's ring (not in the lean variant)
#pragma unroll
  for (int tap = 0; tap < (LEAN ? 1 : T); ++tap) {
#pragma unroll
    for (int p = 0; p < P; ++p) acc[tap][p] = make_float2(0.0F, 0.0F);
  }

  // FFT: thread t works on transform t / (M/16), as Stockham thread j.
  const auto* twiddle = reinterpret_cast<const Cf*>(a.twiddle);  // exp(+2πi·t/C), t < C
  const Cf* twiddle_m = twiddle + C;                             // exp(+2πi·t/M), t < M
  const int q_fft = static_cast<int>(t) / Plan::T;
  const int j_fft = static_cast<int>(t) % Plan::T;

  // Combine: polarisation, spectrum of the batch, bin k1.
  const CombineItem item = combine_item(b, t, LOG2M, P);
  const int f_out = a.descending ? a.ncoarse - 1 - f : f;
  float2* out_base = a.out + static_cast<std::size_t>(f_out) * C * P + item.p;
  const unsigned comb_off = cluster_transform(item.i, 0, item.p, P) * (TF / 2) + item.k1;  // float2
  auto combine = [&](int k) {
    const int s_rel = k * S + static_cast<int>(item.i) - (T - 1);
    const unsigned off = comb_off + static_cast<unsigned>((k % Shape::fft_bufs) * kClusterTransforms * (TF / 2));
    Cf y[16];
#pragma unroll
    for (int r = 0; r < 8; ++r) {  // sequences r and r + 8 (halves 0 and 1) of block r
      const unsigned src = cluster_address(fftbuf, static_cast<unsigned>(r)) + off * 8U;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const float2 v = load_cluster_float2(src + static_cast<unsigned>(half * P * (TF / 2)) * 8U);
        y[r + 8 * half] = Cf{v.x, v.y};
      }
    }
    // The twiddles and the 16 output channels depend on k1 only; hidden from the compiler so
    // that it does not keep them in registers through the batch loop (as with the FIR taps).
    unsigned k1 = item.k1;
    const Cf* tw = twiddle;
    asm volatile("" : "+r"(k1), "+l"(tw));
    cluster_combine(y, k1, tw);
    if (s_rel < 0 || s_rel >= n_out) return;
    float2* row = out_base + static_cast<std::size_t>(s_begin + s_rel) * a.row_complex;
#pragma unroll
    for (int k2 = 0; k2 < 16; ++k2) {
      const unsigned j = ppf_output_channel(k1 + static_cast<unsigned>(k2 * M), C, a.descending);
      __stcs(row + static_cast<std::size_t>(j) * P, make_float2(y[k2].re, y[k2].im));
    }
  };

  // The blocks' M-point FFTs of the 32 transforms of buffer fb, in place.
  auto fft_batch = [&](float* fb) {
    float* tb = fb + q_fft * TF;
    Cf v[1][Plan::R];
#pragma unroll
    for (int m = 0; m < Plan::R; ++m) v[0][m] = Cf{tb[j_fft + m * Plan::T], tb[FI + j_fft + m * Plan::T]};
    const Cf* tw = twiddle_m;
    asm volatile("" : "+l"(tw));  // the pass twiddles: reloaded, not kept in registers between batches
    fft::stockham_inverse<Plan, 0, 1>(v, tb, tw, j_fft);
    __syncthreads();  // every thread has read the exchange
    auto* out2 = reinterpret_cast<float2*>(tb);
#pragma unroll
    for (int m = 0; m < Plan::R; ++m) out2[j_fft + m * Plan::T] = make_float2(v[0][m].re, v[0][m].im);
  };

  if (nbatch > 0) {
    load_batch(0, raw_buf(0));
    copy_async_wait();
  }
  cluster.sync();
  if constexpr (LEAN) {
    // One FFT buffer and a ring of raw buffers, two cluster barriers per batch; with two blocks
    // per SM, one block's barriers are the other's issue slots.
    float* dst = fftbuf + h * P * TF + n;
    for (int k = 0; k < nbatch; ++k) {
      fir_window<In, P, T, S, Shape::raw_bufs, TF, FI, LOG2M>(raw_src, raw_stride, Shape::raw_buf_bytes, k, coeff, dst);
      __syncthreads();
      fft_batch(fftbuf);
      cluster.sync();  // the FFTs are visible to the cluster; every block has read its FIR window
      if (k + 1 < nbatch) load_batch(k + 1, raw_buf(k + 1));  // over the oldest batch, no longer read
      combine(k);
      copy_async_wait();
      cluster.sync();  // every block has read the FFT buffers; batch k + 1 is in
    }
  } else {
    for (int k = 0; k <= nbatch; ++k) {
      if (k < nbatch) {
        if (kTwoRaw && k + 1 < nbatch) load_batch(k + 1, raw_buf(k + 1));
        const unsigned char* src = raw_src + (kTwoRaw ? (k & 1) * Shape::raw_buf_bytes : 0);
        float* fb = fftbuf + (k & 1) * kClusterTransforms * TF;
        float* dst = fb + h * P * TF + n;
        if constexpr (T > S) {
          if (((k * S) & (T - 1)) == 0) {
            fir_batch<In, P, T, S, 0, TF, FI, LOG2M>(src, raw_stride, coeff, acc, dst);
          } else {
            fir_batch<In, P, T, S, S, TF, FI, LOG2M>(src, raw_stride, coeff, acc, dst);
          }
        } else {
          fir_batch<In, P, T, S, 0, TF, FI, LOG2M>(src, raw_stride, coeff, acc, dst);
        }
        if (!kTwoRaw) cluster_arrive();  // this block's reads of the raw buffer are done
        __syncthreads();
        fft_batch(fb);
        if (!kTwoRaw) {
          cluster_wait();  // every block has read the raw buffer: refill it
          if (k + 1 < nbatch) load_batch(k + 1, raw_buf(k + 1));
        }
      }
      if (k >= 1) combine(k - 1);
      copy_async_wait();
      cluster.sync();
    }
  }
#endif
}

template <typename In, int P, int T, int LOG2M, bool LEAN>
struct FirFftKernel {
  static constexpr auto kernel = fir_fft_kernel<In, P, T, LOG2M, LEAN>;
  static constexpr std::size_t smem = FirFftShape<In, P, T, LOG2M, LEAN>::smem_bytes;
  static constexpr bool lean = LEAN;
  static cudaLaunchConfig_t config(dim3 grid, cudaStream_t stream, cudaLaunchAttribute* attr) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = dim3(2U << LOG2M);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = R;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cfg;
  }
  static cudaError_t prepare(int* max_clusters) {
    cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
    if (e != cudaSuccess) return e;
    if constexpr (LEAN) {  // several blocks' shared memory per SM: all of the L1/shared split
      e = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared);
      if (e != cudaSuccess) return e;
    }
    cudaLaunchAttribute attr;
    const auto cfg = config(dim3(R), nullptr, &attr);
    return cudaOccupancyMaxActiveClusters(max_clusters, kernel, &cfg);
  }
  static cudaError_t launch(const FirFftArgs& a, cudaStream_t stream) {
    cudaLaunchAttribute attr;
    const auto cfg =
        config(dim3(static_cast<unsigned>(R * a.clusters_per_coarse), static_cast<unsigned>(a.ncoarse)), stream, &attr);
    return cudaLaunchKernelEx(&cfg, kernel, a);
  }
};

// Calls Fn(FirFftKernel<In, P, T, LOG2M, LEAN>{}) for the run-time shape; lean where asked and
// where it exists, else the ring variant (fir_fft_lean_exists says which).
template <typename In, int P, int T, int LOG2M, typename Fn>
cudaError_t by_variant(bool lean, Fn&& fn) {
  if constexpr (kLeanExists<In, P, T, LOG2M>) {
    if (lean) return fn(FirFftKernel<In, P, T, LOG2M, true>{});
  }
  return fn(FirFftKernel<In, P, T, LOG2M, false>{});
}
template <typename In, int P, int T, typename Fn>
cudaError_t by_size(int log2m, bool lean, Fn&& fn) {
  switch (log2m) {
    case 6:
      return by_variant<In, P, T, 6>(lean, fn);
    case 7:
      return by_variant<In, P, T, 7>(lean, fn);
    case 8:
      return by_variant<In, P, T, 8>(lean, fn);
    default:
      return cudaErrorInvalidValue;
  }
}
template <typename In, int P, typename Fn>
cudaError_t by_taps(int ntaps, int log2m, bool lean, Fn&& fn) {
  switch (ntaps) {
    case 4:
      return by_size<In, P, 4>(log2m, lean, fn);
    case 8:
      return by_size<In, P, 8>(log2m, lean, fn);
    case 16:
      return by_size<In, P, 16>(log2m, lean, fn);
    default:
      return cudaErrorInvalidValue;
  }
}
template <typename Fn>
cudaError_t by_shape(InType type, int npol, int ntaps, int nchans, bool lean, Fn&& fn) {
  int log2m = 0;
  while ((kClusterSeqs << log2m) < nchans) ++log2m;
  if ((kClusterSeqs << log2m) != nchans) return cudaErrorInvalidValue;
  const bool two = npol == 2;
  switch (type) {
    case InType::ci8:
      return two ? by_taps<std::int8_t, 2>(ntaps, log2m, lean, fn) : by_taps<std::int8_t, 1>(ntaps, log2m, lean, fn);
    case InType::ci16:
      return two ? by_taps<std::int16_t, 2>(ntaps, log2m, lean, fn) : by_taps<std::int16_t, 1>(ntaps, log2m, lean, fn);
    case InType::cf32:
      return two ? by_taps<float, 2>(ntaps, log2m, lean, fn) : by_taps<float, 1>(ntaps, log2m, lean, fn);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

bool fir_fft_supports(int nchans, int ntaps) {
  return (nchans == 1024 || nchans == 2048 || nchans == 4096) && (ntaps == 4 || ntaps == 8 || ntaps == 16);
}

bool fir_fft_lean_exists(int nchans, int ntaps, int npol, InType type) {
  bool lean = false;
  (void)by_shape(type, npol, ntaps, nchans, true, [&](auto k) {
    lean = decltype(k)::lean;
    return cudaSuccess;
  });
  return lean;
}

std::size_t fir_fft_shared_bytes(int nchans, int ntaps, int npol, InType type, bool lean) {
  std::size_t bytes = 0;
  (void)by_shape(type, npol, ntaps, nchans, lean, [&](auto k) {
    bytes = decltype(k)::smem;
    return cudaSuccess;
  });
  return bytes;
}

cudaError_t fir_fft_prepare(int nchans, int ntaps, int npol, InType type, bool lean, int* max_clusters) {
  *max_clusters = 0;
  return by_shape(type, npol, ntaps, nchans, lean, [&](auto k) { return decltype(k)::prepare(max_clusters); });
}

cudaError_t launch_fir_fft(const FirFftArgs& a, cudaStream_t stream) {
  if (a.nspectra <= 0) return cudaSuccess;
  return by_shape(a.type, a.npol, a.ntaps, a.nchans, a.lean, [&](auto k) { return decltype(k)::launch(a, stream); });
}

}  // namespace fastpsr::cuda::ppf
