// SPDX-License-Identifier: MIT
// The CPU harmonic sums' inner loops: the dispatched (AVX2 where the CPU has it) stretched add
// gives the same bits as the plain loop for every harmonic fraction of up to 32 harmonics, any
// start and length, and reads nothing past the documented padding; the threshold scan finds the
// same indices as the plain loop, NaN and equality included.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "fastpsr/accel.hpp"
#include "fastpsr/cpu/cpu_features.hpp"
#include "fastpsr/cpu/harmonic_kernels.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

TEST_CASE("accel cpu: stretched add, every fraction h/H (H <= 32), same bits as the plain loop") {
  const std::uint64_t seed = test::fresh_seed();
  CAPTURE(seed);
  CAPTURE(cpu::describe_cpu_features());
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> noise(0.0F, 3.0F);
  for (int H = 2; H <= 32; H *= 2) {
    for (int h = 1; h < H; h += 2) {
      for (int trial = 0; trial < 6; ++trial) {
        const std::int64_t a = static_cast<std::int64_t>(rng() % 100000);
        const std::size_t n = static_cast<std::size_t>(rng() % 200);
        CAPTURE(H);
        CAPTURE(h);
        CAPTURE(a);
        CAPTURE(n);
        const std::int64_t lo = sub_rk(a, h, H);
        std::vector<std::int32_t> idx(n);
        for (std::size_t i = 0; i < n; ++i) {
          idx[i] = static_cast<std::int32_t>(sub_rk(a + static_cast<std::int64_t>(i), h, H) - lo);
        }
        // The row ends right after the last indexed value plus the padding the caller provides.
        const std::size_t row_len = (n == 0 ? 0 : static_cast<std::size_t>(idx[n - 1]) + 1) + cpu::kStretchedPad;
        std::vector<float> row(row_len);
        for (auto& v : row) v = noise(rng);
        std::vector<float> acc(n);
        for (auto& v : acc) v = noise(rng);
        std::vector<float> want = acc;
        cpu::stretched_add_scalar(want.data(), row.data(), idx.data(), n);
        cpu::stretched_add(acc.data(), row.data(), idx.data(), n);
        // Bit for bit (memcmp, not ==); an empty case has no data to compare (data() may be null).
        CHECK((n == 0 || std::memcmp(acc.data(), want.data(), n * sizeof(float)) == 0));
      }
    }
  }
}

TEST_CASE("accel cpu: threshold scan, same indices as the plain loop (rare hits, dense hits, NaN, ties)") {
  const std::uint64_t seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::exponential_distribution<float> power(1.0F);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = static_cast<std::size_t>(rng() % 300);
    const float cut = trial % 3 == 0 ? 0.5F : 6.0F;  // dense or rare hits
    CAPTURE(n);
    CAPTURE(cut);
    std::vector<float> acc(n);
    for (auto& v : acc) v = power(rng);
    for (std::size_t i = 0; i < n; i += 37) acc[i] = cut;  // equal is not above
    if (n > 5) acc[5] = std::numeric_limits<float>::quiet_NaN();
    if (n > 9) acc[9] = std::numeric_limits<float>::infinity();
    std::vector<std::uint32_t> want(n), got(n);
    const std::size_t nw = cpu::indices_above_scalar(acc.data(), n, cut, want.data());
    const std::size_t ng = cpu::indices_above(acc.data(), n, cut, got.data());
    REQUIRE(ng == nw);
    for (std::size_t k = 0; k < nw; ++k) CHECK(got[k] == want[k]);
  }
}
