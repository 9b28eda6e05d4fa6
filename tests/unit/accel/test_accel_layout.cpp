// SPDX-License-Identifier: MIT
// The overlap-save layout of the GPU backend (fastpsr/accel_layout.hpp): segment coverage, the
// template rows, the (z, -z) symmetry, the harmonic tables, and a double-precision model of the
// GPU correlation (the same layout, templates and pair trick, with direct DFTs) against the
// reference plane.
#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "fastpsr/accel_layout.hpp"
#include "fastpsr/accel_templates.hpp"
#include "fastpsr/error.hpp"
#include "support/reference_accel.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

using cd = std::complex<double>;
const double kTwoPi = 2.0 * std::acos(-1.0);

AccelSearchProblem make_problem(std::int64_t numbins, int zmax, int numharm, AccelInterp interp, std::int64_t rk_begin,
                                std::int64_t rk_end) {
  AccelSearchProblem p;
  p.numbins = numbins;
  p.zmax = zmax;
  p.numharm = numharm;
  p.interp = interp;
  p.rk_begin = rk_begin;
  p.rk_end = rk_end;
  p.powcut.assign(static_cast<std::size_t>(p.stages()), 10.0F);
  return p;
}

// sign -1: forward (FFTW/cuFFT convention), +1: inverse (unnormalised).
std::vector<cd> dft(const std::vector<cd>& x, int sign) {
  const std::size_t m = x.size();
  std::vector<cd> y(m);
  for (std::size_t k = 0; k < m; ++k) {
    cd s(0.0, 0.0);
    for (std::size_t i = 0; i < m; ++i)
      s += x[i] * std::polar(1.0, sign * kTwoPi * static_cast<double>((k * i) % m) / m);
    y[k] = s;
  }
  return y;
}

// The plane as the GPU computes it, in double: [zi][column].
std::vector<double> model_plane(const std::vector<std::complex<float>>& x, const AccelSearchProblem& p,
                                const AccelOverlapSave& os) {
  const int m = os.fft_points;
  const auto mm = static_cast<std::size_t>(m);
  std::vector<double> plane(static_cast<std::size_t>(p.numz()) * static_cast<std::size_t>(os.plane_cols), -1.0);
  // Frequency-domain templates K = (1/M) sum_t G[t] exp(+2 pi i k t / M), per pair and phase.
  std::vector<std::vector<cd>> kernels;
  for (int pair = 0; pair < os.npairs; ++pair) {
    for (int phase = 0; phase < os.phases(); ++phase) {
      const auto g = accel_template_row(os, 2 * pair, phase);
      std::vector<cd> gd(g.begin(), g.end());
      auto k = dft(gd, +1);
      for (auto& v : k) v /= m;
      kernels.push_back(k);
    }
  }
  for (std::int64_t s = 0; s < os.nseg; ++s) {
    std::vector<cd> seg(mm);
    for (int i = 0; i < m; ++i) {
      const std::int64_t bin = os.segment_first_bin(s) + i;
      if (bin >= 0 && bin < p.numbins) seg[static_cast<std::size_t>(i)] = cd(x[static_cast<std::size_t>(bin)]);
    }
    const auto sf = dft(seg, -1);
    for (int pair = 0; pair < os.npairs; ++pair) {
      for (int sign = 0; sign < (pair == 0 ? 1 : 2); ++sign) {
        const int zi = accel_pair_row(p, pair, sign);
        std::vector<std::vector<cd>> c;
        for (int phase = 0; phase < os.phases(); ++phase) {
          const auto& k = kernels[static_cast<std::size_t>(pair * os.phases() + phase)];
          std::vector<cd> prod(mm);
          for (std::size_t i = 0; i < mm; ++i) prod[i] = (sign == 0 ? sf[i] : std::conj(sf[(mm - i) % mm])) * k[i];
          c.push_back(dft(prod, +1));
        }
        double* row = plane.data() + static_cast<std::size_t>(zi) * static_cast<std::size_t>(os.plane_cols);
        for (int j = 0; j < os.use; ++j) {
          const auto uj = static_cast<std::size_t>(j);
          if (os.numbetween == 2) {
            row[os.column(s, j, 0)] = std::norm(c[0][uj]);
            row[os.column(s, j, 1)] = std::norm(c[1][uj]);
          } else {
            row[os.column(s, j, 0)] = std::norm(c[0][uj]);
            row[os.column(s, j, 1)] = std::norm(0.25 * std::acos(-1.0) * (c[0][uj] - c[0][uj + 1]));
          }
        }
      }
    }
  }
  return plane;
}

}  // namespace

TEST_CASE("accel layout: every rk of the plane has one segment output, inside the plane row") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 60; ++trial) {
    const auto interp = trial % 2 == 0 ? AccelInterp::fourier : AccelInterp::interbin;
    const int zmax = 2 * static_cast<int>(rng() % 60);
    const int numharm = 1 << (rng() % 6);
    const std::int64_t numbins = 4000 + static_cast<std::int64_t>(rng() % 20000);
    const std::int64_t rk_begin = static_cast<std::int64_t>(rng() % 4000);
    const std::int64_t rk_end =
        rk_begin + 1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(2 * numbins - rk_begin - 1));
    const auto p = make_problem(numbins, zmax, numharm, interp, rk_begin, rk_end);
    const int nb = interp == AccelInterp::fourier ? 2 : 1;
    const int hmax = template_halfwidth(zmax);
    int m = 128;
    while (m < 4 * hmax + 4) m *= 2;
    m <<= rng() % 3;
    CAPTURE(trial);
    CAPTURE(m);
    const auto os = make_accel_overlap_save(p, m * nb);
    CHECK(os.fft_points == m);
    CHECK(os.use + 2 * os.hmax + (nb == 1 ? 1 : 0) == m);  // the last good output (and its neighbour) is valid
    CHECK(os.use * 2 > m);
    CHECK(os.plane_base % 2 == 0);
    CHECK(os.plane_base <= os.plane_lo);
    CHECK(os.plane_lo == sub_rk(rk_begin, 1, numharm));
    CHECK(os.plane_cols % 64 == 0);
    CHECK(os.plane_cols >= 2 * os.nseg * os.use);
    CHECK(os.npairs == zmax / 2 + 1);
    const std::int64_t o_needed = (rk_end - 1) / 2 + 1 - os.o_lo;
    CHECK(os.nseg * os.use >= o_needed);
    CHECK((os.nseg - 1) * os.use < o_needed);
    bool ok = true;
    for (std::int64_t rk = os.plane_lo; rk < rk_end; ++rk) {
      const std::int64_t o = rk / 2 - os.o_lo;
      const std::int64_t s = o / os.use;
      const std::int64_t j = o % os.use;
      ok = ok && s < os.nseg && os.column(s, j, static_cast<int>(rk % 2)) == rk - os.plane_base;
      // Output j of segment s correlates the bins segment_first_bin(s) + j + t, t = 0 .. 2 hmax.
      ok = ok && os.segment_first_bin(s) + j + os.hmax == rk / 2;
    }
    CHECK(ok);
  }
}

TEST_CASE("accel layout: bad FFT lengths are rejected with the reason") {
  const auto p = make_problem(10000, 200, 8, AccelInterp::fourier, 100, 19000);
  CHECK_THROWS_WITH_AS(make_accel_overlap_save(p, 3000), doctest::Contains("power of two"), Error);
  CHECK_THROWS_WITH_AS(make_accel_overlap_save(p, 512), doctest::Contains("too short for zmax 200"), Error);
  CHECK_NOTHROW(make_accel_overlap_save(p, 2048));
  const int len = auto_accel_fft_len(p, 8192);
  const auto os = make_accel_overlap_save(p, len);
  // The automatic length is within 3% of the cheapest of all allowed ones.
  auto cost = [&](int mm) { return mm * std::log2(static_cast<double>(mm)) / (mm - 2 * os.hmax); };
  double best = 1e300;
  for (int mm = 128; mm <= 8192; mm *= 2) {
    if (mm >= 4 * os.hmax + 4) best = std::min(best, cost(mm));
  }
  CHECK(cost(os.fft_points) <= 1.03 * best);
  CHECK_THROWS_AS(auto_accel_fft_len(make_problem(100000, 2000, 1, AccelInterp::fourier, 10, 1000), 4096), Error);
}

TEST_CASE("accel layout: A_{-z}(d) = conj(A_z(d)) exp(-2 pi i d), the symmetry the pairs rely on") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dd(-80.0, 80.0);
  std::uniform_real_distribution<double> zz(0.5, 300.0);
  for (int i = 0; i < 200; ++i) {
    const double z = i % 4 == 0 ? 2.0 * std::floor(zz(rng) / 2) : zz(rng);
    double d = dd(rng);
    if (i % 3 == 0) d = std::round(d);
    if (i % 3 == 1) d = std::round(d) + 0.5;
    CAPTURE(z);
    CAPTURE(d);
    const cd minus = z_response(d, -z);
    const cd want = std::conj(z_response(d, z)) * std::polar(1.0, -kTwoPi * d);
    CHECK(std::abs(minus - want) < 1e-12);
  }
}

TEST_CASE("accel layout: template rows hold conj(A_z) on the phase's taps and zeros elsewhere") {
  const auto p = make_problem(5000, 40, 4, AccelInterp::fourier, 100, 9000);
  const auto os = make_accel_overlap_save(p, 512);
  const auto pi = make_problem(5000, 40, 4, AccelInterp::interbin, 100, 9000);
  const auto osi = make_accel_overlap_save(pi, 256);
  for (const auto* layout : {&os, &osi}) {
    for (int z : {0, 2, 18, 40}) {
      const int h = template_halfwidth(z);
      for (int phase = 0; phase < layout->phases(); ++phase) {
        CAPTURE(z);
        CAPTURE(phase);
        const auto g = accel_template_row(*layout, z, phase);
        REQUIRE(g.size() == static_cast<std::size_t>(layout->fft_points));
        int nonzero = 0;
        double worst = 0.0;
        for (int t = 0; t < layout->fft_points; ++t) {
          const int n = t - layout->hmax;
          const bool tap = n >= -h + phase && n <= h - 1 + phase;
          const cd want = tap ? std::conj(z_response(n - 0.5 * phase, z)) : cd(0.0, 0.0);
          worst = std::max(worst, std::abs(cd(g[static_cast<std::size_t>(t)]) - want));
          nonzero += tap ? 1 : 0;
        }
        CHECK(nonzero == 2 * h);
        CHECK(worst < 1e-6);
      }
    }
  }
}

TEST_CASE("accel layout: harmonic terms and sub-harmonic z rows") {
  const auto terms = accel_harmonic_terms(6);
  REQUIRE(terms.size() == 31);
  CHECK(terms[0].stage == 1);
  CHECK(terms[0].h == 1);
  CHECK(terms[0].H == 2);
  CHECK(terms[30].stage == 5);
  CHECK(terms[30].h == 31);
  CHECK(accel_harmonic_terms(1).empty());
  const auto p = make_problem(5000, 30, 32, AccelInterp::fourier, 100, 9000);
  const auto table = accel_sub_zi_table(p);
  REQUIRE(table.size() == 31 * static_cast<std::size_t>(p.numz()));
  for (std::size_t t = 0; t < terms.size(); ++t) {
    for (int zi = 0; zi < p.numz(); ++zi) {
      const int sz = sub_z(p.z_of(zi), terms[t].h, terms[t].H);
      const auto got = table[t * static_cast<std::size_t>(p.numz()) + static_cast<std::size_t>(zi)];
      CHECK(got == (sz + p.zmax) / 2);
      CHECK(got >= 0);
      CHECK(got < p.numz());
    }
  }
}

TEST_CASE("accel layout: the GPU's correlation scheme, modelled in double, equals the reference plane") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0F, std::sqrt(0.5F));
  const std::int64_t numbins = 300;
  std::vector<std::complex<float>> x(static_cast<std::size_t>(numbins));
  for (auto& v : x) v = {g(rng), g(rng)};
  // A drifting signal, so that the -z rows differ from the +z rows.
  for (std::int64_t k = 0; k < numbins; ++k) {
    x[static_cast<std::size_t>(k)] += std::complex<float>(4.0 * z_response(double(k) - 101.3, 4.6));
  }
  for (auto interp : {AccelInterp::fourier, AccelInterp::interbin}) {
    for (int zmax : {0, 6}) {
      CAPTURE(zmax);
      CAPTURE(static_cast<int>(interp));
      const auto p = make_problem(numbins, zmax, 4, interp, 41, 2 * numbins - 5);
      const int nb = interp == AccelInterp::fourier ? 2 : 1;
      const auto os = make_accel_overlap_save(p, 128 * nb);
      const auto model = model_plane(x, p, os);
      const auto ref = test::reference_plane(x, p, os.plane_lo, p.rk_end);
      const auto width = static_cast<std::size_t>(p.rk_end - os.plane_lo);
      double worst = 0.0;
      for (int zi = 0; zi < p.numz(); ++zi) {
        for (std::int64_t rk = os.plane_lo; rk < p.rk_end; ++rk) {
          const double want = ref[static_cast<std::size_t>(zi) * width + static_cast<std::size_t>(rk - os.plane_lo)];
          const double got = model[static_cast<std::size_t>(zi) * static_cast<std::size_t>(os.plane_cols) +
                                   static_cast<std::size_t>(rk - os.plane_base)];
          worst = std::max(worst, std::fabs(got - want) / std::max(1.0, want));
        }
      }
      // The templates are float: 1e-5 relative (or absolute below power 1).
      CHECK(worst < 1e-5);
    }
  }
}
