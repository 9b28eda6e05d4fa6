// SPDX-License-Identifier: MIT
#pragma once
/// The --device option: auto | cpu | gpu | gpu:N, and --gpu-config key=value lists.
#include <map>
#include <string>
#include <string_view>

namespace fastpsr {

enum class Backend { cpu, cuda };

struct DeviceSpec {
  enum class Kind { automatic, cpu, gpu } kind = Kind::automatic;
  int index = 0;  ///< GPU ordinal for gpu:N
};

/// Parses "auto", "cpu", "gpu" or "gpu:N"; throws Error(invalid_argument) otherwise.
DeviceSpec parse_device_spec(std::string_view text);

/// The backend chosen for a run.
struct DeviceChoice {
  Backend backend = Backend::cpu;
  int gpu_index = 0;
  std::string description;  ///< e.g. "CPU (16 threads)" or "GPU 0: NVIDIA H100 80GB HBM3"
  /// A GPU's model, the device part of tuning database keys: "NVIDIA H100 80GB HBM3, sm_90, 132 SMs".
  std::string model;
  /// Picked by --device auto (not asked for by name): a GPU that cannot take a job may then hand
  /// it to the CPU (the accel search when its plane does not fit the GPU's memory).
  bool automatic = false;
};

/// Parses "key=value,key=value" (spaces ignored); throws Error(invalid_argument) on a bad item.
std::map<std::string, std::string> parse_key_values(std::string_view text);

}  // namespace fastpsr
