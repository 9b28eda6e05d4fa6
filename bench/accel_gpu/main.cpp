// SPDX-License-Identifier: MIT
// bench/accel_gpu: the CUDA acceleration searcher on the FDAS setups of benchmarks.md. It
// measures the device's ceilings (copy bandwidth, FP32 FMA rate) first, then runs fdas-2m and
// fdas-8m (64 us, zmax 0/50/200(/300), 1/8/16 harmonics) on both correlation paths, a CPU
// reference point, and a configuration sweep for fdas-8m zmax 200 with 16 harmonics; it ends
// with a compact table. Per DM trial: device time (CUDA events: segments + correlation +
// harmonic sums, median of --reps), wall time of search_batch (uploads overlapped, hits
// delivered), time series per second, achieved GB/s and GFLOP/s of the searcher's traffic and
// FFT models against the measured ceilings, and whether the injected pulsar was found.
//
//   bench/accel_gpu [--device N] [--reps N] [--spectra N] [--setups fdas-2m,fdas-8m] [--no-sweep] [--no-cpu]
//                   [--quick] [--no-main] [--config key=value,key=value ...] [--zmax L] [--harmonics L]
//                   [--realfft]
// --config (repeatable) runs that --gpu-config on fdas-8m zmax 200 16 harmonics instead of the
// sweep's list (the key "interp=interbin" picks interbinning). --zmax and --harmonics (comma
// lists) replace the per-setup rows' zmax and harmonic counts, and run each --config on every
// setup of --setups at those zmax and harmonic counts (200 and 16 where one is not given). --no-main skips the
// per-setup rows (only the sweep or the --config runs: e.g. for a profiler that takes the first launch).
// --realfft adds the table of the time series' real FFT (realfft.hpp); with --setups none and
// --no-sweep it is all that runs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "fastpsr/accel.hpp"
#include "fastpsr/accel_backends.hpp"
#include "fastpsr/accel_search.hpp"
#include "fastpsr/accel_templates.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/version.hpp"
#include "realfft.hpp"
#if defined(FASTPSR_HAVE_CUDA)
#include "fastpsr/cuda/accel_cuda.hpp"
#include "fastpsr/cuda/runtime.hpp"
#endif

#if defined(FASTPSR_HAVE_CUDA)
namespace {

using namespace fastpsr;
using Clock = std::chrono::steady_clock;
using Config = std::map<std::string, std::string>;

struct Setup {
  const char* name;
  std::int64_t samples;
  std::vector<int> zmax;
};
constexpr double kTsamp = 64e-6;
// The injected pulsar: 61.7 Hz, drift 1.7 bins at the fundamental, 16 harmonics.
constexpr double kPulsarHz = 61.7;
constexpr double kPulsarZ = 1.7;
constexpr int kPulsarHarmonics = 16;

std::vector<std::complex<float>> make_spectrum(std::uint64_t seed, std::int64_t numbins, double r0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0F, std::sqrt(0.5F));
  std::vector<std::complex<float>> x(static_cast<std::size_t>(numbins));
  for (auto& v : x) v = {g(rng), g(rng)};
  for (int n = 1; n <= kPulsarHarmonics; ++n) {
    const double r = n * r0;
    const double z = n * kPulsarZ;
    const std::complex<double> amp = std::polar(6.0 / std::sqrt(static_cast<double>(n)), 0.4 * n);
    const auto reach = static_cast<std::int64_t>(std::fabs(z)) + 40;
    for (auto k = static_cast<std::int64_t>(r) - reach; k <= static_cast<std::int64_t>(r) + reach; ++k) {
      if (k >= 0 && k < numbins) {
        x[static_cast<std::size_t>(k)] += std::complex<float>(amp * z_response(static_cast<double>(k) - r, z));
      }
    }
  }
  return x;
}

struct Row {
  std::string setup;
  int zmax = 0;
  int harmonics = 0;
  std::string backend;  // "custom", "cufft", "cpu"
  std::string variant;  // interpolation, plane storage, extra keys
  int fft_len = 0;
  int batch = 0;
  double device_ms = 0;  // per trial (GPU events); the CPU: wall
  double wall_ms = 0;    // per trial
  double correlate_ms = 0;
  double harmonics_ms = 0;
  double rescore_ms = 0;      // plane=f16bound: re-scoring (host clock), in device_ms
  double rescored = 0;        // hits re-scored a trial
  double rescore_chunks = 0;  // their task chunks a trial
  double gbs = 0;
  double gflops = 0;
  double floor_ms = 0;
  bool found = false;
  std::string error;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// True when a hit of spectrum 0 lies within a bin of the pulsar's fundamental, at any stage.
bool found_pulsar(const std::vector<AccelHit>& hits, double r0) {
  return std::any_of(hits.begin(), hits.end(), [&](const AccelHit& h) {
    return std::fabs(static_cast<double>(h.rk) * kAccelDr / (1 << h.stage) - r0) < 1.0;
  });
}

std::string describe_config(const Config& c) {
  std::string s;
  for (const auto& [k, v] : c) {
    if (k == "path") continue;
    s += (s.empty() ? "" : ",") + k + "=" + v;
  }
  return s.empty() ? "default" : s;
}

struct Context {
  int device = 0;
  int reps = 3;
  cuda::Fp32Ceilings ceilings;
  int spectra = 0;  // spectra per search_batch call; 0: max(2, 2 batch)
};

struct SetupData {
  const Setup* setup = nullptr;
  std::int64_t numbins = 0;
  double T_s = 0;
  double r0 = 0;
  std::vector<std::complex<float>> spectra[2];
};

AccelPlan plan_for(const SetupData& d, int zmax, int harmonics, AccelInterp interp) {
  AccelConfig c;
  c.zmax = zmax;
  c.numharm = harmonics;
  c.interp = interp;
  return make_accel_plan(c, d.numbins, d.T_s);
}

Row run_gpu(const Context& ctx, const SetupData& d, int zmax, int harmonics, AccelInterp interp, const Config& config) {
  Row row;
  row.setup = d.setup->name;
  row.zmax = zmax;
  row.harmonics = harmonics;
  row.backend = config.count("path") ? config.at("path") : "custom";
  row.variant = std::string(interp == AccelInterp::fourier ? "fourier" : "interbin") + " " + describe_config(config);
  try {
    const AccelPlan plan = plan_for(d, zmax, harmonics, interp);
    AccelSearchOptions o;
    o.gpu_config = config;
    auto searcher = cuda::make_cuda_fdot_searcher(plan.problem, o, ctx.device);
    const auto settings = searcher->settings();
    row.fft_len = settings.fft_len;
    row.batch = settings.batch;
    const std::size_t n = ctx.spectra > 0 ? static_cast<std::size_t>(ctx.spectra)
                                          : std::max<std::size_t>(2, 2 * static_cast<std::size_t>(settings.batch));
    const auto nb = static_cast<std::size_t>(d.numbins);
    std::vector<std::complex<float>> all(n * nb);
    for (std::size_t b = 0; b < n; ++b) {
      std::copy(d.spectra[b % 2].begin(), d.spectra[b % 2].end(), all.begin() + static_cast<std::ptrdiff_t>(b * nb));
    }
    const std::vector<AccelPowerScale> scales(n);
    std::vector<double> device_ms, wall_ms, corr_ms, harm_ms, rescore_ms;
    for (int rep = -1; rep < ctx.reps; ++rep) {  // rep -1 warms up
      std::vector<CollectingHitSink> sinks(n);
      std::vector<AccelHitSink*> ptrs;
      for (auto& s : sinks) ptrs.push_back(&s);
      searcher->search_batch(all.data(), nb, scales, ptrs);
      const auto t = searcher->last_timings();
      const double per = 1.0 / static_cast<double>(n);
      if (rep < 0) {
        row.found = found_pulsar(sinks[0].hits, d.r0);
        continue;
      }
      // plane=f16bound's re-scoring of the hits (host clock, transfers included) counts too.
      device_ms.push_back((t.segments_ms + t.correlate_ms + t.harmonics_ms + t.rescore_ms) * per);
      rescore_ms.push_back(t.rescore_ms * per);
      row.rescored = static_cast<double>(t.rescored) * per;
      row.rescore_chunks = static_cast<double>(t.rescore_chunks) * per;
      wall_ms.push_back(t.wall_ms * per);
      corr_ms.push_back(t.correlate_ms * per);
      harm_ms.push_back(t.harmonics_ms * per);
    }
    row.device_ms = median(device_ms);
    row.wall_ms = median(wall_ms);
    row.correlate_ms = median(corr_ms);
    row.harmonics_ms = median(harm_ms);
    row.rescore_ms = median(rescore_ms);
    const double bytes = searcher->modelled_bytes_per_spectrum();
    const double flops = searcher->modelled_flops_per_spectrum();
    row.gbs = bytes / (row.device_ms * 1e-3) / 1e9;
    row.gflops = flops / (row.device_ms * 1e-3) / 1e9;
    row.floor_ms = 1e3 * std::max(bytes / ctx.ceilings.copy_bytes_per_s, flops / (2.0 * ctx.ceilings.fma_per_s));
  } catch (const std::exception& e) {
    row.error = e.what();
  }
  return row;
}

Row run_cpu(const SetupData& d, int zmax, int harmonics) {
  Row row;
  row.setup = d.setup->name;
  row.zmax = zmax;
  row.harmonics = harmonics;
  row.backend = "cpu";
  row.variant = "fourier FFTW+OpenMP";
  row.batch = 1;
  try {
    const AccelPlan plan = plan_for(d, zmax, harmonics, AccelInterp::fourier);
    DeviceChoice cpu;
    cpu.backend = Backend::cpu;
    auto searcher = make_fdot_searcher(plan.problem, {}, cpu);
    CollectingHitSink sink;
    const auto t0 = Clock::now();
    searcher->search(d.spectra[0], {}, sink);
    row.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    row.device_ms = row.wall_ms;
    row.found = found_pulsar(sink.hits, d.r0);
  } catch (const std::exception& e) {
    row.error = e.what();
  }
  return row;
}

void print_header() {
  std::printf("%-8s %4s %3s %-7s %-34s %6s %3s %9s %9s %8s %8s %9s %6s %8s %6s %9s %5s\n", "setup", "zmax", "nh",
              "path", "variant", "fftlen", "bat", "dev_ms", "wall_ms", "corr_ms", "harm_ms", "series/s", "GB/s",
              "%copy", "GFLOP/s", "%fma", "found");
}

void print_row(const Context& ctx, const Row& r) {
  if (!r.error.empty()) {
    std::printf("%-8s %4d %3d %-7s %-34s error: %s\n", r.setup.c_str(), r.zmax, r.harmonics, r.backend.c_str(),
                r.variant.c_str(), r.error.c_str());
  } else if (r.backend == "cpu") {
    std::printf("%-8s %4d %3d %-7s %-34s %6s %3d %9s %9.2f %8s %8s %9.1f %6s %8s %6s %9s %5s\n", r.setup.c_str(),
                r.zmax, r.harmonics, r.backend.c_str(), r.variant.c_str(), "-", r.batch, "-", r.wall_ms, "-", "-",
                1e3 / r.wall_ms, "-", "-", "-", "-", r.found ? "yes" : "NO");
  } else {
    std::printf("%-8s %4d %3d %-7s %-34s %6d %3d %9.3f %9.3f %8.3f %8.3f %9.1f %6.0f %7.1f%% %9.0f %5.1f%% %5s\n",
                r.setup.c_str(), r.zmax, r.harmonics, r.backend.c_str(), r.variant.c_str(), r.fft_len, r.batch,
                r.device_ms, r.wall_ms, r.correlate_ms, r.harmonics_ms, 1e3 / r.wall_ms, r.gbs,
                100.0 * r.gbs * 1e9 / ctx.ceilings.copy_bytes_per_s, r.gflops,
                100.0 * r.gflops * 1e9 / (2.0 * ctx.ceilings.fma_per_s), r.found ? "yes" : "NO");
    if (r.rescored > 0) {
      std::printf("#   re-scoring (in dev_ms): %.3f ms, %.0f hits in %.1f chunks a trial\n", r.rescore_ms, r.rescored,
                  r.rescore_chunks);
    }
  }
  std::fflush(stdout);
}

int run(int argc, char** argv) {
  Context ctx;
  bool sweep = true;
  bool cpu = true;
  bool quick = false;
  bool main_rows = true;
  bool realfft = false;
  std::string setups = "fdas-2m,fdas-8m";
  std::vector<std::pair<AccelInterp, Config>> chosen;
  std::vector<int> zmax_list;
  std::vector<int> harmonics_list;
  auto int_list = [](const std::string& option, const std::string& text) {
    std::vector<int> out;
    std::stringstream list(text);
    std::string item;
    while (std::getline(list, item, ',')) {
      std::size_t used = 0;
      const int v = item.empty() ? -1 : std::stoi(item, &used);
      if (used != item.size() || v < 0)
        throw Error(ErrorCode::invalid_argument, option + ": '" + item + "' is not a count");
      out.push_back(v);
    }
    if (out.empty()) throw Error(ErrorCode::invalid_argument, option + " needs a list");
    return out;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(ErrorCode::invalid_argument, a + " needs a value");
      return argv[++i];
    };
    if (a == "--device") {
      ctx.device = std::stoi(value());
    } else if (a == "--reps") {
      ctx.reps = std::max(1, std::stoi(value()));
    } else if (a == "--spectra") {
      ctx.spectra = std::max(1, std::stoi(value()));
    } else if (a == "--setups") {
      setups = value();
    } else if (a == "--no-sweep") {
      sweep = false;
    } else if (a == "--no-cpu") {
      cpu = false;
    } else if (a == "--quick") {
      quick = true;
    } else if (a == "--no-main") {
      main_rows = false;
    } else if (a == "--realfft") {
      realfft = true;
    } else if (a == "--zmax") {
      zmax_list = int_list(a, value());
    } else if (a == "--harmonics") {
      harmonics_list = int_list(a, value());
    } else if (a == "--config") {
      std::stringstream list(value());
      std::string item;
      std::pair<AccelInterp, Config> c{AccelInterp::fourier, {}};
      while (std::getline(list, item, ',')) {
        const auto eq = item.find('=');
        if (eq == std::string::npos)
          throw Error(ErrorCode::invalid_argument, "--config: '" + item + "' is not key=value");
        if (item.substr(0, eq) == "interp") {
          c.first = item.substr(eq + 1) == "interbin" ? AccelInterp::interbin : AccelInterp::fourier;
        } else {
          c.second[item.substr(0, eq)] = item.substr(eq + 1);
        }
      }
      chosen.push_back(std::move(c));
    } else {
      std::fprintf(stderr,
                   "usage: accel_gpu [--device N] [--reps N] [--setups fdas-2m,fdas-8m] [--no-sweep] [--no-cpu] "
                   "[--quick] [--no-main] [--spectra N] [--config key=value,...] [--zmax L] [--harmonics L] "
                   "[--realfft]\n");
      return 2;
    }
  }
  if (cuda::device_count() == 0) {
    std::fprintf(stderr, "accel_gpu: no CUDA device (%s)\n", cuda::no_device_reason().c_str());
    return 2;
  }
  const auto props = cuda::device_properties(ctx.device);
  std::printf("# accel_gpu bench, fastpsr %s, GPU %d: %s (sm_%d%d, %d SMs, %.1f GiB, L2 %.0f MiB)\n", version_string,
              ctx.device, props.name.c_str(), props.sm_major, props.sm_minor, props.multiprocessors,
              static_cast<double>(props.global_memory_bytes) / (1 << 30),
              static_cast<double>(props.l2_bytes) / (1 << 20));
  ctx.ceilings = cuda::measure_fp32_ceilings(ctx.device);
  std::printf("# measured ceilings: copy %.0f GB/s (read + write), FP32 FMA %.1f T/s (%.1f TFLOP/s)\n",
              ctx.ceilings.copy_bytes_per_s / 1e9, ctx.ceilings.fma_per_s / 1e12, 2.0 * ctx.ceilings.fma_per_s / 1e12);
  std::printf(
      "# dev_ms: segments + correlation + harmonic sums per DM trial (CUDA events, median of %d; plane=f16bound adds "
      "its re-scoring, host clock); wall_ms: "
      "search_batch per trial (uploads overlapped, hits delivered); GB/s and GFLOP/s from the searcher's traffic "
      "and FFT models (5 M log2 M per transform); random spectra with an injected %.1f Hz pulsar (z %.1f, %d "
      "harmonics)\n",
      ctx.reps, kPulsarHz, kPulsarZ, kPulsarHarmonics);

  if (realfft) bench::run_realfft_table(ctx.device);
  const std::vector<Setup> all_setups = {{"fdas-2m", std::int64_t{1} << 21, {0, 50, 200}},
                                         {"fdas-8m", std::int64_t{1} << 23, {0, 50, 200, 300}}};
  std::vector<Row> rows;
  std::vector<Row> sweep_rows;
  print_header();
  const bool grid = !zmax_list.empty() || !harmonics_list.empty();
  std::vector<SetupData> grid_data;  // the setups the --config runs use with --zmax/--harmonics
  SetupData eight;
  for (const auto& su : all_setups) {
    if (setups.find(su.name) == std::string::npos) continue;
    SetupData d;
    d.setup = &su;
    d.numbins = su.samples / 2;
    d.T_s = static_cast<double>(su.samples) * kTsamp;
    d.r0 = kPulsarHz * d.T_s;
    d.spectra[0] = make_spectrum(11, d.numbins, d.r0);
    d.spectra[1] = make_spectrum(12, d.numbins, d.r0);
    for (int zmax : zmax_list.empty() ? su.zmax : zmax_list) {
      if (quick && zmax != 200) continue;
      for (int nh : harmonics_list.empty() ? std::vector<int>{1, 8, 16} : harmonics_list) {
        if ((quick && nh != 16) || !main_rows) continue;
        for (const char* path : {"custom", "cufft"}) {
          rows.push_back(run_gpu(ctx, d, zmax, nh, AccelInterp::fourier, {{"path", path}}));
          print_row(ctx, rows.back());
        }
      }
    }
    if (cpu && !quick && std::string(su.name) == "fdas-2m") {
      for (int zmax : {0, 50}) {
        rows.push_back(run_cpu(d, zmax, 8));
        print_row(ctx, rows.back());
      }
    }
    if (grid && !chosen.empty()) {
      grid_data.push_back(std::move(d));
    } else if (std::string(su.name) == "fdas-8m") {
      eight = std::move(d);
    }
  }

  if (grid && !chosen.empty()) {
    std::printf("\n# --config runs on every setup at the --zmax and --harmonics given\n");
    print_header();
    for (const SetupData& d : grid_data) {
      for (int zmax : zmax_list.empty() ? std::vector<int>{200} : zmax_list) {
        for (int nh : harmonics_list.empty() ? std::vector<int>{16} : harmonics_list) {
          for (const auto& [interp, config] : chosen) {
            sweep_rows.push_back(run_gpu(ctx, d, zmax, nh, interp, config));
            print_row(ctx, sweep_rows.back());
          }
        }
      }
    }
  } else if ((sweep || !chosen.empty()) && eight.setup != nullptr) {
    std::printf("\n# sweep: fdas-8m, zmax 200, 16 harmonics\n");
    print_header();
    std::vector<std::pair<AccelInterp, Config>> configs;
    const auto F = AccelInterp::fourier;
    const auto I = AccelInterp::interbin;
    for (const char* len : {"2048", "4096", "8192", "16384"}) {
      for (const char* radix : {"8", "16"})
        configs.push_back({F, {{"path", "custom"}, {"fft_len", len}, {"fft_radix", radix}}});
    }
    for (const char* spb : {"1", "4", "8"}) configs.push_back({F, {{"path", "custom"}, {"segs_per_block", spb}}});
    for (const char* hs : {"pipe", "tiled", "gather"}) {
      if (std::strcmp(hs, "pipe") == 0 && props.sm_major < 9) continue;  // built for sm_90 and newer
      for (const char* hr : {"4", "8", "16"}) {
        for (const char* ht : {"128", "256"})
          configs.push_back({F, {{"path", "custom"}, {"hs", hs}, {"hs_rows", hr}, {"hs_threads", ht}}});
      }
    }
    configs.push_back({F, {{"path", "custom"}, {"plane", "f16"}}});
    configs.push_back({F, {{"path", "cufft"}, {"plane", "f16"}}});
    configs.push_back({I, {{"path", "custom"}}});
    configs.push_back({I, {{"path", "custom"}, {"plane", "f16"}}});
    configs.push_back({I, {{"path", "cufft"}}});
    for (const char* len : {"4096", "16384", "32768"}) configs.push_back({F, {{"path", "cufft"}, {"fft_len", len}}});
    if (quick) configs.resize(std::min<std::size_t>(configs.size(), 6));
    if (!chosen.empty()) configs = chosen;
    for (const auto& [interp, config] : configs) {
      sweep_rows.push_back(run_gpu(ctx, eight, 200, 16, interp, config));
      print_row(ctx, sweep_rows.back());
    }
  }

  // The compact table: every row again, then the best of fdas-8m zmax 200 16 harmonics.
  std::printf("\n# summary (per DM trial)\n");
  std::printf("%-8s %4s %3s %-7s %-34s %9s %9s %9s %6s %9s %5s\n", "setup", "zmax", "nh", "path", "variant", "dev_ms",
              "wall_ms", "series/s", "GB/s", "GFLOP/s", "found");
  const Row* best = nullptr;
  for (const auto* list : {&rows, &sweep_rows}) {
    for (const Row& r : *list) {
      if (!r.error.empty()) {
        std::printf("%-8s %4d %3d %-7s %-34s error\n", r.setup.c_str(), r.zmax, r.harmonics, r.backend.c_str(),
                    r.variant.c_str());
        continue;
      }
      std::printf("%-8s %4d %3d %-7s %-34s %9.3f %9.3f %9.1f %6.0f %9.0f %5s\n", r.setup.c_str(), r.zmax, r.harmonics,
                  r.backend.c_str(), r.variant.c_str(), r.device_ms, r.wall_ms, 1e3 / r.wall_ms, r.gbs, r.gflops,
                  r.found ? "yes" : "NO");
      if (r.backend != "cpu" && r.setup == "fdas-8m" && r.zmax == 200 && r.harmonics == 16 &&
          (best == nullptr || r.device_ms < best->device_ms)) {
        best = &r;
      }
    }
  }
  if (best != nullptr) {
    std::printf(
        "# fdas-8m zmax 200 16 harmonics, best: %.3f ms per trial on the device (%.3f wall), %s %s; target <= 5 ms "
        "(<= 3 ms fused); the model's floor for it is %.3f ms\n",
        best->device_ms, best->wall_ms, best->backend.c_str(), best->variant.c_str(), best->floor_ms);
  }
  return 0;
}

}  // namespace
#endif

int main(int argc, char** argv) {
#if defined(FASTPSR_HAVE_CUDA)
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "accel_gpu: error: %s\n", e.what());
    return 1;
  }
#else
  (void)argc;
  (void)argv;
  std::fprintf(stderr, "accel_gpu: this build has no CUDA backend\n");
  return 2;
#endif
}
