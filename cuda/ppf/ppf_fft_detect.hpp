// SPDX-License-Identifier: MIT
#pragma once
/// The per-bin arithmetic of the fused FFT + detection kernel (ppf_fft_detect_kernel.cu), as
/// host/device functions so that tests/unit/ppf/test_ppf_fft_detect.cpp runs it on the CPU with
/// the kernel's own FFT (common/stockham_fft.cuh, emulated thread by thread).
///
/// The Stockham FFT is an inverse transform; the kernel computes the forward DFT as
/// conj(inverse(conj x)): it conjugates the loaded spectra (stockham_input) and leaves the outer
/// conjugation to the detection, where only V = 2 Im(conj(X) Y) sees it (its sign flips).
#include "common/stockham_fft.cuh"

namespace fastpsr::cuda::ppf {

/// The value the transform takes for filtered sample (re, im): conjugated for the forward DFT.
FASTPSR_HD fft::Cf stockham_input(float re, float im, bool inverse) { return {re, inverse ? im : -im}; }

/// Adds the detected products of one bin to acc[0 .. Q): x, y the transform's outputs for the
/// two polarisations (y unused when P = 1), detection 0 I (xx + yy), 1 AA, 2 BB, 3 IQUV (Q = 4).
template <int P, int Q>
FASTPSR_HD void add_detected(float (&acc)[Q], fft::Cf x, fft::Cf y, int detection, bool inverse) {
  const float xx = fft::norm(x);
  if constexpr (P == 1) {
    acc[0] += xx;
  } else if constexpr (Q == 4) {
    const float yy = fft::norm(y);
    acc[0] += xx + yy;
    acc[1] += xx - yy;
    acc[2] += 2.0F * (x.re * y.re + x.im * y.im);
    acc[3] += (inverse ? 2.0F : -2.0F) * (x.re * y.im - x.im * y.re);
  } else {
    const float yy = fft::norm(y);
    acc[0] += detection == 1 ? xx : detection == 2 ? yy : xx + yy;
  }
}

}  // namespace fastpsr::cuda::ppf
