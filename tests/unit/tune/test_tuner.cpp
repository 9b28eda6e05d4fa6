// SPDX-License-Identifier: MIT
// The tuner's search on synthetic costs: it finds the best of a separable cost, skips what the
// backend rejects, ignores gains below the measured spread, keeps the defaults when nothing wins,
// and stops at the budget.
#include <doctest/doctest.h>

#include <string>

#include "fastpsr/error.hpp"
#include "fastpsr/tuner.hpp"

using namespace fastpsr;

namespace {

// value of key k in c, or its default
int get(const GpuConfig& c, const std::string& k, int def) {
  const auto it = c.find(k);
  return it == c.end() ? def : std::stoi(it->second);
}

// Cost: 10 ms at a = 1, b = 1 (the defaults), each step of a towards 3 saves 20%, b = 4 saves
// 10%, b = 8 is rejected; c only changes the cost by `c_effect`; every call adds the next
// jitter from a cycle (the run-to-run noise).
struct Synthetic {
  double c_effect = 0.0;
  std::vector<double> jitter{0.0};
  std::size_t calls = 0;
  ConfigTiming operator()(const GpuConfig& cfg) {
    const int a = get(cfg, "a", 1);
    const int b = get(cfg, "b", 1);
    const int c = get(cfg, "c", 0);
    if (b == 8) throw Error(ErrorCode::invalid_argument, "--gpu-config b=8: too many");
    double ms = 10.0;
    for (int i = 1; i < a; ++i) ms *= 0.8;
    if (b == 4) ms *= 0.9;
    if (c == 1) ms *= 1.0 - c_effect;
    ms *= 1.0 + jitter[calls++ % jitter.size()];
    return {ms, format_gpu_config(cfg)};
  }
};

TuneTarget target(Synthetic& s) {
  TuneTarget t;
  t.algorithm = "dedisp";
  t.shape = "synthetic";
  t.axes = {{"a", {"1", "2", "3"}}, {"b", {"1", "4", "8"}}, {"c", {"0", "1"}}};
  t.time = [&s](const GpuConfig& c) { return s(c); };
  return t;
}

}  // namespace

TEST_CASE("tuner: finds the best of a separable cost, skips rejected candidates, stores the winner") {
  Synthetic s;
  s.c_effect = 0.05;
  const auto r = run_tuning(target(s), 60.0, "GPU X");
  CHECK(r.default_ms == doctest::Approx(10.0));
  CHECK(r.best == GpuConfig{{"a", "3"}, {"b", "4"}, {"c", "1"}});
  CHECK(r.wins);
  CHECK(r.entry.config == r.best);
  CHECK(r.entry.device == "GPU X");
  CHECK(r.entry.time_ms == doctest::Approx(10.0 * 0.64 * 0.9 * 0.95));
  CHECK(r.entry.default_ms == doctest::Approx(10.0));
  const auto rejected = std::count_if(r.tried.begin(), r.tried.end(), [](const TuneCandidate& c) {
    return c.ms < 0 && c.error.find("b=8") != std::string::npos;
  });
  CHECK(rejected >= 1);
  CHECK_FALSE(r.out_of_time);
}

TEST_CASE("tuner: a gain within the run-to-run spread does not move the search") {
  Synthetic s;
  s.c_effect = 0.005;             // 0.5%: noise level
  s.jitter = {0.0, 0.01, -0.01};  // the default's three runs spread 2%
  const auto r = run_tuning(target(s), 60.0, "GPU X");
  CHECK(r.default_spread == doctest::Approx(0.02).epsilon(0.01));
  CHECK(r.best.count("c") == 0);
  CHECK(r.best.at("a") == "3");
  CHECK(r.wins);
}

TEST_CASE("tuner: nothing better keeps the defaults, no budget measures only the defaults") {
  Synthetic s;
  TuneTarget t = target(s);
  t.axes = {{"c", {"0", "1"}}};  // c_effect 0: no gain anywhere
  const auto r = run_tuning(t, 60.0, "GPU X");
  CHECK(r.best.empty());
  CHECK_FALSE(r.wins);
  CHECK(r.entry.config.empty());
  CHECK(r.entry.time_ms == doctest::Approx(10.0));

  Synthetic s2;
  const auto none = run_tuning(target(s2), 0.0, "GPU X");
  CHECK(none.out_of_time);
  CHECK(none.tried.empty());
  CHECK(none.entry.config.empty());
  CHECK(s2.calls == 3);
}
