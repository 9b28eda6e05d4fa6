// SPDX-License-Identifier: MIT
// bench/dedisp_gpu: the CUDA dedisperser on the standard setups of docs/benchmarks.md.
// Measures the device's ceilings first (device-to-device copy; 32-bit integer adds, whose double
// is the packed-add ceiling: two 16-bit lanes per word), then for each setup the kernels alone
// (CUDA events, median) and the whole Dedisperser from host memory to DM-time in host memory
// (upload + kernels + download, wall clock), then sweeps the --gpu-config space on apertif.
// The compact table comes last. Random 8-bit input, never zeros.
//
//   bench/dedisp_gpu                      # every setup and the quick sweep (a minute or two)
//   bench/dedisp_gpu --setups apertif --sweep full   # ~2000 shapes, several minutes
//   bench/dedisp_gpu --setups apertif --sweep quick
//   bench/dedisp_gpu --setups apertif --gpu-config subband=8 --sweep subband
//   bench/dedisp_gpu --gpu-config threads_time=128,items_dm=8 --sweep none
//   bench/dedisp_gpu --setups apertif --sweep regs    # the 4 x 8 tile under each register cap
//   bench/dedisp_gpu --setups apertif --sweep reuse   # reuse=0|1|2 under each cap and stage size
//   bench/dedisp_gpu --setups meerkat --sweep span --sweep-setup meerkat   # shapes for large delay spans
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "fastpsr/dedisp.hpp"
#include "fastpsr/device.hpp"
#include "fastpsr/error.hpp"
#if FASTPSR_HAVE_CUDA
#include "fastpsr/cuda/dedisp_bench.hpp"
#include "fastpsr/cuda/dedisp_cuda.hpp"
#include "fastpsr/cuda/device_ceilings.hpp"
#include "fastpsr/cuda/runtime.hpp"
#endif

namespace {

using namespace fastpsr;

struct Setup {
  std::string name;
  int nchans;
  double f_lo_mhz;
  double f_hi_mhz;
  double tsamp_s;
  int ndms;
  double dm_step;
};

const std::vector<Setup> kSetups = {
    {"apertif-512", 1024, 1420.0, 1720.0, 50e-6, 512, 0.25},   {"apertif", 1024, 1420.0, 1720.0, 50e-6, 2048, 0.25},
    {"apertif-4096", 1024, 1420.0, 1720.0, 50e-6, 4096, 0.25}, {"lofar", 32, 139.0, 145.0, 5e-6, 2048, 0.25},
    {"artemis", 496, 145.0 - 6.05, 145.0, 81.92e-6, 800, 0.1}, {"meerkat", 4096, 856.0, 1712.0, 76.56e-6, 2001, 1.0},
};

[[maybe_unused]] DedispPlan make_plan(const Setup& s) {
  DedispProblem p;
  const double foff = -(s.f_hi_mhz - s.f_lo_mhz) / s.nchans;
  p.input.nchans = s.nchans;
  p.input.foff_mhz = foff;
  p.input.fch1_mhz = s.f_hi_mhz + foff / 2;
  p.input.tsamp_s = s.tsamp_s;
  p.input.nbits = 8;
  for (int c = 0; c < s.nchans; ++c) p.input.chan_freq_mhz.push_back(p.input.fch1_mhz + c * foff);
  for (int i = 0; i < s.ndms; ++i) p.dms.push_back(i * s.dm_step);
  return make_dedisp_plan(p);
}

using GpuConfig = std::map<std::string, std::string>;

/// One sweep point of the staged kernel (subband=0). A key left at -1 is not given, so the
/// engine's rule (or --gpu-config) decides it.
struct StagedPoint {
  int threads_time = 32;
  int threads_dm = 4;
  int items_time = 4;
  int items_dm = 8;
  int chans_per_stage = 16;
  int max_regs = -1;
  int stages = -1;
  int bulk_copy = -1;
  int reuse = -1;
  int mad_hi = -1;
};

[[maybe_unused]] GpuConfig staged(const StagedPoint& p) {
  GpuConfig c{{"subband", "0"},
              {"threads_time", std::to_string(p.threads_time)},
              {"threads_dm", std::to_string(p.threads_dm)},
              {"items_time", std::to_string(p.items_time)},
              {"items_dm", std::to_string(p.items_dm)},
              {"chans_per_stage", std::to_string(p.chans_per_stage)}};
  const auto optional = [&c](const char* key, int v) {
    if (v >= 0) c[key] = std::to_string(v);
  };
  optional("max_regs", p.max_regs);
  optional("stages", p.stages);
  optional("bulk_copy", p.bulk_copy);
  optional("reuse", p.reuse);
  optional("mad_hi", p.mad_hi);
  return c;
}

struct Row {
  std::string setup;
  double adds_per_s = 0;
  double fraction = 0;
  double gbps = 0;
  double kernel_ms_16s = 0;
  double prep_ms_16s = 0;
  double rtf_kernels = 0;
  double e2e_s = 0;
  double rtf_e2e = 0;
  std::string note;
};

}  // namespace

int main(int argc, char** argv) {
#if !FASTPSR_HAVE_CUDA
  (void)argc;
  (void)argv;
  std::fprintf(stderr, "dedisp_gpu: this build has no CUDA backend\n");
  return 0;
#else
  CLI::App app{"CUDA dedisperser benchmark (docs/benchmarks.md setups)"};
  std::string setups_text = "apertif-512,apertif,apertif-4096,lofar,artemis,meerkat";
  std::string sweep = "quick";
  std::string sweep_setup = "apertif";
  std::string gpu_config_text;
  double seconds = 16.0;
  double sweep_seconds = 2.0;
  int repeats = 5;
  int sweep_top = 10;
  int device = 0;
  bool no_e2e = false;
  app.add_option("--setups", setups_text,
                 "comma-separated setups: apertif-512, apertif, apertif-4096, lofar, "
                 "artemis, meerkat");
  app.add_option("--seconds", seconds, "seconds of data per setup (kernel timing may use fewer, scaled)");
  app.add_option("--sweep", sweep,
                 "gpu-config sweep (on --sweep-setup, with --gpu-config's keys): none, quick, full, subband, regs, "
                 "reuse, span, span-lite")
      ->check(CLI::IsMember({"none", "quick", "full", "subband", "regs", "reuse", "span", "span-lite"}));
  app.add_option("--sweep-setup", sweep_setup, "the setup the sweep runs on")
      ->check(CLI::IsMember({"apertif-512", "apertif", "apertif-4096", "lofar", "artemis", "meerkat"}));
  app.add_option("--sweep-seconds", sweep_seconds, "seconds of data per sweep point");
  app.add_option("--sweep-top", sweep_top, "sweep points printed, the fastest first");
  app.add_option("--repeats", repeats, "kernel timings per measurement (the median is reported)");
  app.add_option("--device", device, "GPU ordinal");
  app.add_option("--gpu-config", gpu_config_text, "key=value,... for the setup runs");
  app.add_flag("--no-e2e", no_e2e, "skip the end-to-end runs through the Dedisperser interface");
  CLI11_PARSE(app, argc, argv);

  try {
    if (cuda::device_count() == 0) {
      std::fprintf(stderr, "dedisp_gpu: no CUDA device (%s): nothing to measure\n", cuda::no_device_reason().c_str());
      return 0;  // `make bench` runs every benchmark, also on machines without a GPU
    }
    const auto props = cuda::device_properties(device);
    std::printf("device %d: %s, sm_%d%d, %d SMs, %.1f GiB\n", device, props.name.c_str(), props.sm_major,
                props.sm_minor, props.multiprocessors,
                static_cast<double>(props.global_memory_bytes) / (1024.0 * 1024.0 * 1024.0));
    const auto ceil = cuda::measure_device_ceilings(device);
    std::printf(
        "ceilings: copy %.0f GB/s (read + write); int adds %.2f T/s (2-operand chains %.2f T, 3-operand %.2f T);"
        " packed-add ceiling %.2f T sample-adds/s\n\n",
        ceil.copy_bytes_per_s * 1e-9, ceil.int_adds_per_s * 1e-12, ceil.int_add2_per_s * 1e-12,
        ceil.int_add3_per_s * 1e-12, ceil.sample_adds_per_s * 1e-12);
    std::fflush(stdout);

    DedispOptions base;
    if (!gpu_config_text.empty()) base.gpu_config = parse_key_values(gpu_config_text);
    std::vector<Row> rows;
    std::mt19937_64 rng(20261122);
    for (const auto& setup : kSetups) {
      if (("," + setups_text + ",").find("," + setup.name + ",") == std::string::npos) continue;
      const DedispPlan plan = make_plan(setup);
      Row row;
      row.setup = setup.name;
      const std::size_t samples = static_cast<std::size_t>(seconds / setup.tsamp_s);
      // Kernel timing on at most ~6 GiB of output; rates are per sample, times scaled to `seconds`.
      const std::size_t cap = (std::size_t{6} << 30) / (4 * plan.ndms());
      const std::size_t n_out = std::min(samples, cap);
      try {
        const auto t = cuda::time_dedisp_kernels(plan, base, device, n_out, repeats, rng());
        const double work = static_cast<double>(plan.ndms()) * plan.nchans() * static_cast<double>(t.n_out);
        const double ks = t.kernel_ms * 1e-3;
        row.adds_per_s = work / ks;
        row.fraction = row.adds_per_s / ceil.sample_adds_per_s;
        const double bytes = static_cast<double>(plan.nchans()) * static_cast<double>(t.n_out + plan.max_delay) +
                             4.0 * static_cast<double>(plan.ndms()) * static_cast<double>(t.n_out);
        row.gbps = bytes / ks * 1e-9;
        const double scale = static_cast<double>(samples) / static_cast<double>(t.n_out);
        row.kernel_ms_16s = t.kernel_ms * scale;
        row.prep_ms_16s = t.prep_ms * scale;
        row.rtf_kernels = static_cast<double>(t.n_out) * setup.tsamp_s / ((t.kernel_ms + t.prep_ms) * 1e-3);
        std::printf(
            "%s: %zu DMs x %d channels, max delay %d samples, %zu samples timed (%.2f s of data)\n%s\n"
            "  kernel %.3f ms (min %.3f), prep %.3f ms: %.3e DM-channel-samples/s = %.1f%% of the packed-add "
            "ceiling, %.0f GB/s\n",
            setup.name.c_str(), plan.ndms(), plan.nchans(), plan.max_delay, t.n_out,
            static_cast<double>(t.n_out) * setup.tsamp_s, t.description.c_str(), t.kernel_ms, t.kernel_min_ms,
            t.prep_ms, row.adds_per_s, 100.0 * row.fraction, row.gbps);
      } catch (const Error& e) {
        row.note = std::string("kernel: ") + e.what();
        std::printf("%s: kernel timing failed: %s\n", setup.name.c_str(), e.what());
      }
      if (!no_e2e) {
        try {
          auto d = cuda::make_dedisperser(plan, base, device);
          const std::size_t gulp = d->gulp_samples();
          std::vector<std::uint8_t> input(gulp * plan.problem.input.bytes_per_sample());
          for (auto& b : input) b = static_cast<std::uint8_t>(rng());
          std::size_t out_samples = 0;
          const auto t0 = std::chrono::steady_clock::now();
          for (std::size_t pos = 0; pos < samples; pos += gulp) {
            out_samples += d->push(input.data(), std::min(gulp, samples - pos)).nsamples;
          }
          for (;;) {
            const auto b = d->flush();
            if (b.empty()) break;
            out_samples += b.nsamples;
          }
          row.e2e_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          row.rtf_e2e = static_cast<double>(samples) * setup.tsamp_s / row.e2e_s;
          std::printf(
              "  end to end (host memory -> DM-time in pinned host memory): %.1f ms for %.2f s of data, "
              "real-time factor %.0f, %zu output samples per DM, gulp %zu\n",
              row.e2e_s * 1e3, static_cast<double>(samples) * setup.tsamp_s, row.rtf_e2e, out_samples, gulp);
        } catch (const Error& e) {
          row.note += std::string(" e2e: ") + e.what();
          std::printf("  end to end failed: %s\n", e.what());
        }
      }
      std::printf("\n");
      std::fflush(stdout);
      rows.push_back(row);
    }

    // Sweep of the kernel shape on one setup (apertif, 2048 DMs, unless --sweep-setup).
    struct Point {
      std::string config;
      double ms;
      double fraction;
    };
    std::vector<Point> points;
    int failed = 0;
    if (sweep != "none") {
      const Setup& on =
          *std::find_if(kSetups.begin(), kSetups.end(), [&](const Setup& x) { return x.name == sweep_setup; });
      const DedispPlan plan = make_plan(on);
      const auto n_out = static_cast<std::size_t>(sweep_seconds / on.tsamp_s);
      const bool full = sweep == "full";
      const std::vector<int> tt = full ? std::vector<int>{32, 64, 128} : std::vector<int>{32, 64};
      const std::vector<int> td = full ? std::vector<int>{2, 4, 8, 16} : std::vector<int>{2, 4, 8};
      const std::vector<int> it = full ? std::vector<int>{1, 2, 4} : std::vector<int>{4};
      const std::vector<int> id = full ? std::vector<int>{2, 4, 8} : std::vector<int>{4, 8};
      const std::vector<int> cs = {16, 32, 64};
      const std::vector<int> st = {2, 3};
      const std::vector<int> mad = full ? std::vector<int>{0, 1} : std::vector<int>{0};
      const std::vector<int> bulk = full ? std::vector<int>{1} : std::vector<int>{0, 1};
      std::vector<GpuConfig> configs;
      if (sweep == "subband") {
        // The subband kernel: units of G channels, its compiled tiles, 1, 2 or 4 units per stage.
        for (int G : {4, 8, 16}) {
          for (int a : {32, 64}) {
            for (int b : {4, 8}) {
              if (a * b > 256) continue;
              for (auto [c, e] : {std::pair{2, 4}, {4, 4}, {2, 8}, {4, 8}}) {
                for (int units : {1, 2, 4}) {
                  GpuConfig point = staged({.threads_time = a,
                                            .threads_dm = b,
                                            .items_time = c,
                                            .items_dm = e,
                                            .chans_per_stage = units * G});
                  point["subband"] = std::to_string(G);
                  configs.push_back(point);
                }
              }
            }
          }
        }
      }
      if (sweep == "regs") {
        // The 4 x 8 tile under each compiled register cap, with the block and staging shapes
        // that change how many blocks share an SM.
        for (int cap : {128, 168, 255}) {
          for (int a : {32, 64}) {
            for (int b : {2, 4}) {
              for (int f : {8, 16, 32}) {
                for (int g : {2, 3}) {
                  configs.push_back(
                      staged({.threads_time = a, .threads_dm = b, .chans_per_stage = f, .max_regs = cap, .stages = g}));
                }
              }
            }
          }
        }
      }
      if (sweep == "reuse") {
        // Reuse of a loaded word by the next DM with the same delays (reuse=1, 2) against none,
        // for the 4 x 8 tile under each cap and 16 or 32 channels a stage, twice (run-to-run spread).
        for (int rep = 0; rep < 2; ++rep) {
          for (int cap : {128, 168, 255}) {
            for (int f : {16, 32}) {
              for (int r : {0, 1, 2}) configs.push_back(staged({.chans_per_stage = f, .max_regs = cap, .reuse = r}));
            }
          }
        }
      }
      if (sweep == "span-lite") {
        // The large-span rule's shapes and their neighbours, and the previous rule's shape.
        for (auto [a, b] : {std::pair{64, 2}, {32, 4}, {64, 4}}) {
          for (int cap : {128, 168}) {
            for (int f : {4, 8}) {
              configs.push_back(
                  staged({.threads_time = a, .threads_dm = b, .chans_per_stage = f, .max_regs = cap, .bulk_copy = 1}));
            }
          }
        }
        for (int f : {8, 16}) {
          configs.push_back(
              staged({.threads_time = 32, .threads_dm = 8, .items_dm = 4, .chans_per_stage = f, .bulk_copy = 0}));
        }
      }
      if (sweep == "span") {
        // For setups whose delay span in a block of DMs is large (meerkat, artemis), where the
        // staging of a stage takes most of the shared memory: fewer channels a stage, fewer DMs a
        // block, the register caps and both staging modes, so that more blocks share an SM.
        for (auto [b, e] : {std::pair{4, 8}, {2, 8}, {1, 8}, {8, 4}, {4, 4}, {2, 4}}) {
          for (int cap : e == 8 ? std::vector<int>{128, 168, 255} : std::vector<int>{128}) {
            for (int a : {32, 64}) {
              if (a * b > 256) continue;
              for (int f : {4, 8, 16, 32}) {
                for (int g : {2, 3}) {
                  for (int k : {0, 1}) {
                    configs.push_back(staged({.threads_time = a,
                                              .threads_dm = b,
                                              .items_dm = e,
                                              .chans_per_stage = f,
                                              .max_regs = cap,
                                              .stages = g,
                                              .bulk_copy = k}));
                  }
                }
              }
            }
          }
        }
      }
      const bool own_list =
          sweep == "subband" || sweep == "regs" || sweep == "reuse" || sweep == "span" || sweep == "span-lite";
      for (int a : own_list ? std::vector<int>{} : tt) {
        for (int b : td) {
          if (a * b > props.max_threads_per_block) continue;
          for (int c : it) {
            for (int e : id) {
              for (int f : cs) {
                for (int g : st) {
                  for (int h : mad) {
                    for (int k : bulk) {
                      configs.push_back(staged({.threads_time = a,
                                                .threads_dm = b,
                                                .items_time = c,
                                                .items_dm = e,
                                                .chans_per_stage = f,
                                                .stages = g,
                                                .bulk_copy = k,
                                                .mad_hi = h}));
                    }
                  }
                }
              }
            }
          }
        }
      }
      std::printf("sweeping %zu configurations on %s (%zu DMs)...\n", configs.size(), on.name.c_str(), plan.ndms());
      std::fflush(stdout);
      for (const auto& cfg : configs) {
        DedispOptions o = base;  // --gpu-config keys apply to every point (e.g. lanes=2), the point's own on top
        for (const auto& [k, v] : cfg) o.gpu_config[k] = v;
        try {
          const auto t = cuda::time_dedisp_kernels(plan, o, device, n_out, 3, rng());
          const double work = static_cast<double>(plan.ndms()) * plan.nchans() * static_cast<double>(t.n_out);
          points.push_back({t.config, t.kernel_ms, work / (t.kernel_ms * 1e-3) / ceil.sample_adds_per_s});
          // Each point as it is measured, so that a sweep cut short still says what it found.
          std::printf("  . %6.3f ms  %5.1f%%  %s\n", t.kernel_ms, 100.0 * points.back().fraction, t.config.c_str());
          std::fflush(stdout);
        } catch (const Error&) {
          ++failed;  // too many registers or too much shared memory for this device
        }
      }
      std::sort(points.begin(), points.end(), [](const Point& x, const Point& y) { return x.fraction > y.fraction; });
      std::printf(
          "sweep on %s (%zu DMs), %.1f s of data: %zu configurations ran, %d rejected by the device "
          "limits; the best:\n",
          on.name.c_str(), plan.ndms(), sweep_seconds, points.size(), failed);
      for (std::size_t i = 0;
           i < std::min<std::size_t>(points.size(), static_cast<std::size_t>(std::max(sweep_top, 0))); ++i) {
        std::printf("  %6.3f ms  %5.1f%%  %s\n", points[i].ms, 100.0 * points[i].fraction, points[i].config.c_str());
      }
      if (!points.empty()) {
        std::printf("  worst: %6.3f ms  %5.1f%%  %s\n", points.back().ms, 100.0 * points.back().fraction,
                    points.back().config.c_str());
      }
      std::printf("\n");
    }

    std::printf("summary (%s; packed-add ceiling %.2f T sample-adds/s, copy %.0f GB/s; times for %.0f s of data)\n",
                props.name.c_str(), ceil.sample_adds_per_s * 1e-12, ceil.copy_bytes_per_s * 1e-9, seconds);
    std::printf("%-13s %12s %7s %7s %10s %9s %9s %10s %9s\n", "setup", "DM*ch*samp/s", "ceil%", "GB/s", "kernel ms",
                "prep ms", "RTF kern", "e2e ms", "RTF e2e");
    for (const auto& r : rows) {
      std::printf("%-13s %12.3e %6.1f%% %7.0f %10.2f %9.2f %9.0f %10.1f %9.0f %s\n", r.setup.c_str(), r.adds_per_s,
                  100.0 * r.fraction, r.gbps, r.kernel_ms_16s, r.prep_ms_16s, r.rtf_kernels, r.e2e_s * 1e3, r.rtf_e2e,
                  r.note.c_str());
    }
    if (!points.empty()) {
      std::printf("best sweep point: %.1f%% of the ceiling with --gpu-config %s\n", 100.0 * points.front().fraction,
                  points.front().config.c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dedisp_gpu: error: %s\n", e.what());
    return 1;
  }
#endif
}
