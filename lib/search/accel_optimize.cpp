// SPDX-License-Identifier: MIT
// Candidate optimisation on the interpolated f-fdot plane (PRESTO's maximize_rz.c and the parts
// of characteristics.c it uses): a Nelder-Mead simplex in (r, z/4), first with short templates
// then with long ones, then local power and derivatives at the peak.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>

#include "fastpsr/accel_candidates.hpp"
#include "fastpsr/accel_templates.hpp"

namespace fastpsr {
namespace {

using cf = std::complex<float>;
constexpr double kZScale = 4.0;
constexpr double kTwoPi = 6.283185307179586476925;

struct Point {
  double x = 0, y = 0;
};

// Minimises f from `start` with an initial simplex of size `step`, until the RMS distance of the
// vertices from their centroid is below `tol` (or 5000 iterations). Returns the best vertex.
Point simplex_minimise(const std::function<double(double, double)>& f, Point start, double step, double tol) {
  std::array<Point, 3> v{start, Point{start.x + step, start.y}, Point{start.x, start.y + step}};
  std::array<double, 3> fv{};
  for (int i = 0; i < 3; ++i)
    fv[static_cast<std::size_t>(i)] = f(v[static_cast<std::size_t>(i)].x, v[static_cast<std::size_t>(i)].y);
  for (int iter = 0; iter < 5000; ++iter) {
    // Order: best, middle, worst.
    std::array<int, 3> o{0, 1, 2};
    std::sort(o.begin(), o.end(),
              [&](int a, int b) { return fv[static_cast<std::size_t>(a)] < fv[static_cast<std::size_t>(b)]; });
    const auto b = static_cast<std::size_t>(o[0]);
    const auto m = static_cast<std::size_t>(o[1]);
    const auto w = static_cast<std::size_t>(o[2]);
    const Point c{0.5 * (v[b].x + v[m].x), 0.5 * (v[b].y + v[m].y)};
    auto along = [&](double t) { return Point{c.x + t * (v[w].x - c.x), c.y + t * (v[w].y - c.y)}; };
    const Point xr = along(-1.0);
    const double fr = f(xr.x, xr.y);
    if (fr < fv[b]) {
      const Point xe = along(-2.0);
      const double fe = f(xe.x, xe.y);
      if (fe < fr) {
        v[w] = xe;
        fv[w] = fe;
      } else {
        v[w] = xr;
        fv[w] = fr;
      }
    } else if (fr < fv[m]) {
      v[w] = xr;
      fv[w] = fr;
    } else {
      const bool outside = fr < fv[w];
      const Point xc = along(outside ? -0.5 : 0.5);
      const double fc = f(xc.x, xc.y);
      if (fc < std::min(fr, fv[w])) {
        v[w] = xc;
        fv[w] = fc;
      } else {
        for (std::size_t i : {m, w}) {  // shrink towards the best vertex
          v[i] = Point{v[b].x + 0.5 * (v[i].x - v[b].x), v[b].y + 0.5 * (v[i].y - v[b].y)};
          fv[i] = f(v[i].x, v[i].y);
        }
      }
    }
    const Point cen{(v[0].x + v[1].x + v[2].x) / 3.0, (v[0].y + v[1].y + v[2].y) / 3.0};
    double s2 = 0.0;
    for (const Point& p : v) s2 += (p.x - cen.x) * (p.x - cen.x) + (p.y - cen.y) * (p.y - cen.y);
    if (std::sqrt(s2 / 3.0) < tol) break;
  }
  const auto best = static_cast<std::size_t>(std::min_element(fv.begin(), fv.end()) - fv.begin());
  return v[best];
}

// PRESTO's get_localpower3d: mean interpolated power of the 10 points on each side, from 5 bins
// away (clipped to the spectrum; the sum is always divided by 20).
double local_power(std::span<const cf> x, double r, double z) {
  const auto n = static_cast<double>(x.size());
  const int hw = template_halfwidth(z);
  double lo1 = r - 5.0 - 10.0;
  double hi1 = lo1 + 10.0;
  double lo2 = r + 5.0;
  double hi2 = lo2 + 10.0;
  auto clip = [n](double& v) { v = std::clamp(v, 0.0, n); };
  clip(lo1);
  clip(hi1);
  clip(lo2);
  clip(hi2);
  double sum = 0.0;
  for (double f = lo1; f < hi1; f += 1.0) sum += std::norm(rz_interp(x.data(), static_cast<long>(x.size()), f, z, hw));
  for (double f = lo2; f < hi2; f += 1.0) sum += std::norm(rz_interp(x.data(), static_cast<long>(x.size()), f, z, hw));
  return sum / 20.0;
}

double radian_phase(std::complex<double> a) {
  const double t = std::atan2(a.imag(), a.real());
  return t > 0.0 ? t : t + kTwoPi;
}

// PRESTO's get_derivs3d: five points 0.003 bins apart, long templates.
RDerivs derivatives(std::span<const cf> x, double r, double z, double locpow) {
  constexpr double h = 0.003;
  const int hw = template_halfwidth_highacc(z);
  std::array<double, 5> pw{};
  std::array<double, 5> ph{};
  for (int i = 0; i < 5; ++i) {
    const auto a = rz_interp(x.data(), static_cast<long>(x.size()), r - 2 * h + i * h, z, hw);
    pw[static_cast<std::size_t>(i)] = std::norm(a);
    ph[static_cast<std::size_t>(i)] = radian_phase(a);
  }
  for (std::size_t i = 0; i < 4; ++i) {
    if (std::fabs(ph[i + 1] - ph[i]) > kTwoPi / 2) ph[i + 1] -= kTwoPi;
  }
  RDerivs d;
  d.pow = pw[2];
  d.phs = ph[2];
  d.dpow = (pw[3] - pw[1]) / (2 * h);
  d.dphs = (ph[3] - ph[1]) / (2 * h);
  d.d2pow = (pw[4] - 2.0 * pw[2] + pw[0]) / (4 * h * h);
  d.d2phs = (ph[4] - 2.0 * ph[2] + ph[0]) / (4 * h * h);
  d.locpow = locpow;
  return d;
}

double power_at(std::span<const cf> x, double r, double z, int hw) {
  return std::norm(rz_interp(x.data(), static_cast<long>(x.size()), r, z, hw));
}

}  // namespace

void optimize_candidate(AccelCandidate& cand, std::span<const std::complex<float>> x, bool harmonic_polishing) {
  const int nh = cand.numharm;
  const auto n = static_cast<std::size_t>(nh);
  cand.pows.assign(n, 0.0);
  cand.hirs.assign(n, 0.0);
  cand.hizs.assign(n, 0.0);
  cand.hiws.assign(n, 0.0);
  cand.derivs.assign(n, RDerivs{});
  if (harmonic_polishing) {
    std::vector<double> locpow(n);
    for (int i = 0; i < nh; ++i)
      locpow[static_cast<std::size_t>(i)] = local_power(x, cand.r * (i + 1), cand.z * (i + 1));
    int hw = 0;
    const auto total = [&](double r, double zs) {
      double sum = 0.0;
      for (int i = 0; i < nh; ++i)
        sum += power_at(x, r * (i + 1), zs * kZScale * (i + 1), hw) / locpow[static_cast<std::size_t>(i)];
      // A harmonic pushed out of the band can give 0/0: steer the simplex away (as PRESTO).
      return std::isfinite(sum) ? -sum : 0.0;
    };
    // Short templates first, then long ones from there (PRESTO takes the second width from the
    // scaled z, and so do we).
    hw = template_halfwidth(std::fabs(cand.z * nh) + 4.0);
    Point p = simplex_minimise(total, {cand.r, cand.z / kZScale}, 0.4, 1e-4);
    hw = template_halfwidth_highacc(std::fabs(p.y * nh) + 4.0);
    p = simplex_minimise(total, p, 0.01, 1e-7);
    const double r = p.x;
    const double z = p.y * kZScale;
    for (int i = 0; i < nh; ++i) {
      const auto k = static_cast<std::size_t>(i);
      const double lp = local_power(x, r * (i + 1), z * (i + 1));
      cand.pows[k] = power_at(x, r * (i + 1), z * (i + 1), hw);
      cand.derivs[k] = derivatives(x, r * (i + 1), z * (i + 1), lp);
      cand.hirs[k] = r * (i + 1);
      cand.hizs[k] = z * (i + 1);
    }
    return;
  }
  for (int i = 0; i < nh; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double rin = cand.r * (i + 1);
    const double zin = cand.z * (i + 1);
    int hw = template_halfwidth(std::fabs(zin) + 4.0);
    const auto neg = [&](double r, double zs) { return -power_at(x, r, zs * kZScale, hw); };
    Point p = simplex_minimise(neg, {rin, zin / kZScale}, 0.4, 1e-4);
    hw = template_halfwidth_highacc(std::fabs(p.y) + 4.0);
    p = simplex_minimise(neg, p, 0.01, 1e-7);
    cand.hirs[k] = p.x;
    cand.hizs[k] = p.y * kZScale;
    cand.pows[k] = power_at(x, p.x, cand.hizs[k], hw);
    cand.derivs[k] = derivatives(x, p.x, cand.hizs[k], local_power(x, p.x, cand.hizs[k]));
  }
}

}  // namespace fastpsr
