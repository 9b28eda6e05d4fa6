// SPDX-License-Identifier: MIT
#include "dedisp_kernels.hpp"

#include <algorithm>
#include <type_traits>

#include "fastpsr/error.hpp"

namespace fastpsr::cpu::dedisp_detail {
namespace {

// GCC vector types of `Bytes` bytes (a typedef: vector_size is ignored on dependent aliases).
template <class E, std::size_t Bytes>
struct Vec {
  typedef E type __attribute__((vector_size(Bytes)));
};

template <class R>
using AccLane = std::conditional_t<std::is_floating_point_v<R>, double, R>;

// One kernel step per (time step of NV vectors, block of kDmBlock DMs). R: row element,
// T: total of several channel groups, VB: vector bytes, NV: vectors of time per step.
template <class R, class T, int VB, int NV>
[[gnu::always_inline]] inline void dedisperse_steps(const KernelArgs& a) {
  constexpr std::size_t L = VB / sizeof(R);
  constexpr std::size_t W = NV * L;
  static_assert(W <= kMaxStepSamples);
  using A = AccLane<R>;
  using RV = typename Vec<R, VB>::type;
  using AV = typename Vec<A, L * sizeof(A)>::type;
  using TV = typename Vec<T, L * sizeof(T)>::type;
  constexpr std::size_t D = kDmBlock;

  const R* rows = static_cast<const R*>(a.rows);
  const std::size_t nk = a.nk;
  for (std::size_t t = a.t_begin; t < a.t_end; t += W) {
    const std::size_t nvalid = std::min(W, a.t_end - t);
    for (std::size_t dm = a.dm_begin; dm < a.dm_end; dm += D) {
      TV tot[D][NV] = {};
      const std::uint32_t* off[D];
      for (std::size_t d = 0; d < D; ++d) off[d] = a.offsets + (dm + d) * nk;
      for (std::size_t g0 = 0; g0 < nk; g0 += a.group) {
        const std::size_t g1 = std::min(nk, g0 + a.group);
        AV acc[D][NV] = {};
        for (std::size_t k = g0; k < g1; ++k) {
          for (std::size_t d = 0; d < D; ++d) {
            const R* p = rows + off[d][k] + t;
            for (int v = 0; v < NV; ++v) {
              RV x;
              __builtin_memcpy(&x, p + v * L, sizeof(x));
              if constexpr (std::is_same_v<A, R>) {
                acc[d][v] += x;
              } else {
                acc[d][v] += __builtin_convertvector(x, AV);
              }
            }
          }
        }
        for (std::size_t d = 0; d < D; ++d) {
          for (int v = 0; v < NV; ++v) tot[d][v] += __builtin_convertvector(acc[d][v], TV);
        }
      }
      for (std::size_t d = 0; d < D && dm + d < a.ndms; ++d) {
        float* o = a.out + (dm + d) * a.out_stride + a.out_col + (t - a.t_begin);
        float vals[W];
        for (int v = 0; v < NV; ++v) {
          for (std::size_t i = 0; i < L; ++i) {
            if constexpr (std::is_floating_point_v<T>) {
              vals[v * L + i] = static_cast<float>(tot[d][v][i]);
            } else {
              vals[v * L + i] = static_cast<float>(static_cast<std::int64_t>(tot[d][v][i]) - a.bias);
            }
          }
        }
        std::copy_n(vals, nvalid, o);
      }
    }
  }
}

#define FASTPSR_AVX512 __attribute__((target("avx512f,avx512bw,avx2")))
#define FASTPSR_AVX2 __attribute__((target("avx2")))

template <class R, class T>
FASTPSR_AVX512 void kernel_avx512(const KernelArgs& a) {
  dedisperse_steps<R, T, 64, 2>(a);
}
template <class R, class T>
FASTPSR_AVX2 void kernel_avx2(const KernelArgs& a) {
  dedisperse_steps<R, T, 32, 2>(a);
}
template <class R, class T>
void kernel_generic(const KernelArgs& a) {
  dedisperse_steps<R, T, 16, 2>(a);
}

template <class R, class T>
KernelVariant variant(std::string_view isa) {
  if (isa == "avx512") return {"avx512", &kernel_avx512<R, T>, 2 * 64 / sizeof(R)};
  if (isa == "avx2") return {"avx2", &kernel_avx2<R, T>, 2 * 32 / sizeof(R)};
  if (isa == "generic") return {"generic", &kernel_generic<R, T>, 2 * 16 / sizeof(R)};
  throw Error(ErrorCode::invalid_argument, fmt::format("CPU kernel isa '{}' is not avx512, avx2 or generic", isa));
}

}  // namespace

KernelVariant kernel_for(RowType type, std::string_view isa) {
  switch (type) {
    case RowType::u16_total_u32:
      return variant<std::uint16_t, std::uint32_t>(isa);
    case RowType::u16_total_u64:
      return variant<std::uint16_t, std::uint64_t>(isa);
    case RowType::u32_total_u64:
      return variant<std::uint32_t, std::uint64_t>(isa);
    case RowType::f32_total_f64:
      return variant<float, double>(isa);
  }
  throw Error(ErrorCode::internal, "unknown dedispersion row type");
}

}  // namespace fastpsr::cpu::dedisp_detail
