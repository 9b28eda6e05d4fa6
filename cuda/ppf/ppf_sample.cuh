// SPDX-License-Identifier: MIT
#pragma once
// The raw input sample of the PPF kernels: the vector holding the P complex components of one
// sample (int8, int16 or float32 components), its load and its conversion to float2.
#include <cstddef>
#include <cstdint>
#include <cstring>

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

// CPT adjacent samples (channels) as one vector load where the bytes make one: 4, 8 or 16.
template <int Bytes>
struct WideWord;
template <>
struct WideWord<4> {
  using type = int;
};
template <>
struct WideWord<8> {
  using type = int2;
};
template <>
struct WideWord<16> {
  using type = int4;
};
template <typename In, int P, int CPT>
struct WideSample {
  using Sample = typename SampleVec<In, P>::type;
  static constexpr int kBytes = static_cast<int>(sizeof(Sample)) * CPT;
  using type = typename WideWord<kBytes>::type;
};
template <typename In, int P, int CPT>
constexpr bool wide_load_exists() {
  constexpr std::size_t bytes = sizeof(typename SampleVec<In, P>::type) * CPT;
  return bytes == 4 || bytes == 8 || bytes == 16;
}

// The CPT samples at `src` (aligned for the wide load when CPT > 1).
template <typename In, int P, int CPT>
__device__ __forceinline__ void load_samples(const typename SampleVec<In, P>::type* src, float2 (&x)[CPT][P]) {
  using V = typename SampleVec<In, P>::type;
  if constexpr (CPT == 1) {
    SampleVec<In, P>::to_float(__ldg(src), x[0]);
  } else {
    using W = typename WideSample<In, P, CPT>::type;
    const W w = __ldg(reinterpret_cast<const W*>(src));
    V v[CPT];
    static_assert(sizeof(v) == sizeof(w));
    memcpy(v, &w, sizeof(w));
#pragma unroll
    for (int k = 0; k < CPT; ++k) SampleVec<In, P>::to_float(v[k], x[k]);
  }
}

}  // namespace fastpsr::cuda::ppf
