// SPDX-License-Identifier: MIT
#include "fastpsr/cuda/device_ceilings.hpp"

#include <algorithm>
#include <vector>

#include "common/cuda_memory.hpp"
#include "fastpsr/cuda/runtime.hpp"
#include "roofline/int_add_kernel.hpp"

namespace fastpsr::cuda {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double int_add_rate(int form, const DeviceProperties& props, const Stream& stream) {
  const unsigned threads = 256;
  const auto blocks = static_cast<unsigned>(props.multiprocessors * 8);
  DeviceBuffer<std::uint32_t> out(static_cast<std::size_t>(blocks) * threads);
  Event start(true);
  Event stop(true);
  auto run_ms = [&](int iters) {
    start.record(stream.get());
    FASTPSR_CUDA_TRY(launch_int_add_kernel(form, blocks, threads, iters, out.get(), stream.get()));
    stop.record(stream.get());
    stop.synchronize();
    return static_cast<double>(stop.elapsed_ms_since(start));
  };
  (void)run_ms(1000);  // warm-up
  // Calibrate to about 50 ms per launch, then take the median of five.
  const double ms = std::max(run_ms(10000), 0.01);
  const int iters = static_cast<int>(std::clamp(10000.0 * 50.0 / ms, 1000.0, 1e8));
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) t.push_back(run_ms(iters));
  const double adds = static_cast<double>(blocks) * threads * iters * int_adds_per_thread_iteration(form);
  return adds / (median(t) * 1e-3);
}

}  // namespace

DeviceCeilings measure_device_ceilings(int device) {
  const DeviceProperties props = device_properties(device);
  set_device(device);
  DeviceCeilings c;
  c.device = props.name;
  Stream stream;
  {
    const auto [free_bytes, total_bytes] = memory_info();
    (void)total_bytes;
    const std::size_t bytes = std::min<std::size_t>(std::size_t{1} << 30, free_bytes / 4) & ~std::size_t{255};
    DeviceBuffer<std::uint8_t> a(bytes);
    DeviceBuffer<std::uint8_t> b(bytes);
    FASTPSR_CUDA_TRY(cudaMemsetAsync(a.get(), 1, bytes, stream.get()));
    Event start(true);
    Event stop(true);
    std::vector<double> t;
    for (int r = 0; r < 7; ++r) {
      start.record(stream.get());
      FASTPSR_CUDA_TRY(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, stream.get()));
      stop.record(stream.get());
      stop.synchronize();
      if (r > 0) t.push_back(static_cast<double>(stop.elapsed_ms_since(start)));
    }
    c.copy_bytes_per_s = 2.0 * static_cast<double>(bytes) / (median(t) * 1e-3);
  }
  c.int_add2_per_s = int_add_rate(2, props, stream);
  c.int_add3_per_s = int_add_rate(3, props, stream);
  c.int_adds_per_s = std::max(c.int_add2_per_s, c.int_add3_per_s);
  c.sample_adds_per_s = 2.0 * c.int_adds_per_s;
  return c;
}

}  // namespace fastpsr::cuda
