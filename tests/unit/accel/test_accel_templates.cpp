// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "fastpsr/accel_templates.hpp"
#include "support/reference_accel.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {
// Fresnel integrals by the same Gauss-Legendre quadrature as the reference, for the test only.
void quad_fresnel(double x, double& s, double& c) {
  // C + iS = int_0^x exp(i pi t^2 / 2) dt = x * int_0^1 exp(i pi x^2 u^2 / 2) du
  const int panels = 4000;
  const double gl_x[5] = {0.0, -0.5384693101056831, 0.5384693101056831, -0.9061798459386640, 0.9061798459386640};
  const double gl_w[5] = {0.5688888888888889, 0.4786286704993665, 0.4786286704993665, 0.2369268850561891,
                          0.2369268850561891};
  double sc = 0, ss = 0;
  for (int p = 0; p < panels; ++p) {
    for (int i = 0; i < 5; ++i) {
      const double u = (p + 0.5 + 0.5 * gl_x[i]) / panels;
      const double ph = 0.5 * M_PI * x * x * u * u;
      sc += gl_w[i] * 0.5 / panels * std::cos(ph);
      ss += gl_w[i] * 0.5 / panels * std::sin(ph);
    }
  }
  s = x * ss;
  c = x * sc;
}
}  // namespace

TEST_CASE("accel templates: Fresnel integrals against quadrature, across the method boundaries") {
  for (double x :
       {0.0, 0.1, 0.5, 1.0, 1.59, 1.61, 1.75, 2.0, 2.2501, 3.0, 3.3, 3.9, 4.24, 4.49, 4.51, 6.0, 10.0, 31.7, -2.2}) {
    CAPTURE(x);
    double s = 0, c = 0, qs = 0, qc = 0;
    fresnel(x, s, c);
    quad_fresnel(x, qs, qc);
    CHECK(std::fabs(s - qs) < 2e-14);
    CHECK(std::fabs(c - qc) < 2e-14);
  }
  double s = 0, c = 0;
  fresnel(1.0, s, c);
  CHECK(c == doctest::Approx(0.7798934003768228).epsilon(1e-14));
  CHECK(s == doctest::Approx(0.4382591473903548).epsilon(1e-14));
  fresnel(1e6, s, c);
  CHECK(c == doctest::Approx(0.5).epsilon(1e-6));
}

TEST_CASE("accel templates: the z response equals direct quadrature of its integral") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dd(-60.0, 60.0);
  std::uniform_real_distribution<double> zz(-120.0, 120.0);
  for (int i = 0; i < 40; ++i) {
    const double d = dd(rng);
    const double z = i < 4 ? 0.0 : (i < 8 ? 2e-7 : zz(rng));
    CAPTURE(d);
    CAPTURE(z);
    const auto fast = z_response(d, z);
    const auto ref = test::reference_z_response(d, z);
    CHECK(std::abs(fast - ref) < 1e-12);
  }
  // Symmetry used by +-z template pairs: A_{-z}(d) = conj(A_z(-d)).
  CHECK(std::abs(z_response(3.25, -40.0) - std::conj(z_response(-3.25, 40.0))) < 1e-14);
  // A_0 is the sinc with its phase; the response has unit energy.
  CHECK(std::abs(z_response(0.5, 0.0) - std::complex<double>(0.0, -2.0 / M_PI)) < 1e-15);
  double energy = 0.0;
  for (int k = -2000; k <= 2000; ++k) energy += std::norm(z_response(k + 0.3, 50.0));
  CHECK(energy == doctest::Approx(1.0).epsilon(2e-3));
}

TEST_CASE("accel templates: template layout and PRESTO's half widths") {
  CHECK(template_halfwidth(0) == 16);
  CHECK(template_halfwidth(200) == 126);
  CHECK(template_halfwidth(-2) == 17);
  CHECK(template_halfwidth_highacc(0) == 48);
  const auto t = correlation_template(-14, 2);
  const int h = template_halfwidth(-14);
  REQUIRE(t.size() == static_cast<std::size_t>(4 * h));
  for (int m : {0, 1, 2 * h, 4 * h - 1}) {
    const auto a = std::conj(z_response(-h + 0.5 * m, -14));
    CHECK(std::abs(std::complex<double>(t[static_cast<std::size_t>(m)]) - a) < 1e-7);
  }
}

TEST_CASE("accel templates: rz_interp recovers an injected drifting signal") {
  // X_k = amp * A_z(k - r0): the interpolated amplitude at (r0, z) is amp times the energy kept.
  const long n = 4096;
  const double r0 = 1000.37;
  const double z = 17.3;
  const std::complex<double> amp(3.0, -4.0);
  std::vector<std::complex<float>> x(static_cast<std::size_t>(n));
  for (long k = 0; k < n; ++k) x[static_cast<std::size_t>(k)] = std::complex<float>(amp * z_response(k - r0, z));
  const auto got = rz_interp(x.data(), n, r0, z, template_halfwidth_highacc(z));
  CHECK(std::abs(got - amp) < 0.01 * std::abs(amp));
  CHECK(std::norm(rz_interp(x.data(), n, r0 + 0.5, z, 64)) < std::norm(got));
}
