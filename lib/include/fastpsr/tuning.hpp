// SPDX-License-Identifier: MIT
#pragma once
/// The tuning database (design.md: "versioned wisdom"): the best --gpu-config that `tune` measured
/// for one (algorithm, problem shape, device model, build). The tools read it when the user gives
/// no --gpu-config key; entries of another build are ignored, since a kernel change can make an
/// old measurement wrong. One JSON file: $FASTPSR_TUNING, else $XDG_CACHE_HOME/fastpsr/tuning.json,
/// else ~/.cache/fastpsr/tuning.json.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fastpsr {

using GpuConfig = std::map<std::string, std::string>;

struct TuningEntry {
  std::string algorithm;  ///< dedisp, accel or ppf
  std::string shape;      ///< dedisp_shape_key() and friends (fastpsr/tuning_keys.hpp)
  std::string device;     ///< DeviceChoice::model
  std::string build;      ///< tuning_build_id() of the build that measured it
  GpuConfig config;       ///< the keys to use; empty = the defaults were best
  double time_ms = 0.0;   ///< measured time of `config`
  double default_ms = 0.0;
  std::string date;  ///< UTC, ISO 8601
};

/// "<version>+<git describe at configure time>" ("+unknown" outside a git checkout).
std::string tuning_build_id();
/// Where the database lives (see above); the path need not exist.
std::filesystem::path tuning_database_path();
/// "key=value,key=value" in key order ("defaults" for an empty map).
std::string format_gpu_config(const GpuConfig& config);
/// The current UTC time as 2026-11-26T10:42:13Z.
std::string utc_timestamp();

struct TuningLookup {
  std::optional<TuningEntry> entry;  ///< this build's entry for the key, if any
  int other_builds = 0;              ///< entries for the key from other builds (ignored)
};

class TuningDatabase {
 public:
  /// Reads `path`; a missing file is an empty database. Throws Error(format) naming the file
  /// for one that is not a tuning database, Error(io) for one that cannot be read.
  static TuningDatabase load(const std::filesystem::path& path);

  [[nodiscard]] const std::vector<TuningEntry>& entries() const noexcept { return entries_; }
  /// The entry of `build` for (algorithm, shape, device): exact match on all four.
  [[nodiscard]] TuningLookup find(std::string_view algorithm, std::string_view shape, std::string_view device,
                                  std::string_view build) const;
  /// Adds `e`, replacing an entry with the same four key fields.
  void put(TuningEntry e);
  /// The JSON text of the database.
  [[nodiscard]] std::string to_json() const;

  /// Adds `e` to the file at `path` safely for concurrent writers: under an exclusive lock on
  /// `path`.lock the file is read again, `e` merged in, and the result written to a temporary
  /// name and renamed over it (readers never see a partial file). Throws Error(io|format).
  static void store(const std::filesystem::path& path, const TuningEntry& e);

 private:
  std::vector<TuningEntry> entries_;
};

/// The configuration a tool runs with, and where it came from (for -v).
struct TunedConfig {
  GpuConfig config;
  std::string note;  ///< "(tuned <date>, <file>)", "(defaults: no tuning entry for <key>)", ...
  [[nodiscard]] std::string describe() const { return "GPU configuration: " + format_gpu_config(config) + " " + note; }
};

/// The database entry of this build for (algorithm, shape, device) with the user's --gpu-config
/// keys over it, key by key. `use_database` false (--no-tuning) leaves the user's keys alone. A
/// database that cannot be read gives the user's keys and a warning naming the file (once per
/// process): a bad cache never stops a tool.
TunedConfig tuned_gpu_config(std::string_view algorithm, const std::string& shape, const std::string& device,
                             const GpuConfig& user, bool use_database);

}  // namespace fastpsr
