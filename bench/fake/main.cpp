// SPDX-License-Identifier: MIT
// bench/fake: fake-pulsar's generation rate, MB/s of 8-bit filterbank output on one thread and
// on all threads, against `cat` of a file of the same size to /dev/null (the rate a pipe reader
// of a cached file would get). Usage: fake [megabytes of output per case, default 256].
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/sim/filterbank_simulator.hpp"
#include "fastpsr/sim/random.hpp"
#include "fastpsr/sim/source_spec.hpp"

using namespace fastpsr;
using namespace fastpsr::sim;

namespace {

class NullSink final : public ByteSink {
 public:
  NullSink() : ByteSink("<null>") {}
  void write(const void* /*src*/, std::size_t n) override { position_ += n; }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Case {
  const char* name;
  const char* psr;  // --psr text, or nullptr for noise only
  Smearing smearing;
};

}  // namespace

int main(int argc, char** argv) {
  const double megabytes = argc > 1 ? std::atof(argv[1]) : 256.0;
  // The iso setup of peer-outputs: 256 channels of 0.5 MHz from 1500 MHz, 64 us, 8 bits.
  SimConfig base;
  base.obs.nchans = 256;
  base.obs.fch1_mhz = 1500.0;
  base.obs.foff_mhz = -0.5;
  base.obs.tsamp_s = 64e-6;
  base.obs.nsamples = static_cast<std::uint64_t>(megabytes * 1e6 / 256.0);
  base.seed = 1;
  const Case cases[] = {
      {"noise", nullptr, Smearing::sigproc},
      {"pulsar, 4% boxcar (sigproc smear)", "period=4.8372,dm=62.5,width=4,snrpeak=0.15", Smearing::sigproc},
      {"pulsar, 4% boxcar (full smear)", "period=4.8372,dm=62.5,width=4,snrpeak=0.15", Smearing::full},
      {"binary, 10% gaussian (full smear)",
       "period=3.9283,dm=88.8,width=10,profile=gaussian,bper=1,bphase=0.25,bcmass=1.4", Smearing::full},
  };
  const int all = omp_get_num_procs();
  const double duration = base.obs.duration_s();
  std::printf("fake-pulsar generation, 8-bit, 256 channels x 64 us, %.0f MB (%.1f s of data) per run\n",
              static_cast<double>(base.obs.nsamples) * 256 / 1e6, duration);
  std::printf("normals: %s code path; %d CPU cores\n\n", CounterRng::code_path(), all);
  std::printf("load average at the start: %s", [] {
    static char text[64] = "?\n";
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {
      if (std::fgets(text, sizeof text, f) == nullptr) std::snprintf(text, sizeof text, "?\n");
      std::fclose(f);
    }
    return text;
  }());
  std::printf("| case | threads | MB/s (median of 3) | real-time factor |\n| --- | --- | --- | --- |\n");
  for (const Case& k : cases) {
    SimConfig c = base;
    c.smearing = k.smearing;
    if (k.psr != nullptr) c.pulsars.push_back(make_pulsar_spec(parse_pulsar_options(k.psr), duration));
    const FilterbankSimulator sim(c);
    WriteOptions w;
    w.nbits = 8;
    w.scale = default_output_scale(8);
    w.header = make_fake_header(c.obs, 8, "bench", 0.0);
    for (int threads : {1, all}) {
      omp_set_num_threads(threads);
      // The median of three runs.
      std::vector<double> times;
      std::uint64_t bytes = 0;
      for (int rep = 0; rep < 3; ++rep) {
        NullSink sink;
        const auto t0 = std::chrono::steady_clock::now();
        write_filterbank(sim, sink, w);
        times.push_back(seconds_since(t0));
        bytes = sink.position();
      }
      std::sort(times.begin(), times.end());
      const double s = times[1];
      std::printf("| %s | %d | %.0f | %.0f |\n", k.name, threads, static_cast<double>(bytes) / 1e6 / s, duration / s);
      if (all == 1) break;
    }
  }
  // Reference: cat of a file of the same size (from the page cache) to /dev/null.
  const auto path = std::filesystem::temp_directory_path() / ("fastpsr-bench-fake-" + std::to_string(::getpid()));
  {
    const FilterbankSimulator sim(base);
    WriteOptions w;
    w.header = make_fake_header(base.obs, 8, "bench", 0.0);
    auto sink = open_sink(path.string());
    write_filterbank(sim, *sink, w);
    sink->commit();
  }
  const auto bytes = static_cast<double>(std::filesystem::file_size(path));
  const std::string command = "cat '" + path.string() + "' > /dev/null";
  double best = 1e30;
  for (int i = 0; i < 3; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    if (std::system(command.c_str()) != 0) std::fprintf(stderr, "cat failed\n");
    best = std::min(best, seconds_since(t0));
  }
  std::filesystem::remove(path);
  std::printf("| cat of the same size to /dev/null (best of 3) | - | %.0f | - |\n", bytes / 1e6 / best);
  return 0;
}
