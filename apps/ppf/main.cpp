// SPDX-License-Identifier: MIT
// ppf: polyphase filterbank. Raw complex voltages (raw, PSRDADA, GUPPI RAW) in, a SIGPROC
// filterbank of detected power (or channelised complex voltages) out, on the CPU or a GPU.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <vector>

#include "common/device_warmup.hpp"
#include "common/option_checks.hpp"
#include "common/phase_timer.hpp"
#include "common/progress.hpp"
#include "common/tool_main.hpp"
#include "fastpsr/byte_stream.hpp"
#include "fastpsr/cpu/fftw_planning.hpp"
#include "fastpsr/cpu/ppf_cpu.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/ppf.hpp"
#include "fastpsr/ppf_backends.hpp"
#include "fastpsr/ppf_input.hpp"
#include "fastpsr/ppf_output.hpp"
#include "fastpsr/read_ahead.hpp"

namespace fastpsr::app {
namespace {

// Raw input's sample rate: 1 Hz to 1 THz of complex samples (--bw and --tsamp are one rate).
constexpr const char* kBwRange = "give a bandwidth of 1e-6 to 1e6 MHz (negative: an inverted band)";
constexpr const char* kTsampRange = "give a sample interval of 1e-12 to 1 s";

constexpr const char* kExamples = R"(
Examples:
  # 400 MHz of complex int8 voltages at 1400 MHz, 4096 channels x 16 taps, Stokes I summed
  # over 64 spectra, float32 filterbank:
  ppf --channels 4096 --taps 16 --input raw.dat --format ci8 --fcentre 1400 --bw 400 \
      --tsamp 2.5e-9 --nint 64 -o obs.fil
  # Two polarisations, full Stokes, 8-bit output:
  ppf -C 1024 -T 8 --format ci16 --npol 2 --fcentre 1400 --bw 100 --detect IQUV --nbits 8 raw.dat -o iquv.fil
  # Channelised complex voltages (PSRDADA, readable by ppf again):
  ppf -C 256 --complex obs.dada -o chans.dada
  # GUPPI RAW: each coarse channel channelised further (like rawspec):
  ppf -C 64 -T 4 --drop-partial guppi_0001.raw -o fine.fil
  # In a pipeline, on the GPU:
  fake-pulsar --voltages ... | ppf -C 1024 --nint 32 --device gpu | dedisp ...
  # The filter's scalloping and leakage, without data:
  ppf -C 1024 -T 16 --window kaiser:6 --show-filter
)";

struct Options {
  CommonOptions common;
  std::string input = "-";
  std::string output = "-";
  std::string format;
  int npol = 1;
  double fcentre = 0.0;
  double bw = 0.0;
  double tsamp = 0.0;
  std::optional<double> tstart;
  std::string source_name;
  int channels = 0;
  int taps = 8;
  std::string window = "hann";
  double fwidth = 1.0;
  std::string coeffs;
  bool show_filter = false;
  bool complex_out = false;
  bool dada = false;
  std::string detect = "I";
  int nint = 1;
  int nbits = 32;
  std::size_t scale_rows = 1024;
  bool drop_partial = false;
  std::string gpu_config;
  std::string cpu_config;
  bool no_tuning = false;
  std::size_t gulp = 0;
  std::string fftw = "measure";
  std::string wisdom;
};

void print_filter(const ChanneliserPlan& plan, const Options& o) {
  const auto s = summarise_ppf_response(plan.coeffs, plan.nchans());
  std::printf("filter: %d channels x %d taps, %s\n", plan.nchans(), plan.ntaps(),
              o.coeffs.empty() ? fmt::format("window {}, fwidth {}", o.window, o.fwidth).c_str()
                               : ("coefficients from " + o.coeffs).c_str());
  std::printf("scalloping (tone half-way between channels): %.2f dB\n", s.scalloping_db);
  const int d[3] = {1, 5, 10};
  for (int i = 0; i < 3; ++i) {
    std::printf("leakage of that tone %2d channel%s further away: %.1f dB\n", d[i], d[i] == 1 ? " " : "s",
                s.leakage_db[i]);
  }
}

// Whole-file checks: enough spectra for one row, whole spectra, whole integrations.
void check_sample_count(std::uint64_t n, const ChanneliserPlan& plan, bool drop_partial, const std::string& name) {
  const auto c = static_cast<std::uint64_t>(plan.nchans());
  const std::uint64_t spectra = n / c;
  if (plan.rows_for_samples(n) == 0) {
    throw Error(ErrorCode::format,
                fmt::format("{} samples make {} spectra of {} channels: fewer than the {} that --taps {}{} need "
                            "for one output row",
                            n, spectra, c, std::int64_t{plan.ntaps()} - 1 + plan.spectra_per_row(), plan.ntaps(),
                            plan.spectra_per_row() > 1 ? fmt::format(" and --nint {}", plan.spectra_per_row()) : ""),
                name);
  }
  if (n % c != 0 && !drop_partial) {
    throw Error(ErrorCode::format,
                fmt::format("{} samples is not a multiple of --channels {}: the last {} do not fill a spectrum "
                            "(--drop-partial drops them)",
                            n, c, n % c),
                name);
  }
}

// The host memory a run plans besides the channeliser's own: the input buffers and, for 8-bit
// output, the rows held until the scaling is known. For -v and the check before the work.
struct PpfMemory {
  std::size_t channeliser = 0;
  std::size_t input = 0;
  std::string input_what;
  std::size_t scaling = 0;  // 8-bit output: the held rows (twice while they grow) and their bytes
  std::size_t held_rows = 0;
  bool grows = false;  // the rows come in more than one block
  [[nodiscard]] std::size_t total() const { return channeliser + input + scaling; }
  [[nodiscard]] std::string describe(bool verbose) const {
    auto part = [&](const char* name, std::size_t bytes, const std::string& what) {
      return verbose ? fmt::format("{} {:.1f} MiB ({})", name, static_cast<double>(bytes) / 1048576.0, what)
                     : fmt::format("{} {}", name, format_bytes(bytes));
    };
    std::string text =
        part("channeliser", channeliser, "its buffers and work space") + ", " + part("input", input, input_what);
    if (scaling > 0) {
      text += ", " + part("8-bit scaling", scaling,
                          fmt::format("{} rows held as float32 until the scaling is set (--scale-rows), {}", held_rows,
                                      grows ? "twice that while their buffer grows" : "and their 8-bit copy"));
    }
    return text;
  }
};

PpfMemory plan_ppf_memory(const Channeliser& ch, const ChanneliserPlan& plan, const VoltageInfo& info,
                          bool own_input_buffers, std::size_t reader_bytes, const Options& o) {
  PpfMemory m;
  m.channeliser = ch.host_bytes();
  const std::size_t gulp = ch.gulp_samples();
  const std::size_t gulp_bytes = gulp * info.time_sample_bytes();
  // Read ahead into two buffers (the GPU's page-locked ones are the channeliser's); several
  // coarse channels are reordered by the reader through one more.
  const bool reorder = info.ncoarse > 1;
  m.input = (own_input_buffers ? 2 * gulp_bytes : 0) + (reorder ? gulp_bytes : 0);
  m.input_what = own_input_buffers ? "two gulps read ahead" : "read into the channeliser's buffers";
  if (reorder) m.input_what += ", one reordered by the reader";
  if (reader_bytes > 0) {
    m.input += reader_bytes;
    m.input_what += fmt::format(", the reader's block of {}", format_bytes(reader_bytes));
  }
  if (o.nbits == 8) {
    // The quantiser holds whole blocks of rows until it has --scale-rows of them (or the input ends).
    const std::size_t c = static_cast<std::size_t>(plan.nchans());
    const std::size_t history = static_cast<std::size_t>(plan.ntaps() - 1 + plan.spectra_per_row()) * c;
    const auto block = std::max<std::size_t>(1, static_cast<std::size_t>(plan.rows_for_samples(gulp + history)));
    std::size_t rows = o.scale_rows > SIZE_MAX - block ? o.scale_rows : (o.scale_rows + block - 1) / block * block;
    if (info.nsamples) {
      rows = std::min<std::size_t>(rows, static_cast<std::size_t>(plan.rows_for_samples(*info.nsamples)));
    }
    m.held_rows = rows;
    // In double: --scale-rows may be any count (the sum stays far below SIZE_MAX).
    const double held_d = static_cast<double>(rows) * static_cast<double>(plan.row_floats()) * sizeof(float);
    const std::size_t held = held_d < 1e18 ? static_cast<std::size_t>(held_d) : std::size_t{1} << 60;
    // A buffer that grows block by block is copied into one twice its size; else the rows and
    // their bytes (a quarter) live together.
    m.grows = rows > block;
    m.scaling = m.grows ? 2 * held : held + held / sizeof(float);
  }
  return m;
}

// Wall time of the run's phases on the main thread, for -v.
struct PhaseTimes {
  double setup = 0;        // from the start to the first read: input opened, plan, channeliser, output opened
  double plan = 0;         // of which: from the start to the plan made (input header, filter design)
  double channeliser = 0;  // of which: making the channeliser (a GPU's context and buffers, FFTW plans)
  double read_wait = 0;    // waiting for the reader (the next gulp is read while one is channelised)
  double channelise = 0;   // push and flush: copies to the backend and waiting for its rows
  double output = 0;       // detection scaling and writing the rows
  double finish = 0;       // completing the output (rename), FFTW wisdom
};

int run(int argc, char** argv) {
  const auto t_start = Clock::now();
  PhaseTimes times;
  Options o;
  CLI::App app{
      "ppf: polyphase filterbank channeliser. Raw complex voltages (raw ci8/ci16/cf32, PSRDADA or GUPPI "
      "RAW; file or stdin) to a SIGPROC filterbank of detected power, or to channelised complex voltages.",
      "ppf"};
  app.footer(kExamples);
  app.get_formatter()->column_width(34);
  add_common_options(app, o.common, true);
  app.add_option("input", o.input, "Input file, '-' for stdin (PSRDADA and GUPPI RAW are recognised)")
      ->capture_default_str();
  app.add_option("-i,--input", o.input, "Input file (same as the positional argument)");
  app.add_option("-o,--output", o.output,
                 "Output file, '-' for stdout; a .dada name gives complex output a PSRDADA header")
      ->capture_default_str();
  auto* g_in = app.add_option_group("Raw input (no header)");
  g_in->add_option("--format", o.format, "Sample type: ci8, ci16 or cf32 (complex int8, int16, float32)");
  g_in->add_option("--npol", o.npol, "Polarisations, interleaved per sample: 1 or 2")->capture_default_str();
  g_in->add_option("--fcentre", o.fcentre, "Centre frequency of the band, MHz")->check(finite_number());
  g_in->add_option("--bw", o.bw, "Bandwidth, MHz (complex sampling: 1/tsamp; 1e-6 to 1e6); negative: inverted band")
      ->check(number_in(-1e6, 1e6, kBwRange));
  g_in->add_option("--tsamp", o.tsamp, "Sample interval, s (1e-12 to 1)")->check(number_in(1e-12, 1, kTsampRange));
  g_in->add_option("--source-name", o.source_name, "Source name for the output header");
  app.add_option("--tstart", o.tstart, "MJD of the first input sample (overrides the input's)")->check(finite_number());
  auto* g_ppf = app.add_option_group("Filter");
  g_ppf->add_option("-C,--channels", o.channels, "Channels per (coarse) channel: the FFT length")->required();
  g_ppf->add_option("-T,--taps", o.taps, "FIR taps per channel")->capture_default_str();
  g_ppf->add_option("--window", o.window, "Window of the sinc: hann, hamming, blackman, kaiser[:beta], rect")
      ->capture_default_str();
  g_ppf
      ->add_option("--fwidth", o.fwidth,
                   "Passband width in channels, above 0 and at most --channels (1: -6 dB crossover; more: less "
                   "scalloping)")
      ->capture_default_str()
      ->check(positive_number("give a passband width above 0 channels"));
  g_ppf->add_option("--coeffs", o.coeffs, "External coefficients: C*T float32 (raw LE, or text), coeff[t*C + c]");
  g_ppf->add_flag("--show-filter", o.show_filter, "Print the filter's scalloping and leakage, then exit");
  auto* g_out = app.add_option_group("Output");
  g_out->add_flag("--complex", o.complex_out, "Write channelised complex float32 voltages instead of power");
  g_out->add_flag("--dada", o.dada,
                  "With --complex: a PSRDADA header on any output, stdout too (a .dada name always gets one)");
  g_out->add_option("--detect", o.detect, "Power products: I, AA, BB or IQUV (full Stokes)")->capture_default_str();
  g_out->add_option("--nint", o.nint, "Spectra summed per output sample")->capture_default_str();
  g_out->add_option("--nbits", o.nbits, "Filterbank bits: 32 (float) or 8 (scaled, see the man page)")
      ->capture_default_str();
  g_out->add_option("--scale-rows", o.scale_rows, "8-bit output: output samples that set the scaling")
      ->capture_default_str()
      ->check(not_negative());
  g_out->add_flag("--drop-partial", o.drop_partial, "Drop trailing samples that do not fill a spectrum");
  auto* g_run = app.add_option_group("Computing");
  g_run->add_option("--gpu-config", o.gpu_config,
                    "GPU kernel settings: fir=register|cache|shared,cb=N,sb=N,ry=N,cpt=1|2,chunk=N,pipe=1|2,"
                    "fft=persist|cufft|fused|cluster,sched=static|dynamic,... (man ppf); they override the tuned ones");
  g_run->add_option("--cpu-config", o.cpu_config,
                    "CPU kernel settings: isa=avx512|avx2|generic, the FIR's SIMD variant (default: the widest "
                    "this CPU runs)");
  g_run->add_flag("--no-tuning", o.no_tuning, "Ignore the tuning database (written by `tune ppf`)");
  g_run->add_option("--gulp", o.gulp, "Spectra read per step (memory bound); 0 = automatic")
      ->capture_default_str()
      ->check(not_negative());
  g_run->add_option("--fftw", o.fftw, "CPU FFT planning: estimate, measure or patient")->capture_default_str();
  g_run->add_option("--wisdom", o.wisdom,
                    "FFTW wisdom file ('none' to skip); default $XDG_CACHE_HOME/fastpsr/fftwf-wisdom, else "
                    "~/.cache/fastpsr/fftwf-wisdom");
  parse(app, argc, argv);
  apply_common_options(o.common);

  ChanneliserProblem p;
  p.nchans = o.channels;
  p.ntaps = o.taps;
  p.window = parse_window(o.window);
  p.fwidth = o.fwidth;
  p.nint = o.complex_out ? 1 : o.nint;
  p.output = o.complex_out ? PpfOutput::complex : PpfOutput::power;
  p.detection = parse_detection(o.detect);
  FASTPSR_EXPECTS(o.channels >= 1, "--channels must be >= 1, got {}", o.channels);
  FASTPSR_EXPECTS(o.taps >= 1, "--taps must be >= 1, got {}", o.taps);
  // The sinc is sampled at the input rate: a passband wider than the C channels of the whole band
  // aliases (1e30 gave a filter of rounding noise).
  // The value as given, as the validators' messages name it.
  auto given = [&](const char* name) { return app.get_option(name)->results().back(); };
  if (app.count("--fwidth") > 0 && o.fwidth > o.channels) {
    usage_error(fmt::format("--fwidth: {} is out of range: give a passband width above 0 and at most --channels ({})",
                            given("--fwidth"), o.channels));
  }
  // 0 is the default of --bw and --tsamp ("from the other one"), not a value to give.
  if (app.count("--bw") > 0 && std::abs(o.bw) < 1e-6)
    usage_error(fmt::format("--bw: {} is out of range: {}", given("--bw"), kBwRange));
  // Options that would have no effect are refused, not silently dropped.
  FASTPSR_EXPECTS(o.coeffs.empty() || (app.count("--window") == 0 && app.count("--fwidth") == 0),
                  "--window and --fwidth design the filter; --coeffs gives it instead: give one or the other");
  if (!o.coeffs.empty()) {
    p.coeffs = read_ppf_coeffs(o.coeffs, static_cast<std::size_t>(o.channels) * static_cast<std::size_t>(o.taps));
  }
  if (o.show_filter) {
    print_filter(make_channeliser_plan(p), o);
    return kExitOk;
  }
  FASTPSR_EXPECTS(o.nbits == 8 || o.nbits == 32, "--nbits must be 8 or 32, got {}", o.nbits);
  FASTPSR_EXPECTS(!o.tstart || (*o.tstart >= 0.0 && std::isfinite(*o.tstart)), "--tstart {}: an MJD is not negative",
                  o.tstart.value_or(0.0));
  FASTPSR_EXPECTS(!(o.complex_out && o.nbits != 32), "--nbits applies to power output; --complex writes float32");
  FASTPSR_EXPECTS(o.complex_out || !o.dada, "--dada is for --complex output (power output is a SIGPROC filterbank)");
  FASTPSR_EXPECTS(!(o.complex_out && app.count("--nint") > 0),
                  "--nint applies to power output; --complex writes every spectrum");
  FASTPSR_EXPECTS(!(o.complex_out && app.count("--detect") > 0),
                  "--detect applies to power output; --complex writes the channels' voltages");
  FASTPSR_EXPECTS(o.nbits == 8 || app.count("--scale-rows") == 0,
                  "--scale-rows sets the scaling of 8-bit output: give it with --nbits 8");
  FASTPSR_EXPECTS(o.nbits != 8 || o.scale_rows >= 2,
                  "--scale-rows {}: the 8-bit scaling needs the mean and rms of at least 2 output samples",
                  o.scale_rows);
  if (o.nbits == 8 && o.scale_rows < 32) {
    log_warning("--scale-rows {}: the 8-bit scale is set from so few samples that much of the data may clip",
                o.scale_rows);
  }
  FASTPSR_EXPECTS(parse_fftw_effort(o.fftw).has_value(), "--fftw '{}' is not one of estimate, measure, patient",
                  o.fftw);
  if (o.output == "-" && ::isatty(STDOUT_FILENO) == 1) {
    usage_error("refusing to write binary data to a terminal: give -o FILE or pipe the output");
  }

  // The device is chosen and a GPU's context created (a few hundred ms) on another thread while
  // the input is opened (from a pipe: while its writer starts too) and the plan is made.
  DeviceWarmup warmup(o.common.device);
  std::optional<RawVoltageOptions> raw;
  // Raw samples carry no sky frequency: without --fcentre the band would sit at 0 MHz, a
  // filterbank that no later step can dedisperse.
  FASTPSR_EXPECTS(o.format.empty() || o.fcentre > 0.0,
                  "raw input needs --fcentre, the band's centre frequency in MHz (a positive number)");
  if (!o.format.empty()) {
    // The fine channels' centres reach from fcentre - |bw|/2 to below fcentre + |bw|/2: a band
    // that reaches 0 MHz gave a filterbank that dedisp refuses (channel frequencies not positive).
    const double bw = o.bw != 0.0 ? std::abs(o.bw) : o.tsamp > 0.0 ? 1e-6 / o.tsamp : 0.0;
    if (o.fcentre - bw / 2.0 <= 0.0) {
      usage_error(
          fmt::format("--fcentre {} MHz with a bandwidth of {} MHz: the band reaches down to {} MHz, and "
                      "frequencies must stay positive",
                      o.fcentre, bw, o.fcentre - bw / 2.0));
    }
    raw = RawVoltageOptions{};
    raw->type = parse_voltage_type(o.format);
    raw->npol = o.npol;
    raw->fcentre_mhz = o.fcentre;
    raw->bw_mhz = o.bw;
    raw->tsamp_s = o.tsamp;
    raw->source_name = o.source_name;
  }
  auto reader = open_voltage_reader(open_source(o.input), raw);
  set_error_file(reader->name());
  protect_input(o.input);  // -o raw.dada must not replace raw.dada
  VoltageInfo info = reader->info();
  if (raw && info.format != "raw") {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("the input is {} (with its own header); --format is for raw input only", info.format),
                reader->name());
  }
  if (!o.source_name.empty()) info.source_name = o.source_name;
  if (o.tstart) {
    info.tstart_mjd = *o.tstart;
  } else if (!info.has_tstart) {
    log_warning("{}: no start time in the input; tstart is MJD 0 (give --tstart)", reader->name());
  }
  p.ncoarse = info.ncoarse;
  p.npol = info.npol;
  p.input = info.type;
  // Filterbanks run from high to low frequency (foff < 0); complex output keeps the input's sense.
  p.descending = !o.complex_out && info.chan_bw_mhz > 0.0;
  const ChanneliserPlan plan = make_channeliser_plan(p);
  if (info.nsamples) check_sample_count(*info.nsamples, plan, o.drop_partial, reader->name());

  const DeviceChoice device = warmup.get();
  log_verbose("device: {}", device.description);
  ChanneliserOptions copt;
  copt.gpu_config = parse_key_values(o.gpu_config);
  copt.cpu_config = parse_key_values(o.cpu_config);
  copt.use_tuning = !o.no_tuning;
  copt.gulp_samples = o.gulp * static_cast<std::size_t>(o.channels);
  copt.fftw_effort = *parse_fftw_effort(o.fftw);
  const cpu::FftwWisdomFile wisdom(o.wisdom, copt.fftw_effort, device.backend == Backend::cpu);
  times.plan = seconds_since(t_start);
  auto ch = timed(times.channeliser, [&] { return make_channeliser(plan, copt, device); });
  log_verbose("input: {} {}, {} coarse channel{} x {} polarisation{}, tsamp {} s, channel bandwidth {} MHz",
              info.format, to_string(info.type), info.ncoarse, info.ncoarse == 1 ? "" : "s", info.npol,
              info.npol == 1 ? "" : "s", info.tsamp_s, info.chan_bw_mhz);
  log_verbose("plan: {} channels x {} taps ({}), {} output channels, {}", plan.nchans(), plan.ntaps(),
              o.coeffs.empty() ? fmt::format("{} window, fwidth {}", to_string(p.window), p.fwidth) : o.coeffs,
              plan.out_channels(),
              o.complex_out ? std::string("complex float32")
                            : fmt::format("{} summed over {} spectra, {}-bit", o.detect, p.nint, o.nbits));
  log_verbose("{}", ch->describe());
  // The input is read into the channeliser's own buffers where it has any (a GPU's page-locked
  // memory, uploaded without a copy), else into two of ours.
  const std::size_t gulp = ch->gulp_samples();
  const std::size_t gulp_bytes = gulp * info.time_sample_bytes();
  std::vector<std::uint8_t*> buffers = ch->input_buffers(2, gulp_bytes);
  const PpfMemory mem = plan_ppf_memory(*ch, plan, info, buffers.empty(), reader->held_bytes(), o);
  log_verbose("memory: host {:.1f} MiB in all: {}; device {:.1f} MiB", static_cast<double>(mem.total()) / 1048576.0,
              mem.describe(true), static_cast<double>(ch->device_bytes()) / 1048576.0);
  {
    // Refused here, before the output is made, the buffers allocated or any data read.
    std::vector<std::string> hint;
    if (mem.scaling > 0 && mem.scaling >= mem.total() / 4) {
      hint.push_back(fmt::format("a smaller --scale-rows (now {}: the rows until then are held, {} bytes each)",
                                 o.scale_rows, plan.row_floats() * sizeof(float)));
    }
    if (hint.empty() || mem.channeliser + mem.input >= mem.total() / 4) {
      hint.push_back(fmt::format("a smaller --gulp (now {} spectra)", gulp / static_cast<std::size_t>(plan.nchans())));
    }
    check_host_memory(mem.total(), mem.describe(false),
                      "use " + hint.front() + (hint.size() > 1 ? " or " + hint.back() : std::string()), reader->name());
  }

  std::unique_ptr<ByteSink> sink;
  std::unique_ptr<FilterbankWriter> fil;
  std::optional<PowerQuantiser> quantiser;
  if (o.complex_out) {
    sink = open_sink(o.output);
    const bool dada_name = std::filesystem::path(o.output).extension() == ".dada";
    if (!dada_name && !o.dada) {
      // Bare floats are what a custom reader wants, but neither ppf nor header can read them back.
      log_info(
          "{}: headerless complex float32 ([channel][pol][re, im] per spectrum); a .dada name or --dada "
          "adds the PSRDADA header that ppf reads back",
          o.output == "-" ? std::string("stdout") : o.output);
    }
    if (dada_name || o.dada) {
      const auto header = encode_dada_header(make_ppf_dada_header(info, plan));
      sink->write(header.data(), header.size());
    }
  } else {
    const SigprocHeader h = make_ppf_filterbank_header(
        info, plan, o.nbits,
        o.input == "-" ? std::string("stdin") : std::filesystem::path(o.input).filename().string());
    fil = std::make_unique<FilterbankWriter>(open_sink(o.output), h);
    if (o.nbits == 8) quantiser.emplace(plan.row_floats(), o.scale_rows);
  }
  std::vector<std::uint8_t> packed;
  std::uint64_t rows_written = 0;
  auto write_rows = [&](const ChanneliserBlock& b) {
    if (b.empty()) return;
    rows_written += b.nrows;
    if (sink) {
      sink->write(b.data, b.nrows * b.row_floats * sizeof(float));
    } else if (quantiser) {
      packed.clear();
      quantiser->push(b.data, b.nrows, packed);
      fil->write_packed(packed.data(), packed.size() / b.row_floats);
    } else {
      fil->write_float(b.data, b.nrows);
    }
  };

  Progress progress("ppf", reader->size_bytes().value_or(0));
  times.setup = seconds_since(t_start);
  const auto t0 = Clock::now();
  std::uint64_t nsamples = 0;
  {
    // The next gulp is read while this one is channelised (from here on the reader is used by
    // the reading thread only, until the loop ends).
    auto read = [&](std::uint8_t* dst) { return reader->read(dst, gulp); };
    auto position = [&] { return reader->position_bytes(); };
    std::optional<ReadAhead> reading;
    if (buffers.empty()) {
      reading.emplace(gulp_bytes, read, position);
    } else {
      reading.emplace(std::move(buffers), read, position);
    }
    ReadAhead& ahead = *reading;
    for (;;) {
      const ReadAhead::Chunk chunk = timed(times.read_wait, [&] { return ahead.next(); });
      if (chunk.n == 0) break;
      nsamples += chunk.n;
      // Coarse channel f starts at f·gulp samples.
      const ChanneliserBlock rows = timed(times.channelise, [&] { return ch->push(chunk.data, chunk.n, gulp); });
      timed(times.output, [&] { write_rows(rows); });
      progress.update(chunk.position);
    }
  }
  for (;;) {
    const ChanneliserBlock rows = timed(times.channelise, [&] { return ch->flush(); });
    if (rows.empty()) break;
    timed(times.output, [&] { write_rows(rows); });
  }
  const double stream = seconds_since(t0);
  const auto t_finish = Clock::now();
  check_sample_count(nsamples, plan, o.drop_partial, reader->name());
  const std::uint64_t spectra = nsamples / static_cast<std::uint64_t>(plan.nchans());
  const std::uint64_t unused = spectra - static_cast<std::uint64_t>(plan.ntaps() - 1) -
                               plan.rows_for_samples(nsamples) * static_cast<std::uint64_t>(plan.spectra_per_row());
  if (unused > 0) log_warning("the last {} spectra do not fill an integration of --nint {}: dropped", unused, p.nint);
  if (nsamples % static_cast<std::uint64_t>(plan.nchans()) != 0) {
    log_warning("the last {} samples do not fill a spectrum: dropped",
                nsamples % static_cast<std::uint64_t>(plan.nchans()));
  }
  if (quantiser) {
    packed.clear();
    quantiser->finish(packed);
    fil->write_packed(packed.data(), packed.size() / plan.row_floats());
  }
  if (sink) {
    sink->commit();
  } else {
    fil->commit();
  }
  progress.finish();
  wisdom.save();
  times.finish = seconds_since(t_finish);
  const double secs = seconds_since(t0);
  log_verbose(
      "{} samples per channel in, {} output samples out, {:.2f} s: {:.3g} complex samples/s ({:.2f}x real time)",
      nsamples, rows_written, secs, static_cast<double>(nsamples) * info.ncoarse * info.npol / std::max(secs, 1e-9),
      static_cast<double>(nsamples) * info.tsamp_s / std::max(secs, 1e-9));
  log_verbose(
      "time: {:.3f} s from the start to the output completed: set-up {:.3f} s (input and plan {:.3f}, channeliser "
      "made {:.3f}), stream {:.3f} s (waiting for the reader {:.3f}, channelising {:.3f}, output {:.3f}), output "
      "completed {:.3f} s",
      seconds_since(t_start), times.setup, times.plan, times.channeliser, stream, times.read_wait, times.channelise,
      times.output, times.finish);
  return kExitOk;
}

}  // namespace
}  // namespace fastpsr::app

int main(int argc, char** argv) { return fastpsr::app::run_tool("ppf", argc, argv, fastpsr::app::run); }
