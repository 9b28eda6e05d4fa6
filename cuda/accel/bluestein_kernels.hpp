// SPDX-License-Identifier: MIT
#pragma once
// Launchers of the real FFT's Bluestein kernels (C++17: included by the .cu file and by
// real_fft_cuda.cpp). A DM trial's length n = 2m is seldom a product of small primes, and cuFFT
// makes a plan for such a length in ~10 ms, one plan at a time however many threads ask (H100,
// bench/results/h100-session10.md), while transforming it takes 0.2 ms. Bluestein's identity
// jk = (j^2 + k^2 - (k - j)^2) / 2 turns the m-point DFT of the packed pairs z_j = x_2j + i x_2j+1
// into a convolution of power-of-two length M >= 2m - 1, whose plans depend on M only:
//   Z_k = w_k sum_j (z_j w_j) conj(w_(k-j)),  w_j = exp(-i pi j^2 / m).
// The chirp's phase j^2 mod 2m is exact in 64-bit integers and its sine and cosine are taken in
// double, so the chirp adds no error beyond float32's rounding of the result.
#include <cuda_runtime_api.h>

namespace fastpsr::cuda::accel {

/// a[j] = z[j] w_j for j < m and 0 for m <= j < M (z: the series as m complex pairs).
cudaError_t launch_bluestein_premultiply(const void* z, long long m, void* a, long long M, cudaStream_t stream);

/// b[j] = conj(w_j) for j < m, b[M - j] = conj(w_j) for 0 < j < m, 0 elsewhere: the chirp
/// filter, circularly wrapped so that the convolution's negative lags sit at the end.
cudaError_t launch_bluestein_filter(long long m, void* b, long long M, cudaStream_t stream);

/// a[j] *= B[j] * scale for j < M (the product of the two transforms; scale = 1 / M undoes the
/// unnormalised inverse FFT).
cudaError_t launch_bluestein_multiply(void* a, const void* B, long long M, float scale, cudaStream_t stream);

/// From c (the inverse transform: Z_k = w_k c_k) to the real series' spectrum in PRESTO's
/// packing, m bins: X_k = E_k + exp(-i pi k / m) O_k with E_k = (Z_k + conj(Z_(m-k))) / 2 and
/// O_k = (Z_k - conj(Z_(m-k))) / 2i; bin 0 holds X_0 and the Nyquist bin X_m (both real).
cudaError_t launch_bluestein_real_finish(const void* c, long long m, void* out, cudaStream_t stream);

}  // namespace fastpsr::cuda::accel
