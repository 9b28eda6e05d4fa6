// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <vector>

#include "fastpsr/sim/random.hpp"
#include "support/test_support.hpp"

using namespace fastpsr::sim;

namespace {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

}  // namespace

TEST_CASE("random: Philox-4x32-10 gives Random123's known answers") {
  using W = std::array<std::uint32_t, 4>;
  CHECK(philox4x32_10({0, 0, 0, 0}, {0, 0}) == W{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}) ==
        W{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}) ==
        W{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
  static_assert(philox4x32_10({0, 0, 0, 0}, {0, 0})[0] == 0x6627e8d5);
}

TEST_CASE("random: Box-Muller matches a double-precision reference") {
  const auto seed = fastpsr::test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 gen(seed);
  double worst_relative = 0.0;  // where the radius exceeds 0.01
  double worst_small = 0.0;     // absolute error where it does not
  for (int i = 0; i < 200000; ++i) {
    const auto w0 = static_cast<std::uint32_t>(gen());
    const auto w1 = static_cast<std::uint32_t>(gen());
    // The same uniforms as the generator, then the textbook transform in double.
    const double u0 = (static_cast<double>(w0 >> 1) + 0.5) / 2147483648.0;
    const double u1 = static_cast<double>(w1 >> 8) / 16777216.0;
    const double r = std::sqrt(-2.0 * std::log(u0));
    const auto z = box_muller(w0, w1);
    const double e = std::max(std::abs(static_cast<double>(z[0]) - r * std::cos(2 * std::numbers::pi * u1)),
                              std::abs(static_cast<double>(z[1]) - r * std::sin(2 * std::numbers::pi * u1)));
    if (r > 0.01) {
      worst_relative = std::max(worst_relative, e / std::max(1.0, r));
    } else {
      worst_small = std::max(worst_small, e);
    }
  }
  CAPTURE(worst_relative);
  CAPTURE(worst_small);
  // Near u0 = 1 the float uniform is resolved to 2^-24, so radii below ~0.01 are off by up to
  // sqrt(2^-23) = 3.5e-4 (documented in random.hpp); elsewhere the error is float rounding.
  CHECK(worst_relative < 1e-5);
  CHECK(worst_small < 4e-4);
  // The extremes: the smallest uniform gives the largest radius, 6.66.
  const auto tail = box_muller(0, 0);
  CHECK(tail[0] == doctest::Approx(std::sqrt(-2.0 * std::log(0.5 / 2147483648.0))).epsilon(1e-6));
}

TEST_CASE("random: normals are a pure function of (seed, stream, row, column)") {
  const auto seed = fastpsr::test::fresh_seed();
  INFO("seed " << seed);
  const CounterRng rng(seed);
  std::vector<float> a(1000);
  std::vector<float> b(1000, -99.0F);
  rng.normals(RandomStream::filterbank_noise, 123456789012ULL, a.size(), a.data());
  for (std::size_t n : {1U, 3U, 4U, 63U, 64U, 65U, 999U}) {
    std::fill(b.begin(), b.end(), -99.0F);
    rng.normals(RandomStream::filterbank_noise, 123456789012ULL, n, b.data());
    for (std::size_t j = 0; j < n; ++j) REQUIRE(b[j] == a[j]);
    CHECK(b[n] == -99.0F);  // nothing written past n
  }
  // Another row, stream or seed gives other numbers.
  rng.normals(RandomStream::filterbank_noise, 123456789013ULL, b.size(), b.data());
  CHECK(a != b);
  rng.normals(RandomStream::voltage_noise, 123456789012ULL, b.size(), b.data());
  CHECK(a != b);
  CounterRng(seed + 1).normals(RandomStream::filterbank_noise, 123456789012ULL, b.size(), b.data());
  CHECK(a != b);
  // add_normals adds scale times the same numbers.
  std::vector<float> c(1000, 1.0F);
  rng.add_normals(RandomStream::filterbank_noise, 123456789012ULL, c.size(), 2.0F, c.data());
  for (std::size_t j = 0; j < c.size(); ++j) REQUIRE(c[j] == 1.0F + 2.0F * a[j]);
}

TEST_CASE("random: the AVX2 and baseline code paths give the same bits") {
  const auto seed = fastpsr::test::fresh_seed();
  INFO("seed " << seed << ", dispatched path " << CounterRng::code_path());
  const CounterRng rng(seed);
  std::vector<float> a(4099);
  std::vector<float> b(4099);
  for (std::uint64_t row : {0ULL, 1ULL, 77777ULL, 1ULL << 40}) {
    rng.normals(RandomStream::filterbank_noise, row, a.size(), a.data());
    normals_baseline_path(rng, RandomStream::filterbank_noise, row, b.size(), b.data());
    for (std::size_t j = 0; j < a.size(); ++j) REQUIRE(a[j] == b[j]);
  }
}

TEST_CASE("random: normals have the moments and the distribution of N(0, 1)") {
  const auto seed = fastpsr::test::fresh_seed();
  INFO("seed " << seed);
  const CounterRng rng(seed);
  constexpr std::size_t kRow = 4096;
  constexpr std::size_t kRows = 1000;
  constexpr int kBins = 40;  // over [-4, 4], plus two tails
  std::vector<double> hist(kBins + 2, 0.0);
  double s1 = 0.0;
  double s2 = 0.0;
  double s3 = 0.0;
  double s4 = 0.0;
  double lag = 0.0;  // correlation of neighbouring columns
  std::vector<float> v(kRow);
  for (std::size_t r = 0; r < kRows; ++r) {
    rng.normals(RandomStream::filterbank_noise, r, kRow, v.data());
    for (std::size_t j = 0; j < kRow; ++j) {
      const double x = v[j];
      s1 += x;
      s2 += x * x;
      s3 += x * x * x;
      s4 += x * x * x * x;
      if (j > 0) lag += x * static_cast<double>(v[j - 1]);
      const int bin = x < -4.0 ? 0 : (x >= 4.0 ? kBins + 1 : 1 + static_cast<int>((x + 4.0) / 8.0 * kBins));
      hist[static_cast<std::size_t>(bin)] += 1.0;
    }
  }
  const double n = static_cast<double>(kRow * kRows);
  CHECK(std::abs(s1 / n) < 5.0 / std::sqrt(n));
  CHECK(std::abs(s2 / n - 1.0) < 5.0 * std::sqrt(2.0 / n));
  CHECK(std::abs(s3 / n) < 5.0 * std::sqrt(15.0 / n));
  CHECK(std::abs(s4 / n - 3.0) < 5.0 * std::sqrt(96.0 / n));
  CHECK(std::abs(lag / n) < 5.0 / std::sqrt(n));
  // Chi-square against the Gaussian CDF: 41 degrees of freedom; 100 is beyond p = 1e-6.
  double chi2 = 0.0;
  for (int b = 0; b < kBins + 2; ++b) {
    const double lo = b == 0 ? -std::numeric_limits<double>::infinity() : -4.0 + 8.0 * (b - 1) / kBins;
    const double hi = b == kBins + 1 ? std::numeric_limits<double>::infinity() : -4.0 + 8.0 * b / kBins;
    const double expect = n * (normal_cdf(hi) - normal_cdf(lo));
    chi2 += (hist[static_cast<std::size_t>(b)] - expect) * (hist[static_cast<std::size_t>(b)] - expect) / expect;
  }
  CAPTURE(chi2);
  CHECK(chi2 < 100.0);
}

TEST_CASE("random: uniform doubles lie in 0 <= u < 1 and depend on the index") {
  const CounterRng rng(fastpsr::test::fresh_seed());
  double sum = 0.0;
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const double u = rng.uniform(RandomStream::impulse_times, i);
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum += u;
  }
  CHECK(std::abs(sum / 100000 - 0.5) < 5.0 * std::sqrt(1.0 / 12.0 / 100000));
  CHECK(rng.uniform(RandomStream::impulse_times, 5) != rng.uniform(RandomStream::impulse_times, 6));
}
