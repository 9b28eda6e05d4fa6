// SPDX-License-Identifier: MIT
#pragma once
// Runs the library's acceleration search on one spectrum the way accelsearch does, and parses
// PRESTO's ACCEL files, for the end-to-end tests.
#include <complex>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "fastpsr/accel_output.hpp"
#include "fastpsr/accel_search.hpp"
#include "fastpsr/cpu/accel_cpu.hpp"
#include "fastpsr/presto_fft.hpp"
#include "support/test_support.hpp"

namespace fastpsr::test {

struct PipelineRun {
  AccelPlan plan;
  AccelResult result;
  std::string text;
  std::vector<std::uint8_t> cand;
};

inline PipelineRun run_accel(std::vector<std::complex<float>> fft, double T, const AccelConfig& config,
                             bool from_time_series, bool keep_txtcand, const std::string& inf_text = {}) {
  PipelineRun run;
  run.plan = make_accel_plan(config, static_cast<std::int64_t>(fft.size()), T);
  const PreparedSpectrum spec = prepare_spectrum(std::move(fft), run.plan, from_time_series);
  auto searcher = cpu::make_fdot_searcher(run.plan.problem, {});
  AccelCandidateList list = make_candidate_list(run.plan, keep_txtcand);
  searcher->search(spec.search.bins, spec.power_scale(), list);
  run.result = finish_candidates(run.plan, list, spec);
  AccelTextInfo info;
  info.T_s = T;
  info.inf_text = inf_text;
  run.text = format_accel_text(run.result.candidates, info);
  run.cand = format_cand_records(run.result.candidates);
  return run;
}

inline std::vector<float> read_dat(const std::filesystem::path& p) {
  const auto bytes = read_file(p);
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  return v;
}

inline std::string read_text(const std::filesystem::path& p) {
  const auto b = read_file(p);
  return {b.begin(), b.end()};
}

/// The fundamental rows of an ACCEL text: sigma, summed power, numharm, r, z.
struct AccelRow {
  double sigma = 0, power = 0, r = 0, z = 0;
  int numharm = 0;
};
inline std::vector<AccelRow> accel_rows(const std::string& text) {
  std::vector<AccelRow> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || !std::isdigit(static_cast<unsigned char>(line[0]))) continue;
    std::istringstream ss(line);
    std::vector<std::string> t;
    for (std::string w; ss >> w;) t.push_back(w);
    AccelRow r;
    r.sigma = std::stod(t[1]);
    r.power = std::stod(t[2]);
    r.numharm = std::stoi(t[4]);
    r.r = std::stod(t[7].substr(0, t[7].find('(')));
    r.z = std::stod(t[9].substr(0, t[9].find('(')));
    rows.push_back(r);
  }
  return rows;
}

}  // namespace fastpsr::test
