// SPDX-License-Identifier: MIT
// Complex output with the FIR and the FFT in one kernel, so that the filtered spectra never leave
// the SMs (ppf_kernels.cuh, FirFftArgs, says what it computes; ppf_cluster_fft.hpp the FFT split).
//
// A cluster of R = 8 blocks owns a contiguous range of output spectra of one coarse channel.
// Thread j of block b filters channel c = 8·j + b with its T taps in registers, in transposed
// form (a ring of T accumulators), so every input sample is loaded and converted once. Per
// batch of S = 8 spectra ("phase" k), with one cluster barrier per phase:
//   - combine batch k − 1: read Y_q[k1] of all 8 blocks (DSMEM), twiddle, 8-point DFT, store
//     the output rows (block b takes k1 in [b·L/8, (b + 1)·L/8), so each store is a
//     contiguous run);
//   - FIR of batch k from the raw input staged in the cluster's shared memory (DSMEM reads),
//     into the block's filtered buffer, then its L-point FFT in shared memory;
//   - stage the raw input of batch k + 1 (loaded into registers one phase earlier, coalesced:
//     block q loads channels q·L ... q·L + L − 1) and load batch k + 2.
// Raw and filtered buffers are double-buffered, so a buffer is rewritten only two barriers
// after the phase whose remote reads used it.
#include <cooperative_groups.h>

#include <cstdint>

#include "ppf_cluster_fft.hpp"
#include "ppf_kernels.cuh"
#include "ppf_sample.cuh"

namespace cg = cooperative_groups;

namespace fastpsr::cuda::ppf {
namespace {

constexpr int R = kClusterBlocks;
constexpr int S = kClusterBatch;
static_assert(S == R, "the combine stage gives each thread one (spectrum, k1) of the batch");

template <typename In, int P, int LOG2L>
struct FirFftShape {
  using V = typename SampleVec<In, P>::type;
  static constexpr int L = 1 << LOG2L;
  static constexpr std::size_t filt_complex = 2U * P * S * L;  // [2][P][S][L]
  static constexpr std::size_t smem_bytes = filt_complex * sizeof(Complex32) + 2U * S * L * sizeof(V);
};

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900  // used by the cluster kernel only
__device__ __forceinline__ float2 rotate(float2 v, float2 ph) {
  return make_float2(v.x * ph.x - v.y * ph.y, v.x * ph.y + v.y * ph.x);
}
#endif

// The FIR of one batch: inputs r = k·S + i, i < S, with OFF = (k·S) mod T; the output completed
// by input r goes to dst[(p·S + i)·L].
template <typename In, int P, int T, int L, int OFF>
__device__ __forceinline__ void fir_batch(const typename SampleVec<In, P>::type* src, const float (&w)[T],
                                          float2 (&acc)[T][P], float2 ph, Complex32* dst) {
  typename SampleVec<In, P>::type v[S];
#pragma unroll
  for (int i = 0; i < S; ++i) v[i] = src[i * L];  // all remote loads first
#pragma unroll
  for (int i = 0; i < S; ++i) {
    float2 x[P];
    SampleVec<In, P>::to_float(v[i], x);
#pragma unroll
    for (int t = 0; t < T; ++t) {
      const int slot = fir_ring_slot(OFF + i, t, T);
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
    const int done = fir_ring_slot(OFF + i + 1, 0, T);  // output r − (T − 1)
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const float2 y = rotate(acc[done][p], ph);
      dst[(p * S + i) * L] = Complex32{y.x, y.y};
    }
  }
}

template <typename In, int P, int T, int LOG2L>
__global__ void __launch_bounds__(1 << LOG2L, 1) fir_fft_kernel(FirFftArgs a) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  // Thread-block clusters exist from compute capability 9.0; the engine refuses fft=cluster on
  // older GPUs, so this body is never run there (it only lets the other architectures build).
  (void)a;
  __trap();
#else
  using Shape = FirFftShape<In, P, LOG2L>;
  using V = typename Shape::V;
  constexpr int L = Shape::L;
  constexpr unsigned C = static_cast<unsigned>(L * R);
  static_assert(T <= 2 * S && (T & (T - 1)) == 0, "the ring offset of a batch is 0 or S");
  extern __shared__ float4 smem_words[];
  auto* filt = reinterpret_cast<Complex32*>(smem_words);         // [2][P][S][L]
  auto* raw = reinterpret_cast<V*>(filt + Shape::filt_complex);  // [2][S][L]
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned b = cluster.block_rank();
  const unsigned j = threadIdx.x;
  const int cid = static_cast<int>(blockIdx.x) / R;
  const int f = static_cast<int>(blockIdx.y);
  const long long s_begin = static_cast<long long>(cid) * a.spectra_per_cluster;
  const int n_out =
      static_cast<int>(max(0LL, min(static_cast<long long>(a.spectra_per_cluster), a.nspectra - s_begin)));
  const int n_in = n_out > 0 ? n_out + T - 1 : 0;
  const int nbatch = (n_in + S - 1) / S;

  // Input: this block loads channel b·L + j of every spectrum.
  const V* in = static_cast<const V*>(a.in) + static_cast<std::size_t>(f) * a.in_coarse_stride +
                static_cast<std::size_t>(s_begin) * C + b * L + j;
  V pre[S];
  auto load_batch = [&](int k) {
#pragma unroll
    for (int i = 0; i < S; ++i) {
      const int r = k * S + i;
      pre[i] = r < n_in ? __ldg(in + static_cast<std::size_t>(r) * C) : V{};
    }
  };
  auto stage_batch = [&](int k) {
#pragma unroll
    for (int i = 0; i < S; ++i) raw[((k & 1) * S + i) * L + j] = pre[i];
  };

  // FIR: channel 8·j + b, its taps, its phase; its raw samples sit in block `owner`.
  const unsigned c_fir = static_cast<unsigned>(R) * j + b;
  float w[T];
#pragma unroll
  for (int t = 0; t < T; ++t) w[t] = __ldg(a.coeff + static_cast<std::size_t>(t) * C + c_fir);
  const float2 ph = __ldg(a.phase + c_fir);
  const V* raw_src = cluster.map_shared_rank(raw, cluster_owner_block(j, b, LOG2L)) + cluster_owner_offset(j, b, LOG2L);
  float2 acc[T][P];
#pragma unroll
  for (int t = 0; t < T; ++t) {
#pragma unroll
    for (int p = 0; p < P; ++p) acc[t][p] = make_float2(0.0F, 0.0F);
  }

  // Combine: spectrum i of the batch, bin k1 (block b takes k1 in [b·L/8, (b + 1)·L/8)).
  const auto* twiddle = reinterpret_cast<const Complex32*>(a.twiddle);
  const unsigned ci = j / (L / R);
  const unsigned k1 = b * (L / R) + j % (L / R);
  const unsigned k1_pos = fft_position_of_bin(k1, LOG2L);
  const int f_out = a.descending ? a.ncoarse - 1 - f : f;
  float2* out_base = a.out + static_cast<std::size_t>(f_out) * C * P;
  auto combine = [&](int k) {
    const int s_rel = k * S + static_cast<int>(ci) - (T - 1);
    Complex32 y[P][R];
#pragma unroll
    for (int q = 0; q < R; ++q) {
      const Complex32* rf = cluster.map_shared_rank(filt, static_cast<unsigned>(q));
#pragma unroll
      for (int p = 0; p < P; ++p) y[p][q] = rf[(((k & 1) * P + p) * S + ci) * L + k1_pos];
    }
#pragma unroll
    for (int p = 0; p < P; ++p) cluster_combine(y[p], k1, twiddle, a.inverse);
    if (s_rel < 0 || s_rel >= n_out) return;
    float2* row = out_base + static_cast<std::size_t>(s_begin + s_rel) * a.row_complex;
#pragma unroll
    for (int k2 = 0; k2 < R; ++k2) {
      const std::size_t o = (static_cast<std::size_t>(k1) + static_cast<std::size_t>(k2) * L) * P;
      if constexpr (P == 1) {
        __stcs(row + o, make_float2(y[0][k2].re, y[0][k2].im));
      } else {
        __stcs(reinterpret_cast<float4*>(row + o), make_float4(y[0][k2].re, y[0][k2].im, y[1][k2].re, y[1][k2].im));
      }
    }
  };

  if (nbatch > 0) {
    load_batch(0);
    stage_batch(0);
  }
  if (nbatch > 1) load_batch(1);
  cluster.sync();
  for (int k = 0; k <= nbatch; ++k) {
    if (k >= 1) combine(k - 1);
    if (k < nbatch) {
      const V* src = raw_src + (k & 1) * S * L;
      Complex32* fb = filt + (k & 1) * P * S * L;
      if constexpr (T > S) {
        if (((k * S) & (T - 1)) == 0) {
          fir_batch<In, P, T, L, 0>(src, w, acc, ph, fb + j);
        } else {
          fir_batch<In, P, T, L, S>(src, w, acc, ph, fb + j);
        }
      } else {
        fir_batch<In, P, T, L, 0>(src, w, acc, ph, fb + j);
      }
      __syncthreads();
      // The L-point FFTs of the batch's P·S sequences (the C-point table serves every span).
#pragma unroll
      for (int st = 0; st < fft_stage_count(LOG2L); ++st) {
        const unsigned span = fft_stage_span(LOG2L, st);
        if (fft_stage_radix(LOG2L, st) == 4) {
#pragma unroll
          for (int m = 0; m < P * S / 4; ++m) {  // P·S·L/4 butterflies over L threads
            const unsigned u = j + static_cast<unsigned>(m * L);
            const unsigned seq = u / (L / 4);
            fft_radix4_butterfly(fb + seq * L, C, span, u % (L / 4), twiddle, a.inverse);
          }
        } else {
#pragma unroll
          for (int m = 0; m < P * S / 2; ++m) {
            const unsigned u = j + static_cast<unsigned>(m * L);
            const unsigned seq = u / (L / 2);
            fft_radix2_butterfly(fb + seq * L, C, span, u % (L / 2), twiddle, a.inverse);
          }
        }
        __syncthreads();
      }
    }
    if (k + 1 < nbatch) {
      stage_batch(k + 1);
      if (k + 2 < nbatch) load_batch(k + 2);
    }
    cluster.sync();
  }
#endif
}

template <typename In, int P, int T, int LOG2L>
struct FirFftKernel {
  static constexpr auto kernel = fir_fft_kernel<In, P, T, LOG2L>;
  static constexpr std::size_t smem = FirFftShape<In, P, LOG2L>::smem_bytes;
  static cudaLaunchConfig_t config(dim3 grid, cudaStream_t stream, cudaLaunchAttribute* attr) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = dim3(1U << LOG2L);
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

// Calls Fn(FirFftKernel<In, P, T, LOG2L>{}) for the run-time shape.
template <typename In, int P, int T, typename Fn>
cudaError_t by_size(int log2l, Fn&& fn) {
  switch (log2l) {
    case 7:
      return fn(FirFftKernel<In, P, T, 7>{});
    case 8:
      return fn(FirFftKernel<In, P, T, 8>{});
    case 9:
      return fn(FirFftKernel<In, P, T, 9>{});
    default:
      return cudaErrorInvalidValue;
  }
}
template <typename In, int P, typename Fn>
cudaError_t by_taps(int ntaps, int log2l, Fn&& fn) {
  switch (ntaps) {
    case 4:
      return by_size<In, P, 4>(log2l, fn);
    case 8:
      return by_size<In, P, 8>(log2l, fn);
    case 16:
      return by_size<In, P, 16>(log2l, fn);
    default:
      return cudaErrorInvalidValue;
  }
}
template <typename Fn>
cudaError_t by_shape(InType type, int npol, int ntaps, int nchans, Fn&& fn) {
  int log2l = 0;
  while ((R << log2l) < nchans) ++log2l;
  if ((R << log2l) != nchans) return cudaErrorInvalidValue;
  const bool two = npol == 2;
  switch (type) {
    case InType::ci8:
      return two ? by_taps<std::int8_t, 2>(ntaps, log2l, fn) : by_taps<std::int8_t, 1>(ntaps, log2l, fn);
    case InType::ci16:
      return two ? by_taps<std::int16_t, 2>(ntaps, log2l, fn) : by_taps<std::int16_t, 1>(ntaps, log2l, fn);
    case InType::cf32:
      return two ? by_taps<float, 2>(ntaps, log2l, fn) : by_taps<float, 1>(ntaps, log2l, fn);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

bool fir_fft_supports(int nchans, int ntaps) {
  return (nchans == 1024 || nchans == 2048 || nchans == 4096) && (ntaps == 4 || ntaps == 8 || ntaps == 16);
}

std::size_t fir_fft_shared_bytes(int nchans, int npol, InType type) {
  std::size_t bytes = 0;
  (void)by_shape(type, npol, 4, nchans, [&](auto k) {
    bytes = decltype(k)::smem;
    return cudaSuccess;
  });
  return bytes;
}

cudaError_t fir_fft_prepare(int nchans, int ntaps, int npol, InType type, int* max_clusters) {
  *max_clusters = 0;
  return by_shape(type, npol, ntaps, nchans, [&](auto k) { return decltype(k)::prepare(max_clusters); });
}

cudaError_t launch_fir_fft(const FirFftArgs& a, cudaStream_t stream) {
  if (a.nspectra <= 0) return cudaSuccess;
  return by_shape(a.type, a.npol, a.ntaps, a.nchans, [&](auto k) { return decltype(k)::launch(a, stream); });
}

}  // namespace fastpsr::cuda::ppf
