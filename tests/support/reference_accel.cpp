// SPDX-License-Identifier: MIT
#include "support/reference_accel.hpp"

#include <array>
#include <cmath>
#include <random>

#include "fastpsr/accel_templates.hpp"

namespace fastpsr::test {

std::complex<double> reference_z_response(double d, double z, int panels) {
  static constexpr std::array<double, 5> nodes{0.0, -0.5384693101056831, 0.5384693101056831, -0.9061798459386640,
                                               0.9061798459386640};
  static constexpr std::array<double, 5> weights{0.5688888888888889, 0.4786286704993665, 0.4786286704993665,
                                                 0.2369268850561891, 0.2369268850561891};
  const double two_pi = 2.0 * std::acos(-1.0);
  std::complex<double> sum(0.0, 0.0);
  const double hw = 0.5 / panels;
  for (int p = 0; p < panels; ++p) {
    const double mid = (p + 0.5) / panels;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const double u = mid + hw * nodes[i];
      const double phase = two_pi * (-d * u + 0.5 * z * (u * u - u));
      sum += weights[i] * hw * std::complex<double>(std::cos(phase), std::sin(phase));
    }
  }
  return sum;
}

std::vector<double> reference_plane(const std::vector<std::complex<float>>& x, const AccelSearchProblem& p,
                                    std::int64_t rk_lo, std::int64_t rk_hi, const AccelPowerScale& scale) {
  const auto nr = static_cast<std::size_t>(rk_hi - rk_lo);
  std::vector<double> plane(static_cast<std::size_t>(p.numz()) * nr);
  const auto n = static_cast<std::int64_t>(x.size());
  // k - r only takes half-integer values: tabulate A_z(j/2), j = -2h .. 2h, once per z.
  std::vector<std::complex<double>> table;
  int h = 0;
  auto amplitude = [&](std::int64_t rk) {
    // C(r) = sum over k with -h <= k - r <= h - 1/2 of X_k conj(A_z(k - r)).
    std::complex<double> c(0.0, 0.0);
    for (std::int64_t j = -2 * h; j <= 2 * h - 1; ++j) {  // j = 2(k - r)
      if ((rk + j) % 2 != 0) continue;
      const std::int64_t k = (rk + j) / 2;
      if (k < 0 || k >= n) continue;
      c += std::complex<double>(x[static_cast<std::size_t>(k)]) * std::conj(table[static_cast<std::size_t>(j + 2 * h)]);
    }
    return c;
  };
  for (int zi = 0; zi < p.numz(); ++zi) {
    const int z = p.z_of(zi);
    h = template_halfwidth(z);
    table.resize(static_cast<std::size_t>(4 * h + 1));
    for (int j = -2 * h; j <= 2 * h; ++j) table[static_cast<std::size_t>(j + 2 * h)] = reference_z_response(0.5 * j, z);
    for (std::int64_t rk = rk_lo; rk < rk_hi; ++rk) {
      std::complex<double> c;
      if (p.interp == AccelInterp::fourier || rk % 2 == 0) {
        c = amplitude(rk);
      } else {
        c = 0.25 * std::acos(-1.0) * (amplitude(rk - 1) - amplitude(rk + 1));
      }
      plane[static_cast<std::size_t>(zi) * nr + static_cast<std::size_t>(rk - rk_lo)] =
          static_cast<double>(scale.at(rk)) * std::norm(c);
    }
  }
  return plane;
}

std::vector<AccelHit> reference_hits(const std::vector<std::complex<float>>& x, const AccelSearchProblem& p,
                                     const AccelPowerScale& scale) {
  const int H = p.numharm;
  const std::int64_t lo = sub_rk(p.rk_begin, 1, H);
  const std::int64_t hi = p.rk_end;
  const auto nr = static_cast<std::size_t>(hi - lo);
  const auto plane = reference_plane(x, p, lo, hi, scale);
  auto at = [&](std::int64_t rk, int zi) {
    return plane[static_cast<std::size_t>(zi) * nr + static_cast<std::size_t>(rk - lo)];
  };
  std::vector<AccelHit> hits;
  for (int s = 0; s < p.stages(); ++s) {
    const int hh = 1 << s;
    for (int zi = 0; zi < p.numz(); ++zi) {
      const int z = p.z_of(zi);
      for (std::int64_t rk = p.rk_begin; rk < p.rk_end; ++rk) {
        double sum = 0.0;
        for (int h = 1; h <= hh; ++h) sum += at(sub_rk(rk, h, hh), (sub_z(z, h, hh) + p.zmax) / 2);
        if (sum > static_cast<double>(p.powcut[static_cast<std::size_t>(s)])) {
          hits.push_back({rk, zi, 0, static_cast<std::int16_t>(s), static_cast<float>(sum)});
        }
      }
    }
  }
  return hits;
}

std::vector<std::complex<float>> noisy_accel_spectrum(std::uint64_t seed, std::int64_t numbins, double r0, double z0,
                                                      double amplitude, double phase_step) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0F, std::sqrt(0.5F));
  std::vector<std::complex<float>> x(static_cast<std::size_t>(numbins));
  for (auto& v : x) v = {g(rng), g(rng)};
  for (int h = 1; h <= 4; ++h) {
    const std::complex<double> amp = std::polar(amplitude / h, phase_step * h);
    for (std::int64_t k = 0; k < numbins; ++k) {
      x[static_cast<std::size_t>(k)] += std::complex<float>(amp * z_response(double(k) - h * r0, h * z0));
    }
  }
  return x;
}

}  // namespace fastpsr::test
