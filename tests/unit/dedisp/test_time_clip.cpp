// SPDX-License-Identifier: MIT
// PRESTO's time-domain clipping (time_clip.hpp) against a plain reading of its clip_times: block
// by block on random data with broadband bursts, every sample size, bytes compared exactly.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/time_clip.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

// clip_times as PRESTO's clipping.c describes it, written plainly: two-pass mean and sample
// variance, the median by a full sort, the running values 0.9 old + 0.1 new. Values are floats
// of the unpacked samples; clipped spectra take the running channel levels.
struct ReferenceClipper {
  double sigma;
  std::size_t nchans;
  bool started = false;
  double run_avg = 0, run_std = 0;
  std::vector<double> run_chan{};

  static void mean_var(const std::vector<double>& x, double& m, double& v) {
    m = 0;
    for (double a : x) m += a;
    m /= static_cast<double>(x.size());
    v = 0;
    for (double a : x) v += (a - m) * (a - m);
    v = x.size() > 1 ? v / static_cast<double>(x.size() - 1) : 0.0;
  }

  // values: n x nchans, changed in place; returns the spectra clipped.
  std::vector<std::size_t> block(std::vector<float>& values, std::size_t n) {
    std::vector<double> zdm(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t c = 0; c < nchans; ++c) zdm[i] += static_cast<double>(values[i * nchans + c]);
    }
    double m, v;
    mean_var(zdm, m, v);
    double sd = std::sqrt(v);
    std::vector<double> sorted = zdm;
    std::sort(sorted.begin(), sorted.end());
    const double med = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    std::vector<double> good;
    std::vector<double> chan(nchans, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      const bool ok = (zdm[i] > med - 3 * sd && zdm[i] < med + 3 * sd) || (sd == 0 && zdm[i] == med);
      if (!ok) continue;
      good.push_back(zdm[i]);
      for (std::size_t c = 0; c < nchans; ++c) chan[c] += static_cast<double>(values[i * nchans + c]);
    }
    if (good.empty()) {
      m = run_avg;
      sd = run_std;
      chan = run_chan.empty() ? std::vector<double>(nchans, 0.0) : run_chan;
    } else {
      mean_var(good, m, v);
      sd = std::sqrt(v);
      for (auto& c : chan) c /= static_cast<double>(good.size());
    }
    if (started) {
      run_avg = 0.9 * run_avg + 0.1 * m;
      run_std = 0.9 * run_std + 0.1 * sd;
      for (std::size_t c = 0; c < nchans; ++c) run_chan[c] = 0.9 * run_chan[c] + 0.1 * chan[c];
    } else {
      run_avg = m;
      run_std = sd;
      run_chan = chan;
      started = true;
    }
    std::vector<std::size_t> clipped;
    for (std::size_t i = 0; i < n; ++i) {
      if (std::fabs(zdm[i] - run_avg) > sigma * run_std) {
        clipped.push_back(i);
        for (std::size_t c = 0; c < nchans; ++c) values[i * nchans + c] = static_cast<float>(run_chan[c]);
      }
    }
    return clipped;
  }
};

}  // namespace

TEST_CASE("time clipping: PRESTO's clip_times block by block, every sample size, against a plain reading") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (const int nbits : {1, 2, 4, 8, 16, 32}) {
    CAPTURE(nbits);
    const std::size_t nchans = 32;
    const double top = nbits == 32 ? 0.0 : std::ldexp(1.0, nbits) - 1;
    const double level = nbits == 32 ? 20.0 : top / 2;
    const double spread = nbits == 32 ? 3.0 : std::max(0.5, top / 8);
    std::normal_distribution<double> noise(level, spread);
    std::uniform_int_distribution<std::size_t> block_size(1, 700);
    std::bernoulli_distribution burst(0.01);
    TimeClipper clipper(5.0, static_cast<int>(nchans), nbits, false);
    ReferenceClipper ref{5.0, nchans};
    std::size_t total_clipped = 0;
    std::size_t bursts = 0;
    for (int b = 0; b < 12; ++b) {
      const std::size_t n = b == 0 ? 1000 : block_size(rng);  // a first block with statistics
      CAPTURE(b);
      CAPTURE(n);
      std::vector<float> values(n * nchans);
      for (std::size_t i = 0; i < n; ++i) {
        const bool hit = burst(rng);
        bursts += hit ? 1 : 0;
        for (std::size_t c = 0; c < nchans; ++c) {
          double x = noise(rng) + (hit ? 6 * spread : 0.0);
          if (nbits != 32) x = std::clamp(std::round(x), 0.0, top);
          values[i * nchans + c] = static_cast<float>(x);
        }
      }
      std::vector<std::uint8_t> packed(packed_bytes(values.size(), nbits));
      pack_from_float(values.data(), packed.data(), values.size(), nbits);
      // What the reference leaves, stored at the file's bits.
      std::vector<float> want = values;
      const auto clipped = ref.block(want, n);
      std::vector<std::uint8_t> want_packed(packed.size());
      pack_from_float(want.data(), want_packed.data(), want.size(), nbits);

      CHECK(clipper.clip_block(packed.data(), n) == clipped.size());
      CHECK(packed == want_packed);
      total_clipped += clipped.size();
      REQUIRE(clipper.channel_levels().size() == nchans);
      for (std::size_t c = 0; c < nchans; ++c) CHECK(clipper.channel_levels()[c] == ref.run_chan[c]);
      // A gap's spectra take the running levels as the file's samples (PRESTO's padvals).
      std::vector<float> levels(3 * nchans);
      for (std::size_t i = 0; i < levels.size(); ++i) levels[i] = static_cast<float>(ref.run_chan[i % nchans]);
      std::vector<std::uint8_t> want_gap(packed_bytes(levels.size(), nbits));
      pack_from_float(levels.data(), want_gap.data(), levels.size(), nbits);
      std::vector<std::uint8_t> gap(want_gap.size(), 0);
      clipper.fill_with_levels(gap.data(), 3);
      CHECK(gap == want_gap);
    }
    CHECK(clipper.blocks() == 12);
    // The bursts (6 deviations in every channel: ~34 of the zero-DM series') are what it clips.
    CHECK(total_clipped > 0);
    CHECK(total_clipped <= bursts + 2);
  }
}

TEST_CASE("time clipping: a block of equal spectra is kept, and running values carry blocks with nothing good") {
  TimeClipper clipper(6.0, 4, 8, false);
  std::vector<std::uint8_t> flat(100 * 4, 7);
  CHECK(clipper.clip_block(flat.data(), 100) == 0);  // PRESTO would zero them (running values 0)
  CHECK(std::all_of(flat.begin(), flat.end(), [](std::uint8_t v) { return v == 7; }));
  CHECK(clipper.channel_levels() == std::vector<double>(4, 7.0));
  // One spectrum far off in an otherwise flat block: clipped to the running levels.
  std::vector<std::uint8_t> block(50 * 4, 7);
  std::fill(block.begin() + 80, block.begin() + 84, 200);
  CHECK(clipper.clip_block(block.data(), 50) == 1);
  CHECK(std::all_of(block.begin(), block.end(), [](std::uint8_t v) { return v == 7; }));
  CHECK(clipper.spectra_clipped() == 1);
  CHECK(clipper.spectra_seen() == 150);
}

TEST_CASE("time clipping: a gap before the first block keeps its zeros (PRESTO's first padding values)") {
  TimeClipper clipper(6.0, 4, 8, false);
  std::vector<std::uint8_t> gap(5 * 4, 0);
  clipper.fill_with_levels(gap.data(), 5);
  CHECK(std::all_of(gap.begin(), gap.end(), [](std::uint8_t v) { return v == 0; }));
}

TEST_CASE("time clipping: mean and variance by PRESTO's recurrence") {
  const double x[] = {1.0, 2.0, 4.0, 7.0};
  double m = 0, v = 0;
  running_mean_variance(x, 4, m, v);
  CHECK(m == doctest::Approx(3.5).epsilon(1e-15));
  CHECK(v == doctest::Approx(7.0).epsilon(1e-15));  // ((2.5^2 + 1.5^2 + 0.5^2 + 3.5^2) / 3)
  running_mean_variance(x, 1, m, v);
  CHECK(m == 1.0);
  CHECK(v == 0.0);
}
