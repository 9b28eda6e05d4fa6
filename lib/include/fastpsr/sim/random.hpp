// SPDX-License-Identifier: MIT
#pragma once
/// Counter-based random numbers for the simulators: every value is a pure function of
/// (seed, stream, row, column), so generated data do not depend on block sizes, thread counts
/// or the order in which blocks are made.
///
/// Generator: Philox-4x32-10 (Salmon, Moraes, Dror & Shaw 2011, "Parallel random numbers: as
/// easy as 1, 2, 3"); the 64-bit seed is its key, the counter is
/// (column / 4, stream, row low word, row high word), and one call gives 4 uint32 words.
/// Normals: Box–Muller on the two pairs of words of one call, so columns 4g..4g+3 of a row come
/// from one Philox call. The logarithm and sine/cosine are our own float polynomials (relative
/// error below 4e-7), written so that the compiler vectorises them; the result is bit-identical
/// between the baseline and the AVX2 code path (no fused multiply-add anywhere).
/// The uniform feeding the logarithm is (k + 1/2) / 2^31 for a 31-bit k, so |normal| <= 6.66
/// (a tail probability of 3e-11 is cut off). As a float it is resolved to 2^-24 near 1, so
/// values below 0.01 in magnitude are within 3.5e-4 of exact; the others within 1e-5 relative.
#include <array>
#include <cstddef>
#include <cstdint>

namespace fastpsr::sim {

/// Philox-4x32-10 of `counter` under `key` (Random123's reference function).
constexpr std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> counter,
                                                     std::array<std::uint32_t, 2> key) {
  constexpr std::uint32_t kM0 = 0xD2511F53U;
  constexpr std::uint32_t kM1 = 0xCD9E8D57U;
  constexpr std::uint32_t kW0 = 0x9E3779B9U;
  constexpr std::uint32_t kW1 = 0xBB67AE85U;
  auto c = counter;
  auto k = key;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += kW0;
      k[1] += kW1;
    }
    const std::uint64_t p0 = static_cast<std::uint64_t>(kM0) * c[0];
    const std::uint64_t p1 = static_cast<std::uint64_t>(kM1) * c[2];
    c = {static_cast<std::uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<std::uint32_t>(p1),
         static_cast<std::uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<std::uint32_t>(p0)};
  }
  return c;
}

/// Streams: independent sequences under one seed. Each consumer of random numbers has its own.
enum class RandomStream : std::uint32_t {
  filterbank_noise = 0,
  impulse_times = 1,
  voltage_noise = 2,
};

/// A seeded source of counter-indexed random numbers.
class CounterRng {
 public:
  explicit CounterRng(std::uint64_t seed) noexcept
      : key_{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)} {}
  [[nodiscard]] std::uint64_t seed() const noexcept { return (static_cast<std::uint64_t>(key_[1]) << 32) | key_[0]; }

  /// The 4 words of counter (group, stream, row).
  [[nodiscard]] std::array<std::uint32_t, 4> words(RandomStream stream, std::uint64_t row,
                                                   std::uint32_t group) const noexcept {
    return philox4x32_10({group, static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(row),
                          static_cast<std::uint32_t>(row >> 32)},
                         key_);
  }
  /// A uniform double in [0, 1) from the first two words of counter (index low, stream, index high, 0).
  [[nodiscard]] double uniform(RandomStream stream, std::uint64_t index) const noexcept;

  /// Standard normals N(0, 1) for columns [0, n) of `row`: out[j] is normal(stream, row, j),
  /// whatever n is (a shorter call gives a prefix of a longer one).
  void normals(RandomStream stream, std::uint64_t row, std::size_t n, float* out) const;
  /// The same, scaled and added: out[j] += scale * normal(stream, row, j).
  void add_normals(RandomStream stream, std::uint64_t row, std::size_t n, float scale, float* out) const;

  /// The name of the code path in use ("avx2" or "baseline"), for -v.
  static const char* code_path();
  [[nodiscard]] const std::array<std::uint32_t, 2>& key() const noexcept { return key_; }

 private:
  std::array<std::uint32_t, 2> key_;
};

/// normals() forced onto the baseline (SSE2) code path, for the tests that check that both paths
/// give the same bits.
void normals_baseline_path(const CounterRng& rng, RandomStream stream, std::uint64_t row, std::size_t n, float* out);

/// Our Box–Muller pair from two 32-bit words (exposed for the tests): radius from w0, angle from w1.
std::array<float, 2> box_muller(std::uint32_t w0, std::uint32_t w1) noexcept;

}  // namespace fastpsr::sim
