// SPDX-License-Identifier: MIT
// The PPF FIR kernels of Adámek, Novotný & Armour: the cache kernel (Algorithm 2), its variant
// with the taps unrolled at compile time (the register kernel), and the shared-memory kernel
// (Algorithm 3), one template each over the input type (int8, int16, float32 components,
// unpacked inside the kernel), the polarisations per sample (1 or 2, loaded as one vector) and
// the spectra per thread. Both multiply the result by the per-channel phase
// that puts the FFT's output in the requested channel order (ppf.hpp).
#include <cstdint>

#include "ppf_fir_register.cuh"
#include "ppf_kernels.cuh"
#include "ppf_sample.cuh"

namespace fastpsr::cuda::ppf {
namespace {

template <int P>
__device__ __forceinline__ void store_spectrum(float2* out, std::size_t pol_stride, std::size_t idx,
                                               const float2 (&v)[P]) {
#pragma unroll
  for (int p = 0; p < P; ++p) out[static_cast<std::size_t>(p) * pol_stride + idx] = v[p];
}

// Algorithm 2: blockIdx.x over channel blocks, blockIdx.y over spectrum blocks of SB,
// blockIdx.z over coarse channels. The taps of neighbouring spectra overlap, so the loads of
// one thread hit L1 after the first.
template <typename In, int P, int SB>
__global__ void fir_cache_kernel(FirArgs a) {
  const int c = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (c >= a.nchans) return;
  const int s0 = static_cast<int>(blockIdx.y) * SB;
  const int nvalid = min(SB, a.nspectra - s0);
  const void* in =
      static_cast<const char*>(a.in) + blockIdx.z * a.in_coarse_stride * sizeof(typename SampleVec<In, P>::type);
  const std::size_t C = static_cast<std::size_t>(a.nchans);
  float2 acc[SB][P];
#pragma unroll
  for (int i = 0; i < SB; ++i) {
#pragma unroll
    for (int p = 0; p < P; ++p) acc[i][p] = make_float2(0.0F, 0.0F);
  }
  if (nvalid == SB) {
    for (int t = 0; t < a.ntaps; ++t) {
      const float w = __ldg(a.coeff + static_cast<std::size_t>(t) * C + c);
#pragma unroll
      for (int i = 0; i < SB; ++i) {
        float2 x[P];
        load_sample<In, P>(in, static_cast<std::size_t>(s0 + i + t) * C + c, x);
#pragma unroll
        for (int p = 0; p < P; ++p) {
          acc[i][p].x = fmaf(w, x[p].x, acc[i][p].x);
          acc[i][p].y = fmaf(w, x[p].y, acc[i][p].y);
        }
      }
    }
  } else {
    for (int t = 0; t < a.ntaps; ++t) {
      const float w = __ldg(a.coeff + static_cast<std::size_t>(t) * C + c);
#pragma unroll
      for (int i = 0; i < SB; ++i) {
        if (i < nvalid) {
          float2 x[P];
          load_sample<In, P>(in, static_cast<std::size_t>(s0 + i + t) * C + c, x);
#pragma unroll
          for (int p = 0; p < P; ++p) {
            acc[i][p].x = fmaf(w, x[p].x, acc[i][p].x);
            acc[i][p].y = fmaf(w, x[p].y, acc[i][p].y);
          }
        }
      }
    }
  }
  const float2 ph = __ldg(a.phase + c);
  float2* out = a.out + blockIdx.z * a.out_coarse_stride;
#pragma unroll
  for (int i = 0; i < SB; ++i) {
    if (i < nvalid) {
      float2 v[P];
#pragma unroll
      for (int p = 0; p < P; ++p) v[p] = rotate(acc[i][p], ph);
      store_spectrum<P>(out, a.out_pol_stride, static_cast<std::size_t>(s0 + i) * C + c, v);
    }
  }
}

// Algorithm 3: a block covers blockDim.x channels × (blockDim.y · R) spectra. Input rows and
// coefficients are staged in shared memory (input converted to float once), then thread
// (x, y) slides over its R spectra of channel x.
template <typename In, int P, int R>
__global__ void fir_shared_kernel(FirArgs a) {
  extern __shared__ float4 shared_words[];  // float4 keeps the float2/float4 views aligned
  const int cb = static_cast<int>(blockDim.x);
  const int sb = static_cast<int>(blockDim.y) * R;
  const int rows = sb + a.ntaps - 1;
  float2* in_s = reinterpret_cast<float2*>(shared_words);                                     // [rows][cb][P]
  float* coeff_s = reinterpret_cast<float*>(in_s + static_cast<std::size_t>(rows) * cb * P);  // [T][cb]
  const int c0 = static_cast<int>(blockIdx.x) * cb;
  const int s0 = static_cast<int>(blockIdx.y) * sb;
  const std::size_t C = static_cast<std::size_t>(a.nchans);
  const void* in =
      static_cast<const char*>(a.in) + blockIdx.z * a.in_coarse_stride * sizeof(typename SampleVec<In, P>::type);
  const int tid = static_cast<int>(threadIdx.y * blockDim.x + threadIdx.x);
  const int nthreads = static_cast<int>(blockDim.x * blockDim.y);
  const int last_row = a.nspectra + a.ntaps - 1 - s0;  // rows of input that exist for this block

  for (int idx = tid; idx < rows * cb; idx += nthreads) {
    const int r = idx / cb;
    const int col = idx - r * cb;
    float2 x[P];
    if (c0 + col < a.nchans && r < last_row) {
      load_sample<In, P>(in, static_cast<std::size_t>(s0 + r) * C + static_cast<std::size_t>(c0 + col), x);
    } else {
#pragma unroll
      for (int p = 0; p < P; ++p) x[p] = make_float2(0.0F, 0.0F);
    }
#pragma unroll
    for (int p = 0; p < P; ++p) in_s[(static_cast<std::size_t>(r) * cb + col) * P + p] = x[p];
  }
  for (int idx = tid; idx < a.ntaps * cb; idx += nthreads) {
    const int t = idx / cb;
    const int col = idx - t * cb;
    coeff_s[idx] = c0 + col < a.nchans ? __ldg(a.coeff + static_cast<std::size_t>(t) * C + c0 + col) : 0.0F;
  }
  __syncthreads();

  const int col = static_cast<int>(threadIdx.x);
  const int c = c0 + col;
  const int i0 = static_cast<int>(threadIdx.y) * R;
  if (c >= a.nchans) return;
  float2 acc[R][P];
#pragma unroll
  for (int r = 0; r < R; ++r) {
#pragma unroll
    for (int p = 0; p < P; ++p) acc[r][p] = make_float2(0.0F, 0.0F);
  }
  for (int t = 0; t < a.ntaps; ++t) {
    const float w = coeff_s[t * cb + col];
#pragma unroll
    for (int r = 0; r < R; ++r) {
#pragma unroll
      for (int p = 0; p < P; ++p) {
        const float2 x = in_s[(static_cast<std::size_t>(i0 + r + t) * cb + col) * P + p];
        acc[r][p].x = fmaf(w, x.x, acc[r][p].x);
        acc[r][p].y = fmaf(w, x.y, acc[r][p].y);
      }
    }
  }
  const float2 ph = __ldg(a.phase + c);
  float2* out = a.out + blockIdx.z * a.out_coarse_stride;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int s = s0 + i0 + r;
    if (s < a.nspectra) {
      float2 v[P];
#pragma unroll
      for (int p = 0; p < P; ++p) v[p] = rotate(acc[r][p], ph);
      store_spectrum<P>(out, a.out_pol_stride, static_cast<std::size_t>(s) * C + static_cast<std::size_t>(c), v);
    }
  }
}

// The cache kernel with the taps known at compile time: a thread loads its channels' T
// coefficients into registers once, then slides over SB + T − 1 raw spectra, loading and
// converting each input sample once and adding it to every output it belongs to. Per output
// that is (SB + T − 1)/SB loads and conversions (the int8/int16 → float conversions run at a
// quarter of the FMA rate, which bounds the cache kernel at one conversion per tap). CPT = 2: a
// thread owns two adjacent channels, so each load and store moves twice the bytes (a warp's ci8
// load is 64 bytes with one channel a thread); the sums are the same, in the same order.
template <typename In, int P, int T, int SB, int CPT>
__global__ void fir_register_kernel(FirArgs a) {
  const int c = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x) * CPT;
  if (c >= a.nchans) return;
  const int s0 = static_cast<int>(blockIdx.y) * SB;
  const int nvalid = min(SB, a.nspectra - s0);
  if (nvalid == SB) {
    fir_register_thread<In, P, T, SB, CPT, true>(a, c, s0, nvalid);
  } else {
    fir_register_thread<In, P, T, SB, CPT, false>(a, c, s0, nvalid);
  }
}

template <typename In, int P, int T, int SB, int CPT>
cudaError_t launch_register_cpt(const FirArgs& a, const FirCacheConfig& cfg, cudaStream_t stream) {
  const int per_block = cfg.block_channels * CPT;
  const dim3 block(static_cast<unsigned>(cfg.block_channels));
  const dim3 grid(static_cast<unsigned>((a.nchans + per_block - 1) / per_block),
                  static_cast<unsigned>((a.nspectra + SB - 1) / SB), static_cast<unsigned>(a.ncoarse));
  fir_register_kernel<In, P, T, SB, CPT><<<grid, block, 0, stream>>>(a);
  return cudaGetLastError();
}

// Two channels a thread where every wide load and store is aligned (else one: the same bits).
template <typename In, int P, int T, int SB>
cudaError_t launch_register(const FirArgs& a, const FirCacheConfig& cfg, cudaStream_t stream) {
  if constexpr (wide_load_exists<In, P, 2>()) {
    using W = typename WideSample<In, P, 2>::type;
    const auto aligned = [](const void* ptr, std::size_t n) { return reinterpret_cast<std::uintptr_t>(ptr) % n == 0; };
    if (cfg.channels_per_thread == 2 && a.nchans % 2 == 0 && a.in_coarse_stride % 2 == 0 &&
        a.out_coarse_stride % 2 == 0 && a.out_pol_stride % 2 == 0 && aligned(a.in, sizeof(W)) &&
        aligned(a.out, sizeof(float4)) && aligned(a.coeff, sizeof(float2)) && aligned(a.phase, sizeof(float4))) {
      return launch_register_cpt<In, P, T, SB, 2>(a, cfg, stream);
    }
  }
  return launch_register_cpt<In, P, T, SB, 1>(a, cfg, stream);
}

template <typename In, int P, int T>
cudaError_t launch_register_sb(const FirArgs& a, const FirCacheConfig& cfg, cudaStream_t stream) {
  switch (cfg.spectra_per_thread) {
    case 4:
      return launch_register<In, P, T, 4>(a, cfg, stream);
    case 8:
      return launch_register<In, P, T, 8>(a, cfg, stream);
    case 16:
      return launch_register<In, P, T, 16>(a, cfg, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

template <typename In, int P>
cudaError_t launch_register_t(const FirArgs& a, const FirCacheConfig& cfg, cudaStream_t stream) {
  switch (a.ntaps) {
    case 4:
      return launch_register_sb<In, P, 4>(a, cfg, stream);
    case 8:
      return launch_register_sb<In, P, 8>(a, cfg, stream);
    case 16:
      return launch_register_sb<In, P, 16>(a, cfg, stream);
    case 32:
      return launch_register_sb<In, P, 32>(a, cfg, stream);
    case 64:
      return launch_register_sb<In, P, 64>(a, cfg, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

template <typename In, int P, int SB>
cudaError_t launch_cache(const FirArgs& a, const FirCacheConfig& cfg, cudaStream_t stream) {
  const dim3 block(static_cast<unsigned>(cfg.block_channels));
  const dim3 grid(static_cast<unsigned>((a.nchans + cfg.block_channels - 1) / cfg.block_channels),
                  static_cast<unsigned>((a.nspectra + SB - 1) / SB), static_cast<unsigned>(a.ncoarse));
  fir_cache_kernel<In, P, SB><<<grid, block, 0, stream>>>(a);
  return cudaGetLastError();
}

template <typename In, int P>
cudaError_t launch_cache_sb(const FirArgs& a, const FirCacheConfig& cfg, cudaStream_t stream) {
  switch (cfg.spectra_per_thread) {
    case 1:
      return launch_cache<In, P, 1>(a, cfg, stream);
    case 2:
      return launch_cache<In, P, 2>(a, cfg, stream);
    case 4:
      return launch_cache<In, P, 4>(a, cfg, stream);
    case 8:
      return launch_cache<In, P, 8>(a, cfg, stream);
    case 16:
      return launch_cache<In, P, 16>(a, cfg, stream);
    case 32:
      return launch_cache<In, P, 32>(a, cfg, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

template <typename In, int P, int R>
cudaError_t launch_shared(const FirArgs& a, const FirSharedConfig& cfg, cudaStream_t stream) {
  const dim3 block(static_cast<unsigned>(cfg.block_channels), static_cast<unsigned>(cfg.block_rows));
  const int sb = cfg.block_rows * R;
  const dim3 grid(static_cast<unsigned>((a.nchans + cfg.block_channels - 1) / cfg.block_channels),
                  static_cast<unsigned>((a.nspectra + sb - 1) / sb), static_cast<unsigned>(a.ncoarse));
  fir_shared_kernel<In, P, R><<<grid, block, fir_shared_bytes(cfg, a.ntaps, a.npol), stream>>>(a);
  return cudaGetLastError();
}

template <typename In, int P>
cudaError_t launch_shared_r(const FirArgs& a, const FirSharedConfig& cfg, cudaStream_t stream) {
  switch (cfg.spectra_per_thread) {
    case 1:
      return launch_shared<In, P, 1>(a, cfg, stream);
    case 2:
      return launch_shared<In, P, 2>(a, cfg, stream);
    case 4:
      return launch_shared<In, P, 4>(a, cfg, stream);
    case 8:
      return launch_shared<In, P, 8>(a, cfg, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

template <typename In, int P, int R>
cudaError_t raise_shared_limit(std::size_t bytes) {
  return cudaFuncSetAttribute(fir_shared_kernel<In, P, R>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(bytes));
}

template <typename In, int P>
cudaError_t raise_shared_limit_r(int r, std::size_t bytes) {
  switch (r) {
    case 1:
      return raise_shared_limit<In, P, 1>(bytes);
    case 2:
      return raise_shared_limit<In, P, 2>(bytes);
    case 4:
      return raise_shared_limit<In, P, 4>(bytes);
    case 8:
      return raise_shared_limit<In, P, 8>(bytes);
    default:
      return cudaErrorInvalidValue;
  }
}

// Calls F<In, P>(args...) for the run-time input type and polarisation count.
template <template <typename, int> class Fn, typename... Args>
cudaError_t by_type(InType type, int npol, Args&&... args) {
  const bool two = npol == 2;
  switch (type) {
    case InType::ci8:
      return two ? Fn<std::int8_t, 2>::call(args...) : Fn<std::int8_t, 1>::call(args...);
    case InType::ci16:
      return two ? Fn<std::int16_t, 2>::call(args...) : Fn<std::int16_t, 1>::call(args...);
    case InType::cf32:
      return two ? Fn<float, 2>::call(args...) : Fn<float, 1>::call(args...);
  }
  return cudaErrorInvalidValue;
}

template <typename In, int P>
struct CacheLauncher {
  static cudaError_t call(const FirArgs& a, const FirCacheConfig& cfg, cudaStream_t s) {
    return launch_cache_sb<In, P>(a, cfg, s);
  }
};
template <typename In, int P>
struct RegisterLauncher {
  static cudaError_t call(const FirArgs& a, const FirCacheConfig& cfg, cudaStream_t s) {
    return launch_register_t<In, P>(a, cfg, s);
  }
};
template <typename In, int P>
struct SharedLauncher {
  static cudaError_t call(const FirArgs& a, const FirSharedConfig& cfg, cudaStream_t s) {
    return launch_shared_r<In, P>(a, cfg, s);
  }
};
template <typename In, int P>
struct SharedPreparer {
  static cudaError_t call(int r, std::size_t bytes) { return raise_shared_limit_r<In, P>(r, bytes); }
};

}  // namespace

std::size_t fir_shared_bytes(const FirSharedConfig& cfg, int ntaps, int npol) {
  const std::size_t rows = static_cast<std::size_t>(cfg.block_rows * cfg.spectra_per_thread + ntaps - 1);
  const std::size_t cb = static_cast<std::size_t>(cfg.block_channels);
  const std::size_t input = rows * cb * static_cast<std::size_t>(npol) * sizeof(float2);
  return input + static_cast<std::size_t>(ntaps) * cb * sizeof(float);
}

cudaError_t fir_shared_prepare(InType type, int npol, int spectra_per_thread, std::size_t bytes) {
  return by_type<SharedPreparer>(type, npol, spectra_per_thread, bytes);
}

cudaError_t launch_fir_cache(const FirArgs& a, const FirCacheConfig& cfg, cudaStream_t stream) {
  if (a.nspectra <= 0) return cudaSuccess;
  return by_type<CacheLauncher>(a.type, a.npol, a, cfg, stream);
}

bool fir_register_supports(int ntaps, int spectra_per_thread) {
  return (ntaps == 4 || ntaps == 8 || ntaps == 16 || ntaps == 32 || ntaps == 64) &&
         (spectra_per_thread == 4 || spectra_per_thread == 8 || spectra_per_thread == 16);
}

cudaError_t launch_fir_register(const FirArgs& a, const FirCacheConfig& cfg, cudaStream_t stream) {
  if (a.nspectra <= 0) return cudaSuccess;
  return by_type<RegisterLauncher>(a.type, a.npol, a, cfg, stream);
}

cudaError_t launch_fir_shared(const FirArgs& a, const FirSharedConfig& cfg, cudaStream_t stream) {
  if (a.nspectra <= 0) return cudaSuccess;
  return by_type<SharedLauncher>(a.type, a.npol, a, cfg, stream);
}

}  // namespace fastpsr::cuda::ppf
