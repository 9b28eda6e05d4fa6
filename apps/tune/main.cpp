// SPDX-License-Identifier: MIT
// tune: measures the GPU kernel configurations of dedisp, accelsearch and ppf for one observing
// setup on this GPU and stores the fastest in the tuning database (fastpsr/tuning.hpp), which
// those tools then read by themselves.
#include <cstdio>

#include "common/option_checks.hpp"
#include "common/tool_main.hpp"
#include "fastpsr/backends.hpp"
#include "fastpsr/dedisp_setups.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/tuning.hpp"
#include "report.hpp"
#include "targets.hpp"

namespace {

using namespace fastpsr;
using namespace fastpsr::app;

constexpr const char* kExamples = R"(
Examples:
  # The apertif setup of the benchmarks (1024 channels, 2048 DMs), a minute of measuring:
  tune dedisp --setup apertif --budget 60
  # The DM plan dedisp would make for a real file:
  tune dedisp --fil obs.fil --dm 0:1000:0.5
  # The FDAS benchmark (2^23 samples), zmax 200, 16 harmonics:
  tune accel --setup fdas-8m --zmax 200 --numharm 16 --budget 90
  # The length of a PRESTO time series:
  tune accel --dat obs_DM10.00.dat --zmax 50 --numharm 8
  # 4096 channels x 16 taps of complex int8 voltages, complex output:
  tune ppf --channels 4096 --taps 16 --format ci8 --complex
  # What would be tried, without a GPU:
  tune dedisp --setup meerkat --dry-run
The database is $FASTPSR_TUNING, else $XDG_CACHE_HOME/fastpsr/tuning.json, else
~/.cache/fastpsr/tuning.json; dedisp, accelsearch and ppf read it on the GPU unless given
--no-tuning, and their --gpu-config keys override the tuned ones.
)";

struct Options {
  CommonOptions common;
  double budget = 60.0;
  bool dry_run = false;
  int repeats = 5;
  tune::DedispSetupOptions dedisp;
  tune::AccelSetupOptions accel;
  tune::PpfSetupOptions ppf;
};

void add_run_options(CLI::App* sub, Options& o) {
  sub->add_option(
         "--budget", o.budget,
         "Seconds of measuring in all, shared equally by the problems of the run (the DM ranges of a dedisp plan; "
         "accel and ppf tune one)")
      ->capture_default_str()
      ->check(finite_number())  // CLI::PositiveNumber takes nan and inf
      ->check(CLI::PositiveNumber);
  sub->add_flag("--dry-run", o.dry_run, "List the problem's key and the candidates, measure nothing (no GPU needed)");
  sub->add_option("--reps", o.repeats, "Timings per configuration (the median counts)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
}

int run(int argc, char** argv) {
  Options o;
  o.common.device = "gpu";
  CLI::App app{
      "tune: measure GPU kernel configurations for an observing setup and store the best in the tuning database",
      "tune"};
  app.footer(kExamples);
  app.require_subcommand(1);
  app.fallthrough();
  add_common_options(app, o.common, true);
  app.get_option("--device")->description("The GPU to tune: gpu (the first) or gpu:N (tune measures GPU kernels)");

  auto* dd = app.add_subcommand("dedisp", "Tune the CUDA dedisperser");
  auto* setup = dd->add_option("--setup", o.dedisp.setup, std::string("benchmarks.md setup: ") + kDedispSetupNames);
  auto* fil = dd->add_option("--fil", o.dedisp.fil,
                             "SIGPROC filterbank (or search-mode PSRFITS file) whose header describes the data");
  setup->excludes(fil);
  dd->add_option("--dm", o.dedisp.dm, "With --fil: DM range lo:hi:step (default: the automatic plan)");
  dd->add_option("--dm-min", o.dedisp.dm_min, "With --fil, no --dm: lowest DM of the plan")
      ->capture_default_str()
      ->check(not_negative_number("give a DM of 0 or more"));
  dd->add_option("--dm-max", o.dedisp.dm_max, "With --fil, no --dm: highest DM of the plan")
      ->capture_default_str()
      ->check(finite_number());
  dd->add_option("--downsample", o.dedisp.downsample, "With --dm: input samples summed per output sample")
      ->capture_default_str();
  dd->add_flag("--zero-dm", o.dedisp.zero_dm, "As dedisp --zero-dm (the dedisperser then sees float32)");
  dd->add_option("--seconds", o.dedisp.seconds, "Seconds of output per timed gulp")
      ->capture_default_str()
      ->check(positive_number("give a number of seconds above 0"));
  add_run_options(dd, o);

  auto* ac = app.add_subcommand("accel", "Tune the CUDA acceleration search");
  auto* asetup = ac->add_option("--setup", o.accel.setup, "benchmarks.md setup: fdas-2m or fdas-8m");
  auto* dat = ac->add_option("--dat", o.accel.dat, "PRESTO .dat or .fft whose .inf gives the series length");
  asetup->excludes(dat);
  ac->add_option("--zmax", o.accel.zmax, "Largest |z| searched, at most 1000000")
      ->capture_default_str()
      ->check(number_in(0, kMaxZmax, "give 0 to 1000000 bins"));
  ac->add_option("--numharm", o.accel.numharm, "Harmonics summed: 1, 2, 4, 8, 16 or 32")->capture_default_str();
  ac->add_flag("--interbin", o.accel.interbin, "As accelsearch --interbin");
  ac->add_option("--plane", o.accel.plane, "Plane storage as --gpu-config plane= (auto, f32, f16 or f16bound)")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "f32", "f16", "f16bound"}));
  add_run_options(ac, o);

  auto* pp = app.add_subcommand("ppf", "Tune the CUDA polyphase filterbank");
  pp->add_option("-C,--channels", o.ppf.channels, "Fine channels per coarse channel (FFT length)")->required();
  pp->add_option("-T,--taps", o.ppf.taps, "Taps per channel")->capture_default_str();
  pp->add_option("--format", o.ppf.format, "Sample type: ci8, ci16 or cf32")->capture_default_str();
  pp->add_option("--npol", o.ppf.npol, "Polarisations: 1 or 2")->capture_default_str();
  pp->add_option("--coarse", o.ppf.coarse, "Coarse channels (a GUPPI RAW file's OBSNCHAN)")->capture_default_str();
  pp->add_flag("--complex", o.ppf.complex_out, "Complex output (as ppf --complex); default: power");
  pp->add_option("--nint", o.ppf.nint, "Power output: spectra summed per row")->capture_default_str();
  pp->add_option("--detect", o.ppf.detect, "Power output: I, AA, BB or IQUV")->capture_default_str();
  add_run_options(pp, o);

  parse(app, argc, argv);
  apply_common_options(o.common);
  if (dd->parsed() && o.dedisp.setup.empty() && o.dedisp.fil.empty()) usage_error("tune dedisp: give --setup or --fil");
  if (ac->parsed() && o.accel.setup.empty() && o.accel.dat.empty()) usage_error("tune accel: give --setup or --dat");

  // The device first: its index goes into the timing closures (a dry run times nothing).
  DeviceChoice device;
  if (!o.dry_run) {
    const DeviceSpec spec = parse_device_spec(o.common.device);
    if (spec.kind != DeviceSpec::Kind::gpu) usage_error("tune measures GPU kernels: --device gpu or gpu:N");
    if (gpu_count() == 0) {
      throw Error(ErrorCode::resource, built_with_cuda()
                                           ? "no GPU: tune measures GPU kernels and needs one"
                                           : "this build of fastpsr has no CUDA backend: nothing to tune");
    }
    device = resolve_device(spec);
    log_info("{}", device.description);
  }

  std::vector<TuneTarget> targets;
  if (dd->parsed()) targets = tune::dedisp_targets(o.dedisp, device.gpu_index, o.repeats);
  if (ac->parsed()) targets.push_back(tune::accel_target(o.accel, device.gpu_index, o.repeats));
  if (pp->parsed()) targets.push_back(tune::ppf_target(o.ppf, device.gpu_index, o.repeats));
  if (o.dry_run) {
    for (const auto& t : targets) tune::print_candidates(t);
    std::printf("database: %s (build %s)\n", tuning_database_path().string().c_str(), tuning_build_id().c_str());
    return kExitOk;
  }
  const double budget = o.budget / static_cast<double>(targets.size());
  const std::string database = tuning_database_path().string();
  std::printf("tune: %s, build %s, database %s\n\n", device.model.c_str(), tuning_build_id().c_str(), database.c_str());
  for (const auto& t : targets) {
    const TuneResult r = run_tuning(t, budget, device.model);
    tune::print_result(t, r);
    TuningDatabase::store(database, r.entry);
    std::printf("  stored: %s -> %s\n\n", format_gpu_config(r.entry.config).c_str(), database.c_str());
    std::fflush(stdout);
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) { return run_tool("tune", argc, argv, run); }
