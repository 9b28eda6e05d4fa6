// SPDX-License-Identifier: MIT
#include "input.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/presto_fft.hpp"
#include "fastpsr/side_file.hpp"

namespace fastpsr::app {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A .inf is read with a bound (a link to /dev/zero or a FIFO must not grow memory without limit).
std::string read_text(const std::string& path) {
  const auto bytes = read_side_file(path, "a PRESTO .inf");
  return {bytes.begin(), bytes.end()};
}

void check_finite(const std::vector<float>& x, const std::string& path) {
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) {
      throw Error(ErrorCode::format, fmt::format("sample {} is {} (not a finite number)", i, x[i]), path);
    }
  }
}

// The sample time of a series to search: a finite time the candidates' periods and frequencies
// can be written with (tsamp 1e-300 s gave periods of 1e-295 s, written as "nan(-2147483648"
// in the ACCEL file; QA pass 16, P19).
constexpr double kMinSampleTime = 1e-12;  // s
constexpr double kMaxSampleTime = 1e6;    // s

void check_sample_time(double dt, const std::string& path) {
  if (!(std::isfinite(dt) && dt >= kMinSampleTime && dt <= kMaxSampleTime)) {
    throw Error(ErrorCode::format,
                fmt::format("the sample time {} s is not one accelsearch can search ({} to {} s)", dt, kMinSampleTime,
                            kMaxSampleTime),
                path);
  }
}

}  // namespace

AccelInput accel_input_from_series(TimeSeries ts, const std::string& root, const RealFft& fft) {
  AccelInput in;
  in.path = ts.path;
  in.root = root;
  auto& x = ts.samples;
  if (x.empty()) throw Error(ErrorCode::format, "the time series is empty", ts.path);
  check_sample_time(ts.tsamp_s, ts.path);
  check_finite(x, ts.path);
  if (x.size() % 2 != 0) {
    // dedisp's trials lose a few samples each as the DM grows, so about half of a run's trials
    // can have odd lengths: warn once, not once per trial.
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true)) {
      log_warning("{}: odd length {}: the last sample is dropped for the real FFT (said once; -v names every input)",
                  ts.path, x.size());
    } else {
      log_verbose("{}: odd length {}: the last sample is dropped for the real FFT", ts.path, x.size());
    }
    x.pop_back();
  }
  if (x.size() < 2) throw Error(ErrorCode::format, "the time series is too short to search", ts.path);
  if (ts.inf) {
    in.inf = *ts.inf;
    in.inf_text = read_text(inf_path_for(ts.path));
    // Frequencies are those of the samples searched (bin k is k / (N dt) for the N transformed),
    // as for a .tim or a stream record of the same data. PRESTO takes an odd .inf N as it is,
    // which puts f = r / T off by 1/N.
    in.inf.N = static_cast<double>(x.size());
  } else {
    in.inf = timeseries_to_inf(ts, std::filesystem::path(root).filename().string());
    in.inf.N = static_cast<double>(x.size());
    in.inf_text = format_inf(in.inf);
    in.write_inf = true;
  }
  const auto t0 = std::chrono::steady_clock::now();
  in.fft = fft(x);
  in.fft_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return in;
}

AccelInput read_accel_input(const std::string& path, const RealFft& fft) {
  if (!ends_with(path, ".fft")) {
    std::string root = presto_root(path);
    if (ends_with(root, ".tim")) root.resize(root.size() - 4);
    return accel_input_from_series(read_timeseries(path), root, fft);
  }
  AccelInput in;
  in.path = path;
  in.root = path.substr(0, path.size() - 4);
  const std::string inf_path = in.root + ".inf";
  if (!std::filesystem::exists(inf_path)) {
    throw Error(ErrorCode::io, fmt::format("no .inf file beside it (expected '{}')", inf_path), path);
  }
  in.inf_text = read_text(inf_path);
  in.inf = parse_inf(in.inf_text, inf_path);
  check_sample_time(in.inf.dt, inf_path);
  in.fft = read_presto_fft(path);
  in.from_fft = true;
  // PRESTO's rednoise writes <name>_red.fft, already de-reddened and normalised.
  in.dereddened = ends_with(in.root, "_red");
  const auto expect = static_cast<std::uint64_t>(in.inf.N) / 2;
  if (in.fft.size() != expect) {
    throw Error(
        ErrorCode::format,
        fmt::format("holds {} complex bins but its .inf says N = {} (so {} bins)", in.fft.size(), in.inf.N, expect),
        path);
  }
  for (std::size_t k = 0; k < in.fft.size(); ++k) {
    if (!std::isfinite(in.fft[k].real()) || !std::isfinite(in.fft[k].imag())) {
      throw Error(ErrorCode::format, fmt::format("bin {} is not a finite number", k), path);
    }
  }
  return in;
}

AccelStreamInput::AccelStreamInput(const std::string& path, std::string out_prefix, RealFft fft, int dm_decimals,
                                   WorkPart part)
    : reader_(TimStreamReader::open(path)),
      prefix_(std::move(out_prefix)),
      fft_(std::move(fft)),
      dm_decimals_(dm_decimals),
      part_(part) {}

std::optional<std::function<AccelInput()>> AccelStreamInput::next() {
  auto ts = reader_->next();
  while (ts && !in_part_round_robin(reader_->records_read() - 1, part_)) ts = reader_->next();
  if (!ts) return std::nullopt;
  // Named by record and DM (that of its outputs' names), so that a message can be matched to
  // its files without counting records (QA pass 21).
  ts->path = fmt::format("{}:{} (DM {:.{}f})", reader_->name(), reader_->records_read() - 1, ts->dm, dm_decimals_);
  std::string root = presto_dm_root(prefix_, ts->dm, dm_decimals_);
  // Trials closer than the name's precision would overwrite each other's files (dedisp refuses
  // such names before it starts; a stream's DMs come one at a time).
  if (const auto [it, fresh] = dm_of_root_.emplace(root, ts->dm); !fresh) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("the DM trials {} and {} would both be written to '{}': use --dm-prec {}", it->second,
                            ts->dm, root, dm_decimals_ + 1),
                ts->path);
  }
  return [series = std::make_shared<TimeSeries>(std::move(*ts)), root = std::move(root), fft = fft_] {
    AccelInput in = accel_input_from_series(std::move(*series), root, fft);
    in.inf_is_output = true;  // no .dat beside it: the .inf is this run's own
    return in;
  };
}

}  // namespace fastpsr::app
