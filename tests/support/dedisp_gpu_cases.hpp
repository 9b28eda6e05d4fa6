// SPDX-License-Identifier: MIT
#pragma once
/// Random dedispersion problems and comparisons shared by the CUDA dedisperser's tests (the
/// host emulation in tests/unit and the device tests in tests/gpu).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/dedisp.hpp"
#include "support/reference_dedisp.hpp"

namespace fastpsr::test {

struct DedispCase {
  int nchans = 16;
  int nbits = 8;
  bool is_signed = false;
  int downsample = 1;
  std::vector<double> dms = {0.0, 10.0};
  std::vector<std::uint8_t> keep;  ///< empty = all
  double tsamp_s = 1e-3;
  double fch1_mhz = 1500.0;
  double foff_mhz = -2.0;
  DelayModel model = DelayModel::presto;
};

inline DedispPlan make_case_plan(const DedispCase& c) {
  DedispProblem p;
  p.input.nchans = c.nchans;
  p.input.fch1_mhz = c.fch1_mhz;
  p.input.foff_mhz = c.foff_mhz;
  p.input.tsamp_s = c.tsamp_s;
  p.input.nbits = c.nbits;
  p.input.is_signed = c.is_signed;
  for (int i = 0; i < c.nchans; ++i) p.input.chan_freq_mhz.push_back(c.fch1_mhz + i * c.foff_mhz);
  p.dms = c.dms;
  p.downsample = c.downsample;
  p.model = c.model;
  p.keep = c.keep;
  return make_dedisp_plan(p);
}

/// `n` DMs from 0 in steps of `step`.
inline std::vector<double> dm_range(int n, double step) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(i * step);
  return v;
}

/// Packed random input of `nin` samples. Integers uniform over the full range of nbits (with
/// `extreme`, mostly the largest value, to stress lane flushes); floats uniform in [-50, 100).
inline std::vector<std::uint8_t> random_packed(const DedispPlan& plan, std::size_t nin, std::mt19937_64& rng,
                                               bool extreme = false) {
  const auto& in = plan.problem.input;
  const std::size_t n = nin * static_cast<std::size_t>(in.nchans);
  std::vector<float> values(n);
  if (in.nbits == 32) {
    std::uniform_real_distribution<float> u(-50.0F, 100.0F);
    for (auto& v : values) v = u(rng);
  } else {
    const int lo = in.is_signed ? -128 : 0;
    const int hi = in.is_signed ? 127 : (in.nbits == 16 ? 65535 : (1 << in.nbits) - 1);
    std::uniform_int_distribution<int> u(lo, hi);
    std::bernoulli_distribution top(0.9);
    for (auto& v : values) v = static_cast<float>(extreme && top(rng) ? hi : u(rng));
  }
  std::vector<std::uint8_t> packed(packed_bytes(n, in.nbits));
  pack_from_float(values.data(), packed.data(), n, in.nbits, in.is_signed);
  return packed;
}

/// DM-time output collected from a streaming dedisperser: ndms rows of `nout` samples, NaN
/// where nothing was written.
struct Collected {
  std::vector<float> data;
  std::size_t nout = 0;
  std::size_t blocks = 0;
  bool in_order = true;
};

/// Pushes `packed` (nin samples) in pushes of sizes `next_size()` (each <= gulp_samples()), then
/// flushes, and gathers the blocks; `expected_nout` columns are allocated (poisoned with NaN).
inline Collected run_stream(Dedisperser& d, const std::vector<std::uint8_t>& packed, std::size_t nin,
                            std::size_t expected_nout, const std::function<std::size_t()>& next_size) {
  const DedispPlan& plan = d.plan();
  const std::size_t bps = plan.problem.input.bytes_per_sample();
  Collected c;
  c.nout = expected_nout;
  c.data.assign(plan.ndms() * expected_nout, std::numeric_limits<float>::quiet_NaN());
  std::uint64_t next = 0;
  auto take = [&](const DedispBlock& b) {
    if (b.empty()) return;
    ++c.blocks;
    if (b.first != next) c.in_order = false;
    next = b.first + b.nsamples;
    for (std::size_t i = 0; i < plan.ndms(); ++i) {
      for (std::size_t t = 0; t < b.nsamples; ++t) {
        const std::uint64_t col = b.first + t;
        if (col < expected_nout)
          c.data[i * expected_nout + col] = b.data[i * b.stride + t];
        else
          c.in_order = false;  // a column beyond the expected end
      }
    }
  };
  std::size_t pos = 0;
  while (pos < nin) {
    const std::size_t n = std::min(nin - pos, std::min(next_size(), d.gulp_samples()));
    take(d.push(packed.data() + pos * bps, n));
    pos += n;
  }
  for (;;) {
    const DedispBlock b = d.flush();
    if (b.empty()) break;
    take(b);
  }
  if (next != expected_nout) c.in_order = false;
  return c;
}

/// Compares with the double-precision reference: bit-exact for integer input, and for float
/// input |x - ref| <= 1e-6 * sum of |terms| (the error bound of a float sum, here met with margin
/// by float partial sums of a few channels added in double).
inline void check_against_reference(const DedispPlan& plan, const std::vector<std::uint8_t>& packed, std::size_t nin,
                                    const std::vector<float>& got, std::size_t got_nout) {
  std::size_t nout = 0;
  const std::vector<float> ref = reference_dedisperse(plan, packed, nin, nout, true);
  REQUIRE(got_nout == nout);
  REQUIRE(got.size() == ref.size());
  std::vector<float> abs_ref;
  if (plan.problem.input.nbits == 32) {
    std::vector<float> vals(packed.size() / 4);
    std::memcpy(vals.data(), packed.data(), vals.size() * 4);
    for (auto& v : vals) v = std::fabs(v);
    std::vector<std::uint8_t> abs_packed(packed.size());
    std::memcpy(abs_packed.data(), vals.data(), packed.size());
    std::size_t n2 = 0;
    abs_ref = reference_dedisperse(plan, abs_packed, nin, n2, true);
  }
  std::size_t bad = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const bool ok = plan.problem.input.nbits == 32
                        ? std::fabs(static_cast<double>(got[i]) - static_cast<double>(ref[i])) <=
                              1e-6 * static_cast<double>(abs_ref[i]) + 1e-30
                        : std::memcmp(&got[i], &ref[i], sizeof(float)) == 0;
    if (!ok && bad++ < 5) {
      const std::size_t dm = nout ? i / nout : 0;
      const std::size_t t = nout ? i % nout : 0;
      INFO("DM index " << dm << " sample " << t << ": got " << got[i] << ", reference " << ref[i]);
      CHECK(ok);
    }
  }
  CHECK(bad == 0);
}

/// Output columns a stream of nin samples produces (nin / D - min_dm_max_delay, or 0).
inline std::size_t stream_nout(const DedispPlan& plan, std::size_t nin) {
  const std::size_t nds = nin / static_cast<std::size_t>(plan.downsample());
  const auto m = static_cast<std::size_t>(plan.min_dm_max_delay);
  return nds > m ? nds - m : 0;
}

}  // namespace fastpsr::test
