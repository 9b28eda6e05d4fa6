// SPDX-License-Identifier: MIT
#include "fastpsr/cuda/runtime.hpp"

#include <cuda_runtime_api.h>

#include "common/cuda_try.hpp"

namespace fastpsr::cuda {

int device_count() noexcept {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

std::string no_device_reason() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  (void)cudaGetLastError();
  if (e != cudaSuccess) return cudaGetErrorString(e);
  return n == 0 ? "no CUDA-capable device" : "";
}

DeviceProperties device_properties(int ordinal) {
  const int n = device_count();
  if (ordinal < 0 || ordinal >= n) {
    throw Error(ErrorCode::resource, fmt::format("GPU {} does not exist ({} CUDA device{} found{})", ordinal, n,
                                                 n == 1 ? "" : "s", n == 0 ? ": " + no_device_reason() : ""));
  }
  cudaDeviceProp p{};
  FASTPSR_CUDA_TRY(cudaGetDeviceProperties(&p, ordinal));
  DeviceProperties d;
  d.name = p.name;
  d.ordinal = ordinal;
  d.sm_major = p.major;
  d.sm_minor = p.minor;
  d.multiprocessors = p.multiProcessorCount;
  d.global_memory_bytes = p.totalGlobalMem;
  d.l2_bytes = static_cast<std::size_t>(p.l2CacheSize);
  d.shared_per_block_optin = p.sharedMemPerBlockOptin;
  d.shared_per_sm = p.sharedMemPerMultiprocessor;
  d.constant_memory_bytes = p.totalConstMem;
  d.max_threads_per_block = p.maxThreadsPerBlock;
  d.warp_size = p.warpSize;
  int clock_khz = 0;
  int bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, ordinal) == cudaSuccess &&
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, ordinal) == cudaSuccess) {
    d.peak_memory_bandwidth = 2.0 * clock_khz * 1e3 * bus_bits / 8.0;
  }
  (void)cudaGetLastError();  // an attribute the driver does not have is no error of ours
  return d;
}

std::pair<std::size_t, std::size_t> memory_info() {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  FASTPSR_CUDA_TRY(cudaMemGetInfo(&free_bytes, &total_bytes));
  return {free_bytes, total_bytes};
}

void set_device(int ordinal) { FASTPSR_CUDA_TRY(cudaSetDevice(ordinal)); }

void prepare_device(int device) {
  set_device(device);
  FASTPSR_CUDA_TRY(cudaFree(nullptr));
}

}  // namespace fastpsr::cuda
