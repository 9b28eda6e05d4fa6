// SPDX-License-Identifier: MIT
#include "describe_mask.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <vector>

#include "fastpsr/error.hpp"
#include "fastpsr/presto_mask.hpp"

namespace fastpsr::app {

namespace {

// "0-3, 17, 62-63" for a sorted list of distinct numbers; "none" for none.
std::string ranges(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  if (v.empty()) return "none";
  std::string s;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!s.empty()) s += ", ";
    s += j == i ? fmt::format("{}", v[i]) : fmt::format("{}-{}", v[i], v[j]);
    i = j + 1;
  }
  return s;
}

// (channel, interval) cells the mask covers: whole intervals, channels throughout, and each
// interval's own list (a list as long as the band is every channel), counted once each.
std::uint64_t masked_cells(const PrestoMask& m) {
  const std::set<int> whole(m.zap_ints.begin(), m.zap_ints.end());
  std::uint64_t n = 0;
  for (int i = 0; i < m.nintervals; ++i) {
    const auto& list = m.chans[static_cast<std::size_t>(i)];
    if (whole.count(i) != 0 || static_cast<int>(list.size()) >= m.nchans) {
      n += static_cast<std::uint64_t>(m.nchans);
      continue;
    }
    std::set<int> cells(m.zap_chans.begin(), m.zap_chans.end());
    cells.insert(list.begin(), list.end());
    n += cells.size();
  }
  return n;
}

}  // namespace

void describe_presto_mask(FileDescription& d, const std::string& path) {
  if (path == "-") {
    throw Error(ErrorCode::unsupported, "an rfifind mask cannot be read from stdin: it is read by name", "<stdin>");
  }
  const PrestoMask m = read_presto_mask(path);
  SigprocHeader& h = d.header;
  // The data the mask was made from, as a filterbank would say it (fch1 the highest channel).
  h.keys = {"data_type", "fch1", "foff", "nchans", "tstart", "tsamp"};
  h.data_type = 1;
  h.nchans = m.nchans;
  h.fch1 = m.lofreq_mhz + (m.nchans - 1) * m.dfreq_mhz;
  h.foff = -m.dfreq_mhz;
  h.tstart = m.mjd;
  h.tsamp = m.samples_per_interval > 0 ? m.interval_s / m.samples_per_interval : 0.0;
  h.nbits = 0;  // not said by a mask
  d.telescope = "?";
  d.machine = "rfifind";
  d.header_bytes = 0;
  d.data_bytes = std::filesystem::file_size(path);
  d.nsamples = static_cast<std::uint64_t>(m.nintervals) * static_cast<std::uint64_t>(m.samples_per_interval);
  const std::uint64_t cells = masked_cells(m);
  const std::uint64_t all = static_cast<std::uint64_t>(m.nintervals) * static_cast<std::uint64_t>(m.nchans);
  const auto stats = rfifind_stats_path(path);
  const bool have_stats = stats && std::filesystem::exists(*stats);
  auto extra = [&](std::string label, std::string value) {
    d.extra_lines.emplace_back(std::move(label), std::move(value));
  };
  extra("Mask intervals",
        fmt::format("{} of {} samples ({:.6g} s)", m.nintervals, m.samples_per_interval, m.interval_s));
  extra("rfifind sigma (time, frequency)", fmt::format("{:g}, {:g}", m.time_sigma, m.freq_sigma));
  extra("Channel 0 (rfifind's numbers)", fmt::format("the lowest, {:.6f} MHz", m.lofreq_mhz));
  extra("Channels masked throughout", fmt::format("{}: {}", m.zap_chans.size(), ranges(m.zap_chans)));
  extra("Intervals masked whole", fmt::format("{}: {}", m.zap_ints.size(), ranges(m.zap_ints)));
  extra("Masked (channel, interval) cells",
        fmt::format("{} of {} ({:.2f}%)", cells, all, all > 0 ? 100.0 * static_cast<double>(cells) / all : 0.0));
  extra("Statistics file", have_stats ? *stats
                                      : fmt::format("{} is missing (dedisp --mask and prepsubband -mask need it)",
                                                    stats.value_or("(none)")));
  auto& j = d.details;
  j["time_sigma"] = m.time_sigma;
  j["freq_sigma"] = m.freq_sigma;
  j["mjd"] = m.mjd;
  j["interval_s"] = m.interval_s;
  j["lofreq_mhz"] = m.lofreq_mhz;
  j["dfreq_mhz"] = m.dfreq_mhz;
  j["nchans"] = m.nchans;
  j["nintervals"] = m.nintervals;
  j["samples_per_interval"] = m.samples_per_interval;
  j["zap_chans"] = m.zap_chans;
  j["zap_ints"] = m.zap_ints;
  std::vector<std::size_t> counts;
  for (const auto& list : m.chans) counts.push_back(list.size());
  j["channels_per_interval"] = counts;
  j["masked_cells"] = cells;
  j["stats_file"] = have_stats ? nlohmann::ordered_json(*stats) : nlohmann::ordered_json(nullptr);
}

}  // namespace fastpsr::app
