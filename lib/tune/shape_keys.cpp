// SPDX-License-Identifier: MIT
#include <fmt/format.h>

#include "fastpsr/tuning_keys.hpp"

namespace fastpsr {

int log2_bucket(std::int64_t n) noexcept {
  int b = 0;
  while (b < 62 && (std::int64_t{1} << b) < n) ++b;
  return b;
}

// dedisp: the grid is (time tiles) x (DM tiles), so the number of DMs decides how many DM tiles
// there are and whether a tall tile (items_dm, threads_dm) fills the device; the channel count
// and the delay span decide how much of a stage's window is shared between the DMs of a block
// (chans_per_stage, reuse); nbits picks the lane mode (and 32 the float kernel); downsampling
// changes the prep kernel's share. The span is bucketed by powers of two: files of one setup
// differ in it by a few samples, and the best tile does not. The DM values themselves, the
// sample time and the number of samples are left out (the cost per output sample does not
// depend on them).
std::string dedisp_shape_key(const DedispPlan& plan) {
  const auto& in = plan.problem.input;
  return fmt::format("nchans={},nbits={},ndms={},span=2^{},ds={}", in.nchans, in.nbits, plan.ndms(),
                     log2_bucket(plan.max_delay), plan.downsample());
}

// accel: numz and numharm set the template widths (the overlap-save length that wastes least)
// and the harmonic-sum work; interbinning halves the transforms; the plane storage changes the
// traffic. The spectrum length only scales the work (bucketed by powers of two: DM trials of one
// observation share it, and it decides how many spectra a batch holds).
std::string accel_shape_key(const AccelSearchProblem& problem, const GpuConfig& config) {
  const auto plane = config.find("plane");
  return fmt::format("bins=2^{},numz={},numharm={},interp={},plane={}", log2_bucket(problem.numbins), problem.numz(),
                     problem.numharm, problem.interp == AccelInterp::fourier ? "fourier" : "interbin",
                     plane == config.end() ? std::string("auto") : plane->second);
}

// ppf: the channel count is the FFT length (which kernels exist, how much shared memory), the
// taps the FIR work per sample, the input type the bytes read, coarse channels and polarisations
// the parallelism, and the output kind which FFT and detection path runs (with nint, the rows a
// fused block integrates). The window and band edges do not change the cost.
std::string ppf_shape_key(const ChanneliserPlan& plan) {
  const auto& p = plan.problem;
  const std::string output =
      plan.complex_output() ? std::string("complex") : fmt::format("power-{}-nint{}", to_string(p.detection), p.nint);
  return fmt::format("nchans={},ntaps={},ncoarse={},npol={},input={},output={}", p.nchans, p.ntaps, p.ncoarse, p.npol,
                     to_string(p.input), output);
}

}  // namespace fastpsr
