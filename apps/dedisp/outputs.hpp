// SPDX-License-Identifier: MIT
#pragma once
// Where dedispersed series go: PRESTO .dat/.inf pairs, SIGPROC .tim files, one stream of .tim
// records, a DM-time filterbank, or (subbands of one DM) PRESTO .sub files. Each series is written in order as its
// samples come; finish() completes and commits everything (files appear under their names only then).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastpsr/dedisp.hpp"
#include "fastpsr/sigproc.hpp"
#include "fastpsr/timeseries.hpp"
#include "fastpsr/worker_team.hpp"

namespace fastpsr::app {

enum class OutputFormat { dat, tim, tim_stream, fil, sub };
OutputFormat parse_output_format(const std::string& text);
const char* to_string(OutputFormat f);

/// One output series: a DM trial of one plan range.
struct SeriesMeta {
  double dm = 0;
  double tsamp_s = 0;       ///< output sample time
  double ref_freq_mhz = 0;  ///< the frequency the series is referenced to
  DelayModel model = DelayModel::presto;
  int downsample = 1;
};

struct OutputOptions {
  OutputFormat format = OutputFormat::dat;
  std::string path;                ///< root (dat, tim with several DMs) or file ("-" = stdout)
  int nbits = 32;                  ///< 32, 16 or 8 (tim, tim-stream, fil)
  int dm_decimals = 2;             ///< digits after the point of the DM in file names (PRESTO -dmprec)
  std::uint64_t start_sample = 0;  ///< input samples skipped (epoch of the first output sample)
  std::string tmpdir;              ///< spool directory ("" = $TMPDIR or /tmp)
  std::size_t spool_memory = std::size_t{512} << 20;
  std::string note;  ///< line for .inf notes (what was done)
  /// The .inf's instrument, observer and notes from the input file when it says them (PSRFITS).
  InfRequest inf_fields;
  /// dat and tim: an even number of samples per series, the last sample of an odd-length one
  /// dropped (PRESTO's realfft and accelsearch refuse odd lengths); N in the .inf matches.
  bool even = false;
  /// dat: exactly this many samples a series (PRESTO's -numout): the first `numout`, or all and
  /// then the series' mean up to `numout`, the .inf's on/off pairs marking the padding. 0: off.
  std::uint64_t numout = 0;
  /// Threads that open, write and complete files at once (dat, tim); nullptr: the caller's.
  WorkerTeam* team = nullptr;
  /// fil: the series are dedispersed subbands of one DM (--subbands), not DM trials: the file
  /// labels them as SIGPROC's dedisperse -b does (data_type 6, refdm, subband b at fch1 + b foff).
  /// sub (required there): PRESTO's subband files, named from `path` as a root and the DM.
  struct SubbandLabels {
    double fch1_mhz = 0;
    double foff_mhz = 0;
    double dm = 0;
  };
  std::optional<SubbandLabels> subbands;
  /// The DM trials of the whole run (more than the series of a --part): one DM in all is
  /// written to exactly `path` (dat, tim), more under `path` as a root, whatever the part holds.
  std::size_t run_dms = 0;
};

class Output {
 public:
  virtual ~Output() = default;
  /// Appends `nsamples` samples of series i, in output units (float32, or uint8/uint16 when
  /// nbits is 8/16).
  virtual void write(std::size_t i, const std::uint8_t* data, std::size_t nsamples) = 0;
  /// True when write() may be called for different series from different threads at once
  /// (each series from one thread at a time).
  [[nodiscard]] virtual bool parallel_writes() const noexcept { return false; }
  /// Completes the output. `lengths[i]`: samples written to series i (with `even`, one fewer
  /// are kept where that is odd).
  virtual void finish(const std::vector<std::uint64_t>& lengths) = 0;
  /// Where the output goes, for messages.
  [[nodiscard]] virtual std::string describe() const = 0;
  /// The input's stretches of padding (in input samples from the file's first), called before
  /// finish(): a .dat's .inf lists the data between them as PRESTO's on/off pairs.
  virtual void note_gaps(const std::vector<SampleGap>& input_gaps) { static_cast<void>(input_gaps); }
};

/// Host memory an output holds at most (without the per-series processing of the caller).
struct OutputMemory {
  std::size_t bytes = 0;
  std::string what;         ///< what it is, for -v and the memory check
  bool per_series = false;  ///< grows with the number of series (a spool does not)
};
/// The memory the output of `nseries` series would hold, made before the output is: blocks of at
/// most `block_samples` samples a series, `total_bytes` in all when the input's length is known
/// (a spool then holds no more than that).
OutputMemory output_memory(const OutputOptions& opts, std::size_t nseries, std::size_t block_samples,
                           std::optional<std::uint64_t> total_bytes);

/// Opens the output: the first file is created now, so that an unwritable directory fails
/// before any work; the others (dat, tim) are created by background threads while the work
/// starts, or by the writer that needs one first. Throws Error(io) naming the path, Error(invalid_argument) for DMs
/// whose file names collide at this precision.
std::unique_ptr<Output> make_output(const OutputOptions& opts, const SigprocHeader& input,
                                    const std::vector<SeriesMeta>& series);

}  // namespace fastpsr::app
