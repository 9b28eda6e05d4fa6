// SPDX-License-Identifier: MIT
#include <algorithm>
#include <vector>

#include "accel/cufft_plan.hpp"
#include "accel/fp32_ceiling_kernel.hpp"
#include "common/cuda_memory.hpp"
#include "fastpsr/cuda/accel_cuda.hpp"
#include "fastpsr/cuda/runtime.hpp"

namespace fastpsr::cuda {

Fp32Ceilings measure_fp32_ceilings(int device) {
  using namespace accel;
  const auto props = device_properties(device);
  set_device(device);
  Fp32Ceilings c;
  c.device = props.name;
  const Stream stream;
  const Event start(true);
  const Event stop(true);
  auto median_ms = [&](auto&& enqueue) {
    enqueue();  // warm-up
    std::vector<double> ms;
    for (int i = 0; i < 5; ++i) {
      start.record(stream.get());
      enqueue();
      stop.record(stream.get());
      stop.synchronize();
      ms.push_back(static_cast<double>(stop.elapsed_ms_since(start)));
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  // Copy: 512 MiB each way, far larger than L2.
  const std::size_t bytes = std::size_t{512} << 20;
  const DeviceBuffer<char> a(bytes);
  const DeviceBuffer<char> b(bytes);
  FASTPSR_CUDA_TRY(cudaMemsetAsync(a.get(), 1, bytes, stream.get()));
  const double copy_ms = median_ms(
      [&] { FASTPSR_CUDA_TRY(cudaMemcpyAsync(b.get(), a.get(), bytes, cudaMemcpyDeviceToDevice, stream.get())); });
  c.copy_bytes_per_s = 2.0 * static_cast<double>(bytes) / (copy_ms * 1e-3);
  // FMA: 32 blocks of 256 threads per SM, 8 independent chains each.
  const DeviceBuffer<float> sink(1);
  const int blocks = props.multiprocessors * 32;
  const int threads = 256;
  const int iterations = 1 << 14;
  const double fma_ms =
      median_ms([&] { FASTPSR_CUDA_TRY(launch_fma_chains(sink.get(), blocks, threads, iterations, stream.get())); });
  c.fma_per_s =
      static_cast<double>(blocks) * threads * static_cast<double>(fma_chains_per_thread(iterations)) / (fma_ms * 1e-3);
  return c;
}

}  // namespace fastpsr::cuda
