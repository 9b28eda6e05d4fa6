// SPDX-License-Identifier: MIT
#pragma once
/// Device queries for the dispatcher and tools; no CUDA types leak out of this header.
#include <cstddef>
#include <string>

namespace fastpsr::cuda {

/// Number of usable CUDA devices; 0 when there is no driver or no device (never throws).
int device_count() noexcept;
/// Why device_count() is 0, for messages ("no CUDA driver", "no CUDA-capable device").
std::string no_device_reason();

struct DeviceProperties {
  std::string name;
  int ordinal = 0;
  int sm_major = 0;
  int sm_minor = 0;
  int multiprocessors = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t l2_bytes = 0;
  std::size_t shared_per_block_optin = 0;
  std::size_t shared_per_sm = 0;
  std::size_t constant_memory_bytes = 0;
  int max_threads_per_block = 0;
  int warp_size = 32;
  /// Peak DRAM bandwidth, bytes/s, from the memory clock and bus width (double data rate); 0
  /// where the driver does not report them.
  double peak_memory_bandwidth = 0.0;
};

/// Properties of device `ordinal`; throws Error(resource) when it does not exist.
DeviceProperties device_properties(int ordinal);
/// Free and total device memory of the current device, bytes.
std::pair<std::size_t, std::size_t> memory_info();
/// Makes `ordinal` current for the calling thread.
void set_device(int ordinal);
/// Makes `device` current and creates its context now (a few hundred ms on a large GPU), so
/// that a later backend constructor does not wait for it (call it on another thread while the
/// input and the outputs are opened), and so that what a constructor creates (streams, events)
/// belongs to that device. Throws Error(resource) for a missing or unusable GPU.
void prepare_device(int device);

}  // namespace fastpsr::cuda
