// SPDX-License-Identifier: MIT
// The index and stage logic of the CUDA fused FIR + FFT kernel (ppf_fir_fft_kernel.cu), run on
// the CPU with the same host/device functions: the 8-point DFT, the whole cluster FFT (raw
// exchange, per-block L-point FFTs, the combine stage over the blocks' k1 ranges) against the
// double-precision DFT, and the transposed FIR's accumulator ring over batches of spectra.
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "../../../cuda/ppf/ppf_cluster_fft.hpp"
#include "support/reference_ppf.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;
using fastpsr::cuda::ppf::Complex32;
namespace ppf = fastpsr::cuda::ppf;

namespace {

std::vector<Complex32> twiddle_table(unsigned n) {
  std::vector<Complex32> tw(n);
  for (unsigned t = 0; t < n; ++t) {
    const double a = -2.0 * std::numbers::pi * t / n;
    tw[t] = {static_cast<float>(std::cos(a)), static_cast<float>(std::sin(a))};
  }
  return tw;
}

// The DFT in double, forward or inverse (exp(+2πi·k·n/N), unnormalised).
std::vector<test::cd> reference_dft(const std::vector<Complex32>& x, bool inverse) {
  std::vector<test::cd> in(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) in[i] = {x[i].re, inverse ? -x[i].im : x[i].im};
  auto out = test::naive_dft(in);
  if (inverse) {
    for (auto& v : out) v = std::conj(v);
  }
  return out;
}

}  // namespace

TEST_CASE("ppf cluster FFT: the 8-point DFT in registers, both directions") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  for (bool inverse : {false, true}) {
    CAPTURE(inverse);
    Complex32 t[8];
    std::vector<Complex32> x(8);
    for (int i = 0; i < 8; ++i)
      t[i] = x[static_cast<std::size_t>(i)] = {static_cast<float>(g(rng)), static_cast<float>(g(rng))};
    const auto ref = reference_dft(x, inverse);
    ppf::cluster_dft8(t, inverse);
    for (int k = 0; k < 8; ++k) {
      CAPTURE(k);
      CHECK(std::abs(test::cd(t[k].re, t[k].im) - ref[static_cast<std::size_t>(k)]) <= 1e-5);
    }
  }
}

TEST_CASE("ppf cluster FFT: raw exchange, block FFTs and combine give the C-point DFT, C = 1024, 2048, 4096") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  constexpr unsigned R = ppf::kClusterBlocks;
  for (int log2l : {7, 8, 9}) {
    const unsigned l = 1U << log2l;
    const unsigned c = R * l;
    const auto tw = twiddle_table(c);
    for (bool inverse : {false, true}) {
      CAPTURE(c);
      CAPTURE(inverse);
      std::vector<Complex32> x(c);
      for (auto& v : x) v = {static_cast<float>(g(rng)), static_cast<float>(g(rng))};
      // Block q's raw buffer holds channels q·L ... q·L + L − 1; block b's thread j reads its
      // channel 8·j + b from there and writes it to position j of the block's sequence.
      std::vector<std::vector<Complex32>> seq(R, std::vector<Complex32>(l));
      for (unsigned b = 0; b < R; ++b) {
        for (unsigned j = 0; j < l; ++j) {
          const unsigned q = ppf::cluster_owner_block(j, b, log2l);
          const unsigned o = ppf::cluster_owner_offset(j, b, log2l);
          REQUIRE(q < R);
          REQUIRE(o < l);
          seq[b][j] = x[q * l + o];
          CHECK(q * l + o == R * j + b);
        }
        // The kernel's stages: the C-point table with n = C serves the L-point spans.
        for (int s = 0; s < ppf::fft_stage_count(log2l); ++s) {
          const unsigned span = ppf::fft_stage_span(log2l, s);
          if (ppf::fft_stage_radix(log2l, s) == 4) {
            for (unsigned u = 0; u < l / 4; ++u)
              ppf::fft_radix4_butterfly(seq[b].data(), c, span, u, tw.data(), inverse);
          } else {
            for (unsigned u = 0; u < l / 2; ++u)
              ppf::fft_radix2_butterfly(seq[b].data(), c, span, u, tw.data(), inverse);
          }
        }
      }
      // The combine: block b takes k1 in [b·L/8, (b + 1)·L/8), thread j of it spectrum j / (L/8).
      std::vector<Complex32> got(c, Complex32{std::nanf(""), std::nanf("")});
      for (unsigned b = 0; b < R; ++b) {
        for (unsigned j = 0; j < l; ++j) {
          if (j / (l / R) != 0) continue;  // one spectrum here: the others repeat the same k1
          const unsigned k1 = b * (l / R) + j % (l / R);
          Complex32 y[8];
          for (unsigned q = 0; q < R; ++q) y[q] = seq[q][ppf::fft_position_of_bin(k1, log2l)];
          ppf::cluster_combine(y, k1, tw.data(), inverse);
          for (unsigned k2 = 0; k2 < R; ++k2) got[k1 + l * k2] = y[k2];
        }
      }
      const auto ref = reference_dft(x, inverse);
      double err = 0.0;
      double scale = 0.0;
      for (unsigned k = 0; k < c; ++k) {
        err = std::max(err, std::abs(test::cd(got[k].re, got[k].im) - ref[k]));  // NaN: unwritten
        scale = std::max(scale, std::abs(ref[k]));
      }
      CHECK(err <= 1e-6 * scale);
    }
  }
}

TEST_CASE("ppf cluster FFT: the transposed FIR's ring over batches gives every output, taps in order") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g;
  constexpr int S = ppf::kClusterBatch;
  for (int ntaps : {4, 8, 16}) {
    for (int n_out : {1, 7, 8, 9, 40}) {
      CAPTURE(ntaps);
      CAPTURE(n_out);
      const int n_in = n_out + ntaps - 1;
      std::vector<float> w(static_cast<std::size_t>(ntaps));
      std::vector<float> x(static_cast<std::size_t>(n_in));
      for (auto& v : w) v = g(rng);
      for (auto& v : x) v = g(rng);
      // The kernel's schedule: batches of S inputs (zeros past the end), ring offset (k·S) mod T.
      std::vector<float> acc(static_cast<std::size_t>(ntaps), 0.0F);
      std::vector<float> got(static_cast<std::size_t>(n_out), std::nanf(""));
      const int nbatch = (n_in + S - 1) / S;
      for (int k = 0; k < nbatch; ++k) {
        const int off = (k * S) % ntaps;
        CHECK((off == 0 || off == S));
        for (int i = 0; i < S; ++i) {
          const int r = k * S + i;
          const float xi = r < n_in ? x[static_cast<std::size_t>(r)] : 0.0F;
          for (int t = 0; t < ntaps; ++t) {
            auto& a = acc[static_cast<std::size_t>(ppf::fir_ring_slot(off + i, t, ntaps))];
            a = t == 0 ? w[0] * xi : std::fma(w[static_cast<std::size_t>(t)], xi, a);
          }
          const int s = r - (ntaps - 1);
          if (s >= 0 && s < n_out)
            got[static_cast<std::size_t>(s)] = acc[static_cast<std::size_t>(ppf::fir_ring_slot(off + i + 1, 0, ntaps))];
        }
      }
      for (int s = 0; s < n_out; ++s) {
        // The register kernel's order: taps in increasing order, fused multiply-adds.
        float want = 0.0F;
        for (int t = 0; t < ntaps; ++t) {
          want = std::fma(w[static_cast<std::size_t>(t)], x[static_cast<std::size_t>(s + t)], want);
        }
        CAPTURE(s);
        CHECK(got[static_cast<std::size_t>(s)] == want);
      }
    }
  }
}
