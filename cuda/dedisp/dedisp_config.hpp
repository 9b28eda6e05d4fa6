// SPDX-License-Identifier: MIT
#pragma once
/// The run-time configuration of the CUDA dedisperser: the kernel's tunable shape (the papers'
/// work-group and per-thread tile in time and DM, plus the shared-memory staging), the lane
/// mode, and the streaming parameters. Parsed from `--gpu-config key=value,...`; never a
/// recompile to change a value.
#include <cstddef>
#include <map>
#include <set>
#include <string>

#include "dedisp/dedisp_kernels.hpp"

namespace fastpsr::cuda {

struct DedispGpuConfig {
  KernelShape shape;              ///< lanes here is the resolved lane mode
  int lanes_request = 0;          ///< 0 = choose from the data
  int flush_chans = 0;            ///< 0 = the lane capacity (integer) or 16 (float)
  bool mad_hi = false;            ///< lanes 4: odd bytes through IMAD.HI instead of PRMT
  std::size_t gulp = 0;           ///< input samples per push; 0 = options.gulp_samples or automatic
  int pipeline = 2;               ///< gulps in flight (pinned and device slots)
  std::size_t max_device_mb = 0;  ///< 0 = free device memory less a margin
  std::set<std::string> given;    ///< keys set explicitly (others may be adapted to the device)
};

/// The keys `parse_gpu_config` accepts, with their meaning, for messages and --help.
std::string gpu_config_keys_help();

/// Parses key=value pairs over the defaults; throws Error(invalid_argument) for an unknown key,
/// a value that is not an integer, or one outside the key's range.
DedispGpuConfig parse_gpu_config(const std::map<std::string, std::string>& kv);

/// The key=value form of a configuration (every key), as --gpu-config accepts it.
std::string to_gpu_config_string(const DedispGpuConfig& c);

}  // namespace fastpsr::cuda
