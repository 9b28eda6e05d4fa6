// SPDX-License-Identifier: MIT
// The custom GPU path's inverse FFT (cuda/common/stockham_fft.cuh) run on the CPU: the threads of
// one block are emulated pass by pass with the kernel's own butterflies, destinations and
// shared-memory padding, and the result is compared with a direct DFT in double precision. The
// padding's claim (no bank conflicts for the scattered writes and unit-stride reads) is checked
// on the emulated warps.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <random>
#include <utility>
#include <vector>

#include "../../../cuda/common/stockham_fft.cuh"
#include "support/stockham_emulation.hpp"
#include "support/test_support.hpp"

namespace {

using fastpsr::cuda::fft::Cf;
using fastpsr::test::Emulation;
using fastpsr::test::run_passes;

// Emulates the transform of x and returns the worst bank conflicts seen (writes, reads). Powers:
// the twiddle powers from the power table instead of products of the base twiddle.
template <int LOG2M, int LOG2R, bool Powers = false>
std::pair<int, int> check_transform(std::uint64_t seed) {
  using Plan = fastpsr::cuda::fft::StockhamPlan<LOG2M, LOG2R>;
  constexpr int M = Plan::M;
  CAPTURE(M);
  CAPTURE(Plan::R);
  CAPTURE(Powers);
  std::mt19937_64 rng(seed + static_cast<std::uint64_t>(LOG2M * 16 + LOG2R));
  std::normal_distribution<float> g(0.0F, 1.0F);
  std::vector<std::complex<float>> x(static_cast<std::size_t>(M));
  for (auto& v : x) v = {g(rng), g(rng)};
  std::vector<Cf> twiddles(static_cast<std::size_t>(M + fastpsr::cuda::fft::stockham_power_entries(LOG2M, LOG2R)));
  fastpsr::cuda::fft::fill_stockham_twiddles(LOG2M, LOG2R, twiddles.data());
  const double two_pi = 2.0 * std::acos(-1.0);
  // The base twiddles as the kernels had them before the power table (the table must not move them).
  for (int t = 0; t < M; ++t) {
    CHECK(twiddles[static_cast<std::size_t>(t)].re == static_cast<float>(std::cos(two_pi * t / M)));
    CHECK(twiddles[static_cast<std::size_t>(t)].im == static_cast<float>(std::sin(two_pi * t / M)));
  }
  std::vector<std::array<Cf, Plan::R>> regs(static_cast<std::size_t>(Plan::T));
  for (int j = 0; j < Plan::T; ++j) {
    for (int m = 0; m < Plan::R; ++m) {
      const auto v = x[static_cast<std::size_t>(j + m * Plan::T)];
      regs[static_cast<std::size_t>(j)][static_cast<std::size_t>(m)] = {v.real(), v.imag()};
    }
  }
  Emulation e;
  e.re.assign(static_cast<std::size_t>(Plan::smem_floats()), 0.0F);
  e.im = e.re;
  e.writes.assign(e.re.size(), 0);
  run_passes<Plan, 0, Powers>(regs, twiddles, e);
  CHECK(e.layout_ok);
  // Output n = j + m T sits in thread j, slot m. Direct inverse DFT in double.
  std::vector<std::complex<double>> unit(static_cast<std::size_t>(M));
  for (int t = 0; t < M; ++t) unit[static_cast<std::size_t>(t)] = std::polar(1.0, two_pi * t / M);
  double err2 = 0.0;
  double ref2 = 0.0;
  for (int n = 0; n < M; ++n) {
    std::complex<double> ref(0.0, 0.0);
    for (int k = 0; k < M; ++k) {
      ref += std::complex<double>(x[static_cast<std::size_t>(k)]) *
             unit[static_cast<std::size_t>((static_cast<long>(k) * n) % M)];
    }
    const Cf got = regs[static_cast<std::size_t>(n % Plan::T)][static_cast<std::size_t>(n / Plan::T)];
    err2 += std::norm(std::complex<double>(got.re, got.im) - ref);
    ref2 += std::norm(ref);
  }
  // Float FFT error grows like log2(M) * eps; 2e-6 relative (L2) leaves a margin of ~4.
  CHECK(std::sqrt(err2 / ref2) < 2e-6);
  return {e.worst_write_conflict, e.worst_read_conflict};
}

}  // namespace

TEST_CASE("accel stockham: the custom inverse FFT equals a direct DFT (emulated threads, every size and radix)") {
  const auto seed = fastpsr::test::fresh_seed();
  INFO("seed " << seed);
  // Radix 8 and 16: the padded shared layout is conflict-free for every pass.
  for (const auto& [w, r] : {check_transform<7, 3>(seed), check_transform<8, 3>(seed), check_transform<9, 3>(seed),
                             check_transform<10, 3>(seed), check_transform<11, 3>(seed), check_transform<12, 3>(seed),
                             check_transform<13, 3>(seed), check_transform<7, 4>(seed), check_transform<8, 4>(seed),
                             check_transform<9, 4>(seed), check_transform<10, 4>(seed), check_transform<11, 4>(seed),
                             check_transform<12, 4>(seed), check_transform<13, 4>(seed)}) {
    CHECK(w == 1);
    CHECK(r == 1);
  }
}

TEST_CASE("accel stockham: twiddle powers from the power table give the same transform") {
  const auto seed = fastpsr::test::fresh_seed();
  INFO("seed " << seed);
  for (const auto& [w, r] :
       {check_transform<7, 3, true>(seed), check_transform<9, 3, true>(seed), check_transform<11, 3, true>(seed),
        check_transform<13, 3, true>(seed), check_transform<7, 4, true>(seed), check_transform<10, 4, true>(seed),
        check_transform<11, 4, true>(seed), check_transform<13, 4, true>(seed)}) {
    CHECK(w == 1);
    CHECK(r == 1);
  }
}
