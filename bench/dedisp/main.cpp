// SPDX-License-Identifier: MIT
// bench/dedisp: the dedispersion setups of shared/docs/benchmarks.md on every backend of this
// build: DM-channel-samples per second, GB/s, fraction of the measured ceiling, real-time
// factor; with --e2e also the whole run from a filterbank file on disk (read included): file
// opened -> every DM-time block in host memory, with the dedispersers' creation (device and
// pinned buffers) but not the process start nor the CUDA context, made by the in-memory runs
// before (the dedisp tool's -v and /usr/bin/time give those).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <future>
#include <random>
#include <string>
#include <vector>

#include "cpu_ceilings.hpp"
#include "fastpsr/backends.hpp"
#include "fastpsr/cpu/cpu_features.hpp"
#include "fastpsr/dedisp.hpp"
#include "fastpsr/dedisp_backend.hpp"
#include "fastpsr/dedisp_setups.hpp"
#include "fastpsr/dm_plan.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/version.hpp"

namespace {

using namespace fastpsr;
using Clock = std::chrono::steady_clock;

struct Args {
  std::vector<std::string> setups;
  std::string device = "both";
  double seconds = 1.0;
  int ndms = 0;  // 0: the setup's headline
  int threads = 0;
  int reps = 3;
  bool e2e = false;
  double gpu_peak_adds = 0;
  std::string write_path;  // --write: only write the setup's filterbank there
  DedispOptions options;
};

[[noreturn]] void usage(int code) {
  std::printf(
      "usage: dedisp [--setup apertif|lofar|artemis|meerkat|presto-iso|presto-nsub|all] [--device cpu|gpu|both]\n"
      "              [--seconds S] [--ndms N] [--threads N] [--reps N] [--e2e] [--gulp N]\n"
      "              [--cpu-config k=v,...] [--gpu-config k=v,...] [--gpu-peak-adds X] [--write FILE]\n"
      "Times direct dedispersion of the benchmarks.md setups (S seconds of output, random 8-bit data).\n"
      "--e2e also times the whole run from a filterbank file on disk (written first, read back, output\n"
      "kept in memory). --gpu-peak-adds: the GPU's packed-add ceiling (adds/s) when it is not measured\n"
      "here; the H200 value of benchmarks.md (7.6e13) is used for an H200. --write FILE: write the (first)\n"
      "setup's random 8-bit filterbank to FILE and exit (for timing other programs on it).\n");
  std::exit(code);
}

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(2);
      return argv[++i];
    };
    if (k == "--setup") {
      const std::string v = value();
      if (v == "all") {
        a.setups = {"apertif", "lofar", "artemis", "meerkat", "presto-iso", "presto-nsub"};
      } else {
        a.setups.push_back(v);
      }
    } else if (k == "--device") {
      a.device = value();
    } else if (k == "--seconds") {
      a.seconds = std::stod(value());
    } else if (k == "--ndms") {
      a.ndms = std::stoi(value());
    } else if (k == "--threads") {
      a.threads = std::stoi(value());
      a.options.threads = a.threads;
    } else if (k == "--reps") {
      a.reps = std::stoi(value());
    } else if (k == "--gulp") {
      a.options.gulp_samples = std::stoul(value());
    } else if (k == "--e2e") {
      a.e2e = true;
    } else if (k == "--cpu-config") {
      a.options.cpu_config = parse_key_values(value());
    } else if (k == "--gpu-config") {
      a.options.gpu_config = parse_key_values(value());
    } else if (k == "--write") {
      a.write_path = value();
    } else if (k == "--gpu-peak-adds") {
      a.gpu_peak_adds = std::stod(value());
    } else if (k == "-h" || k == "--help") {
      usage(0);
    } else {
      std::fprintf(stderr, "dedisp bench: unknown argument '%s'\n", k.c_str());
      usage(2);
    }
  }
  if (a.setups.empty()) a.setups = {"apertif", "lofar", "artemis", "meerkat", "presto-iso", "presto-nsub"};
  return a;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Measure {
  double seconds = 0;       // median over reps
  double cpu_seconds = 0;   // process CPU time of the median run (all threads): robust on a shared machine
  double adds = 0;          // DM x channel x output samples
  double bytes = 0;         // input once + output once
  double data_seconds = 0;  // output duration (longest range)
};

// One timed run over in-memory data: every range of the plan gets the same input.
Measure time_in_memory(const DedispSetup& s, const DeviceChoice& dev, const Args& a,
                       const std::vector<std::uint8_t>& packed) {
  std::vector<std::pair<double, double>> times;
  Measure m;
  for (int rep = 0; rep < a.reps; ++rep) {
    std::vector<std::unique_ptr<Dedisperser>> dds;
    for (const auto& plan : s.plans) dds.push_back(make_dedisperser(plan, dev, a.options));
    const std::size_t bps = s.plans.front().problem.input.bytes_per_sample();
    double checksum = 0;
    const auto t0 = Clock::now();
    const std::clock_t c0 = std::clock();
    for (std::size_t r = 0; r < dds.size(); ++r) {
      auto& dd = dds[r];
      const std::size_t g = dd->gulp_samples();
      const std::size_t n = s.plan_nin[r];
      for (std::size_t done = 0; done < n; done += g) {
        const auto b = dd->push(packed.data() + done * bps, std::min(g, n - done));
        if (!b.empty()) checksum += static_cast<double>(b.data[0]);
      }
      for (auto b = dd->flush(); !b.empty(); b = dd->flush()) checksum += static_cast<double>(b.data[0]);
    }
    times.emplace_back(seconds_since(t0), static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    if (checksum == -1.0) std::printf("?");
  }
  std::sort(times.begin(), times.end());
  m.seconds = times[times.size() / 2].first;
  m.cpu_seconds = times[times.size() / 2].second;
  for (std::size_t r = 0; r < s.plans.size(); ++r) {
    const auto& plan = s.plans[r];
    const std::size_t n = s.plan_nin[r];
    std::uint64_t nout = 0;
    for (std::size_t i = 0; i < plan.ndms(); ++i) nout += plan.valid_samples(i, n);
    std::size_t nk = 0;
    for (int c = 0; c < plan.nchans(); ++c) nk += plan.channel_kept(c) ? 1 : 0;
    m.adds += static_cast<double>(nout) * static_cast<double>(nk) * plan.downsample();
    m.bytes += 4.0 * static_cast<double>(nout);
    m.data_seconds =
        std::max(m.data_seconds, static_cast<double>(plan.valid_samples(plan.ndms() - 1, n)) * plan.out_tsamp_s());
    m.bytes += static_cast<double>(n) * static_cast<double>(plan.problem.input.bytes_per_sample());
  }
  return m;
}

struct FromFile {
  double total = 0;      // file opened -> last DM-time block in host memory
  double create = 0;     // header read and dedispersers made (device buffers, pinned buffers)
  double read_wait = 0;  // waiting for the reader thread
  double dedisp = 0;     // push/flush: copies into the backend and waiting for its blocks
  double teardown = 0;   // freeing the dedispersers (after `total`)
  std::string setup_line;
};

// The whole run from a file as the dedisp tool streams it: the next gulp is read on another
// thread while the current one is pushed. A block handed back is in (pinned) host memory; its
// first and last values are read, as the consumer that the tool has would read them all.
FromFile time_from_file(const DedispSetup& s, const DeviceChoice& dev, const Args& a, const std::string& path) {
  FromFile f;
  const auto t0 = Clock::now();
  auto reader = FilterbankReader::open(path);
  std::vector<std::unique_ptr<Dedisperser>> dds;
  std::size_t gulp = SIZE_MAX;
  for (const auto& plan : s.plans) {
    dds.push_back(make_dedisperser(plan, dev, a.options));
    gulp = std::min(gulp, dds.back()->gulp_samples() / 24 * 24);
  }
  const std::string d = dds.front()->describe();
  if (const auto k = d.find("set-up:"); k != std::string::npos) f.setup_line = d.substr(k);
  const std::size_t bps = reader->header().bytes_per_sample();
  std::vector<std::uint8_t> bufs[2] = {std::vector<std::uint8_t>(gulp * bps), std::vector<std::uint8_t>(gulp * bps)};
  f.create = seconds_since(t0);
  double checksum = 0;
  auto touch = [&](const Dedisperser& dd, const DedispBlock& b) {
    const std::size_t ndms = dd.plan().ndms();  // each range of a multi-range plan has its own
    checksum += static_cast<double>(b.data[0]) + static_cast<double>(b.data[(ndms - 1) * b.stride + b.nsamples - 1]);
  };
  auto read_next = [&](std::vector<std::uint8_t>& into) {
    return std::async(std::launch::async, [&reader, &into, gulp] { return reader->read_packed(into.data(), gulp); });
  };
  int cur = 0;
  auto pending = read_next(bufs[cur]);
  for (;;) {
    auto t = Clock::now();
    const std::size_t n = pending.get();
    f.read_wait += seconds_since(t);
    if (n == 0) break;
    if (n == gulp) pending = read_next(bufs[1 - cur]);
    for (auto& dd : dds) {
      t = Clock::now();
      const auto b = dd->push(bufs[cur].data(), n);
      f.dedisp += seconds_since(t);
      if (!b.empty()) touch(*dd, b);
    }
    if (n < gulp) break;
    cur = 1 - cur;
  }
  for (auto& dd : dds) {
    for (;;) {
      const auto t = Clock::now();
      const auto b = dd->flush();
      f.dedisp += seconds_since(t);
      if (b.empty()) break;
      touch(*dd, b);
    }
  }
  if (checksum == -1.0) std::printf("?");
  f.total = seconds_since(t0);
  const auto t1 = Clock::now();
  dds.clear();
  f.teardown = seconds_since(t1);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args a = parse_args(argc, argv);
    if (!a.write_path.empty()) {
      const DedispSetup s = make_dedisp_setup(a.setups.front(), a.ndms, a.seconds);
      std::mt19937_64 rng(42);
      auto w = FilterbankWriter::open(a.write_path, s.header);
      std::vector<std::uint8_t> chunk(65536 * s.header.bytes_per_sample());
      for (std::size_t done = 0; done < s.nin; done += 65536) {
        const std::size_t n = std::min<std::size_t>(65536, s.nin - done);
        for (std::size_t i = 0; i < n * s.header.bytes_per_sample(); ++i)
          chunk[i] = static_cast<std::uint8_t>(rng() >> 56);
        w->write_packed(chunk.data(), n);
      }
      w->commit();
      std::printf("wrote %s: %zu samples, %s\n", a.write_path.c_str(), s.nin, s.description.c_str());
      return 0;
    }
    std::printf("fastpsr %s dedispersion bench; CPU: %s, %d threads\n", std::string(version_string).c_str(),
                cpu::describe_cpu_features().c_str(), a.threads > 0 ? a.threads : cpu::thread_count());
    const auto ceil = bench::measure_cpu_ceilings(a.threads);
    std::printf(
        "CPU ceilings (measured): %.3g uint16 adds/s in registers (%s), %.3g adds/s with an L1 load each, "
        "copy %.1f GB/s\n",
        ceil.add_u16_per_s, ceil.isa, ceil.load_add_u16_per_s, ceil.copy_bytes_per_s / 1e9);
    std::vector<DeviceChoice> devices;
    if (a.device == "cpu" || a.device == "both") devices.push_back(resolve_device(parse_device_spec("cpu")));
    if (a.device == "gpu" || (a.device == "both" && gpu_count() > 0)) {
      devices.push_back(resolve_device(parse_device_spec("gpu")));
    }
    std::printf("\n%-10s %-8s %6s %8s %9s %9s %10s %8s %8s %8s %8s\n", "setup", "backend", "DMs", "out s", "time s",
                "cpu s", "DMchS/s", "GB/s", "floor", "x RT", "e2e s");
    for (const auto& name : a.setups) {
      const DedispSetup s = make_dedisp_setup(name, a.ndms, a.seconds);
      const std::size_t nin = s.nin;
      std::mt19937_64 rng(42);
      std::vector<std::uint8_t> packed(nin * s.plans.front().problem.input.bytes_per_sample());
      for (auto& b : packed) b = static_cast<std::uint8_t>(rng() >> 56);
      std::string path;
      if (a.e2e) {
        path = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : std::string("/tmp")) + "/fastpsr-bench-" +
               name + ".fil";
        auto w = FilterbankWriter::open(path, s.header);
        w->write_packed(packed.data(), nin);
        w->commit();
      }
      double cpu_time = 0;
      for (const auto& dev : devices) {
        const Measure m = time_in_memory(s, dev, a, packed);
        const double rate = m.adds / m.seconds;
        // The GPU's packed-add ceiling is measured by bench/dedisp_gpu, not here: without
        // --gpu-peak-adds the column says "-" (it printed 0.0%, and an assumed H200 peak).
        double floor_frac = -1;
        if (dev.backend == Backend::cpu) {
          floor_frac = rate / ceil.load_add_u16_per_s;
          cpu_time = m.seconds;
        } else if (a.gpu_peak_adds > 0) {
          floor_frac = rate / a.gpu_peak_adds;
        }
        const FromFile e2e = a.e2e ? time_from_file(s, dev, a, path) : FromFile{};
        const std::string floor_text = floor_frac < 0 ? "-" : fmt::format("{:.1f}%", 100.0 * floor_frac);
        std::printf("%-10s %-8s %6zu %8.3f %9.4f %9.4f %10.3g %8.2f %8s %8.3g %8s\n", name.c_str(),
                    dev.backend == Backend::cpu ? "cpu" : "gpu", s.total_dms(), m.data_seconds, m.seconds,
                    m.cpu_seconds, rate, m.bytes / m.seconds / 1e9, floor_text.c_str(), m.data_seconds / m.seconds,
                    a.e2e ? fmt::format("{:.3f}", e2e.total).c_str() : "-");
        if (a.e2e) {
          std::printf(
              "%-10s e2e %s: %.1f ms = dedisperser made %.1f + stream %.1f (waiting for the reader %.1f, "
              "push/flush %.1f); freeing it afterwards %.1f ms\n",
              name.c_str(), dev.backend == Backend::cpu ? "cpu" : "gpu", e2e.total * 1e3, e2e.create * 1e3,
              (e2e.total - e2e.create) * 1e3, e2e.read_wait * 1e3, e2e.dedisp * 1e3, e2e.teardown * 1e3);
          if (!e2e.setup_line.empty()) std::printf("%-10s   %s\n", "", e2e.setup_line.c_str());
        }
        if (dev.backend != Backend::cpu && cpu_time > 0) {
          std::printf("%-10s gpu/cpu speed ratio %.1f\n", name.c_str(), cpu_time / m.seconds);
        }
      }
      if (a.e2e) std::remove(path.c_str());
      std::printf("%-10s %s\n", "", s.description.c_str());
    }
    std::printf(
        "\nDMchS/s: DM x channel x output samples per second (one add each). floor: CPU against the measured\n"
        "L1-load+add ceiling, GPU against its packed-add ceiling. x RT: seconds of data per second.\n"
        "time s: median wall time of the runs; cpu s: the process CPU time of that run (all threads), which\n"
        "shows how much of the wall time other processes took on a shared machine.\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dedisp bench: error: %s\n", e.what());
    return 1;
  }
}
