// SPDX-License-Identifier: MIT
// fake-pulsar: synthetic SIGPROC filterbanks (pulsars, single pulses, noise, RFI), a drop-in
// replacement for SIGPROC's fake. CLI11 options -> SimConfig -> FilterbankSimulator -> sink.
#include <omp.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>

#include "common/progress.hpp"
#include "common/tool_main.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/sigproc.hpp"
#include "fastpsr/sim/filterbank_simulator.hpp"
#include "fastpsr/sim/random.hpp"
#include "fastpsr/sim/voltage_simulator.hpp"
#include "options.hpp"
#include "report.hpp"

namespace fastpsr::app {
namespace {

constexpr const char* kExamples = R"(Examples:
  # SIGPROC fake's command line, unchanged (one dash works): a 4.8 ms pulsar at DM 62.5
  fake-pulsar -period 4.8372 -dm 62.5 -width 4 -snrpeak 0.15 -nbits 8 -nchans 256 -tsamp 64 \
      -tobs 134.2 -tstart 60000.0 -fch1 1500.0 -foff -0.5 -seed 12345 > psr.fil
  # A binary pulsar (1 h orbit) and a second, accelerated pulsar of folded S/N 20
  fake-pulsar --period 3.9283 --dm 88.8 --binary --bper 1 --bcmass 1.4 --bphase 0.25 \
      --psr period=11.3,dm=30,snr=20,accn=50,profile=vonmises -o two.fil
  # An FRB with a scattering tail, narrowband RFI and random impulses, 32-bit floats
  fake-pulsar --nchans 512 --fch1 1500 --foff 0.5 --tsamp 64 --tobs 5 --nbits 32 \
      --frb time=2.5,dm=560,width=1.5,snr=30,scatter=2 \
      --rfi-narrowband freq=1420.4,amp=5 --rfi-impulses rate=0.5,amp=3 -o frb.fil
  # Pure noise, streamed to another tool, with the expected S/N written as JSON
  fake-pulsar --nchans 1024 --tsamp 50 --tobs 60 --nbits 8 --seed 1 --report noise.json | dedisp - ...
  # What a search must find: -v prints it
  fake-pulsar -v --period 4.8372 --dm 62.5 --fold-snr 15 -o psr.fil
  # Complex voltages (PSRDADA, 8-bit, 2 pols) of a coherently dispersed pulsar, channelised by ppf
  # into 256 channels of 64 us and dedispersed (a --tone freq=MHz,amp=rms would add a carrier)
  fake-pulsar --voltages --freq 1400 --bw 16 --npol 2 --tobs 10 --period 4.8372 --dm 62.5 \
      --fold-snr 50 | ppf -C 256 --nint 4 | dedisp - --dm 62.5 -o obs

Amplitudes are in units of the noise rms of one channel. SIGPROC's -snrpeak is the peak S/N of
one pulse in the dedispersed time series. See fake-pulsar(1) for the models and the S/N formulas.)";

void write_report(const nlohmann::json& report, const std::string& path) {
  log_fake_report(report);
  if (!path.empty()) {
    const std::string text = report.dump(2) + "\n";
    write_all(path, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  }
}

void log_speed(const ByteSink& sink, std::chrono::steady_clock::time_point start) {
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  log_verbose("wrote {} bytes to {} in {:.2f} s ({:.0f} MB/s)", sink.position(), sink.name(), seconds,
              static_cast<double>(sink.position()) / 1e6 / std::max(seconds, 1e-9));
}

void write_filterbank_file(const FakeOptions& o, std::uint64_t seed) {
  sim::SimConfig config = build_config(o);
  config.seed = seed;
  const sim::FilterbankSimulator simulator(config);
  sim::OutputScale scale = sim::default_output_scale(o.nbits);
  if (o.mean) scale.offset = *o.mean;
  if (o.rms) scale.scale = *o.rms;
  warn_if_clipped(simulator, o.nbits, scale);
  if (verbosity() >= Verbosity::verbose || !o.report.empty())
    write_report(fake_report(simulator, o.nbits, scale), o.report);
  log_verbose("normals: {} code path, {} threads", sim::CounterRng::code_path(), omp_get_max_threads());

  const double refdm = config.pulsars.empty() ? 0.0 : config.pulsars.front().dm;
  sim::WriteOptions w;
  w.nbits = o.nbits;
  w.scale = scale;
  w.write_header = !o.headerless;
  w.header = sim::make_fake_header(config.obs, o.nbits, source_name(o), refdm, o.machine_id, o.telescope_id);
  auto sink = open_sink(o.output);
  Progress progress("fake-pulsar", config.obs.nsamples);
  w.progress = [&](std::uint64_t done) { progress.update(done); };
  const auto start = std::chrono::steady_clock::now();
  sim::write_filterbank(simulator, *sink, w);
  sink->commit();
  progress.finish();
  log_speed(*sink, start);
}

void write_voltage_stream(const FakeOptions& o, std::uint64_t seed) {
  sim::VoltageConfig config = build_voltage_config(o);
  config.seed = seed;
  const sim::VoltageSimulator simulator(config);
  const sim::VoltageFormat format = sim::parse_voltage_format(o.vformat);
  const double scale = o.rms ? *o.rms : sim::default_voltage_scale(format);
  if (verbosity() >= Verbosity::verbose || !o.report.empty())
    write_report(voltage_report(simulator, format, scale), o.report);
  sim::VoltageWriteOptions w;
  w.format = format;
  w.scale = scale;
  w.write_header = !o.raw;
  w.header =
      sim::make_voltage_dada_header(config, format, voltage_source_name(o), sigproc_telescope_name(o.telescope_id));
  auto sink = open_sink(o.output);
  Progress progress("fake-pulsar", config.nsamples);
  w.progress = [&](std::uint64_t done) { progress.update(done); };
  const auto start = std::chrono::steady_clock::now();
  sim::write_voltages(simulator, *sink, w);
  sink->commit();
  progress.finish();
  log_speed(*sink, start);
}

// The options that take a floating-point number: NaN and infinities (strtod takes "nan", "inf"
// and 1e999) are refused, as the --psr and --frb key=value parsers refuse them, instead of
// making NaN samples, a NaN header or a pulsar that is silently absent.
const char* const kFloatOptions[] = {"--fch1", "--foff",   "--tsamp",   "--tobs",           "--tstart", "--period",
                                     "--dm",   "--width",  "--snrpeak", "--fold-snr",       "--phase",  "--pdot",
                                     "--accn", "--fdot",   "--z",       "--spectral-index", "--bper",   "--becc",
                                     "--binc", "--bomega", "--bphase",  "--bpmass",         "--bcmass", "--mean",
                                     "--rms",  "--freq",   "--bw",      "--peak-power"};

// Validators without a description, so that --help stays as it was.
void refuse_bad_numbers(CLI::App& cli) {
  const CLI::Validator finite(
      [](std::string& s) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (end != s.c_str() && *end == '\0' && !std::isfinite(v)) return s + " is not a finite number";
        return {};
      },
      "");
  for (const char* name : kFloatOptions) cli.get_option(name)->check(finite);
  // CLI11 takes "-1" for an unsigned option as 2^64 - 1 (endless output) and values past
  // 2^64 - 1 as 2^64 - 1: both are refused before the conversion.
  const CLI::Validator sample_count(
      [](std::string& s) -> std::string {
        if (!s.empty() && s.front() == '-') return s + " is negative: the sample count is a positive whole number";
        std::uint64_t v = 0;
        if (std::from_chars(s.data(), s.data() + s.size(), v).ec == std::errc::result_out_of_range) {
          return s + " is out of range (at most 18446744073709551615)";
        }
        return {};
      },
      "");
  cli.get_option("--nsamples")->check(sample_count);
}

int run(int argc, char** argv) {
  FakeOptions o;
  CLI::App cli{
      "Synthetic SIGPROC filterbanks: pulsars (binary, accelerated), single dispersed pulses, noise and "
      "RFI. A drop-in replacement for SIGPROC's fake. With --voltages: complex baseband (PSRDADA) with "
      "coherently dispersed pulsars and tones.",
      "fake-pulsar"};
  cli.footer(kExamples);
  add_fake_options(cli, o);
  refuse_bad_numbers(cli);
  if (argc < 2) parse(cli, std::vector<std::string>{"--help"});  // as SIGPROC fake without arguments
  parse(cli, normalize_single_dash(argc, argv, single_dash_names(cli)));
  apply_common_options(o.common);
  o.tsamp_given = cli.count("--tsamp") > 0;
  check_mode_options(cli, o);
  check_pulsar_options(cli, o);
  if (o.rms && !(*o.rms > 0.0)) usage_error(fmt::format("--rms must be positive, got {}", *o.rms));
  if (o.threads < 0) usage_error(fmt::format("--threads must be >= 0, got {}", o.threads));
  if (o.threads > 0) omp_set_num_threads(o.threads);
  if (o.output == "-" && ::isatty(STDOUT_FILENO) == 1) {
    usage_error("refusing to write binary data to a terminal: redirect stdout or give -o FILE");
  }

  std::uint64_t seed = 0;
  if (o.seed) {
    seed = *o.seed;
  } else {
    std::random_device rd;
    seed = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }
  if (o.voltages) {
    write_voltage_stream(o, seed);
  } else {
    write_filterbank_file(o, seed);
  }
  return kExitOk;
}

}  // namespace
}  // namespace fastpsr::app

int main(int argc, char** argv) { return fastpsr::app::run_tool("fake-pulsar", argc, argv, fastpsr::app::run); }
