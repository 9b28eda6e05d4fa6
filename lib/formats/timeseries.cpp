// SPDX-License-Identifier: MIT
#include "fastpsr/timeseries.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "fastpsr/error.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/format_detect.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/presto_dat.hpp"
#include "fastpsr/tim_stream.hpp"
#include "tim_record.hpp"

namespace fastpsr {
namespace {

TimeSeries read_sigproc_timeseries(std::unique_ptr<ByteSource> src) {
  const SigprocHeader h = read_sigproc_header(*src);
  detail::require_timeseries_header(h, src->name(), "");
  std::vector<float> samples;
  if (h.has("nsamples") && h.nsamples >= 0) {
    // Exactly nsamples first: if a SIGPROC header follows, this is a tim-stream and we return
    // its first record; other bytes mean the key was a stale legacy count, and the data run on.
    detail::read_tim_samples(*src, h, static_cast<std::uint64_t>(h.nsamples), samples, "");
    const auto after = src->peek(16);
    if (looks_like_sigproc(after)) {
      log_verbose("{}: a tim-stream of several records; reading its first", src->name());
    } else if (!after.empty()) {
      detail::read_tim_samples(*src, h, std::nullopt, samples, "");
    }
  } else {
    detail::read_tim_samples(*src, h, std::nullopt, samples, "");
  }
  return timeseries_from_sigproc(h, std::move(samples), TimeSeriesOrigin::sigproc_tim, src->name());
}

// The data file of a .inf: root.dat, else root.sdat.
std::string data_path_for_inf(const std::string& inf_path) {
  const std::string root = inf_path.substr(0, inf_path.size() - 4);
  for (const char* suffix : {".dat", ".sdat"}) {
    if (std::filesystem::exists(root + suffix)) return root + suffix;
  }
  throw Error(ErrorCode::io, fmt::format("no time series beside this .inf: expected '{}.dat' or '{}.sdat'", root, root),
              inf_path);
}

TimeSeries read_presto_timeseries(const std::string& path, std::unique_ptr<ByteSource> src, bool shorts) {
  if (path == "-") {
    throw Error(ErrorCode::unsupported, "a PRESTO .dat cannot be read from stdin: its .inf is found by its name",
                src->name());
  }
  const std::string inf_path = inf_path_for(path);
  if (!std::filesystem::exists(inf_path)) {
    throw Error(ErrorCode::io, fmt::format("missing .inf: expected '{}' beside it", inf_path), path);
  }
  const PrestoInf inf = read_inf(inf_path);
  const auto n = static_cast<std::uint64_t>(inf.N);
  DatReader reader(std::move(src), shorts ? DatSampleType::int16 : DatSampleType::float32);
  if (const auto have = reader.nsamples()) {
    if (*have < n) {
      throw Error(ErrorCode::format, fmt::format("holds {} samples but its .inf ({}) says {}", *have, inf_path, n),
                  path);
    }
    if (*have > n) {
      log_warning("{}: holds {} samples, {} more than its .inf says; reading the first {}", path, *have, *have - n, n);
    }
  }
  TimeSeries ts;
  // In pieces, so that a pipe or FIFO whose .inf claims a huge N costs only the data it has.
  constexpr std::uint64_t kPiece = std::uint64_t{1} << 20;
  while (ts.samples.size() < n) {
    const std::size_t old = ts.samples.size();
    ts.samples.resize(old + static_cast<std::size_t>(std::min(kPiece, n - old)));
    const std::size_t got = reader.read(ts.samples.data() + old, ts.samples.size() - old);
    if (old + got < ts.samples.size()) {
      throw Error(ErrorCode::format, fmt::format("holds {} samples but its .inf ({}) says {}", old + got, inf_path, n),
                  path);
    }
  }
  ts.tsamp_s = inf.dt;
  ts.dm = inf.dm;
  ts.epoch_mjd_int = inf.mjd_i;
  ts.epoch_mjd_frac = inf.mjd_f;
  ts.ref_freq_mhz = inf.bary != 0 ? 0.0 : inf.freq + (inf.num_chan > 0 ? inf.num_chan - 1 : 0) * inf.chan_wid;
  ts.source_name = inf.object;
  ts.telescope = inf.telescope;
  ts.inf = inf;
  ts.origin = shorts ? TimeSeriesOrigin::presto_sdat : TimeSeriesOrigin::presto_dat;
  ts.path = path;
  return ts;
}

}  // namespace

std::string inf_path_for(const std::string& data_path) { return presto_root(data_path) + ".inf"; }

TimeSeries timeseries_from_sigproc(const SigprocHeader& h, std::vector<float> samples, TimeSeriesOrigin origin,
                                   const std::string& path) {
  TimeSeries ts;
  ts.samples = std::move(samples);
  ts.tsamp_s = h.tsamp;
  ts.dm = h.refdm;
  const double day = std::floor(h.tstart);
  ts.epoch_mjd_int = std::isfinite(day) ? static_cast<std::int64_t>(day) : 0;
  ts.epoch_mjd_frac = std::isfinite(day) ? h.tstart - day : 0.0;
  ts.ref_freq_mhz = h.fch1;
  ts.source_name = h.source_name;
  ts.telescope = presto_telescope_name(h.telescope_id);
  ts.sigproc = h;
  ts.origin = origin;
  ts.path = path;
  return ts;
}

TimeSeries read_timeseries(const std::string& path) {
  auto src = open_source(path);
  const FileFormat f = detect_format(*src);
  switch (f) {
    case FileFormat::sigproc_timeseries:
      return read_sigproc_timeseries(std::move(src));
    case FileFormat::presto_dat:
    case FileFormat::presto_sdat:
      return read_presto_timeseries(path, std::move(src), f == FileFormat::presto_sdat);
    case FileFormat::presto_inf: {
      const std::string data = data_path_for_inf(path);
      return read_presto_timeseries(data, open_source(data), data.ends_with(".sdat"));
    }
    default:
      break;
  }
  throw Error(ErrorCode::format, fmt::format("is a {}, not a time series (.tim, .dat or .sdat)", format_name(f)), path);
}

PrestoInf timeseries_to_inf(const TimeSeries& ts, const std::string& name) {
  if (ts.inf) {
    PrestoInf d = *ts.inf;
    d.name = name;
    if (d.N != static_cast<double>(ts.nsamples())) {
      d.N = static_cast<double>(ts.nsamples());
      d.onoff.clear();
    }
    return d;
  }
  SigprocHeader h;
  if (ts.sigproc) {
    h = *ts.sigproc;
  } else {
    h.tstart = ts.epoch_mjd();
    h.fch1 = ts.ref_freq_mhz;
    h.source_name = ts.source_name;
    h.telescope_id = sigproc_telescope_id(ts.telescope);
  }
  InfRequest r;
  r.name = name;
  r.dm = ts.dm;
  r.nsamples = ts.nsamples();
  r.tsamp_s = ts.tsamp_s;
  PrestoInf d = make_inf_for(h, r);
  // make_inf_for computes the fractional day from one double; keep the series' exact split.
  d.mjd_i = static_cast<int>(ts.epoch_mjd_int);
  d.mjd_f = ts.epoch_mjd_frac;
  return d;
}

SigprocHeader timeseries_to_tim_header(const TimeSeries& ts) {
  if (ts.sigproc) {
    SigprocHeader h = *ts.sigproc;
    h.data_type = 2;
    h.nchans = 1;
    h.nifs = 1;
    h.nbits = 32;
    h.frequency_table.clear();
    h.keys = sigproc_dedisperse_keys(h);
    return h;
  }
  SigprocHeader fb;
  fb.source_name = ts.source_name;
  fb.telescope_id = std::max(0, sigproc_telescope_id(ts.telescope));
  fb.tstart = ts.epoch_mjd();
  fb.tsamp = ts.tsamp_s;
  if (ts.inf) {
    try {
      fb.src_raj = sigproc_angle_from_string(ts.inf->ra, true);
      fb.src_dej = sigproc_angle_from_string(ts.inf->dec, false);
    } catch (const Error&) {
      fb.src_raj = fb.src_dej = 0.0;  // "Unknown" or malformed: SIGPROC's "not given"
    }
  }
  return make_tim_header(fb, ts.dm, ts.ref_freq_mhz, 32);
}

void write_presto_timeseries(const std::string& root, std::span<const float> samples, const PrestoInf& inf) {
  auto dat = DatWriter::open(root + ".dat");
  dat->write(samples);
  dat->commit();
  write_inf(root + ".inf", inf);
}

}  // namespace fastpsr
