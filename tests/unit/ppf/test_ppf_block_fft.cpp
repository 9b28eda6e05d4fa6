// SPDX-License-Identifier: MIT
// The shared-memory FFT of the CUDA fused FFT + detection kernel, run on the CPU: the same
// butterfly functions, stage by stage as the kernel's threads run them, against the
// double-precision DFT, in both directions; and the bin/position bookkeeping the kernel uses to
// write its sums.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include "../../../cuda/ppf/ppf_block_fft.hpp"
#include "support/reference_ppf.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;
using fastpsr::cuda::ppf::Complex32;

namespace {

// The kernel's stages: every butterfly of a stage (threads take them in any order: they touch
// disjoint elements), then the next stage.
void block_fft(std::vector<Complex32>& x, int log2n, const std::vector<Complex32>& twiddle, bool inverse) {
  const unsigned n = 1U << log2n;
  for (int s = 0; s < cuda::ppf::fft_stage_count(log2n); ++s) {
    const unsigned span = cuda::ppf::fft_stage_span(log2n, s);
    if (cuda::ppf::fft_stage_radix(log2n, s) == 4) {
      for (unsigned b = n / 4; b-- > 0;) cuda::ppf::fft_radix4_butterfly(x.data(), n, span, b, twiddle.data(), inverse);
    } else {
      for (unsigned b = 0; b < n / 2; ++b)
        cuda::ppf::fft_radix2_butterfly(x.data(), n, span, b, twiddle.data(), inverse);
    }
  }
}

}  // namespace

TEST_CASE("ppf block FFT: radix-4/2 DIF in place matches the DFT, forward and inverse, n = 2 ... 4096") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  for (int log2n = 1; log2n <= 12; ++log2n) {
    const unsigned n = 1U << log2n;
    std::vector<Complex32> twiddle(n);
    for (unsigned t = 0; t < n; ++t) {
      const double a = -2.0 * std::numbers::pi * t / n;
      twiddle[t] = {static_cast<float>(std::cos(a)), static_cast<float>(std::sin(a))};
    }
    for (bool inverse : {false, true}) {
      CAPTURE(log2n);
      CAPTURE(inverse);
      std::vector<Complex32> x(n);
      std::vector<test::cd> ref_in(n);
      for (unsigned i = 0; i < n; ++i) {
        x[i] = {static_cast<float>(g(rng)), static_cast<float>(g(rng))};
        // The inverse DFT is the forward DFT of the conjugate, conjugated.
        ref_in[i] = {x[i].re, inverse ? -x[i].im : x[i].im};
      }
      auto ref = test::naive_dft(ref_in);
      if (inverse) {
        for (auto& v : ref) v = std::conj(v);
      }
      block_fft(x, log2n, twiddle, inverse);
      double err = 0.0;
      double scale = 0.0;
      for (unsigned k = 0; k < n; ++k) {
        const Complex32 v = x[cuda::ppf::fft_position_of_bin(k, log2n)];
        err = std::max(err, std::abs(test::cd(v.re, v.im) - ref[k]));
        scale = std::max(scale, std::abs(ref[k]));
        CHECK(cuda::ppf::fft_bin_at_position(cuda::ppf::fft_position_of_bin(k, log2n), log2n) == k);
      }
      CHECK(err <= 1e-6 * scale);  // well inside the PPF contract of 1e-5
    }
  }
}
