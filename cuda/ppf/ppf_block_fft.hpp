// SPDX-License-Identifier: MIT
#pragma once
/// An in-place complex FFT of a power-of-two length n held in one block's shared memory:
/// radix-4 decimation-in-frequency stages (the last one radix 2 when log2 n is odd), leaving
/// bin k at position position_of_bin(k) (digit reversal). The butterflies are written as
/// host/device functions so that the unit tests run them on the CPU, stage by stage and
/// butterfly by butterfly, exactly as the CUDA threads do (the cluster kernel's local FFT,
/// ppf_fir_fft_kernel.cu).
///
/// Stage with span L (L = n, n/4, ... down to 4, then 2 if needed), butterfly b < n/radix:
/// group g = b / q, offset i = b % q, q = L/radix; it reads a_k = x[g·L + i + k·q] and writes
///   y_k = (Σ_m a_m · ω_radix^{m·k}) · ω_L^{k·i},   ω_N = exp(∓2πi/N) (− forward, + inverse),
/// back to the same places. ω_L^{k·i} = twiddle[k·i·(n/L)], twiddle[t] = exp(−2πi·t/n)
/// (conjugated for the inverse transform).
#include <cstdint>

#if defined(__CUDACC__)
#define FASTPSR_HD __host__ __device__ __forceinline__
#else
#define FASTPSR_HD inline
#endif

namespace fastpsr::cuda::ppf {

struct alignas(8) Complex32 {
  float re;
  float im;
};

FASTPSR_HD Complex32 cadd(Complex32 a, Complex32 b) { return {a.re + b.re, a.im + b.im}; }
FASTPSR_HD Complex32 csub(Complex32 a, Complex32 b) { return {a.re - b.re, a.im - b.im}; }
FASTPSR_HD Complex32 cmul(Complex32 a, Complex32 b) { return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
/// a·(−i) for the forward transform, a·(+i) for the inverse.
FASTPSR_HD Complex32 rot90(Complex32 a, bool inverse) {
  return inverse ? Complex32{-a.im, a.re} : Complex32{a.im, -a.re};
}
FASTPSR_HD Complex32 twiddle_at(const Complex32* twiddle, unsigned t, bool inverse) {
  const Complex32 w = twiddle[t];
  return inverse ? Complex32{w.re, -w.im} : w;
}

/// Number of stages and the span of stage s (radix 4 while the span is >= 4, then radix 2).
FASTPSR_HD int fft_stage_radix(int log2n, int stage) { return (log2n - 2 * stage) >= 2 ? 4 : 2; }
FASTPSR_HD int fft_stage_count(int log2n) { return (log2n + 1) / 2; }
FASTPSR_HD unsigned fft_stage_span(int log2n, int stage) { return 1U << (log2n - 2 * stage); }

/// Radix-4 butterfly b of the stage with span L over x (length n).
FASTPSR_HD void fft_radix4_butterfly(Complex32* x, unsigned n, unsigned span, unsigned b, const Complex32* twiddle,
                                     bool inverse) {
  const unsigned q = span / 4;
  const unsigned g = b / q;
  const unsigned i = b - g * q;
  Complex32* p = x + g * span + i;
  const Complex32 a0 = p[0];
  const Complex32 a1 = p[q];
  const Complex32 a2 = p[2 * q];
  const Complex32 a3 = p[3 * q];
  const Complex32 s02 = cadd(a0, a2);
  const Complex32 d02 = csub(a0, a2);
  const Complex32 s13 = cadd(a1, a3);
  const Complex32 d13 = rot90(csub(a1, a3), inverse);  // ω_4·(a1 − a3)
  const unsigned stride = n / span;
  p[0] = cadd(s02, s13);
  p[q] = cmul(cadd(d02, d13), twiddle_at(twiddle, i * stride, inverse));
  p[2 * q] = cmul(csub(s02, s13), twiddle_at(twiddle, 2 * i * stride, inverse));
  p[3 * q] = cmul(csub(d02, d13), twiddle_at(twiddle, 3 * i * stride, inverse));
}

/// Radix-2 butterfly b of the stage with span L.
FASTPSR_HD void fft_radix2_butterfly(Complex32* x, unsigned n, unsigned span, unsigned b, const Complex32* twiddle,
                                     bool inverse) {
  const unsigned q = span / 2;
  const unsigned g = b / q;
  const unsigned i = b - g * q;
  Complex32* p = x + g * span + i;
  const Complex32 a0 = p[0];
  const Complex32 a1 = p[q];
  p[0] = cadd(a0, a1);
  p[q] = cmul(csub(a0, a1), twiddle_at(twiddle, i * (n / span), inverse));
}

/// Where bin k ends: the digits of k (radix 4 from the least significant, then the radix-2
/// digit) written from the most significant end.
FASTPSR_HD unsigned fft_position_of_bin(unsigned k, int log2n) {
  unsigned p = 0;
  int bits = log2n;
  while (bits >= 2) {
    p = (p << 2) | (k & 3U);
    k >>= 2;
    bits -= 2;
  }
  if (bits == 1) p = (p << 1) | (k & 1U);
  return p;
}

/// The bin held at position p (the inverse of fft_position_of_bin).
FASTPSR_HD unsigned fft_bin_at_position(unsigned p, int log2n) {
  unsigned k = 0;
  int shift = 0;
  int bits = log2n;
  // The first stages' digits are the most significant digits of p and the least of k.
  while (bits >= 2) {
    k |= ((p >> (bits - 2)) & 3U) << shift;
    shift += 2;
    bits -= 2;
  }
  if (bits == 1) k |= (p & 1U) << shift;
  return k;
}

}  // namespace fastpsr::cuda::ppf
