// SPDX-License-Identifier: MIT
#include "fastpsr/tune_timing.hpp"

#include <algorithm>
#include <complex>
#include <random>
#include <vector>

#include "fastpsr/error.hpp"
#if FASTPSR_HAVE_CUDA
#include "fastpsr/cuda/dedisp_bench.hpp"
#include "fastpsr/cuda/ppf_cuda.hpp"
#endif
#if FASTPSR_HAVE_CUDA && __has_include("fastpsr/cuda/accel_cuda.hpp")
#include "fastpsr/cuda/accel_cuda.hpp"
#define FASTPSR_TUNE_ACCEL 1
#else
#define FASTPSR_TUNE_ACCEL 0
#endif

namespace fastpsr {
namespace {

[[noreturn, maybe_unused]] void no_cuda() {
  throw Error(ErrorCode::unsupported, "this build of fastpsr has no CUDA backend");
}

[[maybe_unused]] double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

#if FASTPSR_HAVE_CUDA
ConfigTiming time_dedisp_config(const DedispPlan& plan, const GpuConfig& config, int gpu, std::size_t n_out,
                                int repeats) {
  DedispOptions o;
  o.gpu_config = config;
  const auto t = cuda::time_dedisp_kernels(plan, o, gpu, n_out, repeats, 20261126);
  // Per output sample, scaled back to n_out: the device may have shortened the gulp.
  const double scale = static_cast<double>(n_out) / static_cast<double>(std::max<std::size_t>(t.n_out, 1));
  return {(t.kernel_ms + t.prep_ms) * scale, t.config};
}

ConfigTiming time_ppf_config(const ChanneliserPlan& plan, const GpuConfig& config, int gpu, std::size_t nspectra,
                             int repeats) {
  ChanneliserOptions o;
  o.gpu_config = config;
  const auto t = cuda::benchmark_device_ppf(plan, o, gpu, nspectra, repeats, false);
  return {t.total_ms, t.config};
}
#else
ConfigTiming time_dedisp_config(const DedispPlan&, const GpuConfig&, int, std::size_t, int) { no_cuda(); }
ConfigTiming time_ppf_config(const ChanneliserPlan&, const GpuConfig&, int, std::size_t, int) { no_cuda(); }
#endif

#if FASTPSR_TUNE_ACCEL
ConfigTiming time_accel_config(const AccelSearchProblem& problem, const GpuConfig& config, int gpu, int repeats) {
  AccelSearchOptions o;
  o.gpu_config = config;
  auto searcher = cuda::make_cuda_fdot_searcher(problem, o, gpu);
  const auto settings = searcher->settings();
  // Two batches' worth of spectra (noise with unit mean power; hits are as rare as in real data).
  const std::size_t n = std::max<std::size_t>(2, 2 * static_cast<std::size_t>(std::max(settings.batch, 1)));
  const auto nb = static_cast<std::size_t>(problem.numbins);
  std::vector<std::complex<float>> one(nb);
  std::mt19937_64 rng(20261126);
  std::normal_distribution<float> g(0.0F, 0.70710678F);
  for (auto& v : one) v = {g(rng), g(rng)};
  std::vector<std::complex<float>> all(n * nb);
  for (std::size_t b = 0; b < n; ++b)
    std::copy(one.begin(), one.end(), all.begin() + static_cast<std::ptrdiff_t>(b * nb));
  const std::vector<AccelPowerScale> scales(n);
  std::vector<double> ms;
  for (int rep = -1; rep < repeats; ++rep) {  // rep -1 warms up
    std::vector<CollectingHitSink> sinks(n);
    std::vector<AccelHitSink*> ptrs;
    for (auto& s : sinks) ptrs.push_back(&s);
    searcher->search_batch(all.data(), nb, scales, ptrs);
    const auto t = searcher->last_timings();
    if (rep >= 0) ms.push_back((t.segments_ms + t.correlate_ms + t.harmonics_ms) / static_cast<double>(n));
  }
  return {median(ms), searcher->describe()};
}
#else
ConfigTiming time_accel_config(const AccelSearchProblem&, const GpuConfig&, int, int) { no_cuda(); }
#endif

}  // namespace fastpsr
