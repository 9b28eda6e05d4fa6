// SPDX-License-Identifier: MIT
#include "fastpsr/cuda/dedisp_bench.hpp"

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "common/cuda_memory.hpp"
#include "dedisp/dedisp_engine.hpp"

namespace fastpsr::cuda {

DedispKernelTiming time_dedisp_kernels(const DedispPlan& plan, const DedispOptions& options, int device,
                                       std::size_t n_out, int repeats, std::uint64_t seed) {
  DedispOptions opt = options;
  const auto D = static_cast<std::size_t>(plan.downsample());
  opt.gulp_samples = (n_out + static_cast<std::size_t>(plan.max_delay)) * D;
  opt.gpu_config.erase("gulp");
  DedispEngine engine(plan, opt, device, 1);
  const auto n_new = static_cast<std::int64_t>(engine.gulp_ds());

  // Random input of the right kind (never zeros): bytes for <= 16 bits, finite floats for 32.
  std::vector<std::uint8_t> host(engine.gulp_ds() * D * engine.bytes_per_sample());
  std::mt19937_64 rng(seed);
  if (plan.problem.input.nbits == 32) {
    std::uniform_real_distribution<float> u(-1.0F, 1.0F);
    for (std::size_t i = 0; i + 4 <= host.size(); i += 4) {
      const float f = u(rng);
      std::memcpy(host.data() + i, &f, 4);
    }
  } else {
    // splitmix64 from one seed of rng: several times faster than mt19937_64, which took most of
    // a sweep point's time on setups with long delays (meerkat: ~560 MB a gulp).
    std::uint64_t state = rng();
    for (std::size_t i = 0; i < host.size(); i += 8) {
      std::uint64_t r = (state += 0x9E3779B97F4A7C15ULL);
      r = (r ^ (r >> 30)) * 0xBF58476D1CE4E5B9ULL;
      r = (r ^ (r >> 27)) * 0x94D049BB133111EBULL;
      r ^= r >> 31;
      std::memcpy(host.data() + i, &r, std::min<std::size_t>(8, host.size() - i));
    }
  }
  copy_to_device_now(engine.in_slot(0), host.data(), host.size());

  const GulpWork w = engine.plan_gulp(n_new, 0, 0, 0);
  Stream stream;
  Event start(true);
  Event stop(true);
  auto time_ms = [&](auto&& launch) {
    std::vector<double> t;
    for (int r = 0; r < std::max(repeats, 1); ++r) {
      start.record(stream.get());
      launch();
      stop.record(stream.get());
      stop.synchronize();
      t.push_back(static_cast<double>(stop.elapsed_ms_since(start)));
    }
    std::sort(t.begin(), t.end());
    return std::pair{t[t.size() / 2], t.front()};
  };
  engine.launch_prep(w, stream.get());  // warm-up, and G for the kernel
  engine.launch_dedisp(w, stream.get());
  stream.synchronize();
  DedispKernelTiming r;
  r.prep_ms = time_ms([&] { engine.launch_prep(w, stream.get()); }).first;
  const auto [median_ms, min_ms] = time_ms([&] { engine.launch_dedisp(w, stream.get()); });
  r.kernel_ms = median_ms;
  r.kernel_min_ms = min_ms;
  r.n_out = static_cast<std::size_t>(w.n_out);
  r.config = to_gpu_config_string(engine.config());
  r.description = engine.describe();
  r.registers = engine.kernel_attributes().registers;
  r.shared_bytes = engine.shared_bytes();
  return r;
}

}  // namespace fastpsr::cuda
