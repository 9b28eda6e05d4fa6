// SPDX-License-Identifier: MIT
#pragma once
/// Shared helpers for the tests: where the shared data are, temporary folders, seeded random
/// data, and running the built tools.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "fastpsr/device.hpp"

namespace fastpsr::test {

/// ../shared/data beside the checkout, when present (else nullopt, and a one-time message).
std::optional<std::filesystem::path> shared_data_dir();
/// True when shared data exist; use as TEST_CASE("..." * doctest::skip(!have_shared_data())).
bool have_shared_data();
/// The repository root and the folder of built tools.
std::filesystem::path source_dir();
std::filesystem::path bin_dir();

/// A fresh temporary folder, removed with its content on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  [[nodiscard]] std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// A seed that differs between runs (fresh random data each run, as the standards ask) but is
/// printed by doctest on failure through INFO so a failure can be reproduced; FASTPSR_TEST_SEED
/// in the environment fixes it.
std::uint64_t fresh_seed();

/// Result of running a command through the shell.
struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
/// Runs `command` with /bin/sh, capturing stdout and stderr.
CommandResult run_command(const std::string& command);

/// What f throws as fastpsr::Error: "message [path]"; "(no error)" when it returns.
std::string error_of(const std::function<void()>& f);

std::vector<std::uint8_t> read_file(const std::filesystem::path& p);
void write_file(const std::filesystem::path& p, const std::vector<std::uint8_t>& bytes);

/// The CUDA backend on GPU 0 (the GPU tests' device).
inline DeviceChoice first_gpu() {
  DeviceChoice d;
  d.backend = Backend::cuda;
  d.gpu_index = 0;
  return d;
}

}  // namespace fastpsr::test
