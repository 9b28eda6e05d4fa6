// SPDX-License-Identifier: MIT
#include "dedisp_kernels.hpp"

#include <algorithm>
#include <type_traits>
#include <vector>

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

// Output values of L totals: float(total - bias), rounded once (bit-identical to the scalar
// int64 expression). uint32 totals convert as vectors: with a bias (signed 8-bit input, 128
// per summed sample) the difference fits int32, because the totals are uint32 only where 255
// per summed sample fits 32 bits; without one they convert as unsigned. uint64 totals convert
// one by one.
// (`lanes`: L totals; a pointer, not a vector parameter: GCC confuses vector typedefs of
// different sizes in template signatures.)
template <class T, std::size_t L>
[[gnu::always_inline]] inline void store_floats(float* out, const T* lanes, std::int64_t bias, std::size_t n) {
  using TV = typename Vec<T, L * sizeof(T)>::type;
  using FV = typename Vec<float, L * sizeof(float)>::type;
  if constexpr (std::is_same_v<T, std::uint64_t>) {
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(static_cast<std::int64_t>(lanes[i]) - bias);
  } else {
    TV sum;
    __builtin_memcpy(&sum, lanes, sizeof(sum));
    FV f;
    if constexpr (std::is_same_v<T, std::uint32_t>) {
      using IV = typename Vec<std::int32_t, L * sizeof(std::int32_t)>::type;
      if (bias != 0) {
        f = __builtin_convertvector((IV)(sum - static_cast<T>(bias)), FV);
      } else {
        f = __builtin_convertvector(sum, FV);
      }
    } else {
      f = __builtin_convertvector(sum, FV);
    }
    if (n == L) {
      __builtin_memcpy(out, &f, sizeof(f));
    } else {
      for (std::size_t i = 0; i < n; ++i) out[i] = f[i];
    }
  }
}

// One task: passes over channel blocks; in each, kernel steps of (NV vectors of time) x (NDM
// DMs) with the accumulators in registers, their sums added into per-thread totals. R: row
// element, T: total, VB: vector bytes. The NDM row segments of one channel overlap
// (neighbouring DMs have similar delays), so most loads hit L1; the next step's lines are
// prefetched while this one runs. When one pass holds every row (few channels, or the
// subband rows of the two-stage path), the accumulators go straight to the output.
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
  const std::size_t nt = a.t_end - a.t_begin;
  const std::size_t nsteps = (nt + W - 1) / W;
  const std::size_t ndm = a.dm_end - a.dm_begin;
  const std::size_t block = std::max<std::size_t>(1, std::min(a.chan_block, a.group));
  const bool one_pass = block >= nk;
  // totals[(dm * nsteps + step) * W + i], plain T: over-aligned vector types stay out of
  // containers, and the totals are read and written with unaligned vector copies.
  thread_local std::vector<T> totals;
  if (!one_pass) totals.assign(ndm * nsteps * W, T{});
  for (std::size_t k0 = 0; k0 < nk; k0 += block) {
    const std::size_t k1 = std::min(nk, k0 + block);
    for (std::size_t step = 0; step < nsteps; ++step) {
      const std::size_t t = a.t_begin + step * W;
      for (std::size_t dm = a.dm_begin; dm < a.dm_end; dm += NDM) {
        const std::uint32_t* off = a.offsets + dm * nk;  // this DM block: [k][d]
        AV acc[NDM][NV] = {};
        for (std::size_t k = k0; k < k1; ++k) {
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
        if (one_pass) {
          for (int d = 0; d < NDM && dm + static_cast<std::size_t>(d) < a.ndms; ++d) {
            float* out = a.out + (dm + static_cast<std::size_t>(d)) * a.out_stride + a.out_col + step * W;
            for (int v = 0; v < NV; ++v) {
              const std::size_t col = step * W + static_cast<std::size_t>(v) * L;
              if (col >= nt) break;
              const TV sum = __builtin_convertvector(acc[d][v], TV);
              T lanes[L];
              __builtin_memcpy(lanes, &sum, sizeof(sum));
              store_floats<T, L>(out + static_cast<std::size_t>(v) * L, lanes, a.bias, std::min(L, nt - col));
            }
          }
          continue;
        }
        T* tot = totals.data() + ((dm - a.dm_begin) * nsteps + step) * W;
        for (int d = 0; d < NDM; ++d) {
          for (int v = 0; v < NV; ++v) {
            T* p = tot + static_cast<std::size_t>(d) * nsteps * W + static_cast<std::size_t>(v) * L;
            TV sum;
            __builtin_memcpy(&sum, p, sizeof(sum));
            sum += __builtin_convertvector(acc[d][v], TV);
            __builtin_memcpy(p, &sum, sizeof(sum));
          }
        }
      }
    }
  }
  if (one_pass) return;
  for (std::size_t d = 0; d < ndm && a.dm_begin + d < a.ndms; ++d) {
    float* out = a.out + (a.dm_begin + d) * a.out_stride + a.out_col;
    const T* tot = totals.data() + d * nsteps * W;
    // The totals hold whole steps, so the last vector does not read past them.
    for (std::size_t i = 0; i < nt; i += L) store_floats<T, L>(out + i, tot + i, a.bias, std::min(L, nt - i));
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

// Stage 1: each subband's shifted channel rows summed, a vector of time at a time (the rows of
// one subband are a few KiB apart in the staging block, so every load hits L1 or L2). RI: the
// channel rows' element (uint8 rows are widened as they are loaded), RO: the subband rows'.
template <class RI, class RO, int VB>
[[gnu::always_inline]] inline void sum_subbands(const SubbandSumArgs& a) {
  constexpr std::size_t L = VB / sizeof(RO);
  using IV = typename Vec<RI, L * sizeof(RI)>::type;
  using OV = typename Vec<RO, VB>::type;
  const RI* rows = static_cast<const RI*>(a.rows);
  for (std::size_t g = 0; g < a.nsub; ++g) {
    const std::size_t k0 = a.first[g];
    const std::size_t k1 = a.first[g + 1];
    RO* out = static_cast<RO*>(a.out) + g * a.out_row_len;
    std::size_t t = 0;
    for (; t + L <= a.n; t += L) {
      OV acc = {};
      for (std::size_t k = k0; k < k1; ++k) {
        IV x;
        __builtin_memcpy(&x, rows + (k - a.first_row) * a.row_len + a.shift[k] + t, sizeof(x));
        if constexpr (std::is_same_v<RI, RO>) {
          acc += x;
        } else {
          acc += __builtin_convertvector(x, OV);
        }
      }
      __builtin_memcpy(out + t, &acc, sizeof(acc));
    }
    for (; t < a.n; ++t) {
      RO acc = 0;
      for (std::size_t k = k0; k < k1; ++k) {
        acc = static_cast<RO>(acc + rows[(k - a.first_row) * a.row_len + a.shift[k] + t]);
      }
      out[t] = acc;
    }
  }
}

template <class RI, class RO>
FASTPSR_AVX512 void sum_avx512(const SubbandSumArgs& a) {
  sum_subbands<RI, RO, 64>(a);
}
template <class RI, class RO>
FASTPSR_AVX2 void sum_avx2(const SubbandSumArgs& a) {
  sum_subbands<RI, RO, 32>(a);
}
template <class RI, class RO>
void sum_generic(const SubbandSumArgs& a) {
  sum_subbands<RI, RO, 16>(a);
}

template <class RI, class RO>
SubbandSumFn subband_sum_typed(std::string_view isa) {
  if (isa == "avx512") return &sum_avx512<RI, RO>;
  if (isa == "avx2") return &sum_avx2<RI, RO>;
  if (isa == "generic") return &sum_generic<RI, RO>;
  throw Error(ErrorCode::invalid_argument, fmt::format("CPU kernel isa '{}' is not avx512, avx2 or generic", isa));
}

template <class R, class T>
KernelVariant variant_blocked(std::string_view isa, std::size_t dm_block) {
  if (dm_block == 0) dm_block = isa == "avx512" ? (std::is_floating_point_v<R> ? 8 : 16) : 8;
  switch (dm_block) {
    case 1:
      return variant<R, T, 1>(isa);
    case 4:
      return variant<R, T, 4>(isa);
    case 8:
      return variant<R, T, 8>(isa);
    case 16:
      return variant<R, T, 16>(isa);
    default:
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("--cpu-config dm_block={}: expected 1, 4, 8 or 16", dm_block));
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

SubbandSumFn subband_sum_for(std::size_t in_bytes, std::size_t out_bytes, std::string_view isa) {
  if (in_bytes == 1 && out_bytes == 2) return subband_sum_typed<std::uint8_t, std::uint16_t>(isa);
  if (in_bytes == 2 && out_bytes == 2) return subband_sum_typed<std::uint16_t, std::uint16_t>(isa);
  if (in_bytes == 4 && out_bytes == 4) return subband_sum_typed<std::uint32_t, std::uint32_t>(isa);
  throw Error(ErrorCode::internal, fmt::format("no stage-1 sum from {}-byte to {}-byte rows", in_bytes, out_bytes));
}

}  // namespace fastpsr::cpu::dedisp_detail
