// SPDX-License-Identifier: MIT
// bench/accel: the acceleration search on the standard FDAS setups (shared/docs/benchmarks.md):
// time per DM trial, time series per second, real-time factor, achieved GB/s and GFLOP/s and
// the fraction of the device's measured ceilings. Default: fdas-2m, zmax 0/50/200, 1/8/16
// harmonics, the CPU, both interpolations. `--setup all --zmax 0,50,200,300` for the full table.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fastpsr/accel_backends.hpp"
#include "fastpsr/accel_search.hpp"
#include "fastpsr/backends.hpp"
#include "fastpsr/device.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/presto_fft.hpp"
#include "fastpsr/version.hpp"

namespace {

using namespace fastpsr;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::vector<int> int_list(const std::string& s) {
  std::vector<int> v;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');) v.push_back(std::stoi(item));
  return v;
}

// Host ceilings, measured: copy bandwidth (bytes read + written) and float multiply-add rate.
struct Ceilings {
  double copy_gbs = 0;
  double gflops = 0;
};
Ceilings measure_cpu_ceilings() {
  Ceilings c;
  const std::size_t n = std::size_t{1} << 27;  // 512 MiB each
  std::vector<float> a(n, 1.0F);
  std::vector<float> b(n, 0.0F);
  double best = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    const auto t0 = Clock::now();
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) b[i] = a[i];
    best = std::min(best, seconds_since(t0));
  }
  c.copy_gbs = 2.0 * static_cast<double>(n) * 4.0 / best / 1e9;
  // Independent multiply-add chains, vectorised by the compiler for this build's ISA.
  constexpr int lanes = 64;
  constexpr long iters = 20000000;
  double best_fma = 1e30;
  float sink = 0.0F;
  for (int rep = 0; rep < 2; ++rep) {
    const auto t0 = Clock::now();
#pragma omp parallel reduction(+ : sink)
    {
      float acc[lanes];
      for (int j = 0; j < lanes; ++j) acc[j] = static_cast<float>(j) * 1e-3F;
      for (long i = 0; i < iters; ++i) {
        for (int j = 0; j < lanes; ++j) acc[j] = acc[j] * 0.9999999F + 1e-7F;
      }
      for (int j = 0; j < lanes; ++j) sink += acc[j];
    }
    best_fma = std::min(best_fma, seconds_since(t0));
  }
  c.gflops = 2.0 * lanes * static_cast<double>(iters) * omp_get_max_threads() / best_fma / 1e9;
  if (sink == 12345.0F) std::printf(" ");
  return c;
}

// A noise series with a bright binary pulsar, as a DM trial would hold.
std::vector<float> make_series(std::size_t n, double dt) {
  std::mt19937_64 rng(42);
  std::normal_distribution<float> g(0.0F, 1.0F);
  std::vector<float> x(n);
  const double T = static_cast<double>(n) * dt;
  for (std::size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) * dt;
    const double ph = 187.3 * t + 0.5 * (30.0 / (T * T)) * t * t;
    const double frac = ph - std::floor(ph);
    x[i] = g(rng) + (frac < 0.05 ? 0.3F : 0.0F);
  }
  return x;
}

struct Setup {
  const char* name;
  int log2n;
};

}  // namespace

int main(int argc, char** argv) {
  std::string setup_arg = "fdas-2m";
  std::string zmax_arg = "0,50,200";
  std::string nh_arg = "1,8,16";
  std::string interp_arg = "fourier,interbin";
  std::string device_arg = "cpu";
  std::string gpu_config;
  int repeat = 1;
  int fft_len = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "accel bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--setup") {
      setup_arg = value();
    } else if (a == "--zmax") {
      zmax_arg = value();
    } else if (a == "--numharm") {
      nh_arg = value();
    } else if (a == "--interp") {
      interp_arg = value();
    } else if (a == "--device") {
      device_arg = value();
    } else if (a == "--gpu-config") {
      gpu_config = value();
    } else if (a == "--repeat") {
      repeat = std::stoi(value());
    } else if (a == "--fft-len") {
      fft_len = std::stoi(value());
    } else {
      std::printf(
          "usage: accel [--setup fdas-2m|fdas-8m|all] [--zmax 0,50,200,300] [--numharm 1,8,16]\n"
          "             [--interp fourier,interbin] [--device cpu|gpu[:N]] [--gpu-config k=v,...]\n"
          "             [--repeat N] [--fft-len N]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  try {
    const DeviceChoice device = resolve_device(parse_device_spec(device_arg));
    std::vector<Setup> setups;
    if (setup_arg == "fdas-2m" || setup_arg == "all") setups.push_back({"fdas-2m", 21});
    if (setup_arg == "fdas-8m" || setup_arg == "all") setups.push_back({"fdas-8m", 23});
    const auto zmaxes = int_list(zmax_arg);
    const auto numharms = int_list(nh_arg);
    std::printf("# accel bench, fastpsr %s, device: %s\n", version_string, device.description.c_str());
    Ceilings ceil{};
    if (device.backend == Backend::cpu) {
      ceil = measure_cpu_ceilings();
      std::printf("# measured ceilings: copy %.1f GB/s (read+write), multiply-add %.1f GFLOP/s (%d threads)\n",
                  ceil.copy_gbs, ceil.gflops, omp_get_max_threads());
    }
    std::printf(
        "# work: plane = templates x half-bin points; bytes = plane written once + harmonic-sum reads;\n"
        "# flops = correlation FFTs (5 L log2 L each) and products. floor = max(bytes/copy, flops/FMA).\n");
    std::printf("%-8s %5s %3s %-8s %10s %10s %10s %9s %9s %8s %8s %7s\n", "setup", "zmax", "nh", "interp", "trial_ms",
                "search_ms", "cands_ms", "series/s", "realtime", "GB/s", "GFLOP/s", "floor%");
    for (const Setup& su : setups) {
      const std::size_t n = std::size_t{1} << su.log2n;
      const double dt = 64e-6;
      const auto series = make_series(n, dt);
      const double T = static_cast<double>(n) * dt;
      for (const std::string& interp : std::vector<std::string>{"fourier", "interbin"}) {
        if (interp_arg.find(interp) == std::string::npos) continue;
        for (int zmax : zmaxes) {
          for (int nh : numharms) {
            AccelConfig cfg;
            cfg.zmax = zmax;
            cfg.numharm = nh;
            cfg.interp = interp == "fourier" ? AccelInterp::fourier : AccelInterp::interbin;
            const AccelPlan plan = make_accel_plan(cfg, static_cast<std::int64_t>(n / 2), T);
            AccelSearchOptions so;
            so.fft_len = fft_len;
            if (!gpu_config.empty()) so.gpu_config = parse_key_values(gpu_config);
            auto searcher = make_fdot_searcher(plan.problem, so, device);
            std::vector<double> total;
            std::vector<double> search;
            std::vector<double> cands;
            for (int r = 0; r < std::max(1, repeat); ++r) {
              const auto t0 = Clock::now();
              auto fft = presto_realfft(series);
              const PreparedSpectrum spec = prepare_spectrum(std::move(fft), plan, true);
              AccelCandidateList list = make_candidate_list(plan, false);
              const auto t1 = Clock::now();
              searcher->search(spec.search.bins, spec.power_scale(), list);
              const double ts = seconds_since(t1);
              const auto t2 = Clock::now();
              const AccelResult res = finish_candidates(plan, list, spec);
              cands.push_back(seconds_since(t2));
              search.push_back(ts);
              total.push_back(seconds_since(t0));
            }
            auto median = [](std::vector<double> v) {
              std::sort(v.begin(), v.end());
              return v[v.size() / 2];
            };
            const double tt = median(total);
            const double tsr = median(search);
            const double tc = median(cands);
            // Work model of the search step.
            const double rk = static_cast<double>(plan.problem.rk_end - plan.problem.rk_begin);
            const double numz = plan.problem.numz();
            const double points = numz * rk;
            const double bytes = 4.0 * points + 4.0 * points * nh;
            const int nb = interp == "fourier" ? 2 : 1;
            const double span = 2.0 * nb * template_halfwidth(plan.problem.zmax);
            const double L = fft_len > 0 ? fft_len : std::max(256.0, std::exp2(std::ceil(std::log2(4.0 * span))));
            const double segs = rk / nb / std::max(1.0, L - span);
            const double flops = segs * (numz * (5.0 * L * std::log2(L) + 6.0 * L) + 5.0 * L * std::log2(L));
            const double floor_s =
                ceil.copy_gbs > 0 ? std::max(bytes / (ceil.copy_gbs * 1e9), flops / (ceil.gflops * 1e9)) : 0.0;
            std::printf("%-8s %5d %3d %-8s %10.1f %10.1f %10.1f %9.2f %9.1f %8.1f %8.1f %7.1f\n", su.name, zmax, nh,
                        interp.c_str(), tt * 1e3, tsr * 1e3, tc * 1e3, 1.0 / tt, T / tt, bytes / tsr / 1e9,
                        flops / tsr / 1e9, floor_s > 0 ? 100.0 * floor_s / tsr : 0.0);
            std::fflush(stdout);
          }
        }
      }
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "accel bench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
