// SPDX-License-Identifier: MIT
// bench/ppf: the ppf-1k and ppf-fb setups of benchmarks.md (and the target, C = 4096,
// T = 16, ci8 → complex float32) on both backends: complex samples per second, GB/s, the
// fraction of the memory roofline (input read once + output written once, against the copy
// bandwidth measured first), the FIR and FFT shares, and a sweep over the GPU configuration.
// Device-resident: the host link is not timed (GPU: CUDA events; CPU: wall clock, input
// already in memory). Usage: ppf [--cpu-only | --gpu-only] [--no-sweep] [--scale F] [--config KEY=V,...]
// (--config: that --gpu-config alone on every GPU setup, for profiling; may be repeated;
// --cpu-config: the CPU setups with that --cpu-config, e.g. isa=avx2; may be repeated).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fastpsr/backends.hpp"
#include "fastpsr/cpu/cpu_features.hpp"
#include "fastpsr/cpu/ppf_cpu.hpp"
#include "fastpsr/device.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/ppf.hpp"
#if FASTPSR_HAVE_CUDA
#include "fastpsr/cuda/ppf_cuda.hpp"
#include "fastpsr/cuda/runtime.hpp"
#endif

namespace {

using namespace fastpsr;

struct Setup {
  std::string name;
  int nchans;
  int ntaps;
  int npol;
  VoltageType type;
  PpfOutput output;
  int nint;
};

struct Result {
  std::string setup;
  std::string backend;
  Setup s;
  double samples_per_s = 0.0;
  double gb_per_s = 0.0;
  double roofline = 0.0;
  double fir_share = 0.0;
  double fft_share = 0.0;
  std::string config;
};

ChanneliserPlan plan_of(const Setup& s) {
  ChanneliserProblem p;
  p.nchans = s.nchans;
  p.ntaps = s.ntaps;
  p.npol = s.npol;
  p.input = s.type;
  p.output = s.output;
  p.nint = s.nint;
  p.detection = Detection::I;
  return make_channeliser_plan(p);
}

// Bytes of the roofline: the input read once and the output written once.
double roofline_bytes(const ChanneliserPlan& plan, std::size_t rows) {
  const double spectra = static_cast<double>(rows) * plan.spectra_per_row();
  const double in = (spectra + plan.ntaps() - 1) * plan.nchans() * static_cast<double>(plan.sample_bytes());
  const double out = static_cast<double>(rows) * static_cast<double>(plan.row_floats()) * 4.0;
  return in + out;
}

std::string describe(const Setup& s) {
  return fmt::format("C={} T={} {}{} -> {}", s.nchans, s.ntaps, to_string(s.type), s.npol == 2 ? "x2" : "",
                     s.output == PpfOutput::complex ? std::string("cf32") : fmt::format("I x{}", s.nint));
}

Result make_result(const std::string& backend, const Setup& s, const ChanneliserPlan& plan, std::size_t rows,
                   double total_ms, double fir_ms, double fft_ms, double copy_bw, const std::string& config) {
  Result r;
  r.setup = s.name;
  r.backend = backend;
  r.s = s;
  const double secs = total_ms * 1e-3;
  const double samples = static_cast<double>(rows) * plan.spectra_per_row() * plan.nchans() * plan.npol();
  r.samples_per_s = samples / secs;
  r.gb_per_s = roofline_bytes(plan, rows) / secs / 1e9;
  r.roofline = roofline_bytes(plan, rows) / secs / copy_bw;
  r.fir_share = fir_ms / total_ms;
  r.fft_share = fft_ms / total_ms;
  r.config = config;
  std::printf("  %-7s %-4s %-30s %9.2f Gsamp/s %8.1f GB/s %6.1f%% roofline  FIR %5.1f%%  FFT %5.1f%%  %s\n",
              r.setup.c_str(), backend.c_str(), describe(s).c_str(), r.samples_per_s / 1e9, r.gb_per_s,
              100.0 * r.roofline, 100.0 * r.fir_share, 100.0 * r.fft_share, config.c_str());
  std::fflush(stdout);
  return r;
}

std::vector<Setup> setups() {
  std::vector<Setup> v;
  for (VoltageType t : {VoltageType::ci8, VoltageType::ci16, VoltageType::cf32}) {
    for (int taps : {4, 8, 16, 32, 64}) v.push_back({"ppf-1k", 1024, taps, 1, t, PpfOutput::complex, 1});
  }
  v.push_back({"target", 4096, 16, 1, VoltageType::ci8, PpfOutput::complex, 1});
  v.push_back({"target", 4096, 16, 1, VoltageType::ci8, PpfOutput::power, 64});
  v.push_back({"ppf-fb", 4096, 8, 2, VoltageType::ci8, PpfOutput::power, 64});
  // The other shapes of the persistent kernel's (complex output, C = 4096, one polarisation):
  // run with --setup c4k only.
  for (VoltageType t : {VoltageType::ci8, VoltageType::ci16, VoltageType::cf32}) {
    for (int taps : {4, 8, 16}) v.push_back({"c4k", 4096, taps, 1, t, PpfOutput::complex, 1});
  }
  return v;
}

std::string describe(const Setup& s);

// The setups named `only` (a setup name, or a problem as describe() prints it), or all.
std::vector<Setup> setups(const std::string& only) {
  std::vector<Setup> v;
  for (const auto& s : setups()) {
    if ((only.empty() && s.name != "c4k") || s.name == only || describe(s) == only) v.push_back(s);
  }
  return v;
}

std::size_t spectra_for(const Setup& s, double samples) {
  const auto n = static_cast<std::size_t>(samples / (static_cast<double>(s.nchans) * s.npol));
  return std::max<std::size_t>(n / static_cast<std::size_t>(s.nint), 1) * static_cast<std::size_t>(s.nint);
}

void print_table(const std::vector<Result>& results) {
  std::printf("\n%-7s %-5s %-30s %10s %9s %9s %6s %6s  %s\n", "setup", "dev", "problem", "Gsamp/s", "GB/s", "roofline",
              "FIR", "FFT", "configuration");
  for (const auto& r : results) {
    std::printf("%-7s %-5s %-30s %10.3f %9.1f %8.1f%% %5.0f%% %5.0f%%  %s\n", r.setup.c_str(), r.backend.c_str(),
                describe(r.s).c_str(), r.samples_per_s / 1e9, r.gb_per_s, 100.0 * r.roofline, 100.0 * r.fir_share,
                100.0 * r.fft_share, r.config.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool cpu = true;
  bool gpu = true;
  [[maybe_unused]] bool sweep = true;  // GPU only
  double scale = 1.0;
  std::vector<const char*> only_configs;  // GPU: these --gpu-config alone (profiling), no sweep
  std::string only_setup;                 // --setup NAME: that setup alone (profiling)
  std::vector<std::string> cpu_configs;   // CPU: each of these --cpu-config (default: the default)
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--cpu-only") == 0) {
      gpu = false;
    } else if (std::strcmp(argv[i], "--gpu-only") == 0) {
      cpu = false;
    } else if (std::strcmp(argv[i], "--no-sweep") == 0) {
      sweep = false;
    } else if (std::strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
      scale = std::atof(argv[++i]);
    } else if (std::strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
      only_configs.push_back(argv[++i]);
    } else if (std::strcmp(argv[i], "--setup") == 0 && i + 1 < argc) {
      only_setup = argv[++i];
    } else if (std::strcmp(argv[i], "--cpu-config") == 0 && i + 1 < argc) {
      cpu_configs.emplace_back(argv[++i]);
    } else {
      std::fprintf(
          stderr,
          "usage: %s [--cpu-only | --gpu-only] [--no-sweep] [--scale F] [--setup NAME] [--config KEY=V,...]... "
          "[--cpu-config KEY=V,...]...\n",
          argv[0]);
      return 2;
    }
  }
  std::vector<Result> results;
  try {
#if FASTPSR_HAVE_CUDA
    if (gpu && gpu_count() > 0) {
      const auto props = cuda::device_properties(0);
      const double copy_bw = cuda::measure_copy_bandwidth(0, std::size_t{1} << 30, 10);
      std::printf("GPU 0: %s, %d SMs, L2 %.0f MiB; device-to-device copy %.0f GB/s (read + write)\n",
                  props.name.c_str(), props.multiprocessors, static_cast<double>(props.l2_bytes) / 1048576.0,
                  copy_bw / 1e9);
      const double samples = 1.34e8 * scale;  // 2^27 complex samples per run
      ChanneliserOptions opt;
      for (const auto& s : setups(only_setup)) {
        if (!only_configs.empty()) break;
        const auto plan = plan_of(s);
        const auto t = cuda::benchmark_device_ppf(plan, opt, 0, spectra_for(s, samples), 10, true);
        results.push_back(make_result("gpu", s, plan, t.rows, t.total_ms, t.fir_ms, t.fft_ms, copy_bw, t.config));
      }
      if (sweep || !only_configs.empty()) {
        std::printf("GPU configuration sweep:\n");
        std::vector<const char*> configs = {"fir=cache,cb=128,sb=4",
                                            "fir=cache,cb=128,sb=8",
                                            "fir=cache,cb=256,sb=16",
                                            "fir=shared,cb=32,sb=32,ry=4",
                                            "fir=shared,cb=64,sb=16,ry=4",
                                            "fir=shared,cb=32,sb=64,ry=8",
                                            "fir=shared,cb=128,sb=8,ry=2",
                                            "chunk=64",
                                            "chunk=256",
                                            "chunk=1024",
                                            "chunk=4096",
                                            "fft=cluster",
                                            "fft=cufft",
                                            "fft=fused,radix=8",
                                            "fft=fused,radix=16",
                                            "chunk=533",
                                            "fft=fused,chunk=4096,seg=8",
                                            "sb=8,cpt=1,pipe=1",
                                            "sb=16,cpt=1",
                                            "sb=8,cpt=2",
                                            "sb=16,cpt=2",
                                            "pipe=1",
                                            "pipe=2",
                                            "graph=1",
                                            "pipe=2,l2=persist,graph=1",
                                            "pipe=2,l2=persist,graph=1,chunk=256",
                                            "fft=persist",
                                            "fft=persist,occ=3",
                                            "fft=persist,occ=2",
                                            "fft=persist,slots=32",
                                            "fft=persist,sched=static",
                                            "fft=persist,sched=static,persist_fir=50",
                                            "fft=persist,sched=static,persist_fir=60",
                                            "fft=persist,sched=static,occ=3"};
        if (!only_configs.empty()) configs = only_configs;
        for (const auto& s : setups(only_setup)) {
          if (s.name == "ppf-1k" && only_configs.empty()) continue;  // --config: every setup
          const auto plan = plan_of(s);
          for (const char* c : configs) {
            ChanneliserOptions o;
            o.gpu_config = parse_key_values(c);
            try {
              const auto t = cuda::benchmark_device_ppf(plan, o, 0, spectra_for(s, samples), 5, false);
              results.push_back(make_result("gpu", s, plan, t.rows, t.total_ms, 0.0, 0.0, copy_bw, t.config));
            } catch (const Error& e) {  // a configuration this setup does not take (fft=cluster: complex only)
              std::printf("  %-7s gpu  %s: not run (%s)\n", s.name.c_str(), c, e.what());
            }
          }
        }
      }
    } else if (gpu) {
      std::printf("no CUDA device: GPU benchmarks skipped\n");
    }
#else
    if (gpu) std::printf("this build has no CUDA backend: GPU benchmarks skipped\n");
#endif
    if (cpu) {
      const int threads = cpu::thread_count();
      const double copy_bw = cpu::measure_host_copy_bandwidth(std::size_t{256} << 20, 5, threads);
      std::printf("CPU: %d threads, %s; memcpy %.1f GB/s (read + write)\n", threads,
                  cpu::describe_cpu_features().c_str(), copy_bw / 1e9);
      const double samples = 8.4e6 * scale;  // 2^23 complex samples per run
      if (cpu_configs.empty()) cpu_configs.emplace_back();
      for (const auto& config : cpu_configs) {
        ChanneliserOptions opt;
        opt.fftw_effort = ChanneliserOptions::FftwEffort::measure;
        opt.cpu_config = parse_key_values(config);
        for (const auto& s : setups(only_setup)) {
          const auto plan = plan_of(s);
          const auto t = cpu::benchmark_cpu_ppf(plan, opt, spectra_for(s, samples), 3);
          results.push_back(make_result("cpu", s, plan, t.rows, t.total_ms, t.fir_ms, t.fft_ms, copy_bw, t.config));
        }
      }
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "bench/ppf: error: %s\n", e.what());
    print_table(results);
    return 1;
  }
  print_table(results);
  return 0;
}
