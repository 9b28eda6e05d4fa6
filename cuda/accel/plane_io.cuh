// SPDX-License-Identifier: MIT
#pragma once
// Loads and stores of plane powers for the two storage formats. f16 keeps P / 256 as IEEE half
// (rounding error <= 2^-11 relative; powers from 2^-10 to 1.6e7 keep full precision, larger
// ones saturate at 1.6e7), which halves the plane's memory traffic.
#include <cuda_fp16.h>

namespace fastpsr::cuda::accel {

template <typename P>
struct PlaneIo;

template <>
struct PlaneIo<float> {
  /// Stores (even, odd) at p, p + 1 (p 8-byte aligned).
  static __device__ __forceinline__ void store2(float* p, float even, float odd) {
    *reinterpret_cast<float2*>(p) = make_float2(even, odd);
  }
  static __device__ __forceinline__ float load(const float* p) { return __ldg(p); }
};

template <>
struct PlaneIo<__half> {
  static constexpr float scale = 1.0F / 256.0F;
  static constexpr float largest = 65504.0F;  // the largest finite half
  static __device__ __forceinline__ void store2(__half* p, float even, float odd) {
    *reinterpret_cast<__half2*>(p) = __floats2half2_rn(fminf(even * scale, largest), fminf(odd * scale, largest));
  }
  static __device__ __forceinline__ float load(const __half* p) { return __half2float(__ldg(p)) * 256.0F; }
};

/// plane=f16bound: P / 256 as IEEE half rounded up (a power above the half range becomes +inf),
/// so every stored value is >= the float32 power, and every harmonic sum of them, summed in the
/// same order, >= the float32 sum (rounding to nearest is monotonic). The sums read it as __half;
/// only the correlation stores through this type.
struct HalfBound {
  __half value;
};

template <>
struct PlaneIo<HalfBound> {
  static __device__ __forceinline__ void store2(HalfBound* p, float even, float odd) {
    constexpr float scale = PlaneIo<__half>::scale;  // a power of two: exact
    *reinterpret_cast<__half2*>(p) = __halves2half2(__float2half_ru(even * scale), __float2half_ru(odd * scale));
  }
};

}  // namespace fastpsr::cuda::accel
