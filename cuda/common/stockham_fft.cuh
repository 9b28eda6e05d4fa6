// SPDX-License-Identifier: MIT
#pragma once
// The building blocks of a shared-memory inverse FFT: a Stockham autosort FFT of M = 2^LOG2M
// points done by T = M / R threads, each holding R = 2^LOG2R points in registers. Every pass
// reads the thread's points x[j + m T] (m = 0 .. R-1), twiddles them, does R / Rp radix-Rp
// butterflies in registers and, except in the last pass, scatters the results to shared memory,
// from where the next pass reads x[j + m T] again. The last pass leaves output j + m T in
// register slot m (natural order: no bit-reversal pass, as the FDAS paper's DIT inverse).
//
// Host and device code (C++17): the accel custom path (accel/correlate_custom.cu) and the ppf
// FFT + detection kernel (ppf/ppf_fft_detect_kernel.cu; a forward transform there, as
// conj(inverse(conj x))) use it, and tests/unit/accel/test_accel_stockham.cpp runs the same index
// arithmetic and butterflies on the CPU, emulating the threads, against a direct DFT.
#include <cmath>

#if defined(__CUDACC__)
#define FASTPSR_HD __host__ __device__ __forceinline__
#else
#define FASTPSR_HD inline
#endif
#if defined(__CUDA_ARCH__)
#define FASTPSR_UNROLL _Pragma("unroll")
#else
#define FASTPSR_UNROLL
#endif

namespace fastpsr::cuda::fft {

/// A complex float in registers (no CUDA vector types, so that the host tests can use it).
struct Cf {
  float re;
  float im;
};

FASTPSR_HD Cf add(Cf a, Cf b) { return {a.re + b.re, a.im + b.im}; }
FASTPSR_HD Cf sub(Cf a, Cf b) { return {a.re - b.re, a.im - b.im}; }
FASTPSR_HD Cf mul(Cf a, Cf b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
FASTPSR_HD Cf conj(Cf a) { return {a.re, -a.im}; }
FASTPSR_HD Cf times_i(Cf a) { return {-a.im, a.re}; }
FASTPSR_HD float norm(Cf a) { return a.re * a.re + a.im * a.im; }

/// x * exp(+2 pi i a / 16), a = 0 .. 7 (a compile-time constant), with the trivial angles exact.
template <int A>
FASTPSR_HD Cf rotate16(Cf x) {
  static_assert(A >= 0 && A < 8, "rotate16: angle index 0..7");
  constexpr float c1 = 0.92387953251128674F;  // cos(pi/8)
  constexpr float s1 = 0.38268343236508977F;  // sin(pi/8)
  constexpr float h = 0.70710678118654752F;   // sqrt(1/2)
  if constexpr (A == 0) {
    return x;
  } else if constexpr (A == 4) {
    return times_i(x);
  } else if constexpr (A == 2) {
    return {h * (x.re - x.im), h * (x.re + x.im)};
  } else if constexpr (A == 6) {
    return {-h * (x.re + x.im), h * (x.re - x.im)};
  } else {
    constexpr float c = A == 1 ? c1 : A == 3 ? s1 : A == 5 ? -s1 : -c1;
    constexpr float s = A == 1 ? s1 : A == 3 ? c1 : A == 5 ? c1 : s1;
    return {c * x.re - s * x.im, c * x.im + s * x.re};
  }
}

/// The combination step of idft<R> for r = Rr .. R/2 - 1 (compile-time recursion on r, so that
/// every twiddle is a constant).
template <int R, int Rr>
FASTPSR_HD void combine(Cf* v, const Cf* e, const Cf* o) {
  if constexpr (Rr < R / 2) {
    const Cf t = rotate16<Rr*(16 / R)>(o[Rr]);
    v[Rr] = add(e[Rr], t);
    v[Rr + R / 2] = sub(e[Rr], t);
    combine<R, Rr + 1>(v, e, o);
  }
}

/// In-place inverse DFT of R = 1, 2, 4, 8 or 16 points: v[r] <- sum_q v[q] exp(+2 pi i q r / R).
template <int R>
FASTPSR_HD void idft(Cf* v) {
  static_assert(R == 1 || R == 2 || R == 4 || R == 8 || R == 16, "idft: radix 1, 2, 4, 8 or 16");
  if constexpr (R == 2) {
    const Cf a = v[0];
    v[0] = add(a, v[1]);
    v[1] = sub(a, v[1]);
  } else if constexpr (R == 4) {
    const Cf t0 = add(v[0], v[2]);
    const Cf t1 = sub(v[0], v[2]);
    const Cf t2 = add(v[1], v[3]);
    const Cf t3 = times_i(sub(v[1], v[3]));
    v[0] = add(t0, t2);
    v[2] = sub(t0, t2);
    v[1] = add(t1, t3);
    v[3] = sub(t1, t3);
  } else if constexpr (R >= 8) {
    // Even and odd halves, then y[r] = E[r] + w^r O[r], y[r + R/2] = E[r] - w^r O[r].
    constexpr int half = R / 2;
    Cf e[half];
    Cf o[half];
    FASTPSR_UNROLL
    for (int q = 0; q < half; ++q) {
      e[q] = v[2 * q];
      o[q] = v[2 * q + 1];
    }
    idft<half>(e);
    idft<half>(o);
    combine<R, 0>(v, e, o);
  }
}

/// Reads a twiddle from the table (read-only cache on the device).
FASTPSR_HD Cf load_twiddle(const Cf* table, int t) {
#if defined(__CUDA_ARCH__)
  const float2 w = __ldg(reinterpret_cast<const float2*>(table) + t);
  return {w.x, w.y};
#else
  return table[t];
#endif
}

/// The pass schedule as functions of (log2 M, log2 R), for the host code that sizes buffers at run
/// time: radix-R passes, then one pass of the remaining radix.
constexpr int stockham_passes(int log2m, int log2r) { return (log2m + log2r - 1) / log2r; }
constexpr int stockham_radix_bits(int log2m, int log2r, int p) {
  return p + 1 < stockham_passes(log2m, log2r) ? log2r : log2m - (stockham_passes(log2m, log2r) - 1) * log2r;
}
/// The power table (twiddles = Powers mode of stockham_butterflies): for every pass p >= 1, the
/// powers w^r, r = 1 .. Rp - 1, of w = exp(+2 pi i k / (Ns Rp)) for k < Ns, at
/// M + stockham_power_offset(p) + (r - 1) Ns + k of the twiddle array (after the M base twiddles).
/// Loading the powers costs one load each (a fixed offset from one address, consecutive k in
/// consecutive threads) instead of a complex product each, and they are correctly rounded.
constexpr int stockham_power_offset(int log2m, int log2r, int p) {
  int n = 0;
  for (int q = 1; q < p; ++q) n += ((1 << stockham_radix_bits(log2m, log2r, q)) - 1) << (q * log2r);
  return n;
}
constexpr int stockham_power_entries(int log2m, int log2r) {
  return stockham_power_offset(log2m, log2r, stockham_passes(log2m, log2r));
}
/// Host: the M base twiddles exp(+2 pi i t / M) followed by the power table, M +
/// stockham_power_entries values (double-precision angles, rounded once).
template <class C>
void fill_stockham_twiddles(int log2m, int log2r, C* out) {
  const int m = 1 << log2m;
  const double two_pi = 2.0 * std::acos(-1.0);
  for (int t = 0; t < m; ++t)
    out[t] = {static_cast<float>(std::cos(two_pi * t / m)), static_cast<float>(std::sin(two_pi * t / m))};
  for (int p = 1; p < stockham_passes(log2m, log2r); ++p) {
    const int ns = 1 << (p * log2r);
    const int rp = 1 << stockham_radix_bits(log2m, log2r, p);
    C* table = out + m + stockham_power_offset(log2m, log2r, p);
    for (int r = 1; r < rp; ++r) {
      for (int k = 0; k < ns; ++k) {
        // exp(+2 pi i k r / (Ns Rp)) = base twiddle (k r M / (Ns Rp)) mod M, an integer index.
        const long long t = (static_cast<long long>(k) * r * (m / (ns * rp))) % m;
        table[(r - 1) * ns + k] = out[t];
      }
    }
  }
}

/// The pass schedule of an M = 2^LOG2M point transform with R = 2^LOG2R points per thread:
/// radix-R passes, then one pass of the remaining radix.
template <int LOG2M, int LOG2R>
struct StockhamPlan {
  static_assert((LOG2R == 3 || LOG2R == 4) && LOG2M >= LOG2R + 1, "Stockham plan: R 8 or 16, M > R");
  static constexpr int log2m = LOG2M;
  static constexpr int log2r = LOG2R;
  static constexpr int M = 1 << LOG2M;
  static constexpr int R = 1 << LOG2R;
  static constexpr int T = M / R;  ///< threads per transform
  static constexpr int passes = stockham_passes(LOG2M, LOG2R);
  /// log2 of the radix of pass p.
  static constexpr int radix_bits(int p) { return stockham_radix_bits(LOG2M, LOG2R, p); }
  /// log2 of Ns, the length of the sub-transforms pass p combines (product of earlier radices).
  static constexpr int ns_bits(int p) { return p * LOG2R; }
  /// Where pass p's powers start in the twiddle array (Powers mode).
  static constexpr int power_base(int p) { return M + stockham_power_offset(LOG2M, LOG2R, p); }

  /// Shared-memory position of element idx as written by pass p (and read by pass p + 1). The
  /// padding makes both the scattered writes and the unit-stride reads free of bank conflicts
  /// (32 banks of 4 bytes; real and imaginary parts in separate arrays):
  ///   Ns >= 32: none; Ns Rp >= 32: Ns words after each row of Ns Rp; else: one word per 32.
  static constexpr int smem_index(int p, int idx) {
    const int nb = ns_bits(p);
    const int rb = radix_bits(p);
    if (nb >= 5) return idx;
    if (nb + rb >= 5) return idx + ((idx >> (nb + rb)) << nb);
    return idx + (idx >> 5);
  }
  /// Floats per real (or imaginary) shared array: the largest padded index of any written pass.
  static constexpr int smem_floats() {
    int n = M;
    for (int p = 0; p + 1 < passes; ++p) {
      const int last = smem_index(p, M - 1) + 1;
      n = last > n ? last : n;
    }
    return n;
  }
};

/// Twiddles and butterflies of pass `Pass` for Q transforms held by thread j: on return, slot
/// i + r (R / Rp) holds output r of the thread's butterfly i (b = j + i T). Powers: the twiddle
/// powers come from the power table (fill_stockham_twiddles), else from the base twiddle by
/// complex products.
template <class Plan, int Pass, int Q, bool Powers = false>
FASTPSR_HD void stockham_butterflies(Cf (&v)[Q][Plan::R], int j, const Cf* twiddles) {
  constexpr int R = Plan::R;
  constexpr int T = Plan::T;
  constexpr int rp = 1 << Plan::radix_bits(Pass);
  constexpr int ns = 1 << Plan::ns_bits(Pass);
  constexpr int per = R / rp;  // butterflies per thread
  FASTPSR_UNROLL
  for (int i = 0; i < per; ++i) {
    // w^r with w = exp(+2 pi i k / (Ns Rp)), k = b mod Ns.
    if constexpr (Powers) {
      // The loaded powers go into every transform first, then the butterflies: each power is dead
      // once applied, instead of Rp - 1 of them live beside the Q transforms' points.
      if constexpr (ns > 1) {
        const Cf* powers = twiddles + Plan::power_base(Pass) + ((j + i * T) & (ns - 1));
        FASTPSR_UNROLL
        for (int r = 1; r < rp; ++r) {
          const Cf w = load_twiddle(powers, (r - 1) * ns);
          FASTPSR_UNROLL
          for (int q = 0; q < Q; ++q) v[q][i + r * per] = mul(v[q][i + r * per], w);
        }
      }
      FASTPSR_UNROLL
      for (int q = 0; q < Q; ++q) {
        Cf u[rp];
        FASTPSR_UNROLL
        for (int r = 0; r < rp; ++r) u[r] = v[q][i + r * per];
        idft<rp>(u);
        FASTPSR_UNROLL
        for (int r = 0; r < rp; ++r) v[q][i + r * per] = u[r];
      }
    } else {
      Cf w[rp];
      if constexpr (ns > 1) {
        // The table holds exp(+2 pi i t / M).
        const int k = (j + i * T) & (ns - 1);
        w[0] = {1.0F, 0.0F};
        w[1] = load_twiddle(twiddles, k * (Plan::M / (ns * rp)));
        FASTPSR_UNROLL
        for (int r = 2; r < rp; ++r) w[r] = mul(w[r >> 1], w[r - (r >> 1)]);
      }
      FASTPSR_UNROLL
      for (int q = 0; q < Q; ++q) {
        Cf u[rp];
        FASTPSR_UNROLL
        for (int r = 0; r < rp; ++r) {
          u[r] = v[q][i + r * per];
          if constexpr (ns > 1) {
            if (r > 0) u[r] = mul(u[r], w[r]);
          }
        }
        idft<rp>(u);
        FASTPSR_UNROLL
        for (int r = 0; r < rp; ++r) v[q][i + r * per] = u[r];
      }
    }
  }
}

/// Where pass `Pass` puts output r of butterfly b (before padding): (b / Ns) Ns Rp + b mod Ns + r Ns.
template <class Plan, int Pass>
FASTPSR_HD int stockham_destination(int b, int r) {
  constexpr int nb = Plan::ns_bits(Pass);
  constexpr int rb = Plan::radix_bits(Pass);
  return ((b >> nb) << (nb + rb)) + (b & ((1 << nb) - 1)) + (r << nb);
}

#if defined(__CUDACC__)
/// Passes Pass .. last of the inverse FFTs of Q transforms held by the T threads of a block
/// (thread j holds x[j + m T] of transform q in v[q][m]); transform q exchanges through
/// smem[q 2F ... q 2F + 2F) (F = Plan::smem_floats(): the real parts, then the imaginary parts).
/// On return thread j holds output j + m T in v[q][m]. Every thread of the block must call it
/// (it synchronises the block), and may call it again at once: the first write to smem waits
/// until every thread has read the previous contents.
template <class Plan, int Pass, int Q, bool Powers = false>
__device__ __forceinline__ void stockham_inverse(Cf (&v)[Q][Plan::R], float* smem, const Cf* twiddles, int j) {
  stockham_butterflies<Plan, Pass, Q, Powers>(v, j, twiddles);
  if constexpr (Pass + 1 < Plan::passes) {
    constexpr int R = Plan::R;
    constexpr int T = Plan::T;
    constexpr int per = R >> Plan::radix_bits(Pass);
    constexpr int rp = 1 << Plan::radix_bits(Pass);
    constexpr int F = Plan::smem_floats();
    __syncthreads();  // every thread has read the previous contents
    FASTPSR_UNROLL
    for (int q = 0; q < Q; ++q) {
      float* re = smem + q * 2 * F;
      float* im = re + F;
      FASTPSR_UNROLL
      for (int i = 0; i < per; ++i) {
        FASTPSR_UNROLL
        for (int r = 0; r < rp; ++r) {
          const int w = Plan::smem_index(Pass, stockham_destination<Plan, Pass>(j + i * T, r));
          re[w] = v[q][i + r * per].re;
          im[w] = v[q][i + r * per].im;
        }
      }
    }
    __syncthreads();
    FASTPSR_UNROLL
    for (int q = 0; q < Q; ++q) {
      const float* re = smem + q * 2 * F;
      const float* im = re + F;
      FASTPSR_UNROLL
      for (int m = 0; m < R; ++m) {
        const int w = Plan::smem_index(Pass, j + m * T);
        v[q][m] = {re[w], im[w]};
      }
    }
    stockham_inverse<Plan, Pass + 1, Q, Powers>(v, smem, twiddles, j);
  }
}
#endif

}  // namespace fastpsr::cuda::fft
