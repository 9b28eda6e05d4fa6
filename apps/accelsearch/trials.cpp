// SPDX-License-Identifier: MIT
#include "trials.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "common/progress.hpp"
#include "common/tool_main.hpp"
#include "fastpsr/accel_backends.hpp"
#include "fastpsr/accel_output.hpp"
#include "fastpsr/accel_searcher_reuse.hpp"
#include "fastpsr/bounded_queue.hpp"
#include "fastpsr/byte_stream.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/presto_inf.hpp"
#include "fastpsr/thread_start.hpp"

namespace fastpsr::app {
namespace {

using Clock = std::chrono::steady_clock;
double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

struct Trial {
  AccelInput in;
  std::size_t index = 0;  // in input order
  AccelPlan plan;
  PreparedSpectrum spec;
  AccelCandidateList list;
  // Overlapped runs: the search stage only records the hits, and the finish stage (several
  // threads) turns them into candidates, which for a bright pulsar's millions of hits takes
  // about a second; --serial feeds `list` directly.
  CollectingHitSink hits;
  double read_s = 0;  // reading the input and its real FFT
  double prepare_s = 0;
  double search_s = 0;
  double finish_s = 0;
};

// Seconds each stage spent, summed over the trials (-v prints them at the end: which stage bounds
// a long run).
struct StageTotals {
  std::mutex mutex;
  std::size_t trials = 0;
  double read = 0, fft = 0, prepare = 0, search = 0, finish = 0;
  void add(const Trial& t) {
    const std::lock_guard lock(mutex);
    ++trials;
    read += t.read_s;
    fft += t.in.fft_s;
    prepare += t.prepare_s;
    search += t.search_s;
    finish += t.finish_s;
  }
  void print(double wall_s, int stage_threads) {
    if (trials == 0) return;
    log_verbose(
        "stages over {} trials, summed: read and FFT {:.3f} s (the FFT {:.3f} s), prepare {:.3f} s, search {:.3f} s, "
        "optimise and write {:.3f} s ({} threads each for reading, preparing and finishing); wall {:.3f} s, {:.4f} s a "
        "trial",
        trials, read, fft, prepare, search, finish, stage_threads, wall_s, wall_s / static_cast<double>(trials));
  }
};
using TrialPtr = std::unique_ptr<Trial>;

// Writes PRESTO's files for one input; returns the ACCEL text (empty when there are no candidates).
// `single_input`: the run's only trial, whose line says what was written (TrialSettings).
std::string write_outputs(const AccelInput& in, const AccelPlan& plan, const AccelResult& r,
                          const PreparedSpectrum& spec, bool single_input) {
  const std::string base = in.root + "_" + plan.suffix();
  if (in.write_inf) {
    const std::string inf = in.root + ".inf";
    if (in.inf_is_output || !std::filesystem::exists(inf)) {
      write_text(inf, in.inf_text);
    } else {
      // A user's .inf is never overwritten, but one describing other data is worth a word: the
      // search used the input's own header (and the ACCEL file carries that description).
      try {
        const PrestoInf old = read_inf(inf);
        if (old.N != in.inf.N || std::abs(old.dt - in.inf.dt) > 1e-12 * in.inf.dt) {
          log_warning("{}: {} describes other data (N {}, dt {} s; this input: N {}, dt {} s): left as it is", in.path,
                      inf, old.N, old.dt, in.inf.N, in.inf.dt);
        }
      } catch (const Error& e) {
        log_warning("{}: {} exists but could not be read ({}): left as it is", in.path, inf, e.what());
      }
    }
  }
  if (in.from_fft) write_text(base + ".txtcand", r.txtcand);
  // Files of this name that this run does not write (nothing passed the threshold; a .txtcand
  // beside a time series' outputs) are an earlier run's: removed, so that every file under this
  // name is this run's (one left behind was read as this run's result; QA pass 15).
  std::vector<std::string> stale;
  if (!in.from_fft) stale.push_back(base + ".txtcand");
  if (r.candidates.empty()) {
    stale.push_back(base);
    stale.push_back(base + ".cand");
  }
  std::vector<std::string> removed;
  for (const std::string& f : stale) {
    std::error_code ec;
    const auto type = std::filesystem::symlink_status(f, ec).type();
    if (type != std::filesystem::file_type::regular && type != std::filesystem::file_type::symlink) continue;
    if (std::filesystem::remove(f, ec)) {
      removed.push_back(f);
    } else {
      log_warning("{}: {} is an earlier run's output, and could not be removed: {}", in.path, f, ec.message());
    }
  }
  const std::string removed_note =
      removed.empty() ? std::string() : fmt::format("; removed {} of an earlier run", fmt::join(removed, ", "));
  if (r.candidates.empty()) {
    // Among many trials, an empty one is no news (the final line counts the candidates; QA pass
    // 21): said with -v, unless files of an earlier run went.
    if (single_input || !removed.empty()) {
      log_info("{}: no candidates above sigma {:.2f}{}", in.path, plan.config.sigma, removed_note);
    } else {
      log_verbose("{}: no candidates above sigma {:.2f}", in.path, plan.config.sigma);
    }
    return {};
  }
  if (!removed.empty()) log_info("{}: {}", in.path, removed_note.substr(2));
  AccelTextInfo info;
  info.T_s = plan.T_s;
  info.nph = spec.nph;
  info.inf_text = in.inf_text;
  info.artificial = in.inf.telescope.rfind("None", 0) == 0;
  std::string text = format_accel_text(r.candidates, info);
  write_text(base, text);
  const auto bytes = format_cand_records(r.candidates);
  write_all(base + ".cand", bytes);
  if (single_input) {
    log_info("{} candidate{} in {} (.cand{})", r.candidates.size(), r.candidates.size() == 1 ? "" : "s", base,
             in.from_fft ? ", .txtcand" : "");
  }
  return text;
}

TrialPtr prepare(AccelInput in, const AccelConfig& config, double read_s) {
  const auto t0 = Clock::now();
  AccelConfig own = config;
  if (in.dereddened && own.deredden) {
    own.deredden = false;
    log_verbose("{}: a rednoise output (_red.fft): not de-reddened again", in.path);
  }
  // The plan's refusals (series too short for -zmax, an empty search range) are about this
  // trial: named, so that a run over many trials says which one stopped it.
  AccelPlan plan = naming_file(
      in.path, [&] { return make_accel_plan(own, static_cast<std::int64_t>(in.fft.size()), in.inf.N * in.inf.dt); });
  const float bin0 = in.fft.front().real();  // the plan refuses an empty spectrum
  PreparedSpectrum spec = prepare_spectrum(std::move(in.fft), plan, !in.from_fft);
  if (own.norm == AccelNorm::photon) {
    if (bin0 > 0.0F) {
      log_verbose("{}: powers normalised by {:.0f} photons (bin 0)", in.path, spec.nph);
    } else {
      log_warning(
          "{}: -photon: bin 0 (the sum of the series) is {:g}, not a photon count: the powers are left as "
          "they are",
          in.path, bin0);
    }
  }
  AccelCandidateList list = make_candidate_list(plan, in.from_fft);
  auto t = std::make_unique<Trial>(Trial{std::move(in), 0, std::move(plan), std::move(spec), std::move(list), {}});
  t->prepare_s = seconds(t0, Clock::now());
  t->read_s = read_s;
  return t;
}

SiftInput finish(Trial& t, bool single_input) {
  const auto t0 = Clock::now();
  if (t.hits.covered_begin >= 0) {
    // The hits of the whole range at once: AccelCandidateList inserts them block by block in its
    // own order, whatever ranges they came in, so the candidates are those of a direct feed.
    t.list.consume(t.hits.covered_begin, t.hits.covered_end, t.hits.hits);
    t.hits = CollectingHitSink{};
  }
  const AccelResult result = finish_candidates(t.plan, t.list, t.spec);
  const std::string text = write_outputs(t.in, t.plan, result, t.spec, single_input);
  t.finish_s = seconds(t0, Clock::now());
  log_verbose(
      "{}: {} hits, {} candidates ({} harmonics removed); read and FFT {:.3f} s, prepare {:.3f} s, search {:.3f} s, "
      "optimise and write {:.3f} s",
      t.in.path, result.hits, result.candidates.size(), result.harmonics_removed, t.read_s, t.prepare_s, t.search_s,
      t.finish_s);
  const std::string accel_name = std::filesystem::path(t.in.root + "_" + t.plan.suffix()).filename().string();
  return text.empty() ? SiftInput{t.in.inf.dm, {}} : sift_input_from_accel_text(text, accel_name, t.in.inf.dm);
}

// The search stage: batches of trials one searcher covers.
class Searcher {
 public:
  explicit Searcher(const TrialSettings& s) : s_(s), reuse_([this](const AccelSearchProblem& p) { return make(p); }) {}

  // Takes a trial; returns the trials searched by now (in order), possibly none.
  std::vector<TrialPtr> add(TrialPtr t) {
    std::vector<TrialPtr> done;
    const AccelSearchProblem& want = t->plan.problem;
    const FdotSearcher* current = reuse_.current();
    const bool fits = current != nullptr && (s_.serial ? same_problem(current->problem(), want)
                                                       : accel_problem_covers(current->problem(), want));
    if (!fits) {
      done = flush();
      if (s_.serial) reuse_.drop();
      const AccelPlan& plan = t->plan;
      log_verbose("plan: r {}..{} bins ({:.3f}..{:.3f} Hz), z {}, {} harmonics, thresholds {}", plan.rlo, plan.rhi,
                  plan.rlo / plan.T_s, plan.rhi / plan.T_s,
                  want.zmax == 0 ? std::string("0") : fmt::format("-{}..{}", want.zmax, want.zmax), want.numharm,
                  fmt::join(want.powcut, " "));
      reuse_.ensure(want);
    }
    batch_.push_back(std::move(t));
    if (batch_.size() >= s_.batch) {
      auto more = flush();
      for (auto& m : more) done.push_back(std::move(m));
    }
    return done;
  }

  std::vector<TrialPtr> flush() {
    if (batch_.empty()) return {};
    const auto t0 = Clock::now();
    std::vector<AccelTrialRef> refs;
    for (const TrialPtr& t : batch_) {
      AccelHitSink* sink = s_.serial ? static_cast<AccelHitSink*>(&t->list) : &t->hits;
      refs.push_back({t->spec.search.bins, t->spec.power_scale(), &t->plan.problem, sink});
    }
    reuse_.search(refs);
    const double each = seconds(t0, Clock::now()) / static_cast<double>(batch_.size());
    for (TrialPtr& t : batch_) t->search_s = each;
    return std::exchange(batch_, {});
  }

  [[nodiscard]] std::uint64_t reused() const noexcept { return reuse_.reused(); }
  [[nodiscard]] int made() const noexcept { return made_; }

 private:
  static bool same_problem(const AccelSearchProblem& a, const AccelSearchProblem& b) {
    return accel_problem_covers(a, b) && a.numbins == b.numbins && a.rk_end == b.rk_end && a.powcut == b.powcut;
  }

  std::unique_ptr<FdotSearcher> make(const AccelSearchProblem& p) {
    auto searcher = make_fdot_searcher(p, s_.search, s_.device);
    ++made_;
    const std::size_t plane = accel_plane_bytes(p);
    const std::size_t limit = s_.search.plane_memory;
    if (s_.device.backend == Backend::cpu && limit > 0 && plane > limit) {
      if (searcher->host_bytes() < plane) {
        log_info(
            "the f-fdot plane would take {:.1f} MiB, more than --plane-memory {:.1f} MiB: searched in blocks "
            "that recompute the sub-harmonics (same candidates, more time; -inmem keeps the whole plane)",
            static_cast<double>(plane) / 1048576.0, static_cast<double>(limit) / 1048576.0);
      }
      if (searcher->host_bytes() > limit) {
        log_warning("--plane-memory {:.1f} MiB is less than the search needs at the least ({:.1f} MiB{})",
                    static_cast<double>(limit) / 1048576.0, static_cast<double>(searcher->host_bytes()) / 1048576.0,
                    searcher->host_bytes() < plane ? ", in blocks of 16384 half bins" : ", the whole plane");
      }
    }
    if (searcher->device_bytes() > 0 && searcher->block_rk() > 0) {
      log_info(
          "the f-fdot plane ({:.1f} MiB) is searched on the GPU in blocks of {} rk that recompute the "
          "sub-harmonics (it does not fit the GPU's free memory, or --gpu-config block_rk asks for blocks): the "
          "same candidates, more time",
          static_cast<double>(plane) / 1048576.0, searcher->block_rk());
    }
    log_verbose("searcher: {}", searcher->describe());
    log_verbose("memory: {:.1f} MiB host, {:.1f} MiB device; batch of {} spectra",
                static_cast<double>(searcher->host_bytes()) / 1048576.0,
                static_cast<double>(searcher->device_bytes()) / 1048576.0, s_.batch);
    return searcher;
  }

  const TrialSettings& s_;
  ReusedFdotSearcher reuse_;
  std::vector<TrialPtr> batch_;
  int made_ = 0;
};

// The error of the stage that failed first, or of the earliest input that could not be read.
class FirstError {
 public:
  void set(std::exception_ptr e) { set_at(static_cast<std::size_t>(-1), std::move(e)); }
  void set_at(std::size_t index, std::exception_ptr e) {
    const std::lock_guard lock(mutex_);
    if (!error_ || index < index_) {
      error_ = std::move(e);
      index_ = index;
    }
  }
  void rethrow() {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
  std::size_t index_ = static_cast<std::size_t>(-1);
};

// One trial at a time, a new searcher whenever the plan changes (--serial).
std::vector<SiftInput> run_serial(const TrialSource& source, const TrialSettings& s, Progress& progress) {
  std::vector<SiftInput> out;
  Searcher searcher(s);
  auto finish_all = [&](std::vector<TrialPtr> done) {
    for (TrialPtr& t : done) {
      out.push_back(finish(*t, s.single_input));
      progress.update(out.size());
    }
  };
  for (std::size_t i = 0; source.count == 0 || i < source.count; ++i) {
    std::optional<AccelInput> in;
    const auto t0 = Clock::now();
    if (source.count > 0) {
      in = source.read_file(i);
    } else if (auto record = source.next()) {
      in = (*record)();
    }
    if (!in) break;
    finish_all(searcher.add(prepare(std::move(*in), s.config, seconds(t0, Clock::now()))));
  }
  finish_all(searcher.flush());
  return out;
}

}  // namespace

void write_text(const std::string& path, const std::string& text) {
  auto sink = open_sink(path);
  sink->write(text.data(), text.size());
  sink->commit();
}

std::vector<SiftInput> run_trials(const TrialSource& source, const TrialSettings& settings) {
  Progress progress("accelsearch", source.count);
  if (settings.serial) {
    auto out = run_serial(source, settings, progress);
    progress.finish();
    return out;
  }
  const auto t_start = Clock::now();
  StageTotals totals;
  const bool files = source.count > 0;
  const int preparers = std::max(1, settings.stage_threads);
  const int finishers = preparers;
  // Each finishing thread optimises its trial's candidates with OpenMP: unless -ncpus says
  // otherwise, a share of the cores each, not all of them each (8 finishers on 16 cores would
  // start 8 teams of 16). The candidates do not depend on it.
  AccelConfig config = settings.config;
  if (finishers > 1 && config.threads <= 0) {
    config.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / finishers);
  }
  // Trials waiting between the stages: one per thread of a stage and two more.
  ReorderQueue<TrialPtr> to_search(static_cast<std::size_t>(preparers) + 2);
  BoundedQueue<TrialPtr> to_finish(static_cast<std::size_t>(finishers) + 1);
  FirstError error;
  auto stop_all = [&](std::exception_ptr e) {
    error.set(std::move(e));
    to_search.cancel();
    to_finish.cancel();
  };

  std::atomic<std::size_t> claimed{0};
  std::mutex stream_mutex;
  auto prepare_loop = [&] {
    for (;;) {
      std::size_t i = 0;
      std::optional<AccelInput> in;
      try {
        Clock::time_point t0;
        if (files) {
          i = claimed.fetch_add(1);
          if (!to_search.wanted(i)) return;  // past the end, or past an input that failed
          t0 = Clock::now();
          in = source.read_file(i);
        } else {
          std::optional<std::function<AccelInput()>> record;
          {
            const std::lock_guard lock(stream_mutex);  // records in order, numbered as read
            i = claimed.fetch_add(1);
            if (!to_search.wanted(i)) return;
            record = source.next();
          }
          if (!record) {
            to_search.end_at(i);
            return;
          }
          t0 = Clock::now();  // the record's bytes are read; its conversion and FFT follow
          in = (*record)();
        }
        TrialPtr t = prepare(std::move(*in), config, seconds(t0, Clock::now()));
        t->index = i;
        if (!to_search.push(i, std::move(t))) return;
      } catch (...) {
        // A bad input: the trials before it are still searched and written, as one at a time.
        error.set_at(i, std::current_exception());
        to_search.end_at(i);
        return;
      }
    }
  };
  if (files) to_search.end_at(source.count);

  std::vector<SiftInput> out(files ? source.count : 0);
  std::mutex out_mutex;
  std::size_t finished = 0;
  auto finish_loop = [&] {
    try {
      while (auto t = to_finish.pop()) {
        SiftInput sift = finish(**t, settings.single_input);
        totals.add(**t);
        const std::lock_guard lock(out_mutex);
        const std::size_t i = (*t)->index;
        if (out.size() <= i) out.resize(i + 1);
        out[i] = std::move(sift);
        progress.update(++finished);
      }
    } catch (...) {
      stop_all(std::current_exception());
    }
  };

  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(preparers + finishers));  // no push_back throws holding a thread
  try {
    for (int k = 0; k < preparers; ++k) threads.push_back(start_thread(prepare_loop));
    for (int k = 0; k < finishers; ++k) threads.push_back(start_thread(finish_loop));
  } catch (...) {
    // The threads started so far stop at the cancelled queues; joined before the error leaves.
    stop_all(std::current_exception());
    for (std::thread& t : threads) t.join();
    error.rethrow();
  }
  std::size_t searched = 0;
  try {
    Searcher searcher(settings);
    auto pass_on = [&](std::vector<TrialPtr> done) {
      for (TrialPtr& t : done) {
        ++searched;
        if (!to_finish.push(std::move(t))) return false;
      }
      return true;
    };
    bool open = true;
    while (open) {
      auto t = to_search.pop();
      open = t.has_value() && pass_on(searcher.add(std::move(*t)));
    }
    pass_on(searcher.flush());
    if (searcher.reused() > 0) {
      log_verbose("{} trials searched by a searcher made for a longer one ({} searchers made)", searcher.reused(),
                  searcher.made());
    }
    to_finish.close();
  } catch (...) {
    stop_all(std::current_exception());
  }
  for (std::thread& t : threads) t.join();
  error.rethrow();
  progress.finish();
  totals.print(seconds(t_start, Clock::now()), preparers);
  out.resize(searched);  // a stream's count, or the trials before a bad input
  return out;
}

}  // namespace fastpsr::app
