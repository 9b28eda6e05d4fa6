// SPDX-License-Identifier: MIT
// accelsearch: PRESTO-compatible Fourier-domain acceleration search with harmonic summing.
#include <algorithm>
#include <chrono>
#include <complex>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/progress.hpp"
#include "common/tool_main.hpp"
#include "fastpsr/accel_backends.hpp"
#include "fastpsr/accel_output.hpp"
#include "fastpsr/accel_search.hpp"
#include "fastpsr/accel_sift.hpp"
#include "fastpsr/byte_stream.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/log.hpp"
#include "input.hpp"

namespace fastpsr::app {
namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

constexpr const char* kExamples = R"(
Examples:
  accelsearch -zmax 200 -numharm 8 obs_DM56.70.dat       # PRESTO's command, PRESTO's outputs
  accelsearch -zmax 0 -numharm 16 obs_DM56.70.fft        # a PRESTO .fft (with its .inf)
  accelsearch --zmax 50 out/obs_DM*.dat -o cands         # many DMs, then cands.csv + cands.txt
  accelsearch -zmax 200 --interbin --device gpu obs.tim  # SIGPROC .tim, FDAS interbinning, GPU
  dedisp obs.fil --dm 0:100:0.5 --format tim-stream | accelsearch - -o cands
                                                         # a stream of DM trials from stdin

Outputs per input: <root>_ACCEL_<zmax> (text), <root>_ACCEL_<zmax>.cand (binary), and for .fft
input <root>_ACCEL_<zmax>.txtcand, as PRESTO writes them (stream records: <out>_DM<dm>_ACCEL_*,
with a <out>_DM<dm>.inf). With several inputs, a stream, or -o, the candidates of all DM trials
are sifted into <out>.csv and <out>.txt.
)";

struct Options {
  CommonOptions common;
  AccelConfig config;
  std::vector<std::string> inputs;
  std::string out = "cands";
  bool sift_requested = false;
  int ncpus = 0;
  int wmax = 0;
  int fft_len = 0;
  bool interbin = false;
  bool locpow = false;
  bool photon = false;
  bool median = false;
  bool no_dered = false;
  bool inmem = false;
  bool otheropt = false;
  bool noharmpolish = false;
  bool noharmremove = false;
  std::string norm;
  std::string gpu_config;
  bool no_tuning = false;
  double rlo = -1;
  double rhi = -1;
};

void add_options(CLI::App& app, Options& o) {
  AccelConfig& c = o.config;
  app.add_option("inputs", o.inputs,
                 "Input .dat/.sdat/.fft (with .inf beside), SIGPROC .tim, or - (a tim-stream on stdin)")
      ->required();
  app.add_option("--zmax", c.zmax, "Largest |z| (Fourier bins drifted) searched; rounded up to even")
      ->capture_default_str();
  app.add_option("--numharm", c.numharm, "Harmonics summed at most: 1, 2, 4, 8, 16 or 32")->capture_default_str();
  app.add_option("--sigma", c.sigma, "Candidate threshold (Gaussian sigma after trials)")->capture_default_str();
  app.add_option("--flo", c.flo_hz, "Lowest frequency (Hz) of the highest harmonic searched")->capture_default_str();
  app.add_option("--fhi", c.fhi_hz, "Highest frequency (Hz) of the highest harmonic searched")->capture_default_str();
  app.add_option("--rlo", o.rlo, "Lowest Fourier bin searched (overrides --flo)");
  app.add_option("--rhi", o.rhi, "Highest Fourier bin searched (overrides --fhi)");
  app.add_option("--wmax", o.wmax, "Jerk search (not implemented yet: must be 0)");
  app.add_option("--zaplist", c.zaplist, "Birdies to zap: lines 'freq_hz width_hz' (PRESTO .zaplist)");
  app.add_option("--baryv", c.baryv, "Average barycentric velocity (v/c) for the zaplist")->capture_default_str();
  app.add_option("--ncpus", o.ncpus, "CPU threads (default: all)");
  app.add_flag("--inmem", o.inmem, "Accepted for PRESTO compatibility (the plane is always kept in memory)");
  app.add_flag("--otheropt", o.otheropt, "Accepted for PRESTO compatibility (no effect)");
  app.add_flag("--median", o.median, "Block-median power normalisation (the default)");
  app.add_flag("--locpow", o.locpow, "Local-power normalisation (double top-hat of 20 bins)");
  app.add_flag("--photon", o.photon, "Normalise by the photon count (bin 0)");
  app.add_option("--norm", o.norm, "Normalisation: block-median, local-power, photon or none");
  app.add_flag("--noharmpolish", o.noharmpolish, "Optimise each harmonic on its own");
  app.add_flag("--noharmremove", o.noharmremove, "Keep harmonically related candidates");
  app.add_flag("--no-deredden", o.no_dered, "Do not de-redden (PRESTO's accelsearch on a .fft does not)");
  app.add_option("--dered-start", c.dered.startwidth, "De-reddening: first block length (bins)")->capture_default_str();
  app.add_option("--dered-end", c.dered.endwidth, "De-reddening: longest block length (bins)")->capture_default_str();
  app.add_option("--dered-endfreq", c.dered.endfreq_hz, "De-reddening: frequency (Hz) where blocks stop growing")
      ->capture_default_str();
  app.add_flag("--full-range", o.config.full_range,
               "Search up to fhi/rhi (PRESTO, and so the default, stops at its last whole block below it)");
  app.add_flag("--interbin", o.interbin, "Interbinning after correlation (FDAS) instead of Fourier interpolation");
  app.add_option("--fft-len", o.fft_len, "Overlap-save FFT length (complex points; default: automatic)");
  app.add_option("--gpu-config", o.gpu_config,
                 "GPU kernel settings key=value,... (path=cufft|custom, fft_len, batch); they override the tuned ones");
  app.add_flag("--no-tuning", o.no_tuning, "Ignore the tuning database (written by `tune accel`)");
  app.add_option("-o,--output", o.out, "Sifted candidate table prefix: <out>.csv and <out>.txt")->capture_default_str();
  add_common_options(app, o.common, true);
}

AccelConfig finish_config(Options& o) {
  AccelConfig c = o.config;
  if (o.wmax != 0) usage_error("--wmax: jerk searches are not implemented yet");
  if (o.ncpus < 0) usage_error(fmt::format("--ncpus must be >= 0, got {}", o.ncpus));
  c.threads = o.ncpus;
  if (o.rlo >= 0) c.rlo = o.rlo;
  if (o.rhi >= 0) c.rhi = o.rhi;
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
  c.harmonic_polishing = !o.noharmpolish;
  c.harmonic_removal = !o.noharmremove;
  return c;
}

void write_text(const std::string& path, const std::string& text) {
  auto sink = open_sink(path);
  sink->write(text.data(), text.size());
  sink->commit();
}

// Writes PRESTO's files for one input; returns the ACCEL text (empty when there are no candidates).
std::string write_outputs(const AccelInput& in, const AccelPlan& plan, const AccelResult& r,
                          const PreparedSpectrum& spec) {
  const std::string base = in.root + "_" + plan.suffix();
  if (in.write_inf && !std::filesystem::exists(in.root + ".inf")) write_text(in.root + ".inf", in.inf_text);
  if (in.from_fft) write_text(base + ".txtcand", r.txtcand);
  if (r.candidates.empty()) {
    log_info("{}: no candidates above sigma {:.2f}", in.path, plan.config.sigma);
    return {};
  }
  AccelTextInfo info;
  info.T_s = plan.T_s;
  info.nph = spec.nph;
  info.inf_text = in.inf_text;
  info.artificial = in.inf.telescope.rfind("None", 0) == 0;
  std::string text = format_accel_text(r.candidates, info);
  write_text(base, text);
  const auto bytes = format_cand_records(r.candidates);
  write_all(base + ".cand", bytes);
  return text;
}

int run(int argc, char** argv) {
  CLI::App app{"Fourier-domain acceleration search with harmonic summing (PRESTO-compatible)"};
  app.footer(kExamples);
  Options o;
  add_options(app, o);
  const std::vector<std::string> single_dash{
      "zmax",  "numharm", "sigma", "flo",      "fhi",    "rlo",    "rhi",    "wmax",         "zaplist",
      "baryv", "ncpus",   "inmem", "otheropt", "median", "locpow", "photon", "noharmpolish", "noharmremove"};
  parse(app, normalize_single_dash(argc, argv, single_dash));
  apply_common_options(o.common);
  o.sift_requested = app.count("--output") > 0;
  const AccelConfig config = finish_config(o);
  const DeviceChoice device = choose_device(o.common);
  AccelSearchOptions sopts;
  sopts.threads = o.ncpus;
  sopts.fft_len = o.fft_len;
  if (!o.gpu_config.empty()) sopts.gpu_config = parse_key_values(o.gpu_config);
  sopts.use_tuning = !o.no_tuning;

  std::unique_ptr<FdotSearcher> searcher;
  std::vector<SiftInput> sift_inputs;
  const bool streaming = o.inputs.size() == 1 && o.inputs[0] == "-";
  Progress progress("accelsearch", streaming ? 0 : o.inputs.size());
  std::uint64_t done = 0;
  // DM trials are searched in batches of `batch` spectra of one plan (search_batch: a GPU backend
  // keeps them on the device together); the CPU searcher takes one at a time.
  std::size_t batch = 1;
  if (const auto it = sopts.gpu_config.find("batch"); it != sopts.gpu_config.end() && device.backend != Backend::cpu) {
    batch = static_cast<std::size_t>(std::max(1, std::stoi(it->second)));
  }
  struct Pending {
    AccelInput in;
    AccelPlan plan;
    PreparedSpectrum spec;
    AccelCandidateList list;
    Clock::time_point t0;
  };
  std::vector<Pending> pending;
  auto flush = [&] {
    if (pending.empty()) return;
    const AccelPlan& plan = pending.front().plan;
    const auto t1 = Clock::now();
    if (pending.size() == 1) {
      searcher->search(pending[0].spec.search.bins, pending[0].spec.power_scale(), pending[0].list);
    } else {
      const auto n = static_cast<std::size_t>(plan.problem.numbins);
      std::vector<std::complex<float>> spectra(n * pending.size());
      std::vector<AccelPowerScale> scales;
      std::vector<AccelHitSink*> sinks;
      for (std::size_t b = 0; b < pending.size(); ++b) {
        std::copy(pending[b].spec.search.bins.begin(), pending[b].spec.search.bins.end(),
                  spectra.begin() + static_cast<std::ptrdiff_t>(b * n));
        scales.push_back(pending[b].spec.power_scale());
        sinks.push_back(&pending[b].list);
      }
      searcher->search_batch(spectra.data(), n, scales, sinks);
    }
    const double search_s = seconds(t1, Clock::now()) / static_cast<double>(pending.size());
    for (Pending& p : pending) {
      const auto t2 = Clock::now();
      const AccelResult result = finish_candidates(p.plan, p.list, p.spec);
      const std::string text = write_outputs(p.in, p.plan, result, p.spec);
      log_verbose(
          "{}: {} hits, {} candidates ({} harmonics removed); prepare {:.3f} s, search {:.3f} s, "
          "optimise and write {:.3f} s",
          p.in.path, result.hits, result.candidates.size(), result.harmonics_removed, seconds(p.t0, t1), search_s,
          seconds(t2, Clock::now()));
      const std::string accel_name = std::filesystem::path(p.in.root + "_" + p.plan.suffix()).filename().string();
      sift_inputs.push_back(text.empty() ? SiftInput{p.in.inf.dm, {}}
                                         : sift_input_from_accel_text(text, accel_name, p.in.inf.dm));
      progress.update(++done);
    }
    pending.clear();
  };
  auto search_one = [&](AccelInput in) {
    const auto t0 = Clock::now();
    AccelPlan plan = make_accel_plan(config, static_cast<std::int64_t>(in.fft.size()), in.inf.N * in.inf.dt);
    if (!searcher || searcher->problem().numbins != plan.problem.numbins ||
        searcher->problem().powcut != plan.problem.powcut || searcher->problem().rk_begin != plan.problem.rk_begin ||
        searcher->problem().rk_end != plan.problem.rk_end) {
      flush();
      searcher.reset();
      searcher = make_fdot_searcher(plan.problem, sopts, device);
      log_verbose("plan: r {}..{} bins ({:.3f}..{:.3f} Hz), z -{}..{}, {} harmonics, thresholds {}", plan.rlo, plan.rhi,
                  plan.rlo / plan.T_s, plan.rhi / plan.T_s, plan.problem.zmax, plan.problem.zmax, plan.problem.numharm,
                  fmt::join(plan.problem.powcut, " "));
      log_verbose("searcher: {}", searcher->describe());
      log_verbose("memory: {:.1f} MiB host, {:.1f} MiB device; batch of {} spectra",
                  static_cast<double>(searcher->host_bytes()) / 1048576.0,
                  static_cast<double>(searcher->device_bytes()) / 1048576.0, batch);
    }
    PreparedSpectrum spec = prepare_spectrum(std::move(in.fft), plan, !in.from_fft);
    AccelCandidateList list = make_candidate_list(plan, in.from_fft);
    pending.push_back({std::move(in), std::move(plan), std::move(spec), std::move(list), t0});
    if (pending.size() >= batch) flush();
  };
  if (streaming) {
    AccelStreamInput stream("-", o.out);
    while (auto in = stream.next()) search_one(std::move(*in));
  } else {
    for (const std::string& path : o.inputs) search_one(read_accel_input(path));
  }
  flush();
  progress.finish();
  if (sift_inputs.size() > 1 || o.sift_requested || streaming) {
    const SiftResult sifted = sift_candidates(sift_inputs, SiftOptions{});
    write_text(o.out + ".csv", format_sift_csv(sifted));
    write_text(o.out + ".txt", format_sift_summary(sifted));
    log_info("{} sifted candidates from {} DM trials in {}.csv and {}.txt", sifted.candidates.size(),
             sift_inputs.size(), o.out, o.out);
  }
  return kExitOk;
}

}  // namespace
}  // namespace fastpsr::app

int main(int argc, char** argv) { return fastpsr::app::run_tool("accelsearch", argc, argv, fastpsr::app::run); }
