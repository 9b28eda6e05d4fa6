// SPDX-License-Identifier: MIT
#pragma once
// The raw input sample of the PPF kernels: the vector holding the P complex components of one
// sample (int8, int16 or float32 components), its load and its conversion to float2.
#include <cstddef>
#include <cstdint>

namespace fastpsr::cuda::ppf {

// The vector holding the P complex components of one sample, and its conversion to float2.
template <typename In, int P>
struct SampleVec;
template <>
struct SampleVec<std::int8_t, 1> {
  using type = char2;
  static __device__ void to_float(const type& v, float2 (&x)[1]) { x[0] = make_float2(v.x, v.y); }
};
template <>
struct SampleVec<std::int8_t, 2> {
  using type = char4;
  static __device__ void to_float(const type& v, float2 (&x)[2]) {
    x[0] = make_float2(v.x, v.y);
    x[1] = make_float2(v.z, v.w);
  }
};
template <>
struct SampleVec<std::int16_t, 1> {
  using type = short2;
  static __device__ void to_float(const type& v, float2 (&x)[1]) { x[0] = make_float2(v.x, v.y); }
};
template <>
struct SampleVec<std::int16_t, 2> {
  using type = short4;
  static __device__ void to_float(const type& v, float2 (&x)[2]) {
    x[0] = make_float2(v.x, v.y);
    x[1] = make_float2(v.z, v.w);
  }
};
template <>
struct SampleVec<float, 1> {
  using type = float2;
  static __device__ void to_float(const type& v, float2 (&x)[1]) { x[0] = v; }
};
template <>
struct SampleVec<float, 2> {
  using type = float4;
  static __device__ void to_float(const type& v, float2 (&x)[2]) {
    x[0] = make_float2(v.x, v.y);
    x[1] = make_float2(v.z, v.w);
  }
};

template <typename In, int P>
__device__ __forceinline__ void load_sample(const void* base, std::size_t n, float2 (&x)[P]) {
  using V = typename SampleVec<In, P>::type;
  SampleVec<In, P>::to_float(__ldg(static_cast<const V*>(base) + n), x);
}

}  // namespace fastpsr::cuda::ppf
