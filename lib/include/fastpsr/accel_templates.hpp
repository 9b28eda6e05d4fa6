// SPDX-License-Identifier: MIT
#pragma once
/// The Fourier response of a signal with constant frequency drift (PRESTO's gen_z_response) and
/// the correlation templates sampled from it (accel.hpp gives the definitions).
#include <complex>
#include <vector>

#include "fastpsr/accel.hpp"

namespace fastpsr {

/// Fresnel integrals C(x) = int_0^x cos(pi t^2/2) dt and S(x) = int_0^x sin(pi t^2/2) dt, double
/// precision (absolute error < 1e-14), any real x.
void fresnel(double x, double& s, double& c) noexcept;

/// A_z(d) of accel.hpp: the response of bin k = r0 + d to a unit signal of average Fourier
/// frequency r0 and drift z bins. Exact for any real d and z (sinc form for |z| < 1e-9).
std::complex<double> z_response(double d, double z) noexcept;

/// PRESTO's HIGHACC template half width (bins) for drift z: floor(0.55 |z|) + 48 (used by the
/// candidate optimisation).
int template_halfwidth_highacc(double z) noexcept;

/// The correlation template of drift z for `numbetween` samples per bin (2 = fourier, 1 =
/// interbin): element m (m = 0 .. 2*numbetween*h - 1, h = template_halfwidth(z)) is
/// conj(A_z(d_m)) with d_m = -h + m/numbetween, so that C(r) = sum_m X[r + d_m] * T[m] over the
/// m that make r + d_m an integer.
std::vector<std::complex<float>> correlation_template(int z, int numbetween);

/// The complex interpolated amplitude at (r, z) from bins within +-halfwidth of r, as PRESTO's
/// rz_interp: sum over k = floor(r) - halfwidth .. floor(r) + halfwidth - 1 (clipped to
/// [0, numbins)) of X_k conj(A_z(k - r)); zero when r is outside [0, numbins - 1].
std::complex<double> rz_interp(const std::complex<float>* x, long numbins, double r, double z, int halfwidth);

}  // namespace fastpsr
