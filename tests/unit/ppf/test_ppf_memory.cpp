// SPDX-License-Identifier: MIT
// The CPU channeliser's memory: host_bytes() is known, and right, before the buffers that grow
// with the gulp exist, so that the ppf tool can refuse a run that would not fit before it
// allocates them (QA pass 13).
#include <doctest/doctest.h>

#include <cstdint>

#include "fastpsr/cpu/ppf_cpu.hpp"
#include "fastpsr/ppf.hpp"
#include "support/reference_ppf.hpp"

using namespace fastpsr;

namespace {

std::unique_ptr<Channeliser> channeliser(const ChanneliserPlan& plan, std::size_t gulp) {
  ChanneliserOptions o;
  o.gulp_samples = gulp;
  o.fftw_effort = ChanneliserOptions::FftwEffort::estimate;
  return cpu::make_channeliser(plan, o);
}

}  // namespace

TEST_CASE("ppf cpu: made without its gulp's buffers, which host_bytes counts") {
  // 256 channels, complex output, a gulp of 2^40 samples: 2 TB of raw ci8 samples and 8 TB of
  // output rows, which no machine holds. Making the channeliser allocates neither.
  const auto plan = test::hann_plan(256, 8, VoltageType::ci8, 1, PpfOutput::complex);
  const std::size_t gulp = std::size_t{1} << 40;
  const auto ch = channeliser(plan, gulp);
  const std::size_t raw = gulp * plan.sample_bytes();
  const std::size_t rows = gulp / 256 * plan.row_floats() * sizeof(float);
  CHECK(ch->host_bytes() >= raw + rows);
  CHECK(ch->host_bytes() < raw + rows + (std::size_t{64} << 20));
}

TEST_CASE("ppf cpu: host_bytes is the same before and after the first push, and the output the reference's") {
  // Two coarse channels, two polarisations: raw buffers of history + gulp each, rows of a gulp.
  const auto plan = test::hann_plan(32, 4, VoltageType::ci16, 2, PpfOutput::complex, Detection::I, 1, false, 2);
  const std::size_t gulp = 32 * 10;
  const auto ch = channeliser(plan, gulp);
  const std::size_t before = ch->host_bytes();
  CHECK(before >= 2 * gulp * plan.sample_bytes() + 10 * plan.row_floats() * sizeof(float));
  const std::size_t nsamples = 32 * 57;
  const auto input = test::random_voltages(VoltageType::ci16, 2 * nsamples * 2 * 2, 11);
  const auto got = test::run_channeliser(*ch, input, nsamples);
  CHECK(ch->host_bytes() == before);
  const auto ref = test::reference_ppf(plan, input, nsamples);
  REQUIRE(got.size() == ref.size());
  CHECK(test::max_relative_error(got.data(), ref) <= 1e-5);
}
