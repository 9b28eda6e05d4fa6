// SPDX-License-Identifier: MIT
#pragma once
/// The check that a searcher made for a longer DM trial gives shorter trials' hits bit for bit
/// (accel_searcher_reuse.hpp), for any backend: the unit tests run it on the CPU searcher, the GPU
/// tests on the CUDA one.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <tuple>
#include <vector>

#include "fastpsr/accel_searcher_reuse.hpp"
#include "support/reference_accel.hpp"

namespace fastpsr::test {

/// A problem of the check: zmax 10, 4 harmonics, rk from 61 to 2 numbins - 7.
inline AccelSearchProblem reuse_problem(std::int64_t numbins, std::vector<float> powcut) {
  AccelSearchProblem p;
  p.numbins = numbins;
  p.zmax = 10;
  p.numharm = 4;
  p.rk_begin = 2 * 30 + 1;
  p.rk_end = 2 * numbins - 7;
  p.powcut = std::move(powcut);
  return p;
}

/// Hits in a canonical order.
inline std::vector<AccelHit> sorted_hits(std::vector<AccelHit> hits) {
  std::sort(hits.begin(), hits.end(), [](const AccelHit& a, const AccelHit& b) {
    return std::tie(a.stage, a.rk, a.zi) < std::tie(b.stage, b.rk, b.zi);
  });
  return hits;
}

/// Field by field, the power bit for bit.
inline void check_same_hits(const std::vector<AccelHit>& got, const std::vector<AccelHit>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].stage == want[i].stage);
    CHECK(got[i].rk == want[i].rk);
    CHECK(got[i].zi == want[i].zi);
    CHECK(std::memcmp(&got[i].power, &want[i].power, sizeof(float)) == 0);
  }
}

/// Trials of 1210 to 1500 bins with thresholds below and above the longest one's, searched
/// through one searcher made for the longest (one at a time, then as one batch), against a
/// searcher made for each trial.
inline void check_reuse_matches_fresh(const ReusedFdotSearcher::Factory& make, std::uint64_t seed) {
  const AccelSearchProblem longest = reuse_problem(1500, {6.0F, 10.0F, 16.0F});
  const std::vector<AccelSearchProblem> trials{reuse_problem(1437, {5.9F, 10.2F, 15.5F}),
                                               reuse_problem(1499, {6.1F, 9.8F, 16.4F}),
                                               reuse_problem(1210, {5.5F, 9.0F, 15.0F}), longest};
  std::vector<std::vector<std::complex<float>>> spectra;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    spectra.push_back(noisy_accel_spectrum(seed + i, trials[i].numbins, 161.7 + 3.1 * double(i), 4.4));
  }
  const std::vector<float> factors{0.9F, 1.1F, 1.05F};
  const std::vector<std::int64_t> starts{0, 700, 2300};
  const AccelPowerScale scale{starts, factors};
  struct Fresh {
    std::vector<AccelHit> hits;
    std::int64_t begin = -1, end = -1;
  };
  std::vector<Fresh> fresh;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    CollectingHitSink sink;
    make(trials[i])->search(spectra[i], scale, sink);
    fresh.push_back({sorted_hits(sink.hits), sink.covered_begin, sink.covered_end});
    CHECK(fresh.back().hits.size() > 20);
  }

  ReusedFdotSearcher reuse(make);
  CHECK(reuse.ensure(longest));
  for (const auto& t : trials) CHECK_FALSE(reuse.ensure(t));
  for (std::size_t i = 0; i < trials.size(); ++i) {
    CAPTURE(i);
    CollectingHitSink sink;
    const AccelTrialRef ref{spectra[i], scale, &trials[i], &sink};
    reuse.search({&ref, 1});
    CHECK(sink.covered_begin == fresh[i].begin);
    CHECK(sink.covered_end == fresh[i].end);
    check_same_hits(sorted_hits(sink.hits), fresh[i].hits);
  }
  CHECK(reuse.reused() == 3);

  std::vector<CollectingHitSink> sinks(trials.size());
  std::vector<AccelTrialRef> refs;
  for (std::size_t i = 0; i < trials.size(); ++i) refs.push_back({spectra[i], scale, &trials[i], &sinks[i]});
  reuse.search(refs);
  for (std::size_t i = 0; i < trials.size(); ++i) {
    CAPTURE(i);
    CHECK(sinks[i].covered_end == fresh[i].end);
    check_same_hits(sorted_hits(sinks[i].hits), fresh[i].hits);
  }
}

}  // namespace fastpsr::test
