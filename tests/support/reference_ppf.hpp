// SPDX-License-Identifier: MIT
#pragma once
/// The double-precision reference PPF of the tests: the definition of ppf.hpp written out
/// plainly (FIR as Algorithm 1, a naive DFT — or a textbook radix-2 FFT for powers of two, which
/// the tests check against the naive DFT — and the bin order k(j) taken literally, without the
/// phase trick the backends use). Header-only so unit and GPU tests share it.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>
#include <vector>

#include "fastpsr/ppf.hpp"

namespace fastpsr::test {

using cd = std::complex<double>;

/// The CPU tests' plan: C channels, T taps, a Hann window.
inline ChanneliserPlan hann_plan(int c, int t, VoltageType type, int npol, PpfOutput out, Detection d = Detection::I,
                                 int nint = 1, bool descending = false, int ncoarse = 1) {
  ChanneliserProblem p;
  p.nchans = c;
  p.ntaps = t;
  p.input = type;
  p.npol = npol;
  p.output = out;
  p.detection = d;
  p.nint = nint;
  p.descending = descending;
  p.ncoarse = ncoarse;
  p.window = parse_window("hann");
  return make_channeliser_plan(p);
}

/// X[k] = Σ x[c]·exp(−2πi·k·c/C), by definition (the phase index reduced exactly mod C).
inline std::vector<cd> naive_dft(const std::vector<cd>& x) {
  const std::size_t n = x.size();
  std::vector<cd> tw(n);
  for (std::size_t i = 0; i < n; ++i) {
    tw[i] = std::polar(1.0, -2.0 * std::numbers::pi * static_cast<double>(i) / static_cast<double>(n));
  }
  std::vector<cd> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    cd acc{0.0, 0.0};
    for (std::size_t c = 0; c < n; ++c) acc += x[c] * tw[(k * c) % n];
    out[k] = acc;
  }
  return out;
}

/// Recursive radix-2 decimation in time, for n a power of two.
inline std::vector<cd> radix2_fft(const std::vector<cd>& x) {
  const std::size_t n = x.size();
  if (n == 1) return x;
  std::vector<cd> even(n / 2);
  std::vector<cd> odd(n / 2);
  for (std::size_t i = 0; i < n / 2; ++i) {
    even[i] = x[2 * i];
    odd[i] = x[2 * i + 1];
  }
  const auto e = radix2_fft(even);
  const auto o = radix2_fft(odd);
  std::vector<cd> out(n);
  for (std::size_t k = 0; k < n / 2; ++k) {
    const cd t = std::polar(1.0, -2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n)) * o[k];
    out[k] = e[k] + t;
    out[k + n / 2] = e[k] - t;
  }
  return out;
}

inline std::vector<cd> reference_dft(const std::vector<cd>& x) {
  const std::size_t n = x.size();
  return (n & (n - 1)) == 0 ? radix2_fft(x) : naive_dft(x);
}

/// Component i of a packed input of type t.
inline double component(const std::uint8_t* bytes, std::size_t i, VoltageType t) {
  switch (t) {
    case VoltageType::ci8:
      return static_cast<double>(static_cast<std::int8_t>(bytes[i]));
    case VoltageType::ci16: {
      std::int16_t v = 0;
      std::memcpy(&v, bytes + 2 * i, 2);
      return static_cast<double>(v);
    }
    case VoltageType::cf32: {
      float v = 0;
      std::memcpy(&v, bytes + 4 * i, 4);
      return static_cast<double>(v);
    }
  }
  return 0.0;
}

/// Output rows of a whole-file run over `nsamples` samples per coarse channel of `input`
/// (layout [F][nsamples][P][2]), as doubles in the row layout of ppf.hpp.
inline std::vector<double> reference_ppf(const ChanneliserPlan& plan, const std::vector<std::uint8_t>& input,
                                         std::size_t nsamples) {
  const auto& p = plan.problem;
  const std::size_t C = static_cast<std::size_t>(p.nchans);
  const std::size_t T = static_cast<std::size_t>(p.ntaps);
  const std::size_t P = static_cast<std::size_t>(p.npol);
  const std::size_t rows = plan.rows_for_samples(nsamples);
  const std::size_t spr = static_cast<std::size_t>(plan.spectra_per_row());
  const std::size_t row_floats = plan.row_floats();
  const std::size_t nchan_out = plan.out_channels();
  std::vector<double> out(rows * row_floats, 0.0);
  for (std::size_t f = 0; f < static_cast<std::size_t>(p.ncoarse); ++f) {
    // x[pol][n]
    std::vector<std::vector<cd>> x(P, std::vector<cd>(nsamples));
    for (std::size_t n = 0; n < nsamples; ++n) {
      for (std::size_t q = 0; q < P; ++q) {
        const std::size_t i = ((f * nsamples + n) * P + q) * 2;
        x[q][n] = {component(input.data(), i, p.input), component(input.data(), i + 1, p.input)};
      }
    }
    for (std::size_t s = 0; s < rows * spr; ++s) {
      std::vector<std::vector<cd>> X(P);
      for (std::size_t q = 0; q < P; ++q) {
        std::vector<cd> y(C);
        for (std::size_t c = 0; c < C; ++c) {
          cd acc{0.0, 0.0};
          for (std::size_t t = 0; t < T; ++t)
            acc += static_cast<double>(plan.coeffs[t * C + c]) * x[q][(s + t) * C + c];
          y[c] = acc;
        }
        X[q] = reference_dft(y);
      }
      for (std::size_t o = 0; o < nchan_out; ++o) {
        if (static_cast<std::size_t>(plan.coarse_of(o)) != f) continue;
        const auto k = static_cast<std::size_t>(plan.bin_of(o));
        if (plan.complex_output()) {
          for (std::size_t q = 0; q < P; ++q) {
            out[s * row_floats + (o * P + q) * 2] = X[q][k].real();
            out[s * row_floats + (o * P + q) * 2 + 1] = X[q][k].imag();
          }
          continue;
        }
        double* row = out.data() + (s / spr) * row_floats;
        const cd a = X[0][k];
        const cd b = P == 2 ? X[1][k] : cd{0.0, 0.0};
        const double xx = std::norm(a);
        const double yy = std::norm(b);
        switch (p.detection) {
          case Detection::I:
            row[o] += xx + yy;
            break;
          case Detection::AA:
            row[o] += xx;
            break;
          case Detection::BB:
            row[o] += yy;
            break;
          case Detection::IQUV: {
            const cd xy = std::conj(a) * b;
            row[o] += xx + yy;
            row[nchan_out + o] += xx - yy;
            row[2 * nchan_out + o] += 2.0 * xy.real();
            row[3 * nchan_out + o] += 2.0 * xy.imag();
            break;
          }
        }
      }
    }
  }
  return out;
}

/// Random input of type t: full-range integers, or unit-variance floats.
inline std::vector<std::uint8_t> random_voltages(VoltageType t, std::size_t ncomponents, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint8_t> bytes(ncomponents * component_bytes(t));
  for (std::size_t i = 0; i < ncomponents; ++i) {
    switch (t) {
      case VoltageType::ci8:
        bytes[i] = static_cast<std::uint8_t>(std::uniform_int_distribution<int>(-128, 127)(rng));
        break;
      case VoltageType::ci16: {
        const auto v = static_cast<std::int16_t>(std::uniform_int_distribution<int>(-32768, 32767)(rng));
        std::memcpy(bytes.data() + 2 * i, &v, 2);
        break;
      }
      case VoltageType::cf32: {
        const auto v = static_cast<float>(std::normal_distribution<double>(0.0, 1.0)(rng));
        std::memcpy(bytes.data() + 4 * i, &v, 4);
        break;
      }
    }
  }
  return bytes;
}

/// max |a − ref| / max |ref| (the ∞-norm relative error of ppf.hpp's accuracy contract).
inline double max_relative_error(const float* a, const std::vector<double>& ref) {
  double err = 0.0;
  double scale = 0.0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(a[i])) return std::numeric_limits<double>::infinity();  // unwritten (poisoned) or overflow
    err = std::max(err, std::abs(static_cast<double>(a[i]) - ref[i]));
    scale = std::max(scale, std::abs(ref[i]));
  }
  return scale > 0.0 ? err / scale : err;
}

/// Runs `ch` over `input` ([F][nsamples][P][2]) in pushes of `gulp` samples (0: the
/// channeliser's own gulp), then flushes; returns every row, in order. The result starts as NaN
/// (poison) and each block must follow the previous one without a gap, so a row that was never
/// written shows as NaN.
inline std::vector<float> run_channeliser(Channeliser& ch, const std::vector<std::uint8_t>& input, std::size_t nsamples,
                                          std::size_t gulp = 0) {
  const ChanneliserPlan& plan = ch.plan();
  if (gulp == 0 || gulp > ch.gulp_samples()) gulp = ch.gulp_samples();
  const std::size_t rows = plan.rows_for_samples(nsamples);
  const std::size_t rf = plan.row_floats();
  std::vector<float> out(rows * rf, std::numeric_limits<float>::quiet_NaN());
  std::uint64_t next = 0;
  auto take = [&](const ChanneliserBlock& b) {
    if (b.empty()) return;
    if (b.first != next || b.first + b.nrows > rows || b.row_floats != rf) {
      throw std::runtime_error("channeliser block out of order or beyond the expected rows");
    }
    std::memcpy(out.data() + b.first * rf, b.data, b.nrows * rf * sizeof(float));
    next += b.nrows;
  };
  for (std::size_t n0 = 0; n0 < nsamples; n0 += gulp) {
    const std::size_t n = std::min(gulp, nsamples - n0);
    take(ch.push(input.data() + n0 * plan.sample_bytes(), n, nsamples));
  }
  for (;;) {
    const auto b = ch.flush();
    if (b.empty()) break;
    take(b);
  }
  if (next != rows) throw std::runtime_error("channeliser gave fewer rows than a whole-file run has");
  return out;
}

}  // namespace fastpsr::test
