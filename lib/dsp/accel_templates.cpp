// SPDX-License-Identifier: MIT
#include "fastpsr/accel_templates.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace fastpsr {
namespace {

constexpr double kPi = 3.14159265358979323846;

using cd = std::complex<double>;
const cd kHalfOnePlusI(0.5, 0.5);

// The Fresnel auxiliary function W(t), t >= 0, defined by C(t) + i S(t) = (1+i)/2 - W(t) e^{i pi t^2/2}
// (W = g + i f of A&S 7.3.5-6). Working with W keeps the large phases pi t^2/2 out of the
// arithmetic, so that differences of Fresnel integrals at large arguments stay accurate.

// Power series of C and S, for t <= 1.6 (largest term ~ e^4: ~1e-15 absolute).
cd aux_series(double t) {
  const double lambda = 0.5 * kPi * t * t;
  double a = t;  // lambda^k / k! * t
  double sc = 0.0;
  double ss = 0.0;
  for (int k = 0; k < 200; ++k) {
    const double term = a / (2 * k + 1);
    switch (k % 4) {  // C takes the even k with sign (-1)^(k/2), S the odd k with (-1)^((k-1)/2)
      case 0:
        sc += term;
        break;
      case 1:
        ss += term;
        break;
      case 2:
        sc -= term;
        break;
      default:
        ss -= term;
        break;
    }
    if (k > 4 && std::fabs(term) < 1e-17 * (std::fabs(sc) + std::fabs(ss))) break;
    a *= lambda / (k + 1);
  }
  return (kHalfOnePlusI - cd(sc, ss)) * cd(std::cos(lambda), -std::sin(lambda));
}

// Asymptotic series of f and g (A&S 7.3.27-28), for t >= 4.5 (error < 1e-20).
cd aux_asymptotic(double t) {
  const double y = kPi * t * t;
  const double y2 = y * y;
  double f = 1.0;
  double term_f = 1.0;
  double term_g = 1.0 / y;
  double g = term_g;
  for (int m = 1; m < 60; ++m) {
    const double next_f = -term_f * (4.0 * m - 3.0) * (4.0 * m - 1.0) / y2;
    const double next_g = -term_g * (4.0 * m - 1.0) * (4.0 * m + 1.0) / y2;
    if (std::fabs(next_f) > std::fabs(term_f)) break;  // the series started to diverge
    term_f = next_f;
    term_g = next_g;
    f += term_f;
    g += term_g;
    if (std::fabs(term_f) < 1e-18 && std::fabs(term_g) < 1e-18) break;
  }
  return cd(g, f) / (kPi * t);
}

// From erfc's continued fraction (modified Lentz): C + iS = (1+i)/2 erf(w) with
// w = sqrt(pi)/2 (1-i) t, e^{-w^2} = e^{i pi t^2/2}, so W = (1+i) / (2 sqrt(pi) K) where
// erfc(w) = e^{-w^2} / (sqrt(pi) K), K = w + (1/2)/(w + 1/(w + (3/2)/(w + ...))). For 1.6 < t < 4.5.
cd aux_fraction(double t) {
  const cd w = 0.5 * std::sqrt(kPi) * t * cd(1.0, -1.0);
  constexpr double tiny = 1e-300;
  cd k = w;
  cd c = k;
  cd d = 0.0;
  for (int j = 1; j < 5000; ++j) {
    const double a = 0.5 * j;
    d = w + a * d;
    if (std::abs(d) < tiny) d = tiny;
    d = 1.0 / d;
    c = w + a / c;
    if (std::abs(c) < tiny) c = tiny;
    const cd delta = c * d;
    k *= delta;
    if (std::abs(delta - 1.0) < 1e-16) break;
  }
  return cd(1.0, 1.0) / (2.0 * std::sqrt(kPi) * k);
}

// The continued fraction needs tens to hundreds of iterations near t = 1.6; the optimisation
// evaluates W millions of times, so on [1.5, 4.75] W is replaced by Chebyshev expansions fitted
// once to the continued fraction (13 pieces of width 0.25, degree 24: error ~1e-16).
class AuxChebyshev {
 public:
  static constexpr double lo = 1.5;
  static constexpr double width = 0.25;
  static constexpr int pieces = 13;
  static constexpr int degree = 24;

  AuxChebyshev() {
    constexpr int n = degree + 1;
    for (int p = 0; p < pieces; ++p) {
      std::array<cd, n> values{};
      for (int k = 0; k < n; ++k) {
        const double x = std::cos(kPi * (k + 0.5) / n);
        values[static_cast<std::size_t>(k)] = aux_fraction(lo + width * (p + 0.5 * (x + 1.0)));
      }
      for (int j = 0; j < n; ++j) {
        cd c = 0.0;
        for (int k = 0; k < n; ++k) c += values[static_cast<std::size_t>(k)] * std::cos(kPi * j * (k + 0.5) / n);
        coef_[static_cast<std::size_t>(p)][static_cast<std::size_t>(j)] = c * (2.0 / n);
      }
    }
  }

  [[nodiscard]] cd operator()(double t) const {
    const int p = std::min(pieces - 1, static_cast<int>((t - lo) / width));
    const double x = 2.0 * (t - lo - p * width) / width - 1.0;
    const auto& c = coef_[static_cast<std::size_t>(p)];
    cd b1 = 0.0;
    cd b2 = 0.0;
    for (int j = degree; j >= 1; --j) {  // Clenshaw
      const cd b0 = 2.0 * x * b1 - b2 + c[static_cast<std::size_t>(j)];
      b2 = b1;
      b1 = b0;
    }
    return x * b1 - b2 + 0.5 * c[0];
  }

 private:
  std::array<std::array<cd, degree + 1>, pieces> coef_{};
};

cd fresnel_aux(double t) {
  if (t <= 1.6) return aux_series(t);
  if (t < 4.5) {
    static const AuxChebyshev cheb;
    return cheb(t);
  }
  return aux_asymptotic(t);
}

}  // namespace

void fresnel(double x, double& s, double& c) noexcept {
  const double t = std::fabs(x);
  const double th = 0.5 * kPi * t * t;
  const cd f = kHalfOnePlusI - fresnel_aux(t) * cd(std::cos(th), std::sin(th));
  const double sign = x < 0 ? -1.0 : 1.0;
  c = sign * f.real();
  s = sign * f.imag();
}

std::complex<double> z_response(double d, double z) noexcept {
  if (std::fabs(z) < 1e-9) {  // the sinc form then errs by < 1e-12
    const double pd = kPi * d;
    const double sinc = d == 0.0 ? 1.0 : std::sin(pd) / pd;
    return {std::cos(pd) * sinc, -std::sin(pd) * sinc};
  }
  // Completing the square, A = e^{-i pi q^2/z} int_{-u0}^{1-u0} exp(i pi z v^2) dv with
  // q = d + z/2, u0 = q/z; t = sqrt(2|z|) v turns it into Fresnel integrals from t0 to t1:
  //   sqrt(2|z|) A = e^{-i pi q^2/z} [F(t1) - F(t0)]   (z > 0; the conjugate F for z < 0).
  // Written with W, the phases pi t0^2/2 and pi t1^2/2 cancel against pi q^2/|z| exactly
  // (leaving 0 and -2 pi d), so only the stationary-phase term keeps e^{-i pi q^2/z}.
  const double sign = z < 0 ? -1.0 : 1.0;
  const double zd = sign * std::sqrt(2.0 / std::fabs(z));
  const double t0 = -zd * (d + 0.5 * z);
  const double t1 = zd * (0.5 * z - d);
  const double s0 = t0 < 0 ? -1.0 : 1.0;
  const double s1 = t1 < 0 ? -1.0 : 1.0;
  cd w0 = fresnel_aux(std::fabs(t0));
  cd w1 = fresnel_aux(std::fabs(t1));
  if (z < 0) {
    w0 = std::conj(w0);
    w1 = std::conj(w1);
  }
  cd sum = s0 * w0 - s1 * w1 * cd(std::cos(2.0 * kPi * d), -std::sin(2.0 * kPi * d));
  if (s1 != s0) {
    const double q = d + 0.5 * z;
    const double ph = -kPi * q * q / z;
    sum += cd(std::cos(ph), std::sin(ph)) * cd(0.5, 0.5 * sign) * (s1 - s0);
  }
  return sum / std::sqrt(2.0 * std::fabs(z));
}

int template_halfwidth_highacc(double z) noexcept { return static_cast<int>(0.5 * 1.1 * std::fabs(z)) + 48; }

std::vector<std::complex<float>> correlation_template(int z, int numbetween) {
  const int h = template_halfwidth(z);
  const int m_count = 2 * numbetween * h;
  std::vector<std::complex<float>> t(static_cast<std::size_t>(m_count));
  for (int m = 0; m < m_count; ++m) {
    const double d = -h + static_cast<double>(m) / numbetween;
    const auto a = std::conj(z_response(d, z));
    t[static_cast<std::size_t>(m)] = {static_cast<float>(a.real()), static_cast<float>(a.imag())};
  }
  return t;
}

std::complex<double> rz_interp(const std::complex<float>* x, long numbins, double r, double z, int halfwidth) {
  if (r > static_cast<double>(numbins) - 1.0 || r < 0.0) return {0.0, 0.0};
  const double fl = std::floor(r);
  const double frac = r - fl;
  const long k0 = static_cast<long>(fl);
  if (std::fabs(z) < 1e-4) {
    if (frac < 1e-5) return {static_cast<double>(x[k0].real()), static_cast<double>(x[k0].imag())};
    if (1.0 - frac < 1e-5) return {static_cast<double>(x[k0 + 1].real()), static_cast<double>(x[k0 + 1].imag())};
  }
  const long lo = std::max(0L, k0 - halfwidth);
  const long hi = std::min(numbins - 1, k0 + halfwidth - 1);
  std::complex<double> sum(0.0, 0.0);
  for (long k = lo; k <= hi; ++k) {
    const std::complex<double> v(static_cast<double>(x[k].real()), static_cast<double>(x[k].imag()));
    sum += v * std::conj(z_response(static_cast<double>(k) - r, z));
  }
  return sum;
}

}  // namespace fastpsr
