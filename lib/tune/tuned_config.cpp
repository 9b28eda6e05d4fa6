// SPDX-License-Identifier: MIT
#include <atomic>

#include "fastpsr/error.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/tuning.hpp"

namespace fastpsr {

TunedConfig tuned_gpu_config(std::string_view algorithm, const std::string& shape, const std::string& device,
                             const GpuConfig& user, bool use_database) {
  TunedConfig r{user, {}};
  if (!use_database) {
    r.note = "(tuning database not read)";
    return r;
  }
  const auto path = tuning_database_path();
  TuningLookup found;
  try {
    found = TuningDatabase::load(path).find(algorithm, shape, device, tuning_build_id());
  } catch (const Error& e) {
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true)) {
      log_warning("{}: {}; the GPU kernels run with their default configuration (tune again, or remove the file)",
                  e.path().empty() ? path.string() : e.path(), e.what());
    }
    r.note = fmt::format("(defaults: the tuning database {} cannot be read)", path.string());
    return r;
  }
  const std::string key = fmt::format("{} {} on {}", algorithm, shape, device);
  if (!found.entry) {
    r.note = found.other_builds > 0 ? fmt::format(
                                          "(defaults: no tuning entry for {} of this build {}; {} of other "
                                          "builds ignored, run tune again)",
                                          key, tuning_build_id(), found.other_builds)
                                    : fmt::format("(defaults: no tuning entry for {})", key);
    return r;
  }
  r.config = found.entry->config;
  std::string given;
  for (const auto& [k, v] : user) {
    r.config[k] = v;  // the user's keys win, key by key
    given += (given.empty() ? "" : ",") + k;
  }
  r.note = fmt::format("(tuned {}, {}{})", found.entry->date, path.string(),
                       given.empty() ? std::string() : "; given: " + given);
  return r;
}

}  // namespace fastpsr
