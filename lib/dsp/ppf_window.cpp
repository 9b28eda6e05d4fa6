// SPDX-License-Identifier: MIT
#include "fastpsr/ppf_window.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr {
namespace {

constexpr double kPi = std::numbers::pi;

// Modified Bessel function of the first kind, order 0, by its power series (converges for all
// x; the terms are summed until they no longer change the result).
double bessel_i0(double x) {
  const double q = x * x / 4.0;
  double term = 1.0;
  double sum = 1.0;
  for (int k = 1; k < 500; ++k) {
    term *= q / (static_cast<double>(k) * static_cast<double>(k));
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

double sinc(double x) {
  if (x == 0.0) return 1.0;
  return std::sin(kPi * x) / (kPi * x);
}

}  // namespace

WindowSpec parse_window(std::string_view text) {
  WindowSpec w;
  std::string_view name = text;
  std::string_view arg;
  if (const auto colon = text.find(':'); colon != std::string_view::npos) {
    name = text.substr(0, colon);
    arg = text.substr(colon + 1);
    if (arg.empty()) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("--window '{}': nothing after the colon (kaiser:<beta>, or kaiser for beta 8.6)", text));
    }
  }
  if (name == "rect") {
    w.kind = WindowKind::rect;
  } else if (name == "hann" || name == "hanning") {
    w.kind = WindowKind::hann;
  } else if (name == "hamming") {
    w.kind = WindowKind::hamming;
  } else if (name == "blackman") {
    w.kind = WindowKind::blackman;
  } else if (name == "kaiser") {
    w.kind = WindowKind::kaiser;
    if (!arg.empty()) {
      const std::string s(arg);
      char* end = nullptr;
      const double beta = std::strtod(s.c_str(), &end);
      if (end != s.c_str() + s.size() || !(beta >= 0.0) || !std::isfinite(beta)) {
        throw Error(ErrorCode::invalid_argument,
                    fmt::format("--window kaiser:{}: the Kaiser beta must be a number >= 0", arg));
      }
      // I0(beta) overflows a double above ~709; useful betas are 0-20 (8.6: the default).
      if (beta > 700.0) {
        throw Error(ErrorCode::invalid_argument,
                    fmt::format("--window kaiser:{}: beta above 700 overflows the window's Bessel function (useful "
                                "values are about 0 to 20; 8.6 by default)",
                                arg));
      }
      w.kaiser_beta = beta;
    }
    return w;
  } else {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("--window '{}' is not one of hann, hamming, blackman, kaiser[:beta], rect", text));
  }
  if (!arg.empty()) {
    throw Error(ErrorCode::invalid_argument, fmt::format("--window '{}': only kaiser takes a parameter", text));
  }
  return w;
}

std::string to_string(const WindowSpec& w) {
  switch (w.kind) {
    case WindowKind::rect:
      return "rect";
    case WindowKind::hann:
      return "hann";
    case WindowKind::hamming:
      return "hamming";
    case WindowKind::blackman:
      return "blackman";
    case WindowKind::kaiser:
      return fmt::format("kaiser:{}", w.kaiser_beta);
  }
  return "?";
}

double window_value(const WindowSpec& w, std::size_t n, std::size_t N) {
  if (N <= 1) return 1.0;
  const double x = static_cast<double>(n) / static_cast<double>(N - 1);  // 0 ... 1
  switch (w.kind) {
    case WindowKind::rect:
      return 1.0;
    case WindowKind::hann:
      return 0.5 - 0.5 * std::cos(2.0 * kPi * x);
    case WindowKind::hamming:
      return 0.54 - 0.46 * std::cos(2.0 * kPi * x);
    case WindowKind::blackman:
      return 0.42 - 0.5 * std::cos(2.0 * kPi * x) + 0.08 * std::cos(4.0 * kPi * x);
    case WindowKind::kaiser: {
      const double r = 2.0 * x - 1.0;
      return bessel_i0(w.kaiser_beta * std::sqrt(std::max(0.0, 1.0 - r * r))) / bessel_i0(w.kaiser_beta);
    }
  }
  return 1.0;
}

std::vector<double> design_ppf_prototype(int nchans, int ntaps, const WindowSpec& w, double fwidth) {
  FASTPSR_EXPECTS(nchans >= 1, "--channels must be >= 1, got {}", nchans);
  FASTPSR_EXPECTS(ntaps >= 1, "--taps must be >= 1, got {}", ntaps);
  FASTPSR_EXPECTS(fwidth > 0.0 && std::isfinite(fwidth), "--fwidth must be > 0, got {}", fwidth);
  const std::size_t n_total = static_cast<std::size_t>(nchans) * static_cast<std::size_t>(ntaps);
  std::vector<double> h(n_total);
  const double centre = (static_cast<double>(n_total) - 1.0) / 2.0;
  double sum = 0.0;
  for (std::size_t n = 0; n < n_total; ++n) {
    h[n] = window_value(w, n, n_total) * sinc(fwidth * (static_cast<double>(n) - centre) / nchans);
    sum += h[n];
  }
  FASTPSR_EXPECTS(std::abs(sum) > 0.0, "the designed filter sums to zero (window {}, fwidth {})", to_string(w), fwidth);
  const double scale = static_cast<double>(nchans) / sum;
  for (auto& v : h) v *= scale;
  return h;
}

std::vector<float> design_ppf_coeffs(int nchans, int ntaps, const WindowSpec& w, double fwidth) {
  const auto h = design_ppf_prototype(nchans, ntaps, w, fwidth);
  return {h.begin(), h.end()};
}

double ppf_channel_response(const std::vector<float>& coeffs, int nchans, double offset_channels) {
  // Σ h[n]·e^{2πiδn/C}: the phase is reduced exactly for integer parts of δ·n/C so that long
  // filters keep full precision.
  std::complex<double> acc{0.0, 0.0};
  double dc = 0.0;
  for (std::size_t n = 0; n < coeffs.size(); ++n) {
    const double cycles = offset_channels * static_cast<double>(n) / nchans;
    const double frac = cycles - std::floor(cycles);
    acc += static_cast<double>(coeffs[n]) * std::polar(1.0, 2.0 * kPi * frac);
    dc += static_cast<double>(coeffs[n]);
  }
  return std::abs(acc) / std::abs(dc);
}

PpfResponseSummary summarise_ppf_response(const std::vector<float>& coeffs, int nchans) {
  auto db = [](double amplitude) { return 20.0 * std::log10(std::max(amplitude, 1e-300)); };
  PpfResponseSummary s;
  s.scalloping_db = db(ppf_channel_response(coeffs, nchans, 0.5));
  const double d[3] = {1.5, 5.5, 10.5};
  for (int i = 0; i < 3; ++i) s.leakage_db[i] = db(ppf_channel_response(coeffs, nchans, d[i]));
  return s;
}

namespace {
constexpr double kMaxCoeffAbsSum = 1e12;

// Reads a --coeffs file of at most `cap` bytes; a larger one (or one that never ends: /dev/zero,
// a FIFO) is refused after reading cap + 1 bytes, or before reading when its size is known.
std::vector<std::uint8_t> read_coeff_bytes(const std::string& path, std::size_t count, std::size_t cap) {
  auto src = open_source(path);
  const auto too_large = [&](const std::string& found) {
    return Error(ErrorCode::format,
                 fmt::format("too large for --coeffs: {} coefficients (--channels x --taps) take exactly {} bytes "
                             "as float32, or at most {} bytes as text; the file {}",
                             count, count * sizeof(float), cap, found),
                 path);
  };
  if (const auto size = src->size(); size && *size > cap) throw too_large(fmt::format("has {} bytes", *size));
  std::vector<std::uint8_t> bytes;
  std::uint8_t buf[1 << 16];
  for (;;) {
    const std::size_t want = std::min<std::size_t>(sizeof buf, cap + 1 - bytes.size());
    const std::size_t got = src->read(buf, want);
    bytes.insert(bytes.end(), buf, buf + got);
    if (bytes.size() > cap) throw too_large(fmt::format("holds more than {} bytes", cap));
    if (got < want) break;
  }
  return bytes;
}
}  // namespace

std::size_t ppf_coeffs_max_bytes(std::size_t count) {
  // Text: up to 64 bytes a value (a double written with 17 significant digits and an exponent
  // takes 24) and 1 MiB more for comments; always above the 4 bytes a value of float32.
  constexpr std::size_t kTextBytesPerValue = 64;
  constexpr std::size_t kTextSlack = std::size_t{1} << 20;
  if (count > (std::numeric_limits<std::size_t>::max() - kTextSlack) / kTextBytesPerValue) {
    return std::numeric_limits<std::size_t>::max() - 1;
  }
  return count * kTextBytesPerValue + kTextSlack;
}

std::vector<float> read_ppf_coeffs(const std::string& path, std::size_t count) {
  const auto bytes = read_coeff_bytes(path, count, ppf_coeffs_max_bytes(count));
  std::vector<float> out;
  if (bytes.size() == count * sizeof(float)) {
    out.resize(count);
    std::memcpy(out.data(), bytes.data(), bytes.size());
  } else {
    const std::string text(bytes.begin(), bytes.end());
    std::size_t pos = 0;
    while (pos < text.size()) {
      const char ch = text[pos];
      if (ch == '#') {
        pos = text.find('\n', pos);
        if (pos == std::string::npos) break;
        continue;
      }
      if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == ',') {
        ++pos;
        continue;
      }
      char* end = nullptr;
      const double v = std::strtod(text.c_str() + pos, &end);
      if (end == text.c_str() + pos) {
        std::string word = text.substr(pos, std::min<std::size_t>(12, text.find_first_of(" \t\r\n,", pos) - pos));
        const bool printable = std::all_of(word.begin(), word.end(),
                                           [](char c) { return std::isprint(static_cast<unsigned char>(c)) != 0; });
        throw Error(ErrorCode::format,
                    printable ? fmt::format("neither {} float32 values ({} bytes; the file has {}) nor text: '{}' at "
                                            "byte {} is not a number",
                                            count, count * sizeof(float), bytes.size(), word, pos)
                              : fmt::format("neither {} float32 values ({} bytes; the file has {}) nor text (binary "
                                            "data at byte {}): --channels x --taps must match the file",
                                            count, count * sizeof(float), bytes.size(), pos),
                    path);
      }
      out.push_back(static_cast<float>(v));
      pos = static_cast<std::size_t>(end - text.c_str());
    }
    if (out.size() != count) {
      throw Error(ErrorCode::format,
                  fmt::format("{} coefficients in the text; --channels x --taps need {} (or a binary file of {} bytes)",
                              out.size(), count, count * sizeof(float)),
                  path);
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i])) {
      throw Error(ErrorCode::format, fmt::format("coefficient {} is not a finite number", i), path);
    }
  }
  // The channel gain and every response figure are relative to the sum (the filter's DC gain).
  double sum = 0.0;
  for (float v : out) sum += static_cast<double>(v);
  if (sum == 0.0) {
    throw Error(ErrorCode::format,
                "the coefficients sum to zero: a PPF prototype is a low-pass filter, whose sum sets the gain", path);
  }
  // The output scales with the coefficients: through coefficients whose absolute sum passes
  // 1e12, the channel powers of full-scale 16-bit voltages (|x| up to 32768·√2) could pass
  // float32's range, and a filterbank of inf and NaN would be written with exit status 0.
  double abs_sum = 0.0;
  for (float v : out) abs_sum += std::abs(static_cast<double>(v));
  if (abs_sum > kMaxCoeffAbsSum) {
    throw Error(ErrorCode::format,
                fmt::format("the coefficients' absolute sum {:.4g} is above {:.0e}: channel powers would pass "
                            "float32's range; scale them down (ppf's own windows sum to the channel count)",
                            abs_sum, kMaxCoeffAbsSum),
                path);
  }
  return out;
}

}  // namespace fastpsr
