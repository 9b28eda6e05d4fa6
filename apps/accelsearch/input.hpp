// SPDX-License-Identifier: MIT
#pragma once
/// accelsearch's inputs: PRESTO .fft (with its .inf), any time series read_timeseries reads
/// (.dat/.sdat with .inf, SIGPROC .tim), and tim-streams (several DM trials, "-" for stdin).
#include <complex>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastpsr/accel_backends.hpp"
#include "fastpsr/presto_inf.hpp"
#include "fastpsr/tim_stream.hpp"
#include "fastpsr/timeseries.hpp"
#include "fastpsr/work_part.hpp"

namespace fastpsr::app {

struct AccelInput {
  std::string path;                      ///< as given (or "<stdin>:record")
  std::string root;                      ///< output root: the path without .fft/.dat/.sdat/.tim
  std::vector<std::complex<float>> fft;  ///< PRESTO packed layout
  PrestoInf inf;                         ///< its .inf (made from the header for SIGPROC input)
  std::string inf_text;                  ///< the .inf as appended to the ACCEL file
  bool from_fft = false;                 ///< a .fft file (PRESTO writes .txtcand only then)
  bool write_inf = false;                ///< no .inf exists: write <root>.inf beside the outputs
  bool inf_is_output = false;            ///< <root>.inf is this run's own (a stream record's): rewritten
  bool dereddened = false;               ///< a PRESTO rednoise output (<name>_red.fft): not de-reddened again
  double fft_s = 0;                      ///< seconds of the real FFT (a time series only)
};

/// Reads one input file and, for a time series, FFTs it. Throws Error naming the file: missing
/// .inf, a length that disagrees with the .inf, an empty series, NaN or infinite values, an
/// unsupported file.
/// `fft` transforms time series (make_real_fft: FFTW, or cuFFT for a GPU search).
AccelInput read_accel_input(const std::string& path, const RealFft& fft);

/// The input for one series already in memory (a tim-stream record); outputs go to `root`.
AccelInput accel_input_from_series(TimeSeries ts, const std::string& root, const RealFft& fft);

/// DM trials from a tim-stream, one at a time: records become inputs rooted at
/// <out_prefix>_DM<dm, dm_decimals decimals>; two records that would share a name are an error.
/// Only the records of `part` (round robin: record j is part j mod n + 1) are inputs; the others
/// are read past.
class AccelStreamInput {
 public:
  AccelStreamInput(const std::string& path, std::string out_prefix, RealFft fft, int dm_decimals = 2,
                   WorkPart part = {});
  /// Reads the next record (in order: one thread at a time) and returns what completes it into an
  /// input (checks and the real FFT: any thread); std::nullopt after the last record.
  std::optional<std::function<AccelInput()>> next();

 private:
  std::unique_ptr<TimStreamReader> reader_;
  std::string prefix_;
  RealFft fft_;
  int dm_decimals_;
  WorkPart part_;
  std::map<std::string, double> dm_of_root_;
};

}  // namespace fastpsr::app
