// SPDX-License-Identifier: MIT
// A mistyped --cpu-config is refused when the GPU computes too (found on the GPU machine:
// `ppf --cpu-config isa=sse9` ran on the GPU and exited 0 where the CPU path refused it). The
// check comes before any CUDA call, so these run without a GPU.
#include <doctest/doctest.h>

#include "fastpsr/dedisp.hpp"
#include "fastpsr/dedisp_backend.hpp"
#include "fastpsr/device.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/ppf.hpp"
#include "fastpsr/ppf_backends.hpp"
#include "fastpsr/ppf_window.hpp"
#include "support/dedisp_checks.hpp"

namespace fastpsr {
namespace {

DeviceChoice a_gpu() {
  DeviceChoice d;
  d.backend = Backend::cuda;
  d.description = "GPU 0 (none needed: the check comes first)";
  return d;
}

ChanneliserPlan small_ppf_plan() {
  ChanneliserProblem p;
  p.input = VoltageType::ci8;
  p.nchans = 16;
  p.ntaps = 2;
  p.output = PpfOutput::complex;
  p.window = parse_window("hann");
  return make_channeliser_plan(p);
}

}  // namespace

TEST_CASE("ppf and dedisp: a mistyped --cpu-config fails on the GPU path too") {
  ChanneliserOptions po;
  po.cpu_config["isa"] = "sse9";
  CHECK_THROWS_WITH_AS(make_channeliser(small_ppf_plan(), po, a_gpu()),
                       doctest::Contains("expected avx512, avx2 or generic"), Error);
  po.cpu_config = {{"tile", "8"}};
  CHECK_THROWS_WITH_AS(make_channeliser(small_ppf_plan(), po, a_gpu()), doctest::Contains("unknown key 'tile'"), Error);

  DedispProblem dp;
  dp.input = test::make_band(16, 8, 1400.0, -1.0, 1e-4);
  dp.dms = {0.0, 10.0};
  const DedispPlan plan = make_dedisp_plan(dp);
  DedispOptions dopt;
  dopt.cpu_config["isa"] = "sse9";
  CHECK_THROWS_WITH_AS(make_dedisperser(plan, a_gpu(), dopt), doctest::Contains("isa=sse9"), Error);
  dopt.cpu_config = {{"warp", "nine"}};
  CHECK_THROWS_WITH_AS(make_dedisperser(plan, a_gpu(), dopt), doctest::Contains("unknown key 'warp'"), Error);
  dopt.cpu_config = {{"dm_tile", "0"}};
  CHECK_THROWS_WITH_AS(make_dedisperser(plan, a_gpu(), dopt), doctest::Contains("expected a positive integer"), Error);
}

}  // namespace fastpsr
