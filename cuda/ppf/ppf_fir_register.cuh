// SPDX-License-Identifier: MIT
#pragma once
// The register FIR kernel's per-thread body (ppf_fir_kernels.cu) and its helpers, shared with the
// persistent FIR + FFT kernel (ppf_persist_kernel.cu), which runs the same body for its FIR role.
#include <cstddef>

#include "ppf_kernels.cuh"
#include "ppf_sample.cuh"

namespace fastpsr::cuda::ppf {

__device__ __forceinline__ float2 rotate(float2 v, float2 ph) {
  return make_float2(v.x * ph.x - v.y * ph.y, v.x * ph.y + v.y * ph.x);
}

// CPT consecutive floats (coefficients of adjacent channels), as one load.
template <int CPT>
__device__ __forceinline__ void load_floats(const float* p, float (&w)[CPT]) {
  if constexpr (CPT == 1) {
    w[0] = __ldg(p);
  } else {
    static_assert(CPT == 2);
    const float2 v = __ldg(reinterpret_cast<const float2*>(p));
    w[0] = v.x;
    w[1] = v.y;
  }
}

// CPT consecutive complex values, as one store.
template <int CPT>
__device__ __forceinline__ void store_complex(float2* p, const float2 (&v)[CPT]) {
  if constexpr (CPT == 1) {
    *p = v[0];
  } else {
    static_assert(CPT == 2);
    *reinterpret_cast<float4*>(p) = make_float4(v[0].x, v[0].y, v[1].x, v[1].y);
  }
}

// The body of the register kernel for one thread: FULL when all SB outputs exist (nearly every
// thread), so that the unrolled loop carries no per-row test. Addresses advance by a pointer
// step per raw spectrum instead of an index product per load: with (s0 + j)·C + c recomputed in
// 64 bits for each load, the address arithmetic and the row tests were more than half of the
// kernel's instructions (PTX: ~110 instructions an output for 33 FMAs; ncu: issue-bound at 74%).
template <typename In, int P, int T, int SB, int CPT, bool FULL>
__device__ __forceinline__ void fir_register_thread(const FirArgs& a, int c, int s0, int nvalid) {
  using V = typename SampleVec<In, P>::type;
  const std::size_t C = static_cast<std::size_t>(a.nchans);
  const V* src = static_cast<const V*>(a.in) + blockIdx.z * a.in_coarse_stride + static_cast<std::size_t>(s0) * C + c;
  float w[T][CPT];
  const float* coeff = a.coeff + c;
#pragma unroll
  for (int t = 0; t < T; ++t, coeff += C) load_floats<CPT>(coeff, w[t]);
  float2 acc[SB][CPT][P];
#pragma unroll
  for (int r = 0; r < SB; ++r) {
#pragma unroll
    for (int k = 0; k < CPT; ++k) {
#pragma unroll
      for (int p = 0; p < P; ++p) acc[r][k][p] = make_float2(0.0F, 0.0F);
    }
  }
  const int rows = nvalid + T - 1;  // raw spectra this thread may read
#pragma unroll
  for (int j = 0; j < SB + T - 1; ++j, src += C) {
    float2 x[CPT][P];
    if (FULL || j < rows) {
      load_samples<In, P, CPT>(src, x);
    } else {
#pragma unroll
      for (int k = 0; k < CPT; ++k) {
#pragma unroll
        for (int p = 0; p < P; ++p) x[k][p] = make_float2(0.0F, 0.0F);
      }
    }
#pragma unroll
    for (int r = 0; r < SB; ++r) {
      const int t = j - r;  // taps in increasing order for every output, as in the other kernels
      if (t >= 0 && t < T) {
#pragma unroll
        for (int k = 0; k < CPT; ++k) {
#pragma unroll
          for (int p = 0; p < P; ++p) {
            acc[r][k][p].x = fmaf(w[t][k], x[k][p].x, acc[r][k][p].x);
            acc[r][k][p].y = fmaf(w[t][k], x[k][p].y, acc[r][k][p].y);
          }
        }
      }
    }
  }
  float2 ph[CPT];
#pragma unroll
  for (int k = 0; k < CPT; ++k) ph[k] = __ldg(a.phase + c + k);
  float2* dst = a.out + blockIdx.z * a.out_coarse_stride + static_cast<std::size_t>(s0) * C + c;
#pragma unroll
  for (int r = 0; r < SB; ++r, dst += C) {
    if (FULL || r < nvalid) {
#pragma unroll
      for (int p = 0; p < P; ++p) {
        float2 v[CPT];
#pragma unroll
        for (int k = 0; k < CPT; ++k) v[k] = rotate(acc[r][k][p], ph[k]);
        store_complex<CPT>(dst + static_cast<std::size_t>(p) * a.out_pol_stride, v);
      }
    }
  }
}

}  // namespace fastpsr::cuda::ppf
