// SPDX-License-Identifier: MIT
// The fused FFT + detection kernel of power output (cuda/ppf/ppf_fft_detect_kernel.cu) on the
// CPU: its input conjugation, the shared Stockham FFT (emulated thread by thread, as in the
// kernel: thread j holds points j + m T), the natural-order bins and its detection
// (cuda/ppf/ppf_fft_detect.hpp), against a direct forward (and inverse) DFT in double precision
// and the detected products of ppf.hpp (I, AA, BB, IQUV with V = 2 Im(conj(X) Y)).
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "../../../cuda/ppf/ppf_fft_detect.hpp"
#include "support/stockham_emulation.hpp"
#include "support/test_support.hpp"

namespace {

using fastpsr::cuda::fft::Cf;
using cd = std::complex<double>;

// Sums over `nspec` random spectra of both polarisations, as one block of the kernel does, and
// returns the largest error relative to the largest reference value over every IF and bin.
template <int LOG2M, int LOG2R, int P, int Q>
double check_detect(std::uint64_t seed, int detection, bool inverse) {
  using Plan = fastpsr::cuda::fft::StockhamPlan<LOG2M, LOG2R>;
  constexpr int M = Plan::M;
  constexpr int T = Plan::T;
  constexpr int R = Plan::R;
  CAPTURE(M);
  CAPTURE(R);
  CAPTURE(P);
  CAPTURE(detection);
  CAPTURE(inverse);
  std::mt19937_64 rng(seed + static_cast<std::uint64_t>(LOG2M * 64 + LOG2R * 8 + P * 2 + detection));
  std::normal_distribution<float> g(0.0F, 1.0F);
  const double two_pi = 2.0 * std::acos(-1.0);
  std::vector<Cf> twiddles(static_cast<std::size_t>(M));  // exp(+2 pi i t / M), as the engine makes it
  for (int t = 0; t < M; ++t) {
    twiddles[static_cast<std::size_t>(t)] = {static_cast<float>(std::cos(two_pi * t / M)),
                                             static_cast<float>(std::sin(two_pi * t / M))};
  }
  std::vector<std::array<float, Q>> acc(static_cast<std::size_t>(M));  // acc[bin][if], as in the threads
  for (auto& a : acc) a.fill(0.0F);
  std::vector<std::array<double, 4>> ref(static_cast<std::size_t>(M));
  for (auto& r : ref) r.fill(0.0);
  const double sign = inverse ? 1.0 : -1.0;
  std::vector<cd> unit(static_cast<std::size_t>(M));
  for (int t = 0; t < M; ++t) unit[static_cast<std::size_t>(t)] = std::polar(1.0, sign * two_pi * t / M);
  for (int spectrum = 0; spectrum < 2; ++spectrum) {
    std::array<std::vector<cd>, 2> x;
    std::array<std::vector<std::array<Cf, R>>, 2> regs;
    for (int p = 0; p < P; ++p) {
      x[static_cast<std::size_t>(p)].resize(static_cast<std::size_t>(M));
      for (auto& v : x[static_cast<std::size_t>(p)]) v = {g(rng), g(rng)};
      regs[static_cast<std::size_t>(p)].resize(static_cast<std::size_t>(T));
      for (int j = 0; j < T; ++j) {
        for (int m = 0; m < R; ++m) {
          const cd v = x[static_cast<std::size_t>(p)][static_cast<std::size_t>(j + m * T)];
          regs[static_cast<std::size_t>(p)][static_cast<std::size_t>(j)][static_cast<std::size_t>(m)] =
              fastpsr::cuda::ppf::stockham_input(static_cast<float>(v.real()), static_cast<float>(v.imag()), inverse);
        }
      }
      fastpsr::test::Emulation e;
      e.re.assign(static_cast<std::size_t>(Plan::smem_floats()), 0.0F);
      e.im = e.re;
      e.writes.assign(e.re.size(), 0);
      fastpsr::test::run_passes<Plan, 0>(regs[static_cast<std::size_t>(p)], twiddles, e);
      CHECK(e.layout_ok);
    }
    for (int k = 0; k < M; ++k) {
      // The kernel: thread k mod T, slot k / T holds bin k.
      const auto j = static_cast<std::size_t>(k % T);
      const auto m = static_cast<std::size_t>(k / T);
      float a[Q];
      for (int q = 0; q < Q; ++q) a[q] = acc[static_cast<std::size_t>(k)][static_cast<std::size_t>(q)];
      fastpsr::cuda::ppf::add_detected<P, Q>(a, regs[0][j][m], regs[static_cast<std::size_t>(P - 1)][j][m], detection,
                                             inverse);
      for (int q = 0; q < Q; ++q) acc[static_cast<std::size_t>(k)][static_cast<std::size_t>(q)] = a[q];
      // The reference: X[k] = sum_n x[n] exp(sign 2 pi i n k / M), products as ppf.hpp defines them.
      std::array<cd, 2> bins{};
      for (int p = 0; p < P; ++p) {
        for (int n = 0; n < M; ++n) {
          bins[static_cast<std::size_t>(p)] += x[static_cast<std::size_t>(p)][static_cast<std::size_t>(n)] *
                                               unit[static_cast<std::size_t>((static_cast<long>(n) * k) % M)];
        }
      }
      const cd X = bins[0];
      const cd Y = bins[1];
      auto& r = ref[static_cast<std::size_t>(k)];
      if (P == 1) {
        r[0] += std::norm(X);
      } else if (Q == 4) {
        r[0] += std::norm(X) + std::norm(Y);
        r[1] += std::norm(X) - std::norm(Y);
        r[2] += 2.0 * (std::conj(X) * Y).real();
        r[3] += 2.0 * (std::conj(X) * Y).imag();
      } else {
        r[0] += detection == 1 ? std::norm(X) : detection == 2 ? std::norm(Y) : std::norm(X) + std::norm(Y);
      }
    }
  }
  double scale = 0.0;
  for (const auto& r : ref) {
    for (int q = 0; q < Q; ++q) scale = std::max(scale, std::abs(r[static_cast<std::size_t>(q)]));
  }
  double worst = 0.0;
  for (int k = 0; k < M; ++k) {
    for (int q = 0; q < Q; ++q) {
      const double d = static_cast<double>(acc[static_cast<std::size_t>(k)][static_cast<std::size_t>(q)]) -
                       ref[static_cast<std::size_t>(k)][static_cast<std::size_t>(q)];
      worst = std::max(worst, std::abs(d) / scale);
    }
  }
  return worst;
}

}  // namespace

TEST_CASE("ppf fused FFT + detection: the conjugated Stockham FFT and detection against a direct DFT") {
  const auto seed = fastpsr::test::fresh_seed();
  INFO("seed " << seed);
  // ppf.hpp's accuracy contract is 1e-5 relative to the largest value.
  constexpr double tol = 1e-5;
  for (bool inverse : {false, true}) {
    CHECK(check_detect<8, 3, 1, 1>(seed, 0, inverse) < tol);
    CHECK(check_detect<10, 4, 1, 1>(seed, 0, inverse) < tol);
    CHECK(check_detect<9, 3, 2, 4>(seed, 3, inverse) < tol);
    for (int d : {0, 1, 2}) CHECK(check_detect<8, 3, 2, 1>(seed, d, inverse) < tol);
  }
  // The kernel's largest shapes (radix 8 and 16 at C = 4096), forward only.
  CHECK(check_detect<12, 4, 1, 1>(seed, 0, false) < tol);
  CHECK(check_detect<12, 3, 2, 4>(seed, 3, false) < tol);
}
