// SPDX-License-Identifier: MIT
#include "input.hpp"

#include <cmath>
#include <cstring>
#include <filesystem>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/presto_fft.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr::app {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

PrestoInf read_inf_for(const std::string& root, const std::string& data_path, std::string& text) {
  const std::string inf_path = root + ".inf";
  if (!std::filesystem::exists(inf_path)) {
    throw Error(ErrorCode::io, fmt::format("no .inf file beside it (expected '{}')", inf_path), data_path);
  }
  const auto bytes = read_all(inf_path);
  text.assign(bytes.begin(), bytes.end());
  return parse_inf(text, inf_path);
}

void check_finite(const std::vector<float>& x, const std::string& path) {
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!std::isfinite(x[i])) {
      throw Error(ErrorCode::format, fmt::format("sample {} is {} (not a finite number)", i, x[i]), path);
    }
  }
}

// Fits a series to N from the .inf (PRESTO takes both; we keep them consistent) and to an even
// length for the real FFT.
void fit_length(std::vector<float>& x, std::uint64_t n_inf, const std::string& path) {
  if (x.empty()) throw Error(ErrorCode::format, "the time series is empty", path);
  if (x.size() < n_inf) {
    throw Error(ErrorCode::format, fmt::format("the .inf says {} samples but the file holds only {}", n_inf, x.size()),
                path);
  }
  if (x.size() > n_inf) {
    log_warning("{}: {} samples beyond the {} of the .inf are ignored", path, x.size() - n_inf, n_inf);
    x.resize(n_inf);
  }
  if (x.size() % 2 != 0) {
    log_warning("{}: odd length {}: the last sample is dropped for the real FFT", path, x.size());
    x.pop_back();
  }
  if (x.size() < 2) throw Error(ErrorCode::format, "the time series is too short to search", path);
}

}  // namespace

AccelInput read_accel_input(const std::string& path) {
  AccelInput in;
  in.path = path;
  if (ends_with(path, ".fft")) {
    in.root = path.substr(0, path.size() - 4);
    in.inf = read_inf_for(in.root, path, in.inf_text);
    in.fft = read_presto_fft(path);
    in.from_fft = true;
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
  std::vector<float> x;
  if (ends_with(path, ".dat") || ends_with(path, ".sdat")) {
    const bool shorts = ends_with(path, ".sdat");
    in.root = path.substr(0, path.size() - (shorts ? 5 : 4));
    in.inf = read_inf_for(in.root, path, in.inf_text);
    const auto bytes = read_all(path);
    const std::size_t width = shorts ? 2 : 4;
    if (bytes.size() % width != 0) {
      throw Error(ErrorCode::format,
                  fmt::format("{} bytes is not a whole number of {}-byte samples", bytes.size(), width), path);
    }
    x.resize(bytes.size() / width);
    if (shorts) {
      for (std::size_t i = 0; i < x.size(); ++i) {
        std::int16_t v = 0;
        std::memcpy(&v, bytes.data() + 2 * i, 2);
        x[i] = v;
      }
    } else {
      std::memcpy(x.data(), bytes.data(), x.size() * 4);
    }
    fit_length(x, static_cast<std::uint64_t>(in.inf.N), path);
  } else {
    // A SIGPROC time series (.tim, or any name): 32-bit float samples after the header.
    auto src = open_source(path);
    const SigprocHeader h = read_sigproc_header(*src);
    if (h.data_type != 2 || h.nchans != 1 || h.nbits != 32) {
      throw Error(ErrorCode::unsupported,
                  fmt::format("not a 32-bit SIGPROC time series (data_type {}, nchans {}, nbits {}); accelsearch reads "
                              ".tim, .dat, .sdat and .fft",
                              h.data_type, h.nchans, h.nbits),
                  path);
    }
    std::vector<std::uint8_t> bytes;
    std::vector<std::uint8_t> chunk(1 << 20);
    for (std::size_t n = 0; (n = src->read(chunk.data(), chunk.size())) > 0;)
      bytes.insert(bytes.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(n));
    x.resize(bytes.size() / 4);
    std::memcpy(x.data(), bytes.data(), x.size() * 4);
    in.root = ends_with(path, ".tim") ? path.substr(0, path.size() - 4) : path;
    PrestoInf& inf = in.inf;
    inf.name = std::filesystem::path(in.root).filename().string();
    inf.telescope = presto_telescope_name(h.telescope_id);
    inf.instrument = "Unknown";
    inf.object = h.source_name.empty() ? "Unknown" : h.source_name;
    inf.ra = sigproc_angle_to_string(h.src_raj, true);
    inf.dec = sigproc_angle_to_string(h.src_dej, false);
    inf.observer = "Unknown";
    inf.mjd_i = static_cast<int>(std::floor(h.tstart));
    inf.mjd_f = h.tstart - std::floor(h.tstart);
    inf.bary = h.barycentric;
    inf.dt = h.tsamp;
    inf.dm = h.refdm;
    inf.freq = h.fch1;
    inf.num_chan = 1;
    inf.analyzer = "fastpsr";
    inf.notes = "Made by accelsearch from a SIGPROC time series.\n";
    fit_length(x, x.size(), path);
    inf.N = static_cast<double>(x.size());
    inf.onoff = {{0.0, inf.N - 1}};
    in.inf_text = format_inf(inf);
    in.inf_written = true;
  }
  check_finite(x, path);
  in.fft = presto_realfft(x);
  return in;
}

}  // namespace fastpsr::app
