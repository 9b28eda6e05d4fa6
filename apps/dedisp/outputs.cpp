// SPDX-License-Identifier: MIT
#include "outputs.hpp"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/presto_inf.hpp"
#include "fastpsr/presto_subbands.hpp"
#include "fastpsr/series_spool.hpp"
#include "fastpsr/temp_registry.hpp"
#include "fastpsr/tim_stream.hpp"
#include "fastpsr/timeseries.hpp"

namespace fastpsr::app {
namespace {

std::size_t sample_bytes(int nbits) { return static_cast<std::size_t>(nbits) / 8; }

// Files this process may still open: the soft limit is raised to the hard one first.
std::size_t file_budget() {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return 256;
  if (lim.rlim_cur < lim.rlim_max) {
    rlimit raised = lim;
    raised.rlim_cur = lim.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) lim = raised;
  }
  const auto soft = static_cast<std::size_t>(std::min<rlim_t>(lim.rlim_cur, 1 << 20));
  return soft > 128 ? soft - 64 : 16;
}

// Gulps of a few hundred KiB per series go straight to the file; a file's buffer only gathers
// the pieces of baselines and 8/16-bit scaling and smaller gulps (and keeps thousands of sinks
// small). It is made at the first write smaller than itself: at the last block at the latest.
constexpr std::size_t kSeriesBuffer = std::size_t{64} << 10;

// dat and tim: every file open at once, or (more files than this process may open) the series
// spooled and written one after the other at the end.
bool files_stay_open(const OutputOptions& o, std::size_t nseries) {
  return nseries * (o.format == OutputFormat::dat ? 2 : 1) + 8 <= file_budget();
}

// The .tim header of one series (formats.md §2): SIGPROC dedisperse's keys; fch1 is the
// reference frequency; no `signed` key, because our 8-bit output is unsigned and PRESTO would
// read +1 as signed (formats.md §1.6).
SigprocHeader tim_header(const SigprocHeader& in, const SeriesMeta& s, int nbits, std::uint64_t start_sample) {
  SigprocHeader h = make_tim_header(in, s.dm, s.ref_freq_mhz, nbits);
  h.tsamp = s.tsamp_s;
  h.tstart = in.tstart + static_cast<double>(start_sample) * in.tsamp / 86400.0;
  h.remove_key("signed");
  return h;
}

// PRESTO's .inf for the input (make_inf_for), with the epoch of the first output sample and
// a note saying what the file holds. `valid`: samples before the padding (0: no padding).
// The input's gaps in a series' samples: output sample t sums input samples from start + t x
// downsample on, so a gap holds the output samples whose first input sample it holds.
std::vector<SampleGap> series_gaps(const std::vector<SampleGap>& input_gaps, std::uint64_t start_sample,
                                   int downsample) {
  std::vector<SampleGap> out;
  const auto ds = static_cast<std::uint64_t>(std::max(downsample, 1));
  for (const SampleGap& g : input_gaps) {
    const std::uint64_t end = g.first + g.count;
    if (end <= start_sample) continue;
    const std::uint64_t from = g.first > start_sample ? g.first - start_sample : 0;
    const std::uint64_t first = (from + ds - 1) / ds;
    const std::uint64_t last = (end - start_sample + ds - 1) / ds;  // one past
    if (last > first) out.push_back({first, last - first});
  }
  return out;
}

PrestoInf output_inf(const OutputOptions& o, const SigprocHeader& in, const std::string& name, const SeriesMeta& s,
                     std::uint64_t n, std::uint64_t valid, const std::vector<SampleGap>& input_gaps = {}) {
  InfRequest req = o.inf_fields;
  req.gaps = series_gaps(input_gaps, o.start_sample, s.downsample);
  req.name = name;
  req.dm = s.dm;
  req.nsamples = n;
  req.tsamp_s = s.tsamp_s;
  req.valid_samples = valid;
  PrestoInf inf = make_inf_for(in, req);
  inf.mjd_f += static_cast<double>(o.start_sample) * in.tsamp / 86400.0;
  while (inf.mjd_f >= 1.0) {
    inf.mjd_f -= 1.0;
    ++inf.mjd_i;
  }
  if (!o.note.empty()) inf.notes += "    " + o.note + "\n";
  return inf;
}

void check_unique(const std::vector<std::string>& names) {
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (!seen.emplace(names[i], i).second) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("two DM trials would both be written to '{}': use --dm-prec for more digits", names[i]));
    }
  }
}

// .dat/.inf pairs or .tim files, one per series. Files stay open while the process may hold
// that many; beyond, series are spooled and written one after the other at the end.
class FileSeries final : public Output {
 public:
  FileSeries(const OutputOptions& o, const SigprocHeader& in, const std::vector<SeriesMeta>& series)
      : opts_(o), input_(in), series_(series) {
    const bool tim = o.format == OutputFormat::tim;
    for (const auto& s : series) {
      // One DM and "-o obs.tim" or "-o obs.dat" (PRESTO prepdata's naming): exactly that file.
      const std::string ext = tim ? ".tim" : ".dat";
      if (std::max(o.run_dms, series.size()) == 1 && (tim || o.path.ends_with(ext))) {
        paths_.push_back(o.path);
      } else {
        // "-o obs.tim" with several DMs means the root "obs": obs_DM12.50.tim ...
        const std::string root = o.path.ends_with(ext) ? o.path.substr(0, o.path.size() - 4) : o.path;
        paths_.push_back(presto_dm_root(root, s.dm, o.dm_decimals) + (tim ? ".tim" : ".dat"));
      }
    }
    check_unique(paths_);
    if (o.even) {
      held_.resize(series.size());
      has_held_.assign(series.size(), 0);
    }
    if (o.numout > 0) {
      FASTPSR_EXPECTS(o.format == OutputFormat::dat && !o.even, "numout is for dat output without even");
      taken_.assign(series.size(), 0);
      sums_.assign(series.size(), 0.0);
    }
    if (files_stay_open(o, series.size())) {
      sinks_.resize(series.size());
      infs_.resize(series.size());
      header_due_.assign(series.size(), 0);
      writeback_mark_.assign(series.size(), 0);
      opened_ = std::make_unique<std::once_flag[]>(series.size());
      ensure_open(0);  // fails now if the directory is not writable
      start_openers(o.team != nullptr ? o.team->size() : 1);
    } else {
      open_series(0);  // fails now if the directory is not writable; the temporary is removed
      spool_ = std::make_unique<SeriesSpool>(series.size(), o.spool_memory, o.tmpdir);
    }
  }

  ~FileSeries() override { stop_openers(); }
  FileSeries(const FileSeries&) = delete;
  FileSeries& operator=(const FileSeries&) = delete;

  // With `even`, the last sample that has come is held back: it is written when more follow,
  // or by finish() when the series' length is even (and dropped when it is odd). So a file's
  // length is even without cutting the temporary, and stdout or a FIFO can take it too.
  void write(std::size_t i, const std::uint8_t* data, std::size_t n) override {
    if (opts_.numout > 0) {  // float32 samples: the first numout kept, their sum for the padding
      n = static_cast<std::size_t>(std::min<std::uint64_t>(n, opts_.numout - taken_[i]));
      taken_[i] += n;
      for (std::size_t k = 0; k < n; ++k) {
        float v;
        std::memcpy(&v, data + 4 * k, sizeof v);
        sums_[i] += static_cast<double>(v);
      }
    }
    if (!opts_.even || n == 0) {
      put(i, data, n);
      return;
    }
    const std::size_t w = sample_bytes(nbits());
    if (has_held_[i] != 0) put(i, held_[i].data(), 1);
    put(i, data, n - 1);
    std::memcpy(held_[i].data(), data + (n - 1) * w, w);
    has_held_[i] = 1;
  }

  [[nodiscard]] bool parallel_writes() const noexcept override { return !spool_; }

  // A run that fails here (a full disk, an unwritable name) leaves none of its files: those
  // already renamed into place are removed, so that no partial set of DM trials (or a .dat
  // without its .inf) looks like a finished run's output (QA pass 16, P16). A signal that ends
  // the run here (SIGINT, SIGTERM, SIGHUP) does the same: the files are renamed through an
  // OutputSet, whose renamed files the signal's handler removes along with the temporaries
  // until the last one is in place; from then on the run is complete and a signal leaves them.
  void finish(const std::vector<std::uint64_t>& lengths) override {
    committed_ = std::make_unique<std::atomic<unsigned>[]>(series_.size());
    temp_files::OutputSet set(2 * series_.size());  // file 2i: series i, 2i + 1: its .inf
    // The sample held back by write() is the last one: written where the length is even.
    auto kept = [&](std::size_t i) {
      return opts_.numout > 0 ? opts_.numout : opts_.even ? lengths[i] / 2 * 2 : lengths[i];
    };
    auto last_sample = [&](std::size_t i, ByteSink& sink) {
      if (opts_.even && has_held_[i] != 0 && kept(i) == lengths[i]) sink.write(held_[i].data(), sample_bytes(nbits()));
      if (opts_.numout > 0 && taken_[i] < opts_.numout) pad_to_numout(i, sink);
      fill_gaps_with_mean(i, sink, kept(i));
    };
    try {
      if (opts_.even) {
        // A series of one sample keeps none: an empty .dat would only fail later, in realfft or
        // accelsearch, far from its cause.
        for (std::size_t i = 0; i < series_.size(); ++i) {
          if (lengths[i] > 0 && kept(i) == 0) {
            throw Error(ErrorCode::invalid_argument,
                        fmt::format("--even leaves no samples: DM {} has only one sample with full data; give "
                                    "more data or leave out --even",
                                    series_[i].dm),
                        paths_[i]);
          }
        }
      }
      if (!spool_) {
        stop_openers();
        for_each_series([&](std::size_t i) {
          ensure_open(i);
          write_due_header(i);
          last_sample(i, *sinks_[i]);
          complete(set, std::move(sinks_[i]), std::move(infs_[i]), i, kept(i));
        });
      } else {
        for (std::size_t i = 0; i < series_.size(); ++i) {  // the spool is read by one thread
          auto sink = open_series(i);
          spool_->read(i, [&](const std::uint8_t* p, std::size_t n) { sink->write(p, n); });
          spool_->release(i);
          last_sample(i, *sink);
          complete(set, std::move(sink), open_inf(i), i, kept(i));
        }
      }
      set.complete();
    } catch (...) {
      remove_committed();
      throw;
    }
  }

  [[nodiscard]] std::string describe() const override {
    if (paths_.size() == 1) return paths_.front();
    return fmt::format("{} files {} ... {}{}", paths_.size(), paths_.front(), paths_.back(),
                       spool_ ? " (spooled, written at the end)" : "");
  }

 private:
  // --numout longer than the series: the series' mean after its samples, as prepsubband pads
  // (it takes the mean of its first DM's series for all; each series' own here).
  void pad_to_numout(std::size_t i, ByteSink& sink) const {
    const float mean = taken_[i] > 0 ? static_cast<float>(sums_[i] / static_cast<double>(taken_[i])) : 0.0F;
    std::vector<float> block(std::min<std::uint64_t>(opts_.numout - taken_[i], 65536), mean);
    for (std::uint64_t left = opts_.numout - taken_[i]; left > 0;) {
      const auto k = static_cast<std::size_t>(std::min<std::uint64_t>(left, block.size()));
      sink.write(block.data(), 4 * k);
      left -= k;
    }
  }

  // The samples of a .dat that come from a gap in the input take the mean of the series' other
  // samples, as prepsubband and prepdata overwrite their padding (with the first DM's mean for
  // all; each series' own here). Read back from the file (the page cache): only runs with gaps
  // pay. A .tim, or a .dat written to a pipe or device, keeps what the dedispersion gave.
  void fill_gaps_with_mean(std::size_t i, ByteSink& sink, std::uint64_t n) const {
    if (opts_.format != OutputFormat::dat || input_gaps_.empty() || n == 0) return;
    std::vector<SampleGap> gaps = series_gaps(input_gaps_, opts_.start_sample, series_[i].downsample);
    std::uint64_t in_gaps = 0;
    for (SampleGap& g : gaps) {
      g.count = g.first < n ? std::min(g.count, n - g.first) : 0;
      in_gaps += g.count;
    }
    if (in_gaps == 0 || in_gaps == n) return;
    constexpr std::size_t kPiece = std::size_t{1} << 18;  // samples read back at once
    std::vector<float> piece(kPiece);
    double sum = 0.0;
    std::size_t next = 0;  // the first gap not wholly before the sample summed
    for (std::uint64_t at = 0; at < n; at += kPiece) {
      const auto k = static_cast<std::size_t>(std::min<std::uint64_t>(kPiece, n - at));
      if (!sink.read_back(4 * at, piece.data(), 4 * k)) return;  // not a file: left as it is
      for (std::size_t j = 0; j < k; ++j) {
        const std::uint64_t t = at + j;
        while (next < gaps.size() && t >= gaps[next].first + gaps[next].count) ++next;
        if (next < gaps.size() && t >= gaps[next].first) continue;  // a gap's sample
        sum += static_cast<double>(piece[j]);
      }
    }
    const auto mean = static_cast<float>(sum / static_cast<double>(n - in_gaps));
    std::fill(piece.begin(), piece.end(), mean);
    for (const SampleGap& g : gaps) {
      for (std::uint64_t at = g.first; at < g.first + g.count; at += kPiece) {
        const auto k = static_cast<std::size_t>(std::min<std::uint64_t>(kPiece, g.first + g.count - at));
        if (!sink.overwrite(4 * at, piece.data(), 4 * k)) return;
      }
    }
  }

  // Appends n samples to series i: its file, or the spool.
  void put(std::size_t i, const std::uint8_t* data, std::size_t n) {
    if (n == 0) return;
    const std::size_t nbytes = n * sample_bytes(nbits());
    if (spool_) {
      spool_->append(i, data, nbytes);
    } else {
      ensure_open(i);
      write_due_header(i);
      ByteSink& sink = *sinks_[i];
      sink.write(data, nbytes);
      // Every MiB of a file is sent to the disk at once, so that it works while the next gulps
      // are computed, and the dirty pages stay bounded (by files x 1 MiB + what is in flight).
      if (sink.position() >= writeback_mark_[i] + kWritebackBytes) {
        sink.start_writeback();
        writeback_mark_[i] = sink.position();
      }
    }
  }

  [[nodiscard]] int nbits() const { return opts_.format == OutputFormat::dat ? 32 : opts_.nbits; }

  // fn(i) for every series, on the team's threads when there is one.
  void for_each_series(const std::function<void(std::size_t)>& fn) {
    if (opts_.team != nullptr) {
      opts_.team->run(series_.size(), fn);
    } else {
      for (std::size_t i = 0; i < series_.size(); ++i) fn(i);
    }
  }

  static constexpr std::uint64_t kWritebackBytes = std::uint64_t{1} << 20;

  std::unique_ptr<ByteSink> open_series(std::size_t i, bool with_header = true) {
    auto sink = open_sink(paths_[i], kSeriesBuffer);
    if (with_header && opts_.format == OutputFormat::tim) {
      write_sigproc_header(*sink, tim_header(input_, series_[i], opts_.nbits, opts_.start_sample));
    }
    return sink;
  }
  // A .tim file kept open through the run gets its header with its first sample (or at the
  // end), not when it is created: a run refused once the data is read (a DM whose delay the
  // data cannot fill, known only then when reading stdin) leaves nothing behind a shell
  // redirect, where a header alone would look like an empty result (QA pass 19).
  void write_due_header(std::size_t i) {
    if (header_due_[i] == 0) return;
    header_due_[i] = 0;
    write_sigproc_header(*sinks_[i], tim_header(input_, series_[i], opts_.nbits, opts_.start_sample));
  }
  // The .inf beside a .dat (created with it, written when the length is known); none for .tim.
  std::unique_ptr<ByteSink> open_inf(std::size_t i) {
    if (opts_.format != OutputFormat::dat) return nullptr;
    return open_sink(presto_root(paths_[i]) + ".inf");
  }

  // Creating thousands of files is a metadata update each, slow on some disks (0.3-0.6 ms a
  // file on the lent GPU machine's disk: longer than the whole dedispersion). So only the first
  // file is created before the work starts; threads matching the writer team's split create the
  // others meanwhile, in the order the writers need them, and a writer that reaches a file not
  // yet created creates it itself (once per file: std::call_once).
  void ensure_open(std::size_t i) {
    std::call_once(opened_[i], [&] {
      sinks_[i] = open_series(i, false);
      header_due_[i] = opts_.format == OutputFormat::tim ? 1 : 0;
      infs_[i] = open_inf(i);
    });
  }
  void start_openers(std::size_t threads) {
    for (std::size_t m = 0; m < threads && m < series_.size(); ++m) {
      try {
        openers_.emplace_back([this, m, threads] {
          try {
            for (std::size_t i = m; i < series_.size() && !stop_.load(std::memory_order_relaxed); i += threads) {
              ensure_open(i);
            }
          } catch (...) {  // NOLINT(bugprone-empty-catch): the writer or finish() opening it reports it
          }
        });
      } catch (const std::system_error&) {
        // A thread the system will not start: the openers only save time, and each writer opens
        // the files not opened yet itself (ensure_open). Thrown on, the error would destroy the
        // started openers unjoined (std::terminate) from this constructor.
        break;
      }
    }
  }
  void stop_openers() {
    stop_.store(true, std::memory_order_relaxed);
    for (auto& t : openers_) t.join();
    openers_.clear();
  }

  // The .inf is written before either file is renamed into place; committed_[i] records which
  // were (kDatCommitted, kInfCommitted) for remove_committed().
  void complete(temp_files::OutputSet& set, std::unique_ptr<ByteSink> sink, std::unique_ptr<ByteSink> inf,
                std::size_t i, std::uint64_t n) {
    sink->flush();
    sink->start_writeback();
    if (inf) {
      const std::string text = format_inf(inf_for(i, n));
      inf->write(text.data(), text.size());
      inf->flush();
    }
    set.commit(2 * i, removable_path(paths_[i]), [&] { sink->commit(); });
    committed_[i] |= kDatCommitted;
    if (inf) {
      const std::string inf_path = presto_root(paths_[i]) + ".inf";
      set.commit(2 * i + 1, removable_path(inf_path), [&] { inf->commit(); });
      committed_[i] |= kInfCommitted;
    }
  }

  // The path a signal may remove once the file is renamed there: none for stdout and for an
  // existing device or FIFO (open_sink writes those in place; they are not ours to remove).
  static std::string removable_path(const std::string& path) {
    struct stat st {};
    if (path == "-" || (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))) return {};
    return path;
  }

  // Removes the files of this run already renamed into place. Only regular files: a target
  // that is a device, FIFO or a link to one was written in place and is not ours to remove.
  void remove_committed() noexcept {
    auto remove_file = [](const std::string& path) {
      struct stat st {};
      if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(path.c_str());
    };
    for (std::size_t i = 0; i < series_.size(); ++i) {
      const unsigned done = committed_[i].load();
      if ((done & kDatCommitted) != 0) remove_file(paths_[i]);
      if ((done & kInfCommitted) != 0) remove_file(presto_root(paths_[i]) + ".inf");
    }
  }
  static constexpr unsigned kDatCommitted = 1;
  static constexpr unsigned kInfCommitted = 2;

  [[nodiscard]] PrestoInf inf_for(std::size_t i, std::uint64_t n) const {
    const std::uint64_t valid = opts_.numout > 0 && taken_[i] < n ? taken_[i] : 0;  // padded: on/off pairs
    return output_inf(opts_, input_, presto_root(paths_[i]), series_[i], n, valid, input_gaps_);
  }

 public:
  void note_gaps(const std::vector<SampleGap>& input_gaps) override { input_gaps_ = input_gaps; }

 private:
  std::vector<SampleGap> input_gaps_;

  OutputOptions opts_;
  SigprocHeader input_;
  std::vector<SeriesMeta> series_;
  std::vector<std::string> paths_;
  std::vector<std::unique_ptr<ByteSink>> sinks_;
  std::vector<std::unique_ptr<ByteSink>> infs_;  // .inf temporaries, written by finish()
  std::vector<std::uint64_t> writeback_mark_;    // sink position at its last start_writeback()
  std::vector<std::uint8_t> header_due_;         // per series: a .tim header not yet written
  std::unique_ptr<std::once_flag[]> opened_;     // per series: sink (and .inf) created
  std::vector<std::thread> openers_;
  std::atomic<bool> stop_{false};
  std::unique_ptr<SeriesSpool> spool_;
  std::unique_ptr<std::atomic<unsigned>[]> committed_;  // per series, by finish()
  // With `even`: each series' last sample so far, held back by write() (bytes, not bools:
  // series are written from different threads).
  std::vector<std::array<std::uint8_t, 4>> held_;
  std::vector<std::uint8_t> has_held_;
  // With numout: samples of each series kept so far, and their sum (double) for the padding.
  std::vector<std::uint64_t> taken_;
  std::vector<double> sums_;
};

// A stream of .tim records, one per series (tim_stream.hpp), each header carrying its exact
// `nsamples`. A record can only start once its series is complete, so series are spooled
// (memory up to the budget, then an anonymous temporary file) and the records written at the end.
class TimStream final : public Output {
 public:
  TimStream(const OutputOptions& o, const SigprocHeader& in, const std::vector<SeriesMeta>& series)
      : opts_(o),
        input_(in),
        series_(series),
        writer_(TimStreamWriter::open(o.path.empty() ? "-" : o.path)),
        spool_(series.size(), o.spool_memory, o.tmpdir) {
    FASTPSR_EXPECTS(o.nbits == 32, "a tim-stream carries float32 samples; --nbits-out {} is for tim and fil", o.nbits);
  }

  void write(std::size_t i, const std::uint8_t* data, std::size_t n) override {
    spool_.append(i, data, n * sizeof(float));
  }

  void finish(const std::vector<std::uint64_t>& lengths) override {
    std::vector<float> piece;
    for (std::size_t i = 0; i < series_.size(); ++i) {
      writer_->begin(tim_header(input_, series_[i], 32, opts_.start_sample), lengths[i]);
      spool_.read(i, [&](const std::uint8_t* p, std::size_t nbytes) {
        piece.resize(nbytes / sizeof(float));
        std::memcpy(piece.data(), p, nbytes);
        writer_->append(piece);
      });
      spool_.release(i);
    }
    writer_->commit();
  }

  [[nodiscard]] std::string describe() const override {
    return fmt::format("{}, {} records", writer_->name(), series_.size());
  }

 private:
  OutputOptions opts_;
  SigprocHeader input_;
  std::vector<SeriesMeta> series_;
  std::unique_ptr<TimStreamWriter> writer_;
  SeriesSpool spool_;
};

// DM-time as a filterbank: one "channel" per DM (fch1 = the first DM, foff = the mean DM
// step), or the subbands of one DM (--subbands); rows written as soon as every series has
// reached them; all series end at the shortest.
class DmTimeFilterbank final : public Output {
 public:
  DmTimeFilterbank(const OutputOptions& o, const SigprocHeader& in, const std::vector<SeriesMeta>& series)
      : opts_(o), queues_(series.size()) {
    header_ = o.subbands ? subband_header(o, in, series) : dm_time_header(o, in, series);
    // A file is created now (an unwritable name fails before any work); stdout gets its header
    // with the first row, so a run refused after reading leaves nothing behind a redirect.
    if (!o.path.empty() && o.path != "-") writer();
  }

  void write(std::size_t i, const std::uint8_t* data, std::size_t n) override {
    queues_[i].insert(queues_[i].end(), data, data + n * sample_bytes(opts_.nbits));
    drain(SIZE_MAX);
  }

  void finish(const std::vector<std::uint64_t>& lengths) override {
    const std::uint64_t common = *std::min_element(lengths.begin(), lengths.end());
    drain(static_cast<std::size_t>(common - writer().samples_written()));
    writer().commit();
  }

  [[nodiscard]] std::string describe() const override {
    const std::string path = opts_.path.empty() ? "-" : opts_.path;
    if (opts_.subbands) {
      return fmt::format("{}, a filterbank of {} subbands dedispersed at DM {}", path, queues_.size(),
                         opts_.subbands->dm);
    }
    return fmt::format("{}, a DM-time filterbank of {} DMs", path, queues_.size());
  }

 private:
  // The header's fields of the input that every output keeps.
  static SigprocHeader kept_fields(const SigprocHeader& in) {
    SigprocHeader h;
    h.source_name = in.source_name;
    h.rawdatafile = in.rawdatafile.empty() ? std::string("dedisp") : in.rawdatafile;
    h.telescope_id = in.telescope_id;
    h.machine_id = in.machine_id;
    h.src_raj = in.src_raj;
    h.src_dej = in.src_dej;
    h.az_start = in.az_start;
    h.za_start = in.za_start;
    h.nifs = 1;
    h.nbeams = 1;
    h.ibeam = in.ibeam;
    return h;
  }

  // Subbands as SIGPROC's dedisperse -b labels them: data_type 6, refdm, subband b at fch1 + b
  // foff (its reference frequency), the input's time resolution.
  static SigprocHeader subband_header(const OutputOptions& o, const SigprocHeader& in,
                                      const std::vector<SeriesMeta>& series) {
    SigprocHeader h = kept_fields(in);
    h.data_type = 6;
    h.refdm = o.subbands->dm;
    h.nchans = static_cast<std::int32_t>(series.size());
    h.fch1 = o.subbands->fch1_mhz;
    h.foff = o.subbands->foff_mhz;
    h.nbits = o.nbits;
    h.tstart = in.tstart + static_cast<double>(o.start_sample) * in.tsamp / 86400.0;
    h.tsamp = series.front().tsamp_s;
    h.keys = sigproc_filterbank_keys(h);
    h.keys.insert(std::find(h.keys.begin(), h.keys.end(), "data_type") + 1, "refdm");
    return h;
  }

  static SigprocHeader dm_time_header(const OutputOptions& o, const SigprocHeader& in,
                                      const std::vector<SeriesMeta>& series) {
    for (const auto& s : series) {
      if (s.tsamp_s != series.front().tsamp_s) {
        throw Error(ErrorCode::invalid_argument,
                    "--format fil needs one time resolution, but the DM plan downsamples some ranges; "
                    "use --dm lo:hi:step or --downsample");
      }
    }
    const double step =
        series.size() > 1 ? (series.back().dm - series.front().dm) / static_cast<double>(series.size() - 1) : 1.0;
    // The header can only say fch1 + i x foff: a list of uneven steps would be labelled wrongly.
    for (std::size_t i = 1; i < series.size(); ++i) {
      const double expected = series.front().dm + static_cast<double>(i) * step;
      if (std::abs(series[i].dm - expected) > 1e-6 * std::abs(step) + 1e-9) {
        throw Error(ErrorCode::invalid_argument,
                    fmt::format("--format fil labels its DM channels fch1 + i x foff, but these DM trials are not "
                                "evenly spaced (DM {} is trial {}, where the mean step puts {}): use --dm lo:hi:step, "
                                "or the dat or tim formats for a list",
                                series[i].dm, i, expected));
      }
    }
    SigprocHeader h = kept_fields(in);
    h.data_type = 1;
    h.nchans = static_cast<std::int32_t>(series.size());
    h.fch1 = series.front().dm;
    h.foff = step;
    h.nbits = o.nbits;
    h.tstart = in.tstart + static_cast<double>(o.start_sample) * in.tsamp / 86400.0;
    h.tsamp = series.front().tsamp_s;
    h.keys = sigproc_filterbank_keys(h);
    return h;
  }

  // Writes the rows every series has, up to `limit` rows.
  void drain(std::size_t limit) {
    const std::size_t w = sample_bytes(opts_.nbits);
    std::size_t rows = limit;
    for (const auto& q : queues_) rows = std::min(rows, q.size() / w);
    if (rows == 0) return;
    row_.resize(rows * queues_.size() * w);
    switch (w) {
      case 1:
        transpose<std::uint8_t>(rows);
        break;
      case 2:
        transpose<std::uint16_t>(rows);
        break;
      default:
        transpose<std::uint32_t>(rows);
        break;
    }
    for (auto& q : queues_) q.erase(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(rows * w));
    writer().write_packed(row_.data(), rows);
  }

  FilterbankWriter& writer() {
    if (!writer_) writer_ = FilterbankWriter::open(opts_.path.empty() ? "-" : opts_.path, header_);
    return *writer_;
  }

  // row_[t][i] = queue i's sample t, in tiles of 32 series x 64 samples, so that both the
  // queues and the rows are read and written a cache line at a time (series-by-series copying
  // strode through the rows by the number of DMs and was slower than the dedispersion).
  template <typename Word>
  void transpose(std::size_t rows) {
    constexpr std::size_t kSeries = 32;
    constexpr std::size_t kSamples = 64;
    const std::size_t n = queues_.size();
    Word tile[kSeries][kSamples];
    for (std::size_t t0 = 0; t0 < rows; t0 += kSamples) {
      const std::size_t nt = std::min(rows - t0, kSamples);
      for (std::size_t i0 = 0; i0 < n; i0 += kSeries) {
        const std::size_t ni = std::min(n - i0, kSeries);
        for (std::size_t i = 0; i < ni; ++i) {
          std::memcpy(tile[i], queues_[i0 + i].data() + t0 * sizeof(Word), nt * sizeof(Word));
        }
        for (std::size_t t = 0; t < nt; ++t) {
          Word column[kSeries];
          for (std::size_t i = 0; i < ni; ++i) column[i] = tile[i][t];
          std::memcpy(row_.data() + ((t0 + t) * n + i0) * sizeof(Word), column, ni * sizeof(Word));
        }
      }
    }
  }

  OutputOptions opts_;
  std::vector<std::vector<std::uint8_t>> queues_;
  std::vector<std::uint8_t> row_;
  SigprocHeader header_;
  std::unique_ptr<FilterbankWriter> writer_;  // created by writer(): at once for a file, with the first row for stdout
};

// PRESTO subband files (prepsubband -sub): each subband of one DM as int16 in its own
// <root>_DM<dm>.sub<NN> (lowest frequency first), and one <root>_DM<dm>.sub.inf describing the
// input's band. Samples are converted as prepsubband converts them, (short)(x + 0.5) (x + 0.5 in
// double, truncated toward zero), except that values beyond the int16 range saturate where
// PRESTO's cast is undefined. Rows go out once every subband has them; all files end at the
// shortest subband, so the set has one length, as PRESTO's.
class PrestoSubbandFiles final : public Output {
 public:
  PrestoSubbandFiles(const OutputOptions& o, const SigprocHeader& in, const std::vector<SeriesMeta>& series)
      : opts_(o), input_(in), series_(series), queues_(series.size()) {
    FASTPSR_EXPECTS(o.subbands.has_value() && o.nbits == 32, "subband files take float32 subbands of one DM");
    dm_root_ = presto_dm_root(o.path, o.subbands->dm, o.dm_decimals);
    const int n = static_cast<int>(series.size());
    for (int i = 0; i < n; ++i) {
      // Series i is subband i in file channel order; PRESTO numbers them from the lowest.
      const int number = o.subbands->foff_mhz < 0.0 ? n - 1 - i : i;
      paths_.push_back(presto_subband_file_name(dm_root_, number, n));
    }
    // Every file is created now: an unwritable directory fails before any work.
    sinks_.resize(series.size());
    for (std::size_t i = 0; i < series.size(); ++i) sinks_[i] = open_sink(paths_[i], kSeriesBuffer);
    inf_ = open_sink(dm_root_ + ".sub.inf");
  }

  void write(std::size_t i, const std::uint8_t* data, std::size_t n) override {
    auto& q = queues_[i];
    const std::size_t at = q.size();
    q.resize(at + n);
    std::memcpy(q.data() + at, data, n * sizeof(float));
    drain(SIZE_MAX);
  }

  void finish(const std::vector<std::uint64_t>& lengths) override {
    const std::uint64_t common = *std::min_element(lengths.begin(), lengths.end());
    FASTPSR_EXPECTS(common > 0, "no subband sample has full data");
    drain(static_cast<std::size_t>(common - written_));
    if (saturated_ > 0) {
      log_warning(
          "{}: {} sample{} beyond the int16 range of PRESTO's subband files, saturated (PRESTO's cast is undefined "
          "there)",
          dm_root_ + ".sub*", saturated_, saturated_ == 1 ? " was" : "s were");
    }
    const std::string text = format_inf(output_inf(opts_, input_, dm_root_ + ".sub", series_.front(), common, 0));
    inf_->write(text.data(), text.size());
    // A set that fails half-way (a full disk) leaves none of its files, as FileSeries.
    std::vector<std::string> committed;
    try {
      temp_files::OutputSet set(series_.size() + 1);
      for (std::size_t i = 0; i < series_.size(); ++i) {
        sinks_[i]->flush();
        set.commit(i, paths_[i], [&] { sinks_[i]->commit(); });
        committed.push_back(paths_[i]);
      }
      inf_->flush();
      set.commit(series_.size(), dm_root_ + ".sub.inf", [&] { inf_->commit(); });
      set.complete();
    } catch (...) {
      for (const auto& path : committed) ::unlink(path.c_str());
      throw;
    }
  }

  [[nodiscard]] std::string describe() const override {
    return fmt::format("{} subband files {} ... {} and {}.sub.inf (PRESTO prepsubband -sub)", paths_.size(),
                       paths_.front(), paths_.back(), dm_root_);
  }

 private:
  std::int16_t to_short(float v) {
    const double x = static_cast<double>(v) + 0.5;
    if (!(x > -32769.0 && x < 32768.0)) {  // NaN too
      ++saturated_;
      if (std::isnan(x)) return 0;
      return x > 0.0 ? std::numeric_limits<std::int16_t>::max() : std::numeric_limits<std::int16_t>::min();
    }
    return static_cast<std::int16_t>(static_cast<int>(x));  // truncated toward zero, as C's cast
  }

  // Writes the samples every subband has, up to `limit` of them, converted as they go out (so
  // the saturation count is of samples written).
  void drain(std::size_t limit) {
    std::size_t rows = limit;
    for (const auto& q : queues_) rows = std::min(rows, q.size());
    if (rows == 0) return;
    shorts_.resize(rows);
    for (std::size_t i = 0; i < queues_.size(); ++i) {
      for (std::size_t t = 0; t < rows; ++t) shorts_[t] = to_short(queues_[i][t]);
      sinks_[i]->write(shorts_.data(), rows * sizeof(std::int16_t));
      queues_[i].erase(queues_[i].begin(), queues_[i].begin() + static_cast<std::ptrdiff_t>(rows));
    }
    written_ += rows;
  }

  OutputOptions opts_;
  SigprocHeader input_;
  std::vector<SeriesMeta> series_;
  std::vector<std::vector<float>> queues_;
  std::vector<std::int16_t> shorts_;
  std::string dm_root_;
  std::vector<std::string> paths_;
  std::vector<std::unique_ptr<ByteSink>> sinks_;
  std::unique_ptr<ByteSink> inf_;
  std::uint64_t written_ = 0;
  std::uint64_t saturated_ = 0;
};

}  // namespace

OutputFormat parse_output_format(const std::string& text) {
  if (text == "dat") return OutputFormat::dat;
  if (text == "tim") return OutputFormat::tim;
  if (text == "tim-stream") return OutputFormat::tim_stream;
  if (text == "fil") return OutputFormat::fil;
  if (text == "sub") return OutputFormat::sub;
  throw Error(ErrorCode::invalid_argument,
              fmt::format("--format '{}': expected dat, tim, tim-stream, fil or sub", text));
}

const char* to_string(OutputFormat f) {
  switch (f) {
    case OutputFormat::dat:
      return "dat";
    case OutputFormat::tim:
      return "tim";
    case OutputFormat::tim_stream:
      return "tim-stream";
    case OutputFormat::fil:
      return "fil";
    case OutputFormat::sub:
      return "sub";
  }
  return "?";
}

OutputMemory output_memory(const OutputOptions& opts, std::size_t nseries, std::size_t block_samples,
                           std::optional<std::uint64_t> total_bytes) {
  // A spool holds the series in memory up to its budget (then in a file, through per-series
  // buffers that share the same budget); reading it back takes a piece of 4 MiB.
  constexpr std::size_t kSpoolPiece = std::size_t{4} << 20;
  const std::size_t spool = total_bytes
                                ? static_cast<std::size_t>(std::min<std::uint64_t>(*total_bytes, opts.spool_memory))
                                : opts.spool_memory;
  const std::string budget =
      fmt::format("up to {:.0f} MiB in memory", static_cast<double>(opts.spool_memory) / 1048576.0);
  switch (opts.format) {
    case OutputFormat::dat:
    case OutputFormat::tim:
      if (files_stay_open(opts, nseries)) {
        return {nseries * kSeriesBuffer,
                fmt::format("a write buffer of {} KiB for each of {} files", kSeriesBuffer >> 10, nseries), true};
      }
      return {spool + kSpoolPiece + kSinkBufferBytes,
              "the series spooled, " + budget + ": more files than this process may open"};
    case OutputFormat::tim_stream:
      // The records are assembled from the spool in 4 MiB pieces and go through the sink's buffer.
      return {spool + 2 * kSpoolPiece + kSinkBufferBytes, "the records spooled, " + budget};
    case OutputFormat::fil:
      // Each series' block waits in its queue until every series has it, then is transposed into
      // rows; at the end the longer series' last samples wait there too (a queue of two blocks).
      return {3 * nseries * block_samples * sample_bytes(opts.nbits) + kSinkBufferBytes,
              "up to two blocks of every DM, and their transposition into rows", true};
    case OutputFormat::sub:
      // float queues of up to two blocks a subband, and a write buffer a file.
      return {nseries * (8 * block_samples + kSeriesBuffer), "up to two blocks of every subband, a buffer a file",
              true};
  }
  return {};
}

std::unique_ptr<Output> make_output(const OutputOptions& opts, const SigprocHeader& input,
                                    const std::vector<SeriesMeta>& series) {
  FASTPSR_EXPECTS(!series.empty(), "no DM trials to write");
  switch (opts.format) {
    case OutputFormat::dat:
    case OutputFormat::tim:
      return std::make_unique<FileSeries>(opts, input, series);
    case OutputFormat::tim_stream:
      return std::make_unique<TimStream>(opts, input, series);
    case OutputFormat::fil:
      return std::make_unique<DmTimeFilterbank>(opts, input, series);
    case OutputFormat::sub:
      return std::make_unique<PrestoSubbandFiles>(opts, input, series);
  }
  throw Error(ErrorCode::internal, "unknown output format");
}

}  // namespace fastpsr::app
