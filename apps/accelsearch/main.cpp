// SPDX-License-Identifier: MIT
// accelsearch: PRESTO-compatible Fourier-domain acceleration search with harmonic summing.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/device_warmup.hpp"
#include "common/option_checks.hpp"
#include "common/tool_main.hpp"
#include "fastpsr/accel_backends.hpp"
#include "fastpsr/accel_search.hpp"
#include "fastpsr/accel_sift.hpp"
#include "fastpsr/byte_stream.hpp"
#include "fastpsr/cpu/fftw_planning.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/host_memory.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/work_part.hpp"
#include "input.hpp"
#include "sift_files.hpp"
#include "trials.hpp"

namespace fastpsr::app {
namespace {

constexpr const char* kExamples = R"(
Examples:
  accelsearch -zmax 200 -numharm 8 obs_DM56.70.dat       # PRESTO's command, PRESTO's outputs
  accelsearch -zmax 0 -numharm 16 obs_DM56.70.fft        # a PRESTO .fft (with its .inf)
  accelsearch --zmax 50 out/obs_DM*.dat -o cands         # many DMs, then cands.csv + cands.txt
  accelsearch -zmax 200 --interbin --device gpu obs.tim  # SIGPROC .tim, FDAS interbinning, GPU
  dedisp obs.fil --dm 0:100:0.5 --format tim-stream | accelsearch - -o cands
                                                         # a stream of DM trials from stdin
  accelsearch -zmax 200 --part $SLURM_ARRAY_TASK_ID/8 out/obs_DM*.dat   # one eighth of the trials
  accelsearch --sift out/obs_DM*_ACCEL_200 -o cands      # then one table of every part's trials

Outputs per input: <root>_ACCEL_<zmax> (text), <root>_ACCEL_<zmax>.cand (binary), and for .fft
input <root>_ACCEL_<zmax>.txtcand, as PRESTO writes them (stream records: <out>_DM<dm>_ACCEL_*,
with a <out>_DM<dm>.inf). With several inputs, a stream, or -o, the candidates of all DM trials
are sifted into <out>.csv and <out>.txt. --sift sifts ACCEL files written before (ours or
PRESTO's) the same way, without searching. -o - writes the table's CSV to stdout (no .txt).
)";

struct Options {
  CommonOptions common;
  AccelConfig config;
  std::vector<std::string> inputs;
  std::string out = "cands";
  bool sift_requested = false;
  bool sift_only = false;
  std::string part;
  SiftOptions sift;
  double sift_short_period_ms = 0.5;
  int ncpus = 0;
  int wmax = 0;
  int fft_len = 0;
  bool interbin = false;
  bool locpow = false;
  bool photon = false;
  bool median = false;
  bool no_dered = false;
  std::string dered_given;  // the first --dered-* option given, if any
  int dered_start = 0;      // --dered-*, as given (the defaults depend on the input: dered_options)
  int dered_end = 0;
  double dered_endfreq = 0;
  bool inmem = false;
  std::string plane_memory;  // GiB, as given
  bool plane_memory_given = false;
  bool otheropt = false;
  bool noharmpolish = false;
  bool noharmremove = false;
  bool serial = false;
  int trial_threads = 0;
  int dm_prec = 2;
  long long lobin = 0;
  std::string norm;
  std::string gpu_config;
  bool no_tuning = false;
  bool host_fft = false;
  std::string fftw = "measure";
  std::string wisdom;
  // NaN: not given (a negative bin is refused by the plan, not taken as "not given").
  double rlo = std::numeric_limits<double>::quiet_NaN();
  double rhi = std::numeric_limits<double>::quiet_NaN();
};

void add_options(CLI::App& app, Options& o) {
  AccelConfig& c = o.config;
  app.add_option("inputs", o.inputs,
                 "Input .dat/.sdat/.fft (with .inf beside), SIGPROC .tim, or - (a tim-stream on stdin)")
      ->required();
  app.add_option("--zmax", c.zmax, "Largest |z| (Fourier bins drifted) searched, at most 1000000; rounded up to even")
      ->capture_default_str()
      ->check(number_in(0, kMaxZmax, "give 0 to 1000000 bins"));
  app.add_option("--numharm", c.numharm, "Harmonics summed at most: 1, 2, 4, 8, 16 or 32")->capture_default_str();
  // 1e6 sigma is a summed power of about 5e11 times the noise's: more is no threshold a search
  // needs, and past about 1e154 the statistics failed ("chi2_q_inverse_log: need a finite ln q").
  app.add_option("--sigma", c.sigma, "Candidate threshold (Gaussian sigma after trials), above 0 and at most 1e6")
      ->capture_default_str()
      ->check(number_in(0, 1e6, "give a sigma above 0 and at most 1e6", Ends::above_lo));
  // A range outside the spectrum or empty is refused by the plan, which names the bins and the
  // spectrum's; NaN and infinities here (NaN is --rlo's and --rhi's "not given": -rlo nan searched
  // from -flo, -fhi inf to the top).
  app.add_option("--flo", c.flo_hz, "Lowest frequency (Hz) of the highest harmonic searched")
      ->capture_default_str()
      ->check(finite_number());
  app.add_option("--fhi", c.fhi_hz, "Highest frequency (Hz) of the highest harmonic searched")
      ->capture_default_str()
      ->check(finite_number());
  app.add_option("--rlo", o.rlo, "Lowest Fourier bin searched (overrides --flo)")->check(finite_number());
  app.add_option("--rhi", o.rhi, "Highest Fourier bin searched (overrides --fhi)")->check(finite_number());
  app.add_option("--wmax", o.wmax, "Jerk search (not implemented yet: must be 0)");
  app.add_option("--lobin", o.lobin, "First Fourier bin of a .fft (PRESTO's option; only 0 is supported)")
      ->capture_default_str();
  app.add_option("--zaplist", c.zaplist, "Birdies to zap: lines 'freq_hz width_hz' (PRESTO .zaplist)");
  app.add_option("--baryv", c.baryv, "Average barycentric velocity (v/c, between -1 and 1) for the zaplist")
      ->capture_default_str()
      ->check(number_in(-1, 1, "give a velocity v/c between -1 and 1", Ends::open));
  app.add_option("--ncpus", o.ncpus, "CPU threads, at most 1024 (default: all)")->check(thread_count());
  app.add_flag("--inmem", o.inmem,
               "Keep the whole f-fdot plane in memory whatever its size (PRESTO's -inmem; see --plane-memory)");
  app.add_option("--plane-memory", o.plane_memory,
                 "CPU search: GiB the f-fdot plane may take; a larger one is searched in blocks that recompute the "
                 "sub-harmonics (PRESTO's default search: the same candidates, in about 1.2-3x the time); 0: no "
                 "limit (default: half the memory this process may use: RAM, cgroup limit or ulimit -v)");
  app.add_flag("--otheropt", o.otheropt, "Accepted for PRESTO compatibility (no effect)");
  app.add_flag("--median", o.median, "Block-median power normalisation (the default)");
  app.add_flag("--locpow", o.locpow, "Local-power normalisation (double top-hat of 20 bins)");
  app.add_flag("--photon", o.photon,
               "Normalise by the photon count (bin 0) of a photon-counting (Poisson) series; no de-reddening");
  app.add_option("--norm", o.norm, "Normalisation: block-median, local-power, photon or none");
  app.add_flag("--noharmpolish", o.noharmpolish, "Optimise each harmonic on its own");
  app.add_flag("--noharmremove", o.noharmremove, "Keep harmonically related candidates");
  app.add_flag("--no-deredden", o.no_dered, "Do not de-redden (PRESTO's accelsearch on a .fft does not)");
  app.add_option("--dered-start", o.dered_start, "De-reddening: first block length (bins; default 6)");
  app.add_option("--dered-end", o.dered_end,
                 "De-reddening: longest block length (bins; default 200 for a time series, as PRESTO's accelsearch, "
                 "100 for a .fft, as its rednoise)");
  app.add_option("--dered-endfreq", o.dered_endfreq,
                 "De-reddening: frequency (Hz) where blocks stop growing (default: Nyquist for a time series, 6 for a "
                 ".fft)")
      ->check(not_negative_number("give a frequency of 0 Hz or more"));
  app.add_flag("--full-range", o.config.full_range,
               "Search up to fhi/rhi (PRESTO, and so the default, stops at its last whole block below it)");
  app.add_flag("--interbin", o.interbin, "Interbinning after correlation (FDAS) instead of Fourier interpolation");
  app.add_option("--fft-len", o.fft_len, "Overlap-save FFT length (complex points; default: automatic)")
      ->check(not_negative());
  app.add_option("--gpu-config", o.gpu_config,
                 "GPU kernel settings key=value,... (path=cufft|custom, fft_len, batch); they override the tuned ones");
  app.add_flag("--no-tuning", o.no_tuning, "Ignore the tuning database (written by `tune accel`)");
  app.add_option("--fftw", o.fftw,
                 "CPU search: FFTW planning of the correlations, estimate, measure or patient (measured plans are "
                 "kept in --wisdom, so that later runs use the same plans and give the same bits)")
      ->capture_default_str();
  app.add_option("--wisdom", o.wisdom,
                 "FFTW wisdom file ('none' to skip); default $XDG_CACHE_HOME/fastpsr/fftwf-wisdom, else "
                 "~/.cache/fastpsr/fftwf-wisdom");
  app.add_flag("--serial", o.serial,
               "One trial at a time, and a new searcher whenever the series length changes (the behaviour before "
               "2026-11-26; for timing comparisons)");
  app.add_flag("--host-fft", o.host_fft,
               "With a GPU: Fourier transform the time series on the host (FFTW, as --device cpu does) rather "
               "than by cuFFT on the GPU");
  app.add_option("--trial-threads", o.trial_threads,
                 "DM trials read and prepared, and optimised and written, at once (each; default: half the cores, at "
                 "most 8, with a GPU; 1 on the CPU, whose search uses every core)")
      ->check(CLI::Range(1, 64));
  app.add_option("-o,--output", o.out,
                 "Sifted candidate table prefix: <out>.csv and <out>.txt ('-': the CSV table on stdout and no .txt; "
                 "not with a stream)")
      ->capture_default_str();
  app.add_option("--dm-prec", o.dm_prec,
                 "Decimals of the DM in the names of a tim-stream's outputs (<out>_DM<dm>; as dedisp's --dm-prec)")
      ->check(CLI::Range(0, 6))
      ->capture_default_str();
  app.add_option("--part", o.part,
                 "i/n: search only DM trials i, i+n, i+2n, ... of the inputs (or of the stream's records), for job "
                 "arrays; the part's table is <out>_part<i>of<n>.csv/.txt; sift every part's ACCEL files together "
                 "afterwards with --sift");
  app.add_flag("--sift", o.sift_only,
               "The inputs are ACCEL text files (<root>_ACCEL_<zmax>, ours or PRESTO's): sift them into <out>.csv "
               "and <out>.txt, as ACCEL_sift.py does, without searching (e.g. the ACCEL files of a --part job array)");
  // ACCEL_sift.py's settings, which its users edit at the top of the script.
  auto* sifting = "Sifting across DM trials (ACCEL_sift.py's settings)";
  SiftOptions& f = o.sift;
  app.add_option("--sift-sigma", f.sigma_threshold, "Lowest sigma kept (ACCEL_sift.py sigma_threshold)")
      ->capture_default_str()
      ->check(not_negative_number("give a sigma of 0 or more"))
      ->group(sifting);
  app.add_option("--sift-cpow", f.c_pow_threshold,
                 "One-harmonic candidates need this coherent power too (c_pow_threshold)")
      ->capture_default_str()
      ->check(not_negative_number("give a power of 0 or more"))
      ->group(sifting);
  app.add_option("--sift-harm-pow", f.harm_pow_cutoff, "Lowest power of the strongest harmonic (harm_pow_cutoff)")
      ->capture_default_str()
      ->check(not_negative_number("give a power of 0 or more"))
      ->group(sifting);
  app.add_option("--sift-r-err", f.r_err, "Fourier bins within which candidates are the same (r_err)")
      ->capture_default_str()
      ->check(number_in(0, 1e6, "give bins above 0 and at most 1e6", Ends::above_lo))
      ->group(sifting);
  app.add_option("--sift-min-period", o.sift_short_period_ms, "Shortest period kept, ms (short_period, in s there)")
      ->capture_default_str()
      ->check(not_negative_number("give a period of 0 ms or more"))
      ->group(sifting);
  app.add_option("--sift-max-period", f.long_period_s, "Longest period kept, s (long_period)")
      ->capture_default_str()
      ->check(positive_number("give a period above 0 s"))
      ->group(sifting);
  app.add_option("--sift-min-dms", f.min_num_dms,
                 "DM trials a candidate must be found in (min_num_DMs; 1 keeps single-DM candidates)")
      ->capture_default_str()
      ->check(number_in(1, 1e9, "give 1 or more DM trials"))
      ->group(sifting);
  app.add_option("--sift-low-dm", f.low_dm_cutoff,
                 "Candidates whose best DM is at most this are dropped (low_DM_cutoff)")
      ->capture_default_str()
      ->check(finite_number())
      ->group(sifting);
  add_common_options(app, o.common, true);
}

// -o -: the sifted table's CSV goes to stdout and no summary file is written (QA pass 21: "-o -"
// wrote files named "-.csv" and "-.txt").
bool table_on_stdout(const std::string& out) { return out == "-"; }

// Opens the sifted table's sinks (<out>.csv and <out>.txt, or stdout alone for -o -).
void open_table_sinks(const std::string& out, std::unique_ptr<ByteSink>& csv_sink,
                      std::unique_ptr<ByteSink>& txt_sink) {
  if (table_on_stdout(out)) {
    csv_sink = open_sink("-");
    return;
  }
  csv_sink = open_sink(out + ".csv");
  txt_sink = open_sink(out + ".txt");
}

// Writes the sifted table of `inputs` to <out>.csv and <out>.txt (or its CSV to stdout for -o -)
// through the sinks opened before the work (opened now where they were not).
void write_sift_tables(const std::vector<SiftInput>& inputs, const SiftOptions& options, const std::string& out,
                       std::unique_ptr<ByteSink>& csv_sink, std::unique_ptr<ByteSink>& txt_sink) {
  const SiftResult sifted = sift_candidates(inputs, options);
  auto write_table = [](std::unique_ptr<ByteSink>& sink, const std::string& path, const std::string& text) {
    if (!sink) sink = open_sink(path);
    sink->write(text.data(), text.size());
    sink->commit();
  };
  if (table_on_stdout(out)) {
    write_table(csv_sink, "-", format_sift_csv(sifted));
    log_info("{} sifted candidates from {} DM trials (the CSV table on stdout)", sifted.candidates.size(),
             inputs.size());
    return;
  }
  write_table(csv_sink, out + ".csv", format_sift_csv(sifted));
  write_table(txt_sink, out + ".txt", format_sift_summary(sifted));
  log_info("{} sifted candidates from {} DM trials in {}.csv and {}.txt", sifted.candidates.size(), inputs.size(), out,
           out);
}

// accelsearch --sift: ACCEL files searched before, sifted across their DM trials.
int run_sift(const Options& o) {
  if (!o.part.empty()) usage_error("--part splits a search: --sift reads the ACCEL files of every part at once");
  if (std::find(o.inputs.begin(), o.inputs.end(), "-") != o.inputs.end()) {
    usage_error("--sift reads ACCEL text files (<root>_ACCEL_<zmax>), not a stream");
  }
  std::unique_ptr<ByteSink> csv_sink;
  std::unique_ptr<ByteSink> txt_sink;
  open_table_sinks(o.out, csv_sink, txt_sink);
  std::vector<SiftInput> inputs = read_accel_files(o.inputs);
  const std::size_t files = inputs.size();
  const std::size_t more = add_trials_without_candidates(o.inputs, inputs);
  log_verbose("--sift: {} ACCEL files, and {} DM trials without candidates from the .inf files beside them", files,
              more);
  write_sift_tables(inputs, o.sift, o.out, csv_sink, txt_sink);
  return kExitOk;
}

AccelConfig finish_config(Options& o) {
  AccelConfig c = o.config;
  if (o.wmax != 0) usage_error("--wmax: jerk searches are not implemented yet");
  if (o.lobin != 0) {
    usage_error(fmt::format("--lobin {}: spectra that start above bin 0 are not supported (only PRESTO's default, 0)",
                            o.lobin));
  }
  if (!parse_fftw_effort(o.fftw)) {
    usage_error(fmt::format("--fftw '{}' is not one of estimate, measure, patient", o.fftw));
  }
  if (o.inmem && o.plane_memory_given) usage_error("-inmem and --plane-memory: choose one");
  c.threads = o.ncpus;
  if (!std::isnan(o.rlo)) c.rlo = o.rlo;
  if (!std::isnan(o.rhi)) c.rhi = o.rhi;
  if (o.interbin) c.interp = AccelInterp::interbin;
  const int picked = int(o.locpow) + int(o.photon) + int(o.median) + int(!o.norm.empty());
  if (picked > 1) usage_error("choose one normalisation: -median, -locpow, -photon or --norm");
  if (o.locpow) c.norm = AccelNorm::local_power;
  if (o.photon) c.norm = AccelNorm::photon;
  if (!o.norm.empty()) {
    static const std::map<std::string, AccelNorm> names{{"block-median", AccelNorm::block_median},
                                                        {"local-power", AccelNorm::local_power},
                                                        {"photon", AccelNorm::photon},
                                                        {"none", AccelNorm::none}};
    const auto it = names.find(o.norm);
    if (it == names.end())
      usage_error("--norm must be block-median, local-power, photon or none, got '" + o.norm + "'");
    c.norm = it->second;
  }
  c.deredden = !o.no_dered;
  if (c.norm == AccelNorm::photon) {
    // The photon count normalises the raw powers of Poisson data (unit mean); a de-reddened
    // spectrum has unit mean already and its bin 0 is no longer the count (QA pass 15).
    const char* photon = o.photon ? "-photon" : "--norm photon";
    if (!o.dered_given.empty()) {
      usage_error(
          fmt::format("{} and {}: the photon normalisation takes the spectrum as it is (bin 0 is the photon "
                      "count), without de-reddening; choose one",
                      photon, o.dered_given));
    }
    c.deredden = false;
    log_verbose("normalisation: by the photon count (bin 0 of each spectrum), without de-reddening ({})", photon);
  }
  c.harmonic_polishing = !o.noharmpolish;
  c.harmonic_removal = !o.noharmremove;
  check_accel_config(c);  // before any input is read: a bad option is a usage error (status 2)
  return c;
}

// The CPU search's plane memory in bytes (0: no limit), from -inmem / --plane-memory, with -v
// saying where it comes from.
std::size_t plane_memory_limit(const Options& o) {
  constexpr double gib = 1073741824.0;
  if (o.inmem) {
    log_verbose("plane memory: no limit (-inmem)");
    return 0;
  }
  if (!o.plane_memory_given) {
    const HostMemoryLimit usable = host_memory_limit();
    log_verbose("plane memory: at most {:.3f} GiB, half of the {:.3f} GiB this process may use ({}; --plane-memory)",
                static_cast<double>(usable.bytes / 2) / gib, static_cast<double>(usable.bytes) / gib, usable.source);
    return std::max<std::size_t>(usable.bytes / 2, 1);
  }
  const char* text = o.plane_memory.c_str();
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || errno != 0 || !std::isfinite(value) || value < 0.0) {
    usage_error(fmt::format("--plane-memory must be a number of GiB >= 0, got '{}'", o.plane_memory));
  }
  if (value == 0.0 || value >= 1e9) {  // a billion GiB is no machine's limit (and would overflow)
    log_verbose("plane memory: no limit (--plane-memory {})", o.plane_memory);
    return 0;
  }
  log_verbose("plane memory: at most {:.3f} GiB (--plane-memory)", value);
  return std::max<std::size_t>(static_cast<std::size_t>(value * gib), 1);
}

int run(int argc, char** argv) {
  CLI::App app{"Fourier-domain acceleration search with harmonic summing (PRESTO-compatible)", "accelsearch"};
  app.footer(kExamples);
  Options o;
  add_options(app, o);
  const std::vector<std::string> single_dash{
      "zmax",  "numharm", "sigma",    "flo",    "fhi",    "rlo",    "rhi",          "wmax",         "zaplist", "baryv",
      "ncpus", "inmem",   "otheropt", "median", "locpow", "photon", "noharmpolish", "noharmremove", "lobin"};
  parse(app, normalize_single_dash(argc, argv, single_dash));
  apply_common_options(o.common);
  o.sift.short_period_s = 1e-3 * o.sift_short_period_ms;
  if (o.sift_only) return run_sift(o);
  o.sift_requested = app.count("--output") > 0;
  o.plane_memory_given = app.count("--plane-memory") > 0;
  for (const char* name : {"--dered-start", "--dered-end", "--dered-endfreq"}) {
    if (o.dered_given.empty() && app.count(name) > 0) o.dered_given = name;
  }
  if (app.count("--dered-start") > 0) o.config.dered_startwidth = o.dered_start;
  if (app.count("--dered-end") > 0) o.config.dered_endwidth = o.dered_end;
  if (app.count("--dered-endfreq") > 0) o.config.dered_endfreq_hz = o.dered_endfreq;
  const AccelConfig config = finish_config(o);
  // The sifted table's files are created now (as temporaries, renamed once written), so that an
  // -o that cannot be written fails before the search, not after it (QA pass 16, P15).
  const bool streaming = o.inputs.size() == 1 && o.inputs[0] == "-";
  // Several inputs, a stream or -o: a sifted table (of this part's trials, with --part).
  const bool sift_table = o.inputs.size() > 1 || o.sift_requested || streaming;
  if (streaming && table_on_stdout(o.out)) {
    usage_error(
        "-o -: a stream's DM trials are written to <prefix>_DM<dm>_ACCEL_<zmax> files, so -o needs a prefix here "
        "(the table goes to stdout with -o - only for input files)");
  }
  std::optional<WorkPart> part;
  if (!o.part.empty()) {
    part = parse_work_part(o.part);
    if (!streaming) {
      std::vector<std::string> mine;
      for (std::size_t j = 0; j < o.inputs.size(); ++j) {
        if (in_part_round_robin(j, *part)) mine.push_back(o.inputs[j]);
      }
      if (mine.empty()) {
        usage_error(fmt::format("--part {}/{}: there are {} inputs, too few for {} parts: this part has none",
                                part->index, part->count, o.inputs.size(), part->count));
      }
      log_verbose("DM trials: {}: {} of the {} inputs", part->describe(), mine.size(), o.inputs.size());
      o.inputs = std::move(mine);
    }
  }
  // Each part's table has a name of its own, so that the parts of a job array can run one
  // command line that differs only in --part.
  const std::string table = table_on_stdout(o.out) ? o.out : o.out + (part ? part->name_suffix() : std::string());
  std::unique_ptr<ByteSink> csv_sink;
  std::unique_ptr<ByteSink> txt_sink;
  if (sift_table) open_table_sinks(table, csv_sink, txt_sink);
  // A GPU's context (a few hundred ms) is created on another thread while the first trials are
  // read and transformed.
  DeviceWarmup warmup(o.common.device);
  const DeviceChoice device = warmup.get();
  log_verbose("device: {}", device.description);
  AccelSearchOptions sopts;
  sopts.threads = o.ncpus;
  sopts.fft_len = o.fft_len;
  if (!o.gpu_config.empty()) sopts.gpu_config = parse_key_values(o.gpu_config);
  sopts.use_tuning = !o.no_tuning;
  sopts.fftw_effort = *parse_fftw_effort(o.fftw);
  const cpu::FftwWisdomFile wisdom(o.wisdom, sopts.fftw_effort, device.backend == Backend::cpu);
  sopts.plane_memory = plane_memory_limit(o);

  TrialSettings settings;
  settings.config = config;
  settings.search = sopts;
  settings.device = device;
  settings.serial = o.serial;
  // One input file: its trial's line says what was found and where; with many, the final line
  // does, and a trial without candidates is named only with -v.
  settings.single_input = !streaming && o.inputs.size() == 1;
  // DM trials are searched in batches of `batch` spectra (search_batch: a GPU backend keeps them
  // on the device together); the CPU searcher takes one at a time.
  if (const auto it = sopts.gpu_config.find("batch"); it != sopts.gpu_config.end() && device.backend != Backend::cpu) {
    settings.batch = static_cast<std::size_t>(std::max(1, std::stoi(it->second)));
  }
  // A GPU searches a trial in tens of ms, the host prepares one (read, normalisation; the real
  // FFT is the GPU's) or optimises its candidates in about a tenth of a second on one core:
  // several of each at once, half the cores for each stage, at most 8 (96 trials of 2^22
  // samples on an H200 with 16 cores: 2 / 4 / 8 / 12 threads 6.2 / 4.0-4.1 / 3.1 / 3.0 s). The
  // CPU searcher uses every core itself.
  if (o.trial_threads > 0) {
    settings.stage_threads = o.trial_threads;
  } else if (device.backend != Backend::cpu) {
    const int cores = o.ncpus > 0 ? o.ncpus : static_cast<int>(std::thread::hardware_concurrency());
    settings.stage_threads = std::clamp(cores / 2, 1, 8);
  }
  // Time series are Fourier transformed where they are searched: DM trials have lengths FFTW
  // transforms slowly and plans under one lock (man accelsearch).
  const RealFft fft = make_real_fft(device, o.host_fft);
  std::optional<AccelStreamInput> stream;
  TrialSource source;
  if (streaming) {
    stream.emplace("-", o.out, fft, o.dm_prec, part.value_or(WorkPart{}));
    source.next = [&] { return stream->next(); };
  } else {
    source.count = o.inputs.size();
    source.read_file = [&](std::size_t i) { return read_accel_input(o.inputs[i], fft); };
  }
  const std::vector<SiftInput> sift_inputs = run_trials(source, settings);
  wisdom.save();
  if (streaming && sift_inputs.empty()) {
    // A pipe whose writer failed before its first record (`dedisp missing.fil ... | accelsearch -`)
    // must not look like a search that found nothing. stdin is "<stdin>" here, as in the readers'
    // messages and the other tools'.
    if (part && part->index > 1) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("--part {}/{}: the stream held fewer than {} records: this part has none", part->index,
                              part->count, part->index),
                  "<stdin>");
    }
    throw Error(ErrorCode::format, "no time series on the input: an empty stream (did the command before it fail?)",
                "<stdin>");
  }
  if (sift_table) write_sift_tables(sift_inputs, o.sift, table, csv_sink, txt_sink);
  return kExitOk;
}

}  // namespace
}  // namespace fastpsr::app

int main(int argc, char** argv) { return fastpsr::app::run_tool("accelsearch", argc, argv, fastpsr::app::run); }
