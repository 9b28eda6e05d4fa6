// SPDX-License-Identifier: MIT
#pragma once
/// The plain double-precision acceleration-search reference: the Fourier response by direct
/// quadrature of its defining integral (no Fresnel integrals), the plane by direct summation
/// over bins (no FFTs), and the harmonic sums and hits of accel.hpp by their definition.
#include <complex>
#include <cstdint>
#include <vector>

#include "fastpsr/accel.hpp"

namespace fastpsr::test {

/// A_z(d) = int_0^1 exp(2 pi i [-d u + (z/2)(u^2 - u)]) du by composite 5-point Gauss-Legendre
/// quadrature with `panels` panels (absolute error < 1e-13 for |d| + |z| < 500 at the default).
std::complex<double> reference_z_response(double d, double z, int panels = 2000);

/// P(rk, zi) of accel.hpp for rk in [rk_lo, rk_hi) and every zi: row-major [zi][rk - rk_lo].
std::vector<double> reference_plane(const std::vector<std::complex<float>>& x, const AccelSearchProblem& p,
                                    std::int64_t rk_lo, std::int64_t rk_hi, const AccelPowerScale& scale = {});

/// Every hit of accel.hpp's definition, computed from reference_plane.
std::vector<AccelHit> reference_hits(const std::vector<std::complex<float>>& x, const AccelSearchProblem& p,
                                     const AccelPowerScale& scale = {});

/// Unit-variance complex noise (seeded) plus a drifting pulsar-like signal with 4 harmonics: the
/// fundamental at average bin r0 with drift z0 (harmonic h at h r0, h z0, amplitude
/// `amplitude`/h, phase h `phase_step`).
std::vector<std::complex<float>> noisy_accel_spectrum(std::uint64_t seed, std::int64_t numbins, double r0, double z0,
                                                      double amplitude = 6.0, double phase_step = 0.7);

}  // namespace fastpsr::test
