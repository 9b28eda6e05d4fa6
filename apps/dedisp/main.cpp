// SPDX-License-Identifier: MIT
// dedisp: incoherent dedispersion of a SIGPROC filterbank (file or stdin) over many DM trials,
// streamed in gulps, to PRESTO .dat/.inf, SIGPROC .tim, a .tim record stream or a DM-time
// filterbank. Flags -> plans -> backend -> stream loop -> outputs.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <future>
#include <iostream>
#include <numeric>
#include <optional>
#include <thread>

#include "common/device_warmup.hpp"
#include "common/option_checks.hpp"
#include "common/phase_timer.hpp"
#include "common/progress.hpp"
#include "common/tool_main.hpp"
#include "fastpsr/backends.hpp"
#include "fastpsr/baseline.hpp"
#include "fastpsr/channel_mask.hpp"
#include "fastpsr/dedisp.hpp"
#include "fastpsr/dedisp_backend.hpp"
#include "fastpsr/dedisp_subbands.hpp"
#include "fastpsr/dm_plan.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/file_sequence.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/host_memory.hpp"
#include "fastpsr/if_choice.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/presto_subbands.hpp"
#include "fastpsr/psrfits.hpp"
#include "fastpsr/quantize.hpp"
#include "fastpsr/read_ahead.hpp"
#include "fastpsr/sample_mask.hpp"
#include "fastpsr/sigproc_view.hpp"
#include "fastpsr/time_clip.hpp"
#include "fastpsr/work_part.hpp"
#include "fastpsr/worker_team.hpp"
#include "fastpsr/zero_dm.hpp"
#include "outputs.hpp"
#include "subband_feed.hpp"

namespace fastpsr::app {
namespace {

constexpr const char* kExamples = R"(Examples:
  dedisp obs.fil --dm 0:1000:0.5 -o out/obs          PRESTO out/obs_DM0.00.dat/.inf ... _DM1000.00
  dedisp obs.fil --dm-plan auto --dm-max 2000 -o out/obs   DDplan-style ranges with downsampling
  dedisp obs.fil --dm-plan show --dm-max 2000        print the automatic plan as a table
  dedisp obs.fil -d 56.7 > obs.tim                   one DM, SIGPROC .tim on stdout (dedisperse style)
  dedisp obs.sf --dm 0:100:0.5 -o out/obs            search-mode PSRFITS, read as float32 intensity
  dedisp puppi_*_000[1-4].fits --dm 0:100:0.5 -o out/obs   one observation in four files, read as one
  cat obs.fil | dedisp - --dm 0:100:1 --format tim-stream | accelsearch -
  dedisp obs.fil --dm-list dms.txt --kill-chans 0:40,800:823 --baseline median:4096 -o out/obs
  dedisp obs.fil -d 474 --baseline sigproc --delay-model sigproc -o frb.tim   as SIGPROC dedisperse
  dedisp obs.fil --dm 0:500:1 --format fil -B 8 -o dmtime.fil                 DM-time quick look
  dedisp obs.fil -d 56.7 --subbands 32 -o sub.fil     32 subbands dedispersed at DM 56.7 (dedisperse -b 32)
  dedisp iquv.fil --if 0 --dm 0:100:1 -o out/obs     Stokes I of a four-IF filterbank (ppf --detect IQUV)
  dedisp obs.fil -d 30 --subbands 32 --format sub -o obs   obs_DM30.00.sub00..31 + .sub.inf (prepsubband -sub)
  dedisp obs_DM30.00.sub?? --dm 0:60:0.5 -o out/obs  dedisperse PRESTO subband files
  PRESTO flags work too: dedisp -lodm 58 -dmstep 0.3 -numdms 32 -nobary -o iso iso.fil
  dedisp obs.fil --dm-plan auto --part $SLURM_ARRAY_TASK_ID/8 -o out/obs    one eighth of the trials

Output holds, for each DM, exactly the samples whose every channel has data (N - max delay at
that DM, in output samples): no padding. The plain sum over channels is written unless
--baseline says otherwise. See man dedisp for the delay models and the edge rules.)";

// The most DM trials of a --dm range (parse_dm_range), and so of --numdms.
constexpr double kMaxDmTrials = 1e7;

struct Options {
  std::vector<std::string> inputs;  // one file, or the files of a PRESTO subband set
  std::string input;                // the first of them
  bool runavg = false;              // PRESTO subband input: prepsubband -runavg
  std::string dm_range;
  std::optional<double> single_dm;
  std::string dm_list;
  std::string dm_plan;
  double dm_min = 0.0;
  double dm_max = 1000.0;
  double dm_tol = 1.25;
  int plan_nsub = 0;
  double lodm = -1.0;
  double dmstep = 1.0;
  int numdms = 0;
  int downsample = 1;
  int downsample_after = 1;
  int nsub = 0;
  std::string subbands;
  std::string output;
  std::string format;
  int nbits_out = 32;
  bool downsample_mean = false;
  bool even = false;
  std::uint64_t numout = 0;
  std::string delay_model;
  std::string baseline = "none";
  bool nobaseline = false;
  std::string kill_chans;
  std::string ignore_file;
  std::string mask;
  double clip = 0.0;
  bool noclip = false;
  bool zero_dm = false;
  bool invert = false;      // the data's channels in the opposite order to the header's (PRESTO's -invert)
  bool no_weights = false;  // PSRFITS: PRESTO's -noweights, -noscales, -nooffsets
  bool no_scales = false;
  bool no_offsets = false;
  std::string ifs = "auto";  // which IFs or polarisations (PRESTO's -if)
  std::uint64_t start = 0;
  double start_fraction = -1.0;         // PRESTO's -start; < 0: not given
  std::string start_rounding = "none";  // none, prepdata or prepsubband (their reads)
  std::uint64_t nsamps = 0;
  int dm_prec = 2;
  std::size_t gulp = 0;
  int threads = 0;
  std::string cpu_config;
  std::string gpu_config;
  bool no_tuning = false;
  std::string tmpdir;
  bool nobary = false;
  std::string part;
  CommonOptions common;
};

void add_options(CLI::App& app, Options& o) {
  app.add_option("input", o.inputs,
                 "SIGPROC filterbank file (or search-mode PSRFITS file), or - for stdin; several such files of one "
                 "observation, in time order (a recorder's split output), read as one, gaps padded as PRESTO "
                 "pads them (between files, rows missing from PSRFITS); or the files of a PRESTO subband set "
                 "(obs_DM30.00.sub??, written by prepsubband -sub or --format sub)")
      ->required();
  auto* trials = "DM trials (one of these)";
  app.add_option("--dm", o.dm_range, "DM range lo:hi:step (hi included), or one DM")->group(trials);
  // One value: a vector took the input after it as a second DM (`dedisp -d 5 obs.fil`, QA pass 16, P5).
  app.add_option("-d", o.single_dm, "One DM (SIGPROC dedisperse -d)")->check(finite_number())->group(trials);
  app.add_option("--dm-list", o.dm_list, "File of DMs (whitespace or commas, # comments)")->group(trials);
  app.add_option("--dm-plan", o.dm_plan,
                 "auto: DDplan-style ranges between --dm-min and --dm-max; show: print that plan and exit")
      ->check(CLI::IsMember({"auto", "show"}))
      ->group(trials);
  // --lodm -1 and --numdms 0 would read as "not given" (the defaults), and --numdms is held to
  // the 10 million trials of a --dm range (it filled the memory instead).
  app.add_option("--lodm", o.lodm, "PRESTO prepsubband: lowest DM (with --dmstep, --numdms)")
      ->check(not_negative_number("give a DM of 0 or more"))
      ->group(trials);
  app.add_option("--dmstep", o.dmstep, "PRESTO prepsubband: DM step")
      ->check(positive_number("give a DM step above 0"))
      ->group(trials);
  app.add_option("--numdms", o.numdms, "PRESTO prepsubband: number of DMs")
      ->check(number_in(1, kMaxDmTrials, "give 1 to 10000000 DMs (as many as a --dm range may have)"))
      ->group(trials);
  app.add_option("--part", o.part,
                 "i/n: dedisperse only part i (1 to n) of the DM trials, a contiguous slice with about 1/n of the "
                 "work, for job arrays; the n parts together write exactly the files of the whole run")
      ->group(trials);
  auto* plan = "Automatic DM plan";
  app.add_option("--dm-min", o.dm_min, "Lowest DM of the plan")
      ->capture_default_str()
      ->check(not_negative_number("give a DM of 0 or more"))
      ->group(plan);
  app.add_option("--dm-max", o.dm_max, "Highest DM of the plan")
      ->capture_default_str()
      ->check(finite_number())
      ->group(plan);
  app.add_option("--dm-tol", o.dm_tol,
                 "Smearing tolerance: two time scales within this factor count as equal (DDplan.py uses 1.2)")
      ->capture_default_str()
      ->check(number_in(1, kNoLimit, "give a factor of 1 or more"))
      ->group(plan);
  app.add_option("--dm-plan-nsub", o.plan_nsub,
                 "Plan as DDplan.py -s N would for a prepsubband run with N subbands (to compare plans)")
      ->check(not_negative())
      ->group(plan);
  auto* out = "Output";
  app.add_option("-o,--output", o.output,
                 "Output root (dat; tim with several DMs) or file (tim with one DM, tim-stream, fil; - = stdout)")
      ->group(out);
  app.add_option("--format", o.format,
                 "dat (PRESTO .dat+.inf per DM), tim (SIGPROC .tim per DM), tim-stream (.tim records, one per DM, "
                 "on one stream), fil (DM-time filterbank) or sub (with --subbands: PRESTO's .sub<NN> files, as "
                 "prepsubband -sub). Default: from -o (.tim, .fil), dat with -o, else tim (one DM) or tim-stream on "
                 "stdout")
      ->group(out);
  app.add_option("-B,--nbits-out", o.nbits_out,
                 "Bits per output sample for tim and fil (dat and tim-stream are float32): 32 (float), 16 or 8 "
                 "(unsigned, scaled: median at "
                 "mid-range, +-8 sigma full scale, fitted on the first 16384 samples of each DM)")
      ->check(CLI::IsMember({8, 16, 32}))
      ->capture_default_str()
      ->group(out);
  // Beyond 15 digits a double's DM holds none: more only lengthen the names (2000000000 hung).
  app.add_option("--dm-prec,--dmprec", o.dm_prec, "Digits after the point of the DM in file names (0 to 15)")
      ->capture_default_str()
      ->check(number_in(0, 15, "give 0 to 15 digits"))
      ->group(out);
  app.add_flag("--even", o.even,
               "dat and tim: write an even number of samples per DM, dropping the last sample of an odd-length "
               "series, so that PRESTO's realfft and accelsearch accept every file (the .inf N matches the data)")
      ->group(out);
  app.add_option("--numout", o.numout,
                 "dat: exactly N samples per DM (PRESTO -numout): the first N, or the series padded with its mean "
                 "to N (the .inf's on/off pairs mark the padding)")
      ->check(number_in(1, std::uint64_t{1} << 40, "give a number of samples of 1 or more"))
      ->group(out);
  app.add_option("--subbands", o.subbands,
                 "N or all: at one DM, write N subbands of adjacent channels, each dedispersed to its own top (its "
                 "first channel with --delay-model sigproc), as a filterbank (SIGPROC dedisperse -b N) or with "
                 "--format sub as PRESTO's subband files (prepsubband -sub)")
      ->group(out);
  app.add_option("--tmpdir", o.tmpdir, "Where to spool series that cannot be written yet (default $TMPDIR or /tmp)")
      ->group(out);
  auto* proc = "Processing";
  app.add_option("--delay-model", o.delay_model,
                 "presto (PRESTO's constant, top channel centre, rounded) or sigproc (SIGPROC's constant, fch1, "
                 "truncated). Default: presto for dat and fil, sigproc for tim and tim-stream (presto where foff > 0)")
      ->check(CLI::IsMember({"presto", "sigproc"}))
      ->group(proc);
  app.add_option("--baseline", o.baseline,
                 "none (plain sum, PRESTO prepsubband), median:N (subtract the median of each block of N output "
                 "samples) or sigproc (SIGPROC dedisperse's default: blocks of 32*nchans, last block uses the "
                 "previous median)")
      ->capture_default_str()
      ->group(proc);
  app.add_flag("--nobaseline", o.nobaseline, "Same as --baseline none (SIGPROC dedisperse -nobaseline)")->group(proc);
  app.add_option("--kill-chans,--ignorechan", o.kill_chans,
                 "Channels to leave out: 0-based list/ranges '0:40,800:823', a file of them, or a SIGPROC killfile")
      ->group(proc);
  app.add_option("-i,--ignore-file", o.ignore_file, "SIGPROC dedisperse -i file: channels to leave out, from 1")
      ->group(proc);
  app.add_option("--mask", o.mask,
                 "PRESTO rfifind mask (obs_rfifind.mask): masked samples take their channel's average from the "
                 ".stats file beside it, as prepsubband -mask")
      ->group(proc);
  app.add_option("--clip", o.clip,
                 "Time-domain clipping at this many sigma, as PRESTO's prepsubband -clip (its default 6; dedisp's 0, "
                 "off): blocks of 2400 spectra, each spectrum whose zero-DM sum is further than sigma running "
                 "deviations from the running mean takes the channels' running averages")
      ->check(not_negative_number("give 0 (off) or a number of sigma above 0"))
      ->group(proc);
  app.add_flag("--noclip", o.noclip, "Same as --clip 0 (PRESTO's -noclip)")->group(proc);
  app.add_flag("--noweights,--no-weights", o.no_weights,
               "PSRFITS input: leave out DAT_WTS (every channel weight 1), as PRESTO's -noweights")
      ->group(proc);
  app.add_flag("--noscales,--no-scales", o.no_scales,
               "PSRFITS input: leave out DAT_SCL (scales 1), as PRESTO's -noscales")
      ->group(proc);
  app.add_flag("--nooffsets,--no-offsets", o.no_offsets,
               "PSRFITS input: leave out DAT_OFFS (offsets 0), as PRESTO's -nooffsets")
      ->group(proc);
  app.add_option("--if", o.ifs,
                 "Which IFs make the intensity: auto (one as it is, two summed, more refused; PSRFITS: total "
                 "intensity, AA+BB or Stokes I), sum (every IF; PSRFITS AA+BB), or N, IF or polarisation N alone "
                 "(from 0; PRESTO's -if)")
      ->capture_default_str()
      ->group(proc);
  app.add_flag("--zero-dm,--zerodm", o.zero_dm, "Subtract each spectrum's mean over kept channels first")->group(proc);
  app.add_option("--downsample,--downsamp", o.downsample,
                 "Sum this many input samples per output sample, delays rounded in output samples as prepsubband "
                 "(with --dm, -d, --dm-list, --lodm)")
      ->capture_default_str()
      ->group(proc);
  app.add_flag("--downsample-mean", o.downsample_mean,
               "Write the mean of the samples summed when downsampling (PRESTO's prepsubband), not their sum; with "
               "--downsample-after, the mean of those dedispersed samples (prepsubband -sub)")
      ->group(proc);
  app.add_flag("--runavg", o.runavg,
               "PRESTO subband input: subtract from each subband the mean of each block of 1024 samples (prepsubband "
               "-runavg)")
      ->group(proc);
  app.add_option("--downsample-after", o.downsample_after,
                 "Dedisperse at full resolution, then sum this many consecutive output samples (PRESTO's prepdata "
                 "-downsamp); a last partial group is dropped")
      ->capture_default_str()
      ->check(number_in(1, 1 << 20, "give a factor of 1 to 1048576"))
      ->group(proc);
  app.add_option("--nsub", o.nsub,
                 "presto delays rounded as prepsubband -nsub N does (two stages); default per channel, as prepdata "
                 "(without --downsample)")
      ->check(not_negative())
      ->group(proc);
  app.add_option("--start", o.start, "Input samples to skip first")->check(not_negative())->group(proc);
  app.add_option("--start-fraction", o.start_fraction,
                 "Skip this fraction of the input's samples first (0 to 1, PRESTO's -start): floor(F x N) samples, "
                 "or with --start-rounding rounded down as PRESTO does")
      ->check(number_in(0.0, 1.0, "a fraction of 0 to 1"))
      ->group(proc);
  app.add_option("--start-rounding", o.start_rounding,
                 "--start-fraction rounded down to whole reads of PRESTO's: prepdata (2400 spectra of a filterbank, "
                 "NSBLK of PSRFITS), prepsubband (those times 1 + the band's delay at the highest DM in samples / "
                 "them), or none (default)")
      ->check(CLI::IsMember({"none", "prepdata", "prepsubband"}))
      ->group(proc);
  app.add_option("--nsamps", o.nsamps, "Input samples to use (after --start; default all)")
      ->check(not_negative())
      ->group(proc);
  app.add_flag("--nobary", o.nobary, "Accepted for PRESTO compatibility: dedisp never barycentres")->group(proc);
  app.add_flag("--invert,--flip-band", o.invert,
               "The data's channels run opposite to the header's frequencies (PRESTO's -invert): channel c is taken "
               "at the frequency the header gives channel nchans-1-c")
      ->group(proc);
  auto* dev = "Backend";
  app.add_option("--gulp", o.gulp, "Input samples per step (default: from the backend's memory)")
      ->check(not_negative())
      ->group(dev);
  app.add_option("--threads", o.threads,
                 "CPU threads, at most 1024 (default: all); files are written by up to 8 of them")
      ->check(thread_count())
      ->group(dev);
  app.add_option("--cpu-config", o.cpu_config,
                 "CPU kernel settings: isa=avx512|avx2|generic,dm_block=1|4|8|16,dm_tile=N,time_tile=N,chan_block=N,"
                 "subbands=auto|on|off,sub_chunk=N,sub_block=N")
      ->group(dev);
  app.add_option("--gpu-config", o.gpu_config,
                 "GPU kernel settings key=value,... (see -v for the current ones); they override the tuned ones")
      ->group(dev);
  app.add_flag("--no-tuning", o.no_tuning, "Ignore the tuning database (written by `tune dedisp`)")->group(dev);
  add_common_options(app, o.common, true);
  app.footer(kExamples);
}

struct Range {
  std::vector<double> dms;
  int downsample = 1;
};

// The checks of the DM options that need no input: made before the input is opened, so that a
// usage error is reported as one (status 2) even when the input is missing too.
// Returns the --part, parsed once here (WorkPart{} for the whole run).
WorkPart check_dm_options(const Options& o) {
  const int sources = (!o.dm_range.empty() ? 1 : 0) + (o.single_dm ? 1 : 0) + (!o.dm_list.empty() ? 1 : 0) +
                      (!o.dm_plan.empty() ? 1 : 0) + (o.lodm >= 0.0 || o.numdms > 0 ? 1 : 0);
  if (sources != 1) {
    usage_error(
        fmt::format("give the DM trials{}: --dm lo:hi:step, -d DM, --dm-list FILE, --dm-plan auto, or "
                    "--lodm/--dmstep/--numdms{}",
                    sources == 0 ? "" : " once", sources == 0 ? " (none was given)" : ""));
  }
  FASTPSR_EXPECTS(o.downsample >= 1, "--downsample must be at least 1, got {}", o.downsample);
  FASTPSR_EXPECTS(o.dm_plan.empty() || o.downsample == 1,
                  "--downsample does not go with --dm-plan, which chooses it per range");
  if (o.downsample_after > 1 && (o.downsample > 1 || !o.dm_plan.empty())) {
    usage_error(
        "--downsample-after sums full-resolution samples (prepdata's way): it does not go with --downsample or "
        "--dm-plan");
  }
  if (!o.dm_range.empty()) (void)parse_dm_range(o.dm_range);
  if (o.single_dm) FASTPSR_EXPECTS(*o.single_dm >= 0.0, "-d {}: DMs are not negative", *o.single_dm);
  if (o.lodm >= 0.0 || o.numdms > 0) {
    FASTPSR_EXPECTS(o.lodm >= 0.0 && o.numdms > 0 && o.dmstep > 0.0,
                    "--lodm needs --numdms > 0 and --dmstep > 0 (got lodm {}, numdms {}, dmstep {})", o.lodm, o.numdms,
                    o.dmstep);
  }
  return o.part.empty() ? WorkPart{} : parse_work_part(o.part);
}

// --part i/n: this process's contiguous slice of the DM trials, cut so that each part has about
// the same work (a DM costs 1 / its range's downsampling: its output samples). The parts of a
// run tile its trials in order, so their files together are the whole run's.
std::vector<Range> select_part(const std::vector<Range>& all, const WorkPart& part) {
  std::vector<double> work;
  for (const auto& r : all) work.insert(work.end(), r.dms.size(), 1.0 / static_cast<double>(r.downsample));
  const auto [first, last] = part_slice(work, part);
  if (first == last) {
    usage_error(
        fmt::format("--part {}/{}: there are {} DM trials, too few for {} parts: this part has none (give "
                    "at most {} parts)",
                    part.index, part.count, work.size(), part.count, work.size()));
  }
  std::vector<Range> mine;
  std::size_t at = 0;
  for (const auto& r : all) {
    const std::size_t lo = std::clamp(first, at, at + r.dms.size()) - at;
    const std::size_t hi = std::clamp(last, at, at + r.dms.size()) - at;
    if (hi > lo) mine.push_back({std::vector<double>(r.dms.begin() + lo, r.dms.begin() + hi), r.downsample});
    at += r.dms.size();
  }
  return mine;
}

std::string describe_part(const std::vector<Range>& mine, std::size_t total, const WorkPart& part) {
  std::size_t n = 0;
  for (const auto& r : mine) n += r.dms.size();
  return fmt::format("{}: {} of the {} DM trials, DM {:g} to {:g}", part.describe(), n, total, mine.front().dms.front(),
                     mine.back().dms.back());
}

// Every DM trial of the options, in ranges of one downsampling each.
std::vector<Range> all_dm_ranges(const Options& o, const SigprocHeader& h, bool& show_only) {
  show_only = o.dm_plan == "show";
  if (!o.dm_plan.empty()) {
    DdplanOptions po;
    po.lo_dm = o.dm_min;
    po.hi_dm = o.dm_max;
    po.tolerance = o.dm_tol;
    po.nsub = o.plan_nsub;
    const DmPlanObservation obs = DmPlanObservation::from_header(h);
    const DmPlan plan = make_ddplan(obs, po);
    if (show_only) {
      std::fputs(format_ddplan(plan, obs, po, o.input).c_str(), stdout);
      std::printf("%zu DM trials in %zu range%s (tolerance %g%s)\n", plan.total_dms(), plan.steps.size(),
                  plan.steps.size() == 1 ? "" : "s", o.dm_tol,
                  o.plan_nsub > 0 ? fmt::format(", {} subbands as prepsubband would use", o.plan_nsub).c_str() : "");
    }
    std::vector<Range> r;
    for (const auto& s : plan.steps) r.push_back({s.dms(), s.downsample});
    return r;
  }
  Range r;
  r.downsample = o.downsample;
  if (!o.dm_range.empty()) r.dms = parse_dm_range(o.dm_range);
  if (o.single_dm) r.dms = {*o.single_dm};
  if (!o.dm_list.empty()) r.dms = read_dm_list(o.dm_list);
  if (o.lodm >= 0.0 || o.numdms > 0) {
    for (int i = 0; i < o.numdms; ++i) r.dms.push_back(o.lodm + i * o.dmstep);
  }
  return {r};
}

// The DM trials, in ranges of one downsampling each (check_dm_options() has passed); only
// those of --part when it is given. `total`: the whole run's number.
std::vector<Range> dm_ranges(const Options& o, const WorkPart& part, const SigprocHeader& h, bool& show_only,
                             std::size_t& total) {
  std::vector<Range> all = all_dm_ranges(o, h, show_only);
  total = 0;
  for (const auto& r : all) total += r.dms.size();
  if (part.whole()) return all;
  std::vector<Range> mine = select_part(all, part);
  if (show_only) std::printf("%s\n", describe_part(mine, total, part).c_str());
  log_verbose("DM trials: {}", describe_part(mine, total, part));
  return mine;
}

OutputFormat choose_format(const Options& o, std::size_t ndms) {
  if (!o.format.empty()) return parse_output_format(o.format);
  if (!o.subbands.empty()) return OutputFormat::fil;
  if (o.output.ends_with(".tim")) return OutputFormat::tim;
  if (o.output.ends_with(".fil")) return OutputFormat::fil;
  if (!o.output.empty() && o.output != "-") return OutputFormat::dat;
  return ndms == 1 ? OutputFormat::tim : OutputFormat::tim_stream;
}

std::string default_output(const Options& o, OutputFormat f, std::size_t ndms) {
  const bool root = f == OutputFormat::dat || f == OutputFormat::sub || (f == OutputFormat::tim && ndms > 1);
  if (f == OutputFormat::sub && o.output == "-") {
    usage_error("-o -: --format sub writes a set of files under a root name (root_DM<dm>.sub<NN>); give -o root");
  }
  if (root && o.output == "-") {
    usage_error(
        fmt::format("-o -: {} writes a file per DM under a root name, which stdout cannot be; for stdout "
                    "use --format tim-stream (every DM, one record each) or fil",
                    f == OutputFormat::dat ? "--format dat" : "--format tim with several DMs"));
  }
  if (root && !o.output.empty()) {
    // A root names files beside it: one that is a device or FIFO (`-o /dev/null` to time a run)
    // would make /dev/null_DM12.50.dat in /dev (QA pass 21).
    std::error_code ec;
    const std::filesystem::file_status st = std::filesystem::status(o.output, ec);
    if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st) &&
        !std::filesystem::is_directory(st)) {
      usage_error(fmt::format(
          "-o {}: is not a regular file (a device, FIFO or socket), but {} names a file per DM "
          "from it ({}_DM<dm>.dat); to discard the output, write one stream to it: "
          "--format tim-stream -o {}",
          o.output, f == OutputFormat::dat ? "--format dat" : "--format tim with several DMs", o.output, o.output));
    }
  }
  if (!o.output.empty()) return o.output;
  if (!root) return "-";
  if (o.input == "-") usage_error("reading stdin, the output root must be given with -o");
  if (is_presto_subband_name(o.input)) {
    // A subband set's root less its .sub and _DM<dm>: obs_DM30.00.sub00 -> obs (then obs_DM12.00.dat).
    std::string set_root = presto_subband_inf_root(o.input);
    set_root.resize(set_root.size() - 4);
    const std::size_t dm = set_root.rfind("_DM");
    if (dm != std::string::npos && dm + 3 < set_root.size() &&
        set_root.find_first_not_of("0123456789.", dm + 3) == std::string::npos) {
      set_root.resize(dm);
    }
    return set_root;
  }
  return std::filesystem::path(o.input).replace_extension().string();
}

// The sum of D consecutive dedispersed samples (--downsample-after) or the mean of D summed
// samples (--downsample-mean), then baseline removal, then scaling to 8/16 bits, then the
// output, for one series.
class SeriesChain {
 public:
  SeriesChain(Output& out, std::size_t index, const BaselineSpec& baseline, int nbits, int mean_of, int sum_of = 1)
      : out_(out), index_(index), mean_of_(mean_of), sum_of_(sum_of) {
    if (baseline.kind != BaselineSpec::Kind::none) {
      baseline_.emplace(baseline.block, baseline.kind == BaselineSpec::Kind::sigproc);
    }
    if (nbits != 32) quantizer_.emplace(nbits);
  }
  void push(const float* x, std::size_t n) {
    if (n == 0) return;
    if (sum_of_ > 1) {
      // float32, from 0 and in time order, as PRESTO's prepdata sums (its downsample()); a group
      // carries over from one block to the next.
      sums_.clear();
      for (std::size_t i = 0; i < n; ++i) {
        sum_ += x[i];
        if (++summed_ == sum_of_) {
          sums_.push_back(sum_);
          sum_ = 0.0F;
          summed_ = 0;
        }
      }
      if (sums_.empty()) return;
      x = sums_.data();
      n = sums_.size();
    }
    if (mean_of_ > 1) {
      // One division of each sum, as PRESTO's prepsubband divides its subbands' sums.
      means_.resize(n);
      const auto d = static_cast<float>(mean_of_);
      for (std::size_t i = 0; i < n; ++i) means_[i] = x[i] / d;
      x = means_.data();
    }
    if (baseline_) {
      baseline_->push(x, n, [this](const float* y, std::size_t m) { scale(y, m); });
    } else {
      scale(x, n);
    }
  }
  void finish() {
    if (baseline_) baseline_->finish([this](const float* y, std::size_t m) { scale(y, m); });
    if (quantizer_) quantizer_->finish([this](const std::uint8_t* b, std::size_t m) { put(b, m); });
  }
  [[nodiscard]] std::uint64_t written() const noexcept { return written_; }
  /// Memory one chain keeps for blocks of `block` samples: the means, the baseline's block and
  /// its copy for the median, the scaled bytes, and the scaling's warm-up samples where they
  /// take more than one block to gather.
  static std::size_t host_bytes(const BaselineSpec& baseline, int nbits, int mean_of, std::size_t block) {
    std::size_t bytes = mean_of > 1 ? block * sizeof(float) : 0;
    if (baseline.kind != BaselineSpec::Kind::none) bytes += 2 * baseline.block * sizeof(float);
    if (nbits != 32) {
      bytes += block * static_cast<std::size_t>(nbits / 8);
      if (block < SeriesQuantizer::kDefaultWarmup) bytes += (SeriesQuantizer::kDefaultWarmup + block) * sizeof(float);
    }
    return bytes;
  }

 private:
  void scale(const float* x, std::size_t n) {
    if (quantizer_) {
      quantizer_->push(x, n, [this](const std::uint8_t* b, std::size_t m) { put(b, m); });
    } else {
      put(reinterpret_cast<const std::uint8_t*>(x), n);
    }
  }
  void put(const std::uint8_t* b, std::size_t n) {
    out_.write(index_, b, n);
    written_ += n;
  }
  Output& out_;
  std::size_t index_;
  int mean_of_ = 1;
  int sum_of_ = 1;
  float sum_ = 0.0F;  // the group being summed, of summed_ samples
  int summed_ = 0;
  std::vector<float> means_;
  std::vector<float> sums_;
  std::optional<BlockMedianBaseline> baseline_;
  std::optional<SeriesQuantizer> quantizer_;
  std::uint64_t written_ = 0;
};

// Wall time of the run's phases on the main thread, for -v.
struct PhaseTimes {
  double setup = 0;        // input header, plans, dedisperser ready, outputs opened
  double plans = 0;        // of which: from the start to the plans made (header, DM trials, delays)
  double outputs = 0;      // of which: opening the outputs
  double device_wait = 0;  // of which: waiting for the dedisperser (context, buffers), made on another thread
  double read_wait = 0;    // waiting for the reader (the next gulp is read while one is dedispersed)
  double dedisp = 0;       // push and flush: copies to the backend and waiting for its blocks
  double output = 0;       // handing blocks to the outputs (baseline, scaling, writes)
  double finish = 0;       // completing the files (.inf, renames)
};

// The host memory a run plans, part by part: for -v, and for the check before the work.
struct HostMemory {
  struct Part {
    std::string name;
    std::size_t bytes = 0;
    std::string what;
  };
  std::vector<Part> parts;
  std::size_t ndms = 0;
  std::size_t per_dm = 0;   // what each DM trial adds: its output's buffers, delay table and block
  std::size_t history = 0;  // about what keeping the largest delay of every channel takes
  std::size_t input = 0;    // the buffers the input is read into

  [[nodiscard]] std::size_t total() const {
    std::size_t t = 0;
    for (const auto& p : parts) t += p.bytes;
    return t;
  }
  // -v: "dedisperser 125.0 MiB (the kernel line's), input 32.0 MiB (two gulps read ahead), ...", in
  // the kernel lines' unit; the error: "dedisperser 4.59 GiB, input 3.81 GiB, ...".
  [[nodiscard]] std::string describe(bool verbose) const {
    std::string text;
    for (const auto& p : parts) {
      text += fmt::format("{}{} ", text.empty() ? "" : ", ", p.name);
      text += verbose ? fmt::format("{:.1f} MiB ({})", static_cast<double>(p.bytes) / 1048576.0, p.what)
                      : format_bytes(p.bytes);
    }
    return text;
  }
  // What to lower: the parts that take a quarter of the total or more (all of them if none does).
  [[nodiscard]] std::string hint(const Options& o, std::size_t gulp, std::int32_t max_delay) const {
    const std::size_t quarter = total() / 4;
    const bool by_gulp = o.gulp > 0 || input >= quarter;
    const bool by_dms = per_dm * ndms >= quarter;
    const bool by_delay = history >= quarter;
    const bool all = !by_gulp && !by_dms && !by_delay;
    std::vector<std::string> h;
    if (by_gulp || all) h.push_back(fmt::format("a smaller --gulp (now {} samples)", gulp));
    if (by_dms || all) {
      h.push_back(fmt::format("fewer DMs a run (now {}, about {} each)", ndms, format_bytes(per_dm)));
    }
    if (by_delay || all) {
      h.push_back(fmt::format(
          "a lower highest DM or more downsampling (--downsample; its delay, {} samples, is kept for every channel)",
          max_delay));
    }
    std::string text = "use " + h.front();
    for (std::size_t i = 1; i < h.size(); ++i) text += (i + 1 == h.size() ? " or " : ", ") + h[i];
    return text;
  }
};

HostMemory plan_host_memory(const std::vector<DedispPlan>& plans, const std::vector<std::unique_ptr<Dedisperser>>& dds,
                            std::size_t gulp, std::size_t bytes_per_sample, const Options& o, const OutputOptions& oo,
                            const BaselineSpec& baseline, std::optional<std::uint64_t> nin) {
  HostMemory m;
  std::size_t dedisperser = 0;
  std::size_t tables = 0;
  std::size_t chains = 0;
  std::size_t block = 0;  // most output samples of a series at once
  std::uint64_t total_out = 0;
  const std::size_t out_bytes = oo.format == OutputFormat::dat || oo.format == OutputFormat::tim_stream
                                    ? 4
                                    : static_cast<std::size_t>(oo.nbits / 8);
  for (std::size_t r = 0; r < plans.size(); ++r) {
    const DedispPlan& p = plans[r];
    const std::size_t nk = static_cast<std::size_t>(p.nchans());
    const std::size_t range_block = dds[r]->gulp_samples() / static_cast<std::size_t>(p.downsample());
    dedisperser += dds[r]->host_bytes();
    tables += p.delays.size() * sizeof(std::int32_t) + p.dm_max_delay.size() * sizeof(std::int32_t) +
              p.ndms() * sizeof(double);
    chains += p.ndms() * SeriesChain::host_bytes(baseline, o.nbits_out,
                                                 o.downsample_mean ? p.downsample() : o.downsample_after, range_block);
    block = std::max(block, range_block);
    m.ndms += p.ndms();
    // The dedisperser's per-DM share: its copy of the delay table, its offsets and output block.
    m.per_dm += (2 * nk * sizeof(std::int32_t) + range_block * sizeof(float)) * p.ndms();
    const std::size_t elem = p.problem.input.nbits == 32 ? 4 : 2;
    m.history += 2 * nk * static_cast<std::size_t>(p.max_delay) * elem;
    if (nin) {
      for (std::size_t i = 0; i < p.ndms(); ++i) total_out += p.valid_samples(i, *nin) * out_bytes;
    }
  }
  const std::size_t input = 2 * gulp * bytes_per_sample +
                            (o.zero_dm ? gulp * static_cast<std::size_t>(plans.front().nchans()) * sizeof(float) : 0);
  const OutputMemory out =
      output_memory(oo, m.ndms, block, nin ? std::optional<std::uint64_t>(total_out) : std::nullopt);
  m.parts.push_back({"dedisperser", dedisperser, plans.size() > 1 ? "the ranges' kernel lines" : "the kernel line's"});
  m.parts.push_back(
      {"input", input, o.zero_dm ? "two gulps read ahead and the zero-DM filter's floats" : "two gulps read ahead"});
  // The channel frequencies and kept channels of each range's plan and of the input (9 B a
  // channel each): only millions of channels make them count (4,194,304: 36 MiB each).
  std::size_t channel_tables = 0;
  for (const DedispPlan& p : plans) {
    channel_tables += p.problem.input.chan_freq_mhz.size() * sizeof(double) + p.problem.keep.size();
  }
  channel_tables += channel_tables / std::max<std::size_t>(plans.size(), 1);
  m.parts.push_back({"DM plan", tables + channel_tables,
                     "the delay tables: 4 B a DM and channel; the channel frequencies: 9 B a channel a range"});
  std::string what = out.what;
  if (chains > 0) what += "; per DM: the baseline's, 8/16-bit scaling's or mean's samples";
  m.parts.push_back({"outputs", out.bytes + chains, what});
  // A spool is bounded whatever the number of DMs; files' buffers and blocks are per DM.
  m.per_dm += tables + chains + (out.per_series ? out.bytes : 0);
  m.per_dm /= std::max<std::size_t>(m.ndms, 1);
  m.input = input;
  return m;
}

// --subbands N|all: the number of subbands (0 without it), checked against the rest of the run.
// PRESTO's -start F (prepdata.c, prepsubband.c): offset = (long)(F N / worklen) worklen, in
// doubles, where worklen is what it reads at a time: the spectra of a PSRFITS row (NSBLK) or 2400
// of a filterbank (sigproc_fb.c) for prepdata; for prepsubband those times blocksperread =
// (int)(BW_ddelay / dt) / spectra + 1, BW_ddelay the dispersion delay across the band at its
// highest DM, `maxdm`. Without rounding: floor(F N).
std::uint64_t fraction_start(const Options& o, std::uint64_t nsamples, const SigprocHeader& h, double maxdm,
                             int psrfits_nsblk) {
  const double n = static_cast<double>(nsamples);
  if (o.start_rounding == "none") return static_cast<std::uint64_t>(std::floor(o.start_fraction * n));
  const double spectra =
      static_cast<double>(psrfits_nsblk > 0 ? static_cast<std::size_t>(psrfits_nsblk) : TimeClipper::kPrestoBlock);
  double worklen = spectra;
  if (o.start_rounding == "prepsubband") {
    const double f_lo = std::min(h.fch1, h.fch1 + (h.nchans - 1) * h.foff);
    const double f_hi = f_lo + (h.nchans - 1) * std::fabs(h.foff);
    const double bw_ddelay = dm_delay_s(DelayModel::presto, maxdm, f_lo, f_hi);
    const long long per_read = static_cast<long long>(spectra);
    worklen = spectra * static_cast<double>(static_cast<long long>(bw_ddelay / h.tsamp) / per_read + 1);
  }
  return static_cast<std::uint64_t>(static_cast<long long>(o.start_fraction * n / worklen)) *
         static_cast<std::uint64_t>(worklen);
}

int subband_count(const Options& o, const SigprocHeader& h, const std::vector<Range>& ranges, OutputFormat format) {
  if (o.subbands.empty()) return 0;
  int n = 0;
  if (o.subbands == "all") {
    n = h.nchans;
  } else {
    std::size_t used = 0;
    try {
      n = std::stoi(o.subbands, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != o.subbands.size() || n < 1) {
      usage_error(fmt::format("--subbands '{}': give a number of subbands (1 or more) or all", o.subbands));
    }
  }
  if (n > h.nchans) {
    // As prepsubband resets -nsub (its default 32 meets files of fewer channels; --nsub too).
    log_warning("--subbands {}: the file has {} channels: one subband a channel", n, h.nchans);
    n = h.nchans;
  }
  if (h.nchans % n != 0) {
    usage_error(fmt::format("--subbands {}: the {} channels do not split into {} subbands of equal size", o.subbands,
                            h.nchans, n));
  }
  if (ranges.size() != 1 || ranges.front().dms.size() != 1 || !o.dm_plan.empty()) {
    usage_error("--subbands dedisperses at one DM (-d DM, or a --dm range or list of one)");
  }
  if (format != OutputFormat::fil && format != OutputFormat::sub) {
    usage_error("--subbands writes a filterbank (--format fil) or PRESTO subband files (--format sub)");
  }
  if (o.nsub > 0) {
    usage_error("--subbands does not go with --nsub (prepsubband's two-stage rounding of summed DM trials)");
  }
  return n;
}

// Threads that write the series of one block at once: the page cache takes a few GB/s per
// thread, so one thread would make writing the slowest stage.
std::size_t writer_threads(int requested) {
  const std::size_t hw = std::max(1U, std::thread::hardware_concurrency());
  return std::min<std::size_t>(requested > 0 ? static_cast<std::size_t>(requested) : hw, 8);
}

int run(int argc, char** argv) {
  CLI::App app{"dedisp: incoherent dedispersion of a SIGPROC filterbank (or search-mode PSRFITS) over many DM trials",
               "dedisp"};
  Options o;
  add_options(app, o);
  const auto t_start = Clock::now();
  parse(app, normalize_single_dash(argc, argv,
                                   {"dm",     "lodm",       "dmstep",   "numdms",    "downsamp", "dmprec", "nobaseline",
                                    "zerodm", "ignorechan", "nobary",   "nsub",      "mask",     "numout", "clip",
                                    "noclip", "noweights",  "noscales", "nooffsets", "runavg",   "if"}));
  apply_common_options(o.common);
  const bool subband_input = std::any_of(o.inputs.begin(), o.inputs.end(), [](const std::string& f) {
    return is_presto_subband_name(f) || f.ends_with(".sub.inf");
  });
  // A subband set is named by its first subband file (the shell's root.sub* lists root.sub.inf
  // first, which would give the default output root).
  const auto first_sub = std::find_if(o.inputs.begin(), o.inputs.end(), is_presto_subband_name);
  o.input = subband_input && first_sub != o.inputs.end() ? *first_sub : o.inputs.front();
  if (o.runavg && !subband_input) usage_error("--runavg is for PRESTO subband input (.sub files), as prepsubband's");
  PhaseTimes times;
  if (o.nobaseline) o.baseline = "none";
  if (o.noclip) o.clip = 0.0;
  if (o.clip > 0.0 && o.zero_dm) {
    log_warning("--clip {} with --zero-dm: no clipping, as PRESTO turns it off with -zerodm", o.clip);
    o.clip = 0.0;
  }

  // The device is chosen, then a GPU's context created (a few hundred ms), on another thread
  // while the input is opened (from a pipe: while its writer starts too), the plans are made and
  // the outputs opened. --dm-plan show needs no device.
  const WorkPart part = check_dm_options(o);
  std::optional<DeviceWarmup> warmup;
  // --subbands under --device auto takes the CPU: one DM is read-bound on either, and the GPU's
  // subband dedispersers run one after another (H200 against its host's 16 cores, 4096
  // channels: 64 subbands 1.02 s against 0.59, 512: 2.07 against 0.99, bench/results
  // h200-session19.md and -session20.md).
  if (!o.subbands.empty() && o.common.device == "auto") {
    o.common.device = "cpu";
    log_verbose("--subbands: the CPU (faster than a GPU for subbands of one DM; --device gpu to choose it)");
  }
  if (o.dm_plan != "show") warmup.emplace(o.common.device);
  // A search-mode PSRFITS file is read as a float32 filterbank (sigproc_view.hpp).
  const PsrfitsScaling fits_scaling{!o.no_weights, !o.no_scales, !o.no_offsets};
  IfChoice if_choice;
  try {
    if_choice = parse_if_choice(o.ifs);
  } catch (const Error& e) {
    usage_error(fmt::format("--if: {}", e.what()));
  }
  InfRequest inf_fields;  // what a PSRFITS file or a .sub.inf says of itself, for the .inf files
  std::unique_ptr<ByteSource> source;
  int subband_files = 0;  // PRESTO subband input: the number of subbands
  if (subband_input) {
    auto subs = std::make_unique<PrestoSubbandReader>(o.inputs, o.runavg);
    subband_files = subs->nsub();
    inf_fields.source_inf = subs->inf();
    log_verbose(
        "{}: {} PRESTO subbands of a band of {} channels, dedispersed at DM {} (their .sub.inf), read as a "
        "float32 filterbank{}",
        subs->name(), subs->nsub(), subs->inf().num_chan, subs->inf().dm,
        o.runavg ? ", each block of 1024 samples less its mean (-runavg)" : "");
    // --nsamps ends the set there, so -runavg's last block takes nothing beyond it.
    if (o.nsamps > 0) subs->limit_samples(o.start + std::min(o.nsamps, UINT64_MAX - o.start));
    source = std::make_unique<SigprocFloatView>(std::move(subs));
    if (o.nsub > 0 && o.nsub != subband_files) {
      log_warning(
          "--nsub {} does not apply to subband input: its {} subbands are dedispersed as they are, as "
          "prepsubband does",
          o.nsub, subband_files);
    }
    o.nsub = 0;
    if (!o.mask.empty()) {
      usage_error("--mask does not go with PRESTO subband input: the mask's channels are the original band's");
    }
    if (if_choice.mode != IfChoice::Mode::automatic) {
      usage_error("--if does not go with PRESTO subband input: its subbands hold one IF");
    }
  } else if (o.inputs.size() > 1) {
    // Several files of one observation, in time order (a recorder's split output).
    source = open_sigproc_sequence(o.inputs, fits_scaling, if_choice);
  } else {
    source = open_sigproc_source(o.input, fits_scaling, if_choice);
  }
  bool is_psrfits = false;
  int psrfits_nsblk = 0;  // spectra a row: PRESTO's reads of a PSRFITS file (--start-rounding)
  if (const auto* view = dynamic_cast<const SigprocFloatView*>(source.get())) {
    const PsrfitsInfo* info = nullptr;
    if (const auto* fits = dynamic_cast<const PsrfitsReader*>(&view->spectra())) info = &fits->info();
    if (const auto* files = dynamic_cast<const PsrfitsSequence*>(&view->spectra())) info = &files->info();
    if (info != nullptr) {
      set_inf_fields_from_psrfits(*info, inf_fields);
      is_psrfits = true;
      psrfits_nsblk = info->nsblk;
    }
  }
  if (!is_psrfits && !fits_scaling.all()) {
    log_warning("{}: --noweights, --noscales and --nooffsets apply to PSRFITS input; this is {}", source->name(),
                subband_files > 0 ? "a set of PRESTO subband files" : "a SIGPROC filterbank");
  }
  auto reader = std::make_unique<FilterbankReader>(std::move(source));
  set_error_file(reader->name());
  for (const auto& in : o.inputs) protect_input(in);  // -o obs.fil --format fil must not replace obs.fil
  if (reader->header().is_time_series()) {
    throw Error(ErrorCode::format, "this is a time series (data_type 2), not a filterbank", reader->name());
  }
  // Input that holds no whole sample (after --start) is refused before any per-channel table is
  // built: the header may claim up to 2^30 channels over a few bytes of data (QA pass 16, P1),
  // and the tables would take GBs. A file's length says it; from a pipe, the first sample is
  // read ahead (that took 23 GB for a header of 2^29 channels and 100 bytes).
  const bool no_sample = reader->nsamples() ? *reader->nsamples() == 0 : !reader->has_whole_sample();
  if (no_sample || (reader->nsamples() && *reader->nsamples() <= o.start)) {
    if (no_sample) {
      const SigprocHeader& file = reader->header();
      throw Error(ErrorCode::format,
                  subband_files > 0
                      ? std::string("the subband files hold no sample")
                      : fmt::format("the data hold no whole sample ({} channels of {} bits each, {} IF{})", file.nchans,
                                    file.nbits, file.nifs, file.nifs == 1 ? "" : "s"),
                  reader->name());
    }
    throw Error(ErrorCode::invalid_argument,
                fmt::format("--start {}: the input holds only {} samples", o.start, *reader->nsamples()),
                reader->name());
  }
  // A SIGPROC file's IFs (a PSRFITS file's polarisations were chosen as it was opened).
  if (!is_psrfits && subband_files == 0) reader = combine_ifs(std::move(reader), if_choice);
  SigprocHeader h = reader->header();
  if (o.invert) {
    // The same channel frequencies, the other way round: data channel c at the header's channel
    // nchans - 1 - c (PRESTO flips the data; flipping the frequencies instead leaves every sum).
    if (!h.frequency_table.empty()) std::reverse(h.frequency_table.begin(), h.frequency_table.end());
    h.fch1 += (h.nchans - 1) * h.foff;
    h.foff = -h.foff;
    log_verbose("--invert: channel 0 taken at {} MHz, channel {} at {} MHz", h.fch1, h.nchans - 1,
                h.fch1 + (h.nchans - 1) * h.foff);
  }
  DedispInput input = DedispInput::from_header(h, reader->name());
  // A non-finite tstart is unknown: the outputs' epoch is 0, as a .tim input's is read
  // (timeseries_from_sigproc), not NaN in every .tim and .inf (QA pass 16, P2).
  SigprocHeader out_header = h;
  if (!std::isfinite(h.tstart)) {
    log_warning("{}: tstart is {}: the epoch is unknown, and the outputs' tstart is 0", reader->name(), h.tstart);
    out_header.tstart = 0.0;
  }

  bool show_only = false;
  std::size_t run_dms = 0;  // of the whole run: a --part names its outputs as the whole run does
  const std::vector<Range> ranges = dm_ranges(o, part, h, show_only, run_dms);
  if (show_only) return kExitOk;
  std::size_t ndms = 0;
  for (const auto& r : ranges) ndms += r.dms.size();
  if (o.start_fraction >= 0.0) {
    if (app.count("--start") > 0) usage_error("--start and --start-fraction both say where to start: give one");
    if (subband_files > 0) {
      usage_error("--start-fraction does not go with PRESTO subband input: give the samples to skip with --start");
    }
    if (!reader->nsamples()) {
      throw Error(ErrorCode::invalid_argument,
                  "--start-fraction needs the input's length, which a pipe does not tell: give --start",
                  reader->name());
    }
    // prepsubband's rounding: the whole run's highest DM (not only --part's), so that every part
    // starts where the others do; worked out only for it (a --dm-list file is read again).
    double maxdm = 0.0;
    if (o.start_rounding == "prepsubband") {
      bool show_again = false;
      for (const auto& r : all_dm_ranges(o, h, show_again)) {
        for (const double dm : r.dms) maxdm = std::max(maxdm, dm);
      }
    }
    o.start = fraction_start(o, *reader->nsamples(), h, maxdm, psrfits_nsblk);
    if (o.start >= *reader->nsamples()) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("--start-fraction {}: that skips all {} samples of the input", o.start_fraction,
                              *reader->nsamples()),
                  reader->name());
    }
    log_verbose("--start-fraction {}: {} samples skipped", o.start_fraction, o.start);
  }

  const OutputFormat format = choose_format(o, run_dms);
  if (format == OutputFormat::dat && o.nbits_out != 32) {
    usage_error(".dat files hold float32 (PRESTO's format); --nbits-out applies to tim and fil");
  }
  const int subbands = subband_count(o, h, ranges, format);
  if (format == OutputFormat::sub) {
    if (subbands == 0) usage_error("--format sub writes PRESTO subband files: give --subbands N and one DM (-d DM)");
    if (o.nbits_out != 32) usage_error("--format sub writes int16 samples, as prepsubband -sub; leave out --nbits-out");
    if (o.even) usage_error("--even is for dat and tim files; subband files hold the samples there are");
    if (o.downsample > 1) {
      usage_error(
          "--format sub: prepsubband -sub shifts the channels at full resolution, then averages: use "
          "--downsample-after D --downsample-mean");
    }
    if (o.downsample_after > 1 && !o.downsample_mean) {
      usage_error("--format sub writes means, as prepsubband -sub -downsamp: add --downsample-mean");
    }
  }
  if (o.numout > 0 && format != OutputFormat::dat) {
    usage_error("--numout is for .dat files (PRESTO's -numout); the other formats hold the samples there are");
  }
  if (o.numout > 0 && o.even && o.numout % 2 != 0) {
    usage_error(
        fmt::format("--numout {} is odd; --even asks an even length (PRESTO's realfft and accelsearch "
                    "refuse odd ones)",
                    o.numout));
  }
  if (o.even && (format == OutputFormat::tim_stream || format == OutputFormat::fil)) {
    usage_error(
        fmt::format("--even is for the dat and tim files that PRESTO reads; a {} is read by fastpsr's tools, which "
                    "take odd lengths",
                    format == OutputFormat::fil ? "DM-time filterbank" : "tim-stream"));
  }
  // SIGPROC's model for .tim by default, as its dedisperse; it needs channel 0 to be the highest
  // (foff < 0), so a band in rising order takes PRESTO's, which takes either order.
  const bool sigproc_default = (format == OutputFormat::tim || format == OutputFormat::tim_stream) && h.foff < 0.0;
  const DelayModel model = !o.delay_model.empty() ? parse_delay_model(o.delay_model)
                           : sigproc_default      ? DelayModel::sigproc
                                                  : DelayModel::presto;
  if (format == OutputFormat::sub && model != DelayModel::presto) {
    usage_error("--format sub: prepsubband references each subband to its highest channel (--delay-model presto)");
  }
  if (subband_files > 0 && model != DelayModel::presto) {
    usage_error("--delay-model sigproc does not apply to PRESTO subband input: prepsubband's delays are presto's");
  }
  const BaselineSpec baseline = BaselineSpec::parse(o.baseline, h.nchans);

  std::vector<std::uint8_t> keep;
  if (!o.kill_chans.empty()) keep = parse_kill_channels(o.kill_chans, h.nchans);
  if (!o.ignore_file.empty()) {
    const auto more = read_sigproc_ignore_file(o.ignore_file, h.nchans);
    if (keep.empty()) keep.assign(more.size(), 1);
    for (std::size_t c = 0; c < keep.size(); ++c) keep[c] = keep[c] != 0 && more[c] != 0 ? 1 : 0;
  }

  // An rfifind mask, checked against the data before any output is opened.
  std::optional<SampleMasker> masker;
  if (!o.mask.empty()) {
    masker.emplace(open_rfifind_mask(o.mask, h));
    if (o.clip > 0.0) masker->expect_clipper_padding();
    log_verbose("mask: {}", masker->describe());
  }
  std::optional<TimeClipper> clipper;
  if (o.clip > 0.0) clipper.emplace(o.clip, h.nchans, h.nbits, input.is_signed);
  // PRESTO clips in the blocks it reads: 2400 spectra of a filterbank, 1024 samples of subbands.
  const std::size_t clip_block = subband_files > 0 ? kPrestoSubbandBlock : TimeClipper::kPrestoBlock;

  // Input span.
  if (o.start > 0) {
    const std::uint64_t skipped = reader->skip(o.start);
    if (skipped < o.start) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("--start {}: the input holds only {} samples", o.start, skipped), reader->name());
    }
  }
  if (app.count("--nsamps") > 0 && o.nsamps == 0) usage_error("--nsamps must be at least 1 (leave it out for all)");
  std::optional<std::uint64_t> nin_known;
  if (reader->nsamples()) nin_known = *reader->nsamples() - o.start;
  if (o.nsamps > 0 && nin_known && o.nsamps > *nin_known) {
    log_warning("{}: --nsamps {}: the input holds {} samples{}; using those", reader->name(), o.nsamps, *nin_known,
                o.start > 0 ? fmt::format(" after --start {}", o.start) : std::string());
  }
  if (o.nsamps > 0) nin_known = nin_known ? std::min(*nin_known, o.nsamps) : o.nsamps;
  const std::uint64_t limit = o.nsamps > 0 ? o.nsamps : UINT64_MAX;

  // Plans: the dedisperser sees float32 input after the zero-DM filter.
  const bool input_signed = input.is_signed;  // the file's, which the zero-DM filter reads
  DedispInput dd_input = std::move(input);    // no second copy of the channel frequencies
  if (o.zero_dm) {
    dd_input.nbits = 32;
    dd_input.is_signed = false;
  }
  std::vector<DedispPlan> plans;
  std::optional<SubbandSplit> split;  // --subbands: one plan a subband
  if (subbands > 0) {
    DedispProblem whole;
    whole.input = dd_input;
    whole.dms = ranges.front().dms;
    whole.downsample = ranges.front().downsample;
    whole.model = model;
    whole.keep = keep;
    split = naming_file(reader->name(), [&] { return split_into_subbands(whole, subbands); });
    for (const auto& p : split->problems)
      plans.push_back(naming_file(reader->name(), [&] { return make_dedisp_plan(p); }));
  }
  for (const auto& r : subbands > 0 ? std::vector<Range>() : ranges) {
    DedispProblem p;
    p.input = dd_input;
    p.dms = r.dms;
    p.downsample = r.downsample;
    p.model = model;
    p.keep = keep;
    p.presto_nsub = std::min(o.nsub, h.nchans);  // more subbands than channels: one each, as prepsubband
    plans.push_back(naming_file(reader->name(), [&] { return make_dedisp_plan(p); }));  // the header's asks
  }
  // Subbands (one plan each, one DM) need the largest delay within any subband; a DM trial, its
  // largest across the band.
  std::uint64_t subband_need = 0;
  for (std::size_t r = 0; split && r < plans.size(); ++r) {
    subband_need = std::max(subband_need, static_cast<std::uint64_t>(plans[r].dm_max_delay.front()) *
                                              static_cast<std::uint64_t>(plans[r].downsample()));
  }
  auto delay_error = [&](const DedispPlan& p, std::size_t i, std::uint64_t have) {
    const double dm = p.problem.dms[i];
    const double tsamp = h.tsamp;
    const std::uint64_t need =
        split ? subband_need
              : static_cast<std::uint64_t>(p.dm_max_delay[i]) * static_cast<std::uint64_t>(p.downsample());
    return Error(ErrorCode::invalid_argument,
                 fmt::format("DM {} needs more than {} samples ({:.4g} s) of data to fill its delay {}, but the "
                             "input has {} ({:.4g} s)",
                             dm, need, static_cast<double>(need) * tsamp,
                             split ? "within a subband" : "across the band", have, static_cast<double>(have) * tsamp),
                 reader->name());
  };
  if (nin_known) {
    for (const auto& p : plans) {
      if (static_cast<std::uint64_t>(p.downsample()) > *nin_known) {
        throw Error(ErrorCode::invalid_argument,
                    fmt::format("downsampling by {} needs at least {} samples, but the input has {}", p.downsample(),
                                p.downsample(), *nin_known),
                    reader->name());
      }
      for (std::size_t i = 0; i < p.ndms(); ++i) {
        if (p.valid_samples(i, *nin_known) == 0) {
          throw delay_error(p, i, *nin_known);
        }
      }
    }
  }

  times.plans = seconds_since(t_start);
  DedispOptions dopt;
  dopt.gulp_samples = o.gulp;
  dopt.input_samples = nin_known.value_or(0);  // the CPU's default gulp is no longer than the input
  // A gulp longer than the input would only size buffers (and can pass the kernels' 32-bit row
  // offsets): the whole input is one gulp (QA pass 12).
  if (nin_known && o.gulp > *nin_known) {
    dopt.gulp_samples = static_cast<std::size_t>(std::max<std::uint64_t>(*nin_known, 1));
    log_verbose("--gulp {}: the input holds {} samples, so one gulp of those", o.gulp, *nin_known);
  }
  std::size_t lcm_ds = 1;
  for (const auto& p : plans) lcm_ds = std::lcm(lcm_ds, static_cast<std::size_t>(p.downsample()));
  // Clipping works on PRESTO's whole blocks, each read a whole number of them and of the
  // downsampling, so that its output does not depend on the gulp: a --gulp shorter than that
  // unit is raised to it.
  const std::size_t clip_unit = std::lcm(clip_block, lcm_ds);
  if (clipper && dopt.gulp_samples > 0 && dopt.gulp_samples < clip_unit &&
      (!nin_known || *nin_known > dopt.gulp_samples)) {
    log_verbose("--gulp {}: raised to {} samples, whole blocks of the clipping", dopt.gulp_samples, clip_unit);
    dopt.gulp_samples = clip_unit;
  }
  // Subbands: each CPU dedisperser on one thread, the subbands pushed by a team of them (a team
  // a dedisperser started 4096 x 16 threads for --subbands all on 16 cores).
  dopt.threads = split ? 1 : o.threads;
  if (!o.cpu_config.empty()) dopt.cpu_config = parse_key_values(o.cpu_config);
  if (!o.gpu_config.empty()) dopt.gpu_config = parse_key_values(o.gpu_config);
  dopt.use_tuning = !o.no_tuning;
  // The dedispersers (a GPU's context, device and pinned buffers: a large part of a short run)
  // are made on another thread while this one opens the outputs.
  auto making = std::async(std::launch::async, [&] {
    const DeviceChoice device = warmup->get();  // rethrows an unusable --device
    std::vector<std::unique_ptr<Dedisperser>> made;
    for (const auto& p : plans) made.push_back(make_dedisperser(p, device, dopt));
    return std::pair{device, std::move(made)};
  });

  // Outputs.
  std::vector<SeriesMeta> metas;
  for (std::size_t r = 0; r < plans.size(); ++r) {
    const DedispPlan& p = plans[r];
    for (double dm : p.problem.dms) {
      // A subband with every channel killed is dedispersed at DM 0 (no delay), but is the DM's.
      metas.push_back({split ? ranges.front().dms.front() : dm, p.out_tsamp_s() * o.downsample_after,
                       split ? split->ref_freq_mhz[r] : p.ref_freq_mhz, model, p.downsample() * o.downsample_after});
    }
  }
  OutputOptions oo;
  oo.format = format;
  oo.path = default_output(o, format, run_dms);
  oo.run_dms = run_dms;
  // One file for all the DMs (fil, a tim-stream to a file): each part writes its own, so that the
  // parts of a job array can run one command line that differs only in --part.
  if (format == OutputFormat::fil || format == OutputFormat::tim_stream) oo.path = part_file_name(oo.path, part);
  oo.nbits = o.nbits_out;
  oo.dm_decimals = o.dm_prec;
  oo.start_sample = o.start;
  oo.tmpdir = o.tmpdir;
  oo.even = o.even && o.numout == 0;  // --numout sets the length itself
  oo.numout = o.numout;
  oo.inf_fields = inf_fields;
  if (split) {
    oo.subbands = OutputOptions::SubbandLabels{split->ref_freq_mhz.front(), h.foff * split->chans_per_subband,
                                               ranges.front().dms.front()};
  }
  WorkerTeam team(ndms > 1 ? writer_threads(o.threads) : 1);
  oo.team = &team;
  oo.note = fmt::format(
      "fastpsr dedisp: the samples with full data at this DM, {}; {} delays{}{}{}{}{}.",
      o.numout > 0 ? fmt::format("the first {} (-numout), or all then their mean up to {}", o.numout, o.numout)
                   : std::string("no padding"),
      to_string(model), o.zero_dm ? ", zero-DM filtered" : "",
      baseline.kind == BaselineSpec::Kind::none ? "" : ", baseline " + o.baseline,
      o.downsample_mean && o.downsample_after == 1 ? ", means of the downsampled samples" : "",
      o.downsample_after > 1
          ? fmt::format(", {} of {} dedispersed samples", o.downsample_mean ? "means" : "sums", o.downsample_after)
          : std::string(),
      o.even ? ", the last dropped where their number was odd (--even)" : "");
  if (format == OutputFormat::sub) {  // the .sub.inf: what the subband files hold
    oo.note = fmt::format(
        "fastpsr dedisp: PRESTO subbands of {} channels at DM {}, each channel shifted to its subband's highest{}{}.",
        split->chans_per_subband, ranges.front().dms.front(), o.zero_dm ? ", zero-DM filtered" : "",
        o.downsample_after > 1 ? fmt::format(", means of {} samples", o.downsample_after) : std::string());
  }
  if (oo.path == "-" && ::isatty(STDOUT_FILENO) != 0) {
    usage_error("refusing to write binary data to a terminal: redirect stdout or give -o");
  }
  // The spool (tim-stream, or more files than may be open) keeps up to 512 MiB in memory, or a
  // quarter of what this process may use where that is less.
  oo.spool_memory = std::min(oo.spool_memory, usable_host_memory() / 4);
  auto [device, dds] = timed(times.device_wait, [&] { return making.get(); });
  log_verbose("device: {}", device.description);
  std::size_t gulp = SIZE_MAX;
  for (const auto& d : dds) gulp = std::min(gulp, d->gulp_samples());
  gulp = std::max(lcm_ds, gulp / lcm_ds * lcm_ds);
  // No read-ahead longer than an input of known length, whatever gulp a backend chose.
  if (nin_known && gulp > *nin_known) {
    gulp = std::min(gulp, std::max(lcm_ds, static_cast<std::size_t>((*nin_known + lcm_ds - 1) / lcm_ds * lcm_ds)));
  }
  for (const auto& d : dds) FASTPSR_ASSERT(gulp <= d->gulp_samples() || gulp == lcm_ds);
  // Clipping takes PRESTO's blocks (clip_block): each read is a whole number of them and stays a
  // multiple of the downsampling (a --gulp shorter than that was raised above); only the input's
  // end gives a shorter block.
  if (clipper && gulp >= clip_unit) gulp = gulp / clip_unit * clip_unit;

  // -v: what is about to happen.
  log_verbose("input: {}: {} channels, {}-bit, tsamp {} us, {} samples{}", reader->name(), h.nchans, h.nbits,
              h.tsamp * 1e6, nin_known ? fmt::format("{}", *nin_known) : std::string("(a stream)"),
              o.start > 0 ? fmt::format(" after skipping {}", o.start) : std::string());
  log_verbose("delays: {} model, reference {:.6f} MHz; killed channels: {}; zero-DM {}; baseline {}", to_string(model),
              plans.front().ref_freq_mhz, keep.empty() ? "none" : describe_killed(keep), o.zero_dm ? "on" : "off",
              o.baseline);
  std::size_t devmem = 0;
  std::int32_t subband_max_delay = 0;
  for (std::size_t r = 0; r < plans.size(); ++r) {
    const auto& p = plans[r];
    devmem += dds[r]->device_bytes();
    subband_max_delay = std::max(subband_max_delay, p.max_delay);
    if (split) continue;  // one line for all the subbands, below
    log_verbose("range {}: {} DMs {:.3f}..{:.3f}, downsample {}, max delay {} samples ({:.4g} s)", r + 1, p.ndms(),
                p.problem.dms.front(), p.problem.dms.back(), p.downsample(), p.max_delay,
                p.max_delay * p.out_tsamp_s());
    log_verbose("range {}: {}", r + 1, dds[r]->describe());
  }
  if (split) {
    log_verbose(
        "subbands: {} dedispersers of {} channels, downsample {}, largest delay within a subband {} samples "
        "({:.4g} s); the first: {}",
        plans.size(), split->chans_per_subband, plans.front().downsample(), subband_max_delay,
        subband_max_delay * plans.front().out_tsamp_s(), dds.front()->describe());
  }
  const std::size_t bps = h.bytes_per_sample();
  HostMemory mem = plan_host_memory(plans, dds, gulp, bps, o, oo, baseline, nin_known);
  if (split) {
    mem.parts.push_back({"subbands", SubbandFeed::host_bytes(dd_input, subbands, gulp), "a gulp cut into subbands"});
    const auto killed = std::count(split->all_killed.begin(), split->all_killed.end(), 1);
    log_verbose(
        "subbands: {} of {} channels at DM {}, each dedispersed to its {} ({:.6f} MHz for the first, {:.6f} "
        "for the last, in the file's channel order){}",
        subbands, split->chans_per_subband, ranges.front().dms.front(),
        model == DelayModel::sigproc ? "first channel, as SIGPROC's dedisperse -b"
                                     : "highest channel, as prepsubband -sub",
        split->ref_freq_mhz.front(), split->ref_freq_mhz.back(),
        killed > 0 ? fmt::format("; {} with every channel killed: zeros", killed) : std::string());
  }
  log_verbose("memory: host {:.1f} MiB in all: {}{}; gulp {} samples", static_cast<double>(mem.total()) / 1048576.0,
              mem.describe(true), devmem > 0 ? fmt::format("; device {}", format_bytes(devmem)) : std::string(), gulp);
  // Refused here, before the outputs are made, the buffers allocated or any data read.
  std::int32_t max_delay = 0;
  for (const auto& p : plans) max_delay = std::max(max_delay, p.max_delay * p.downsample());
  check_host_memory(mem.total(), mem.describe(false), mem.hint(o, gulp, max_delay), reader->name());

  auto output = timed(times.outputs, [&] { return make_output(oo, out_header, metas); });
  log_verbose("output: {} ({}, {})", output->describe(), to_string(format),
              format == OutputFormat::sub   ? std::string("int16")
              : format == OutputFormat::dat ? std::string("32-bit")
                                            : fmt::format("{}-bit", o.nbits_out));
  std::vector<SeriesChain> chains;
  chains.reserve(metas.size());
  for (std::size_t i = 0; i < metas.size(); ++i) {
    chains.emplace_back(*output, i, baseline, o.nbits_out, o.downsample_mean ? metas[i].downsample : 1,
                        o.downsample_after);
  }
  std::vector<float> zbuf(o.zero_dm ? gulp * static_cast<std::size_t>(h.nchans) : 0);
  std::optional<SubbandFeed> feed;
  if (split) feed.emplace(*split, dd_input, gulp);
  // CPU subbands are pushed by a team (the GPU's share the device and its constant memory: one
  // at a time).
  std::optional<WorkerTeam> subband_team;
  std::vector<DedispBlock> subband_blocks(split ? plans.size() : 0);
  if (split && device.backend == Backend::cpu) {
    const std::size_t hw =
        o.threads > 0 ? static_cast<std::size_t>(o.threads) : std::max(1U, std::thread::hardware_concurrency());
    subband_team.emplace(std::min(hw, plans.size()));
  }

  // Stream.
  std::vector<std::size_t> first_series(plans.size(), 0);
  for (std::size_t r = 1; r < plans.size(); ++r) first_series[r] = first_series[r - 1] + plans[r - 1].ndms();
  std::uint64_t nread = 0;
  bool flushing = false;
  // The series of a block go to the outputs on the team's threads when the output allows it;
  // the block is fully consumed before the next push (which may reuse its memory).
  const bool parallel = output->parallel_writes() && team.size() > 1;
  auto consume = [&](std::size_t r, const DedispBlock& b) {
    auto one = [&](std::size_t i) {
      std::size_t n = b.nsamples;
      if (flushing) {
        const std::uint64_t valid = plans[r].valid_samples(i, nread);
        n = valid > b.first ? static_cast<std::size_t>(std::min<std::uint64_t>(n, valid - b.first)) : 0;
      }
      chains[first_series[r] + i].push(b.data + i * b.stride, n);
    };
    timed(times.output, [&] {
      if (b.empty()) return;
      if (parallel) {
        team.run(plans[r].ndms(), one);
      } else {
        for (std::size_t i = 0; i < plans[r].ndms(); ++i) one(i);
      }
    });
  };
  Progress progress("dedisp", nin_known.value_or(0));
  times.setup = seconds_since(t_start);
  const auto t0 = Clock::now();
  // Float input that is not finite (NaN, Inf) reaches every DM trial that sums it: counted on the
  // reading thread (channels killed excepted), said once at the end.
  std::uint64_t nonfinite = 0;
  std::uint64_t first_nonfinite_sample = 0;
  std::size_t first_nonfinite_channel = 0;
  {
    // The next gulp is read on the reading thread while this one is dedispersed.
    std::uint64_t requested = 0;  // samples asked of the reader so far (the reading thread's)
    bool ended = false;           // a read came back short: the data ended
    ReadAhead ahead(gulp * bps, [&](std::uint8_t* into) -> std::size_t {
      const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(gulp, limit - requested));
      if (want == 0 || ended) return 0;
      const std::uint64_t first = requested;
      requested += want;
      const std::size_t n = reader->read_packed(into, want);
      ended = n < want;
      if (clipper) {  // clip, then mask with the clipper's channel levels, block by block (PRESTO)
        const std::vector<SampleGap> gaps = reader->gaps();
        for (std::size_t s = 0; s < n; s += clip_block) {
          const std::size_t k = std::min(clip_block, n - s);
          // Gaps in the data (read as zeros) take the channels' running levels, as PRESTO pads
          // them while it clips (its padvals), before the block is clipped.
          const std::uint64_t at = o.start + first + s;
          for (const SampleGap& g : gaps) {
            const std::uint64_t from = std::max(g.first, at);
            const std::uint64_t to = std::min(g.first + g.count, at + k);
            if (from < to) clipper->fill_with_levels(into + (s + (from - at)) * bps, to - from);
          }
          if (!(masker && masker->wholly_masked(o.start + first + s, k))) clipper->clip_block(into + s * bps, k);
          if (masker) {
            if (clipper->blocks() > 0) masker->set_padding(clipper->channel_levels());
            masker->apply(into + s * bps, k, o.start + first + s);
          }
        }
      } else if (masker) {
        masker->apply(into, n, o.start + first);
      }
      if (h.nbits == 32) {
        const auto nchans = static_cast<std::size_t>(h.nchans);
        for (std::size_t i = 0; i < n * nchans; ++i) {
          float v = 0.0F;
          std::memcpy(&v, into + 4 * i, sizeof v);
          if (std::isfinite(v) || (!keep.empty() && keep[i % nchans] == 0)) continue;
          if (nonfinite++ == 0) {
            first_nonfinite_sample = o.start + first + i / nchans;
            first_nonfinite_channel = i % nchans;
          }
        }
      }
      return n;
    });
    for (;;) {
      const ReadAhead::Chunk chunk = timed(times.read_wait, [&] { return ahead.next(); });  // rethrows
      const std::size_t n = chunk.n;
      if (n == 0) break;
      nread += n;
      const std::uint8_t* data = chunk.data;
      if (o.zero_dm) {
        zero_dm_filter(data, n, h.nchans, h.nbits, input_signed, keep, zbuf.data());
        data = reinterpret_cast<const std::uint8_t*>(zbuf.data());
      }
      if (feed) feed->cut(data, n);
      if (subband_team) {  // CPU subbands: pushed at once, then consumed in order
        timed(times.dedisp, [&] {
          subband_team->run_dynamic(
              dds.size(), [&](std::size_t r, std::size_t) { subband_blocks[r] = dds[r]->push(feed->subband(r), n); });
        });
        for (std::size_t r = 0; r < dds.size(); ++r) consume(r, subband_blocks[r]);
      } else {
        for (std::size_t r = 0; r < dds.size(); ++r) {
          consume(r, timed(times.dedisp, [&] { return dds[r]->push(feed ? feed->subband(r) : data, n); }));
        }
      }
      progress.update(nread);
    }
  }
  flushing = true;
  for (std::size_t r = 0; r < dds.size(); ++r) {
    auto next = [&] { return timed(times.dedisp, [&] { return dds[r]->flush(); }); };
    for (DedispBlock b = next(); !b.empty(); b = next()) consume(r, b);
  }
  timed(times.output, [&] {
    if (parallel) {
      team.run(chains.size(), [&](std::size_t i) { chains[i].finish(); });
    } else {
      for (auto& c : chains) c.finish();
    }
  });
  progress.finish();
  if (nonfinite > 0) {
    log_warning(
        "{}: {} input value{} not finite (NaN or Inf; the first at sample {}, channel {}): every DM trial that sums "
        "{} holds NaN or Inf, which accelsearch refuses; kill the channels (--kill-chans) or clean the file",
        reader->name(), nonfinite, nonfinite == 1 ? " is" : "s are", first_nonfinite_sample, first_nonfinite_channel,
        nonfinite == 1 ? "it" : "them");
  }
  auto percent = [](std::uint64_t count, std::uint64_t whole) {
    return whole > 0 ? 100.0 * static_cast<double>(count) / static_cast<double>(whole) : 0.0;
  };
  if (clipper) {
    log_verbose("clip: {} sigma: {} of {} spectra replaced ({:.3f}%) in {} blocks of up to {}", clipper->sigma(),
                clipper->spectra_clipped(), clipper->spectra_seen(),
                percent(clipper->spectra_clipped(), clipper->spectra_seen()), clipper->blocks(), clip_block);
  }
  if (masker) {
    log_verbose("mask: {} of {} values replaced ({:.2f}%)", masker->values_replaced(), masker->values_seen(),
                percent(masker->values_replaced(), masker->values_seen()));
  }
  const double elapsed = seconds_since(t0);

  std::vector<std::uint64_t> lengths;
  for (std::size_t g = 0, r = 0; r < plans.size(); ++r) {
    for (std::size_t i = 0; i < plans[r].ndms(); ++i, ++g) {
      lengths.push_back(chains[g].written());
      const std::uint64_t full = plans[r].valid_samples(i, nread);
      if (lengths.back() == 0 && full > 0) {
        throw Error(ErrorCode::invalid_argument,
                    fmt::format("DM {} leaves {} samples with full data, fewer than --downsample-after {} sums",
                                plans[r].problem.dms[i], full, o.downsample_after),
                    reader->name());
      }
      if (lengths.back() == 0) {
        throw delay_error(plans[r], i, nread);
      }
    }
  }
  const std::vector<SampleGap> gaps = reader->gaps();
  if (!gaps.empty()) {
    std::uint64_t padded = 0;
    for (const SampleGap& g : gaps) padded += g.count;
    log_warning(
        "{}: {} stretch{} without data ({} samples, {:.4g} s) read as zeros (a .dat's .inf lists the data "
        "between them)",
        reader->name(), gaps.size(), gaps.size() == 1 ? "" : "es", padded, static_cast<double>(padded) * h.tsamp);
    output->note_gaps(gaps);
  }
  timed(times.finish, [&] { output->finish(lengths); });

  double adds = 0;
  for (const auto& p : plans) {
    std::size_t nk = 0;
    for (int c = 0; c < p.nchans(); ++c) nk += p.channel_kept(c) ? 1 : 0;
    for (std::size_t i = 0; i < p.ndms(); ++i) {
      adds += static_cast<double>(p.valid_samples(i, nread)) * static_cast<double>(nk) * p.downsample();
    }
  }
  const double data_s = static_cast<double>(nread) * h.tsamp;
  log_verbose(
      "done: {} samples ({:.3f} s of data), {} DM trials, in {:.3f} s: {:.3g} DM-channel-samples/s, "
      "{:.1f} x real time",
      nread, data_s, ndms, elapsed, adds / elapsed, data_s / elapsed);
  log_verbose(
      "time: {:.3f} s from the start to the last file completed: set-up {:.3f} s (plans {:.3f}, waiting for the "
      "dedisperser {:.3f}, outputs opened {:.3f}), stream {:.3f} s (waiting for the reader {:.3f}, dedispersion "
      "{:.3f}, outputs {:.3f} on {} thread{}), files completed {:.3f} s",
      seconds_since(t_start), times.setup, times.plans, times.device_wait, times.outputs, elapsed, times.read_wait,
      times.dedisp, times.output, parallel ? team.size() : 1, parallel && team.size() > 1 ? "s" : "", times.finish);
  return kExitOk;
}

}  // namespace
}  // namespace fastpsr::app

int main(int argc, char** argv) { return fastpsr::app::run_tool("dedisp", argc, argv, fastpsr::app::run); }
