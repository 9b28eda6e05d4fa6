// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/sim/quantise.hpp"
#include "fastpsr/sim/random.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;
using namespace fastpsr::sim;

TEST_CASE("quantise: levels of the default scales") {
  const float x[8] = {0.0F, 1.0F, -1.0F, 4.0F, -4.0F, 100.0F, -100.0F, 0.5F};
  std::uint8_t out[32];
  quantise(x, 8, 8, default_output_scale(8), out);
  // 127.5 + 31.875 x, half away from zero, clipped (SIGPROC fake's 8-bit scaling).
  const std::uint8_t want8[8] = {128, 159, 96, 255, 0, 255, 0, 143};
  for (int i = 0; i < 8; ++i) CHECK(out[i] == want8[i]);
  quantise(x, 8, 1, default_output_scale(1), out);
  CHECK(out[0] == 0b10101011);  // the sign, earliest sample in bit 0; 0 maps to 1
  quantise(x, 8, 32, default_output_scale(32), out);
  float back[8];
  std::memcpy(back, out, sizeof back);
  for (int i = 0; i < 8; ++i) CHECK(back[i] == x[i]);
  CHECK_THROWS_AS(default_output_scale(3), Error);
  CHECK_THROWS_AS(quantise(x, 3, 4, default_output_scale(4), out), Error);
}

TEST_CASE("quantise: the same bytes as bitpack's packer, for every nbits") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 gen(seed);
  std::normal_distribution<float> normal(0.0F, 1.5F);
  std::vector<float> x(4096);
  for (auto& v : x) v = normal(gen);
  for (int nbits : {1, 2, 4, 8, 16, 32}) {
    CAPTURE(nbits);
    const OutputScale s = default_output_scale(nbits);
    std::vector<float> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = static_cast<float>(s.offset) + static_cast<float>(s.scale) * x[i];
    std::vector<std::uint8_t> ours(packed_bytes(x.size(), nbits), 0xAB);
    std::vector<std::uint8_t> theirs(packed_bytes(x.size(), nbits), 0xCD);
    quantise(x.data(), x.size(), nbits, s, ours.data());
    pack_from_float(y.data(), theirs.data(), y.size(), nbits);
    CHECK(ours == theirs);
  }
}

TEST_CASE("quantise: noise moments and S/N efficiency, exact and measured") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const CounterRng rng(seed);
  constexpr std::size_t kN = 1 << 21;
  std::vector<float> noise(kN);
  for (std::size_t r = 0; r < kN / 4096; ++r)
    rng.normals(RandomStream::filterbank_noise, r, 4096, noise.data() + r * 4096);
  CHECK(quantisation_efficiency(1, default_output_scale(1)) == doctest::Approx(std::sqrt(2.0 / std::numbers::pi)));
  CHECK(quantisation_efficiency(32, default_output_scale(32)) == 1.0);
  CHECK(quantisation_efficiency(8, default_output_scale(8)) > 0.999);
  CHECK(quantisation_efficiency(2, default_output_scale(2)) == doctest::Approx(0.94).epsilon(0.01));
  for (int nbits : {1, 2, 4, 8, 16}) {
    CAPTURE(nbits);
    const OutputScale s = default_output_scale(nbits);
    const Moments m = quantised_noise_moments(nbits, s);
    // Measured on the generator's noise, and with a small shift to measure the efficiency.
    const double shift = 0.05;
    std::vector<float> shifted(kN);
    for (std::size_t i = 0; i < kN; ++i) shifted[i] = noise[i] + static_cast<float>(shift);
    std::vector<std::uint8_t> q(packed_bytes(kN, nbits));
    std::vector<float> levels(kN);
    double s1 = 0.0;
    double s2 = 0.0;
    quantise(noise.data(), kN, nbits, s, q.data());
    unpack_to_float(q.data(), levels.data(), kN, nbits, false);
    for (float v : levels) {
      s1 += static_cast<double>(v);
      s2 += static_cast<double>(v) * static_cast<double>(v);
    }
    const double mean = s1 / kN;
    const double rms = std::sqrt(s2 / kN - mean * mean);
    CHECK(mean == doctest::Approx(m.mean).epsilon(5.0 * m.rms / std::sqrt(double(kN)) / m.mean));
    CHECK(rms == doctest::Approx(m.rms).epsilon(0.005));
    quantise(shifted.data(), kN, nbits, s, q.data());
    unpack_to_float(q.data(), levels.data(), kN, nbits, false);
    double s1b = 0.0;
    for (float v : levels) s1b += static_cast<double>(v);
    const double measured = (s1b / kN - mean) / rms / shift;  // the same noise: only the shift differs
    CHECK(measured == doctest::Approx(quantisation_efficiency(nbits, s)).epsilon(0.03));
  }
  const Moments m8 = quantised_noise_moments(8, default_output_scale(8));
  CHECK(m8.mean == doctest::Approx(127.5).epsilon(1e-6));
  CHECK(m8.rms == doctest::Approx(31.875).epsilon(0.002));
}
