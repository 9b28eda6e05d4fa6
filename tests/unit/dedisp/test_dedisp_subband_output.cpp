// SPDX-License-Identifier: MIT
// Subband output (dedisp --subbands, SIGPROC dedisperse -b): each subband's delays against plain
// readings of SIGPROC's dmshift() with nbands and of PRESTO's subband_search_delays(), and the
// subbands the slicer and the CPU dedisperser make from random data against a double-precision
// sum straight from the whole spectra.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/cpu/dedisp_cpu.hpp"
#include "fastpsr/dedisp_subbands.hpp"
#include "fastpsr/error.hpp"
#include "support/dedisp_checks.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

// SIGPROC dmshift(f1, df, nchans, nbands, dm, 0, tsamp, table without entries): channel i's
// shift relative to f1 of its band, f1 stepping by cpb * df after each band's last channel.
std::vector<std::int64_t> sigproc_dmshift(double f1, double df, int nchans, int nbands, double dm, double tsamp) {
  std::vector<std::int64_t> shift(static_cast<std::size_t>(nchans));
  double fi = f1;
  const int cpb = nchans / nbands;
  for (int i = 0; i < nchans; ++i) {
    const double delay = 4148.741601 * (1.0 / (fi * fi) - 1.0 / (f1 * f1)) * dm;  // dmdelay(fi, f1, dm)
    shift[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(delay / tsamp);
    fi += df;
    if ((i + 1) % cpb == 0) f1 += static_cast<double>(cpb) * df;
  }
  return shift;
}

// PRESTO subband_search_delays(numchan, numsubbands, dm, lofreq, chanwidth, 0) in samples
// (NEAREST_LONG), for file channel c of a band of either order.
std::vector<std::int64_t> presto_subband_shift(double fch1, double foff, int nchans, int nsub, double dm,
                                               double tsamp) {
  const double chanwidth = std::fabs(foff);
  const double lofreq = foff < 0.0 ? fch1 - (nchans - 1) * chanwidth : fch1;
  const int cps = nchans / nsub;
  const double subbandwidth = chanwidth * cps;
  const double losub_hifreq = lofreq + subbandwidth - chanwidth;
  std::vector<std::int64_t> shift(static_cast<std::size_t>(nchans));
  for (int ii = 0; ii < nchans; ++ii) {
    const double f = lofreq + ii * chanwidth;
    const double top = losub_hifreq + (ii / cps) * subbandwidth;
    const double d = (dm / (0.000241 * f * f) - dm / (0.000241 * top * top)) / tsamp;
    const int c = foff < 0.0 ? nchans - 1 - ii : ii;
    shift[static_cast<std::size_t>(c)] =
        d < 0.0 ? static_cast<std::int64_t>(d - 0.5) : static_cast<std::int64_t>(d + 0.5);
  }
  return shift;
}

}  // namespace

TEST_CASE("dedisp subbands: each subband's delays are SIGPROC's dmshift with nbands and PRESTO's subband delays") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int trial = 0; trial < 60; ++trial) {
    CAPTURE(trial);
    const int nsub = 1 << (rng() % 6);
    const int nchans = nsub * (1 + static_cast<int>(rng() % 20));
    const bool sigproc = trial % 2 == 0;
    const bool rising = !sigproc && trial % 4 == 1;
    const double fch1 = 300.0 + 1200.0 * u(rng);
    // Rarely an exact binary fraction (the walks' rounding); a falling band keeps its lowest
    // channel above 100 MHz (seed 5732772813630872184 put it near 0 MHz: an absurd delay, refused).
    const double width = std::min(0.01 + 0.7 * u(rng), (fch1 - 100.0) / nchans);
    const double tsamp = 32e-6 * (1.0 + 7.0 * u(rng));
    const double dm = 1000.0 * u(rng) * u(rng);
    CAPTURE(nchans);
    CAPTURE(nsub);
    CAPTURE(dm);
    DedispProblem whole;
    whole.input = test::make_band(nchans, 8, fch1, rising ? width : -width, tsamp);
    whole.dms = {dm};
    whole.model = sigproc ? DelayModel::sigproc : DelayModel::presto;
    const SubbandSplit split = split_into_subbands(whole, nsub);
    REQUIRE(split.problems.size() == static_cast<std::size_t>(nsub));
    const std::vector<std::int64_t> want =
        sigproc ? sigproc_dmshift(fch1, -width, nchans, nsub, dm, tsamp)
                : presto_subband_shift(fch1, rising ? width : -width, nchans, nsub, dm, tsamp);
    bool same = true;
    for (int b = 0; b < nsub; ++b) {
      const DedispPlan p = make_dedisp_plan(split.problems[static_cast<std::size_t>(b)]);
      for (int k = 0; k < nchans / nsub; ++k) {
        same = same && p.delays[static_cast<std::size_t>(k)] == want[static_cast<std::size_t>(b * (nchans / nsub) + k)];
      }
    }
    CHECK(same);
    // The labels: subband b at fch1' + b foff', its reference.
    for (int b = 0; b < nsub; ++b) {
      const double label = split.ref_freq_mhz.front() + b * (nchans / nsub) * whole.input.foff_mhz;
      CHECK(split.ref_freq_mhz[static_cast<std::size_t>(b)] == doctest::Approx(label).epsilon(1e-12));
    }
  }
}

TEST_CASE("dedisp subbands: sliced and dedispersed on the CPU equal a double-precision sum of the whole spectra") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int nbits_cycle[] = {1, 2, 4, 8, 16, 32};
  int float_path = 0;
  int killed_whole = 0;
  for (int trial = 0; trial < 36; ++trial) {
    CAPTURE(trial);
    const int nbits = nbits_cycle[trial % 6];
    // Spectra are whole bytes (as files hold them); subbands of 1-4 bits often are not.
    const int nsub = nbits < 8 ? 8 << (rng() % 2) : 1 << (rng() % 4);
    const int nchans = nsub * (1 + static_cast<int>(rng() % 9));
    CAPTURE(nbits);
    CAPTURE(nchans);
    CAPTURE(nsub);
    DedispProblem whole;
    whole.input =
        test::make_band(nchans, nbits, 1400.0 - 100.0 * u(rng), -(0.2 + u(rng)), 1e-4, nbits == 8 && trial % 12 == 3);
    whole.dms = {20.0 + 300.0 * u(rng)};
    whole.model = trial % 3 == 0 ? DelayModel::sigproc : DelayModel::presto;
    whole.downsample = trial % 5 == 4 ? 3 : 1;
    if (trial % 4 == 2) {  // kill channels, a whole subband among them where there are several
      whole.keep.assign(static_cast<std::size_t>(nchans), 1);
      for (auto& k : whole.keep) k = u(rng) < 0.3 ? 0 : 1;
      if (nsub > 1) std::fill_n(whole.keep.begin(), nchans / nsub, std::uint8_t{0});
      whole.keep.back() = 1;
    }
    const SubbandSplit split = split_into_subbands(whole, nsub);
    const std::size_t nin = 2000 + rng() % 3000;
    const std::vector<std::uint8_t> packed = test::random_packed(rng, nin, whole.input);
    SubbandSlicer slicer(whole.input, nsub);
    if (slicer.nbits() != nbits) ++float_path;
    std::vector<std::vector<std::uint8_t>> sliced(static_cast<std::size_t>(nsub),
                                                  std::vector<std::uint8_t>(nin * slicer.row_bytes()));
    std::vector<std::uint8_t*> outs;
    for (auto& s : sliced) outs.push_back(s.data());
    // In two pieces, as gulps.
    const std::size_t half = nin / 2;
    slicer.slice(packed.data(), half, outs);
    for (auto& o : outs) o += half * slicer.row_bytes();
    slicer.slice(packed.data() + half * whole.input.bytes_per_sample(), nin - half, outs);
    std::vector<float> values(nin * static_cast<std::size_t>(nchans));
    unpack_to_float(packed.data(), values.data(), values.size(), nbits, whole.input.is_signed);
    const int cpb = nchans / nsub;
    const auto D = static_cast<std::size_t>(whole.downsample);
    for (int b = 0; b < nsub; ++b) {
      CAPTURE(b);
      const DedispPlan plan = make_dedisp_plan(split.problems[static_cast<std::size_t>(b)]);
      CHECK(plan.problem.input.bytes_per_sample() == slicer.row_bytes());
      DedispOptions options;
      options.gulp_samples = 700;
      auto dd = cpu::make_dedisperser(plan, options);
      const test::StreamedOutput got = test::run_streaming(*dd, sliced[static_cast<std::size_t>(b)], nin, {700, 333});
      const std::size_t ncols = nin / D - static_cast<std::size_t>(plan.max_delay);
      REQUIRE(got.ncols == ncols);
      if (split.all_killed[static_cast<std::size_t>(b)] != 0) ++killed_whole;
      bool exact = true;
      for (std::size_t t = 0; t < ncols; ++t) {
        double sum = 0.0;
        double mag = 0.0;
        for (int k = 0; k < cpb; ++k) {
          const auto c = static_cast<std::size_t>(b * cpb + k);
          if (!plan.channel_kept(k)) continue;
          for (std::size_t j = 0; j < D; ++j) {
            const std::size_t s = (t + static_cast<std::size_t>(plan.delays[static_cast<std::size_t>(k)])) * D + j;
            const double v = values[s * static_cast<std::size_t>(nchans) + c];
            sum += v;
            mag += std::fabs(v);
          }
        }
        const double g = static_cast<double>(got.data[t]);
        exact = exact && (nbits == 32 ? std::fabs(g - sum) <= 1e-6 * mag + 1e-30 : g == sum);
      }
      CHECK(exact);
    }
  }
  CHECK(float_path > 0);    // some subbands end inside a byte
  CHECK(killed_whole > 0);  // and some have every channel killed
}

TEST_CASE("dedisp subbands: bad splits are refused with the reason") {
  DedispProblem whole;
  whole.input = test::make_band(48, 8, 1400.0, -1.0, 1e-4);
  whole.dms = {10.0};
  CHECK_THROWS_WITH_AS(split_into_subbands(whole, 5), doctest::Contains("do not divide the 48 channels"), Error);
  CHECK_THROWS_WITH_AS(split_into_subbands(whole, 0), doctest::Contains("do not divide"), Error);
  whole.dms = {10.0, 20.0};
  CHECK_THROWS_WITH_AS(split_into_subbands(whole, 4), doctest::Contains("one DM"), Error);
  whole.dms = {10.0};
  whole.input.chan_freq_mhz[3] += 0.5;  // a frequency table
  CHECK_THROWS_WITH_AS(split_into_subbands(whole, 4), doctest::Contains("regular band"), Error);
}
