// SPDX-License-Identifier: MIT
#pragma once
/// The FFT of the fused FIR + FFT kernel (ppf_fir_fft_kernel.cu), split over a thread-block
/// cluster of R = 8 blocks. A C-point spectrum x (C = R·L) is decimated in time: block b holds
/// x_b[j] = x[R·j + b], j < L, and transforms it in its shared memory (the L-point radix-4/2 DIF
/// FFT of ppf_block_fft.hpp, so Y_b[k1] sits at position fft_position_of_bin(k1, log2 L)). Then
///   X[k1 + L·k2] = Σ_b ω_C^{b·k1} · ω_R^{b·k2} · Y_b[k1],   k1 < L, k2 < R,
/// a twiddle and an R-point DFT per k1 that reads Y_b[k1] of every block of the cluster
/// (distributed shared memory). Written as host/device functions so the unit tests run the
/// same arithmetic on the CPU (test_ppf_cluster_fft.cpp).
#include "ppf_block_fft.hpp"

namespace fastpsr::cuda::ppf {

constexpr int kClusterBlocks = 8;  ///< R: blocks per cluster (the portable maximum)
constexpr int kClusterBatch = 8;   ///< spectra per block per exchange

/// In-place 8-point DFT in natural order: on return t[k] = Σ_b t_b · ω_8^{b·k}
/// (ω_8 = exp(∓2πi/8), − forward, + inverse). Radix-2 DIF in registers, then the bit reversal.
FASTPSR_HD void cluster_dft8(Complex32 (&t)[8], bool inverse) {
  constexpr float h = 0.70710678118654752440F;  // √½
  const Complex32 w1 = inverse ? Complex32{h, h} : Complex32{h, -h};
  const Complex32 w3 = inverse ? Complex32{-h, h} : Complex32{-h, -h};
  // Span 8: t[m] ± t[m + 4], the difference times ω_8^m.
  for (int m = 0; m < 4; ++m) {
    const Complex32 a = t[m];
    const Complex32 c = t[m + 4];
    t[m] = cadd(a, c);
    t[m + 4] = csub(a, c);
  }
  t[5] = cmul(t[5], w1);
  t[6] = rot90(t[6], inverse);
  t[7] = cmul(t[7], w3);
  // Span 4: ω_4^m = ω_8^{2m}.
  for (int g = 0; g < 8; g += 4) {
    for (int m = 0; m < 2; ++m) {
      const Complex32 a = t[g + m];
      const Complex32 c = t[g + m + 2];
      t[g + m] = cadd(a, c);
      t[g + m + 2] = csub(a, c);
    }
    t[g + 3] = rot90(t[g + 3], inverse);
  }
  // Span 2.
  for (int g = 0; g < 8; g += 2) {
    const Complex32 a = t[g];
    const Complex32 c = t[g + 1];
    t[g] = cadd(a, c);
    t[g + 1] = csub(a, c);
  }
  // Bin k is at position bitreverse3(k): swap 1 ↔ 4 and 3 ↔ 6.
  Complex32 s = t[1];
  t[1] = t[4];
  t[4] = s;
  s = t[3];
  t[3] = t[6];
  t[6] = s;
}

/// The cluster's last stage for one k1: y[b] = Y_b[k1] on entry, X[k1 + L·k2] in y[k2] on return.
/// `twiddle` is the C-point table exp(−2πi·t/C) (t = b·k1 < C).
FASTPSR_HD void cluster_combine(Complex32 (&y)[8], unsigned k1, const Complex32* twiddle, bool inverse) {
  for (unsigned b = 1; b < 8; ++b) y[b] = cmul(y[b], twiddle_at(twiddle, b * k1, inverse));
  cluster_dft8(y, inverse);
}

/// Raw-input exchange: block q loads channels q·L ... q·L + L − 1 of each spectrum (coalesced);
/// block b's thread j needs channel R·j + b, held by block owner_block at owner_offset.
FASTPSR_HD unsigned cluster_owner_block(unsigned j, unsigned b, int log2l) { return (8U * j + b) >> log2l; }
FASTPSR_HD unsigned cluster_owner_offset(unsigned j, unsigned b, int log2l) {
  return (8U * j + b) & ((1U << log2l) - 1U);
}

/// The transposed-form FIR's ring of T accumulators: input r (relative to the cluster's first
/// input spectrum) adds tap t to the accumulator of output r − t, slot (r − t) mod T; the slot
/// of output r − (T − 1) is complete after input r and is next reused by output r + 1.
FASTPSR_HD constexpr int fir_ring_slot(int r, int t, int ntaps) { return ((r - t) % ntaps + ntaps) % ntaps; }

}  // namespace fastpsr::cuda::ppf
