// SPDX-License-Identifier: MIT
#pragma once
/// The dedispersion setups of shared/docs/benchmarks.md, as plans over a synthetic header: for
/// bench/dedisp and `tune dedisp --setup` (one definition, so both time the same problems).
#include <string>
#include <vector>

#include "fastpsr/dedisp.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr {

struct DedispSetup {
  std::string name;
  std::string description;
  SigprocHeader header;
  std::vector<DedispPlan> plans;  ///< one per DM range (the automatic plan has several)
  std::size_t nin = 0;            ///< input samples: the output span plus the longest delay
  /// Input samples each range is timed on: its output span plus its own delay (so that every
  /// range produces `seconds` of output).
  std::vector<std::size_t> plan_nin;
  [[nodiscard]] std::size_t total_dms() const {
    std::size_t n = 0;
    for (const auto& p : plans) n += p.ndms();
    return n;
  }
};

/// The names make_dedisp_setup() knows.
inline constexpr const char* kDedispSetupNames = "apertif, lofar, artemis, meerkat, presto-iso, presto-nsub";
/// `name`: apertif, lofar, artemis, meerkat, presto-iso or presto-nsub. ndms 0 = the setup's headline count;
/// `seconds` of output at the finest time resolution.
DedispSetup make_dedisp_setup(const std::string& name, int ndms, double seconds);

}  // namespace fastpsr
