// SPDX-License-Identifier: MIT
// Delay tables of bands in either order. PRESTO keeps every band lowest channel first (it flips
// a SIGPROC band whose foff < 0 as it reads), so a band written in rising order (foff > 0) must
// get, channel for channel, the delays of the same band written falling: per channel and with
// prepsubband's two-stage (-nsub) rounding. The two-stage tables are also compared with a plain
// reading of PRESTO's subband_search_delays() + subband_delays() for both orders.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "fastpsr/dedisp.hpp"
#include "support/dedisp_checks.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

std::int64_t nearest_long(double x) {
  return x < 0.0 ? static_cast<std::int64_t>(x - 0.5) : static_cast<std::int64_t>(x + 0.5);
}

// prepsubband's delays in input samples, by PRESTO's arithmetic with its channel index ii (lowest
// frequency first): NEAREST_LONG of (channel - its subband top) at the mean DM, plus NEAREST_LONG
// of (subband top - top subband's top) at the DM.
std::vector<std::int32_t> prepsubband_delays(double lofreq, double chanwidth, int nchans, int nsub, double tsamp,
                                             const std::vector<double>& dms, bool falling) {
  double avgdm = 0.0;
  for (double dm : dms) avgdm += dm;
  avgdm /= static_cast<double>(dms.size());
  const int cps = nchans / nsub;
  const double subbandwidth = chanwidth * cps;
  const double losub_hifreq = lofreq + subbandwidth - chanwidth;
  auto top_delay = [&](int j, double dm) {
    const double f = losub_hifreq + j * subbandwidth;
    return dm / (0.000241 * f * f);
  };
  std::vector<std::int32_t> d(dms.size() * static_cast<std::size_t>(nchans));
  for (std::size_t i = 0; i < dms.size(); ++i) {
    for (int ii = 0; ii < nchans; ++ii) {
      const double f = lofreq + ii * chanwidth;
      const std::int64_t stage1 = nearest_long((avgdm / (0.000241 * f * f) - top_delay(ii / cps, avgdm)) / tsamp);
      const std::int64_t stage2 = nearest_long((top_delay(ii / cps, dms[i]) - top_delay(nsub - 1, dms[i])) / tsamp);
      const int c = falling ? nchans - 1 - ii : ii;  // the file's channel
      d[i * static_cast<std::size_t>(nchans) + static_cast<std::size_t>(c)] =
          static_cast<std::int32_t>(stage1 + stage2);
    }
  }
  return d;
}

}  // namespace

TEST_CASE("dedisp plan: a band in rising order gets the falling band's delays, per channel and two-stage") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int trial = 0; trial < 30; ++trial) {
    CAPTURE(trial);
    const int nsub = 1 << (rng() % 6);
    const int nchans = nsub * (1 + static_cast<int>(rng() % 24));
    const double width = 0.05 + 0.5 * u(rng);
    const double top = 300.0 + 1200.0 * u(rng);
    const double tsamp = 64e-6 * (1.0 + 3.0 * u(rng));
    const double lofreq = top - (nchans - 1) * width;  // PRESTO's lowest channel of the falling band
    std::vector<double> dms;
    const double lo = 300.0 * u(rng);
    for (int i = 0; i < 1 + static_cast<int>(rng() % 20); ++i) dms.push_back(lo + (0.1 + u(rng)) * i);
    CAPTURE(nchans);
    CAPTURE(nsub);
    for (int two_stage = 0; two_stage < 2; ++two_stage) {
      CAPTURE(two_stage);
      DedispProblem falling;
      falling.input = test::make_band(nchans, 8, top, -width, tsamp);
      falling.dms = dms;
      falling.presto_nsub = two_stage ? nsub : 0;
      DedispProblem rising = falling;
      rising.input = test::make_band(nchans, 8, lofreq, width, tsamp);
      const DedispPlan pf = make_dedisp_plan(falling);
      const DedispPlan pr = make_dedisp_plan(rising);
      bool mirrored = true;
      for (std::size_t i = 0; i < dms.size(); ++i) {
        for (int c = 0; c < nchans; ++c) {
          mirrored = mirrored &&
                     pr.delays[i * static_cast<std::size_t>(nchans) + static_cast<std::size_t>(c)] ==
                         pf.delays[i * static_cast<std::size_t>(nchans) + static_cast<std::size_t>(nchans - 1 - c)];
        }
      }
      CHECK(mirrored);
      CHECK(pr.max_delay == pf.max_delay);
      if (two_stage && nsub < nchans) {
        CHECK(pf.delays == prepsubband_delays(lofreq, width, nchans, nsub, tsamp, dms, true));
        CHECK(pr.delays == prepsubband_delays(lofreq, width, nchans, nsub, tsamp, dms, false));
      }
    }
  }
}
