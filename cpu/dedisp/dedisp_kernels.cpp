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

// One kernel step per (time step of NV vectors, block of NDM DMs). R: row element, T: total
// of several channel groups, VB: vector bytes. The NDM x NV accumulators live in registers;
// the NDM row segments of one channel overlap (neighbouring DMs have similar delays), so most
// loads hit L1. The next step's lines of each channel are prefetched while this one runs.
template <class R, class T, int VB, int NDM, int NV>
[[gnu::always_inline]] inline void dedisperse_steps(const KernelArgs& a) {
  constexpr std::size_t L = VB / sizeof(R);
  constexpr std::size_t W = NV * L;
  static_assert(W <= kMaxStepSamples);
  using A = AccLane<R>;
  using RV = typename Vec<R, VB>::type;
  using AV = typename Vec<A, L * sizeof(A)>::type;
  using TV = typename Vec<T, L * sizeof(T)>::type;

  const R* rows = static_cast<const R*>(a.rows);
  const std::size_t nk = a.nk;
  for (std::size_t t = a.t_begin; t < a.t_end; t += W) {
    const std::size_t nvalid = std::min(W, a.t_end - t);
    for (std::size_t dm = a.dm_begin; dm < a.dm_end; dm += NDM) {
      const std::uint32_t* off = a.offsets + dm * nk;  // this block: [k][d]
      TV tot[NDM][NV] = {};
      for (std::size_t g0 = 0; g0 < nk; g0 += a.group) {
        const std::size_t g1 = std::min(nk, g0 + a.group);
        AV acc[NDM][NV] = {};
        for (std::size_t k = g0; k < g1; ++k) {
          const std::uint32_t* o = off + k * NDM;
          __builtin_prefetch(rows + o[0] + t + 2 * W);
          __builtin_prefetch(rows + o[NDM - 1] + t + 2 * W + W - 1);
          for (int d = 0; d < NDM; ++d) {
            const R* p = rows + o[d] + t;
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
        for (int d = 0; d < NDM; ++d) {
          for (int v = 0; v < NV; ++v) tot[d][v] += __builtin_convertvector(acc[d][v], TV);
        }
      }
      for (std::size_t d = 0; d < NDM && dm + d < a.ndms; ++d) {
        float* out = a.out + (dm + d) * a.out_stride + a.out_col + (t - a.t_begin);
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
        std::copy_n(vals, nvalid, out);
      }
    }
  }
}

#define FASTPSR_AVX512 __attribute__((target("avx512f,avx512bw,avx2")))
#define FASTPSR_AVX2 __attribute__((target("avx2")))

template <class R, class T, int NDM, int NV>
FASTPSR_AVX512 void kernel_avx512(const KernelArgs& a) {
  dedisperse_steps<R, T, 64, NDM, NV>(a);
}
template <class R, class T, int NDM, int NV>
FASTPSR_AVX2 void kernel_avx2(const KernelArgs& a) {
  dedisperse_steps<R, T, 32, NDM, NV>(a);
}
template <class R, class T, int NDM, int NV>
void kernel_generic(const KernelArgs& a) {
  dedisperse_steps<R, T, 16, NDM, NV>(a);
}

// Register budget: NDM x NV accumulators (x2 for float input, summed in double) within the
// ISA's vector registers (32 for AVX-512, 16 for AVX2 and SSE2), leaving room for loads.
template <class R, class T, int NDM>
KernelVariant variant(std::string_view isa) {
  constexpr int kWide = std::is_floating_point_v<R> ? 2 : 1;
  if (isa == "avx512") {
    constexpr int nv = NDM * kWide <= 8 ? 2 : 1;
    return {"avx512", &kernel_avx512<R, T, NDM, nv>, NDM, nv * 64 / sizeof(R)};
  }
  if (isa == "avx2") return {"avx2", &kernel_avx2<R, T, NDM, 1>, NDM, 32 / sizeof(R)};
  if (isa == "generic") return {"generic", &kernel_generic<R, T, NDM, 1>, NDM, 16 / sizeof(R)};
  throw Error(ErrorCode::invalid_argument, fmt::format("CPU kernel isa '{}' is not avx512, avx2 or generic", isa));
}

template <class R, class T>
KernelVariant variant_blocked(std::string_view isa, std::size_t dm_block) {
  if (dm_block == 0) dm_block = isa == "avx512" ? (std::is_floating_point_v<R> ? 8 : 16) : 8;
  switch (dm_block) {
    case 4:
      return variant<R, T, 4>(isa);
    case 8:
      return variant<R, T, 8>(isa);
    case 16:
      return variant<R, T, 16>(isa);
    default:
      throw Error(ErrorCode::invalid_argument, fmt::format("--cpu-config dm_block={}: expected 4, 8 or 16", dm_block));
  }
}

}  // namespace

KernelVariant kernel_for(RowType type, std::string_view isa, std::size_t dm_block) {
  switch (type) {
    case RowType::u16_total_u32:
      return variant_blocked<std::uint16_t, std::uint32_t>(isa, dm_block);
    case RowType::u16_total_u64:
      return variant_blocked<std::uint16_t, std::uint64_t>(isa, dm_block);
    case RowType::u32_total_u64:
      return variant_blocked<std::uint32_t, std::uint64_t>(isa, dm_block);
    case RowType::f32_total_f64:
      return variant_blocked<float, double>(isa, dm_block);
  }
  throw Error(ErrorCode::internal, "unknown dedispersion row type");
}

}  // namespace fastpsr::cpu::dedisp_detail
