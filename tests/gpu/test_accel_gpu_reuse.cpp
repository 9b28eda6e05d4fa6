// SPDX-License-Identifier: MIT
// A CUDA searcher made for a longer DM trial gives shorter trials' hits bit for bit, one at a
// time and in batches (accel_searcher_reuse.hpp; the CPU searcher's check is in tests/unit).
#include <doctest/doctest.h>

#include "fastpsr/accel_backends.hpp"
#include "support/accel_reuse_checks.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

TEST_CASE("gpu accel: a searcher made for a longer trial gives a shorter one's hits exactly" *
          doctest::skip(!cuda_accel_available())) {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  DeviceChoice gpu;
  gpu.backend = Backend::cuda;
  gpu.gpu_index = 0;
  for (const char* batch : {"1", "4"}) {
    for (const char* path : {"custom", "cufft"}) {
      CAPTURE(batch);
      CAPTURE(path);
      AccelSearchOptions o;
      o.fft_len = 256;
      o.gpu_config.emplace("batch", batch);
      o.gpu_config.emplace("path", path);
      test::check_reuse_matches_fresh([&](const AccelSearchProblem& p) { return make_fdot_searcher(p, o, gpu); }, seed);
    }
  }
}
