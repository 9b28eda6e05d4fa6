// SPDX-License-Identifier: MIT
#pragma once
/// Backend-neutral dedispersion checks: random problems, a streaming driver that collects the
/// blocks of any Dedisperser, and the comparison with the double-precision reference. Used by
/// the CPU unit tests and the GPU tests alike (pass the backend's factory).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/dedisp.hpp"
#include "support/reference_dedisp.hpp"

namespace fastpsr::test {

using DedisperserFactory = std::function<std::unique_ptr<Dedisperser>(const DedispPlan&, const DedispOptions&)>;

/// A regular band: nchans channels from fch1 down by |foff| (foff < 0).
inline DedispInput make_band(int nchans, int nbits, double fch1_mhz, double foff_mhz, double tsamp_s,
                             bool is_signed = false) {
  DedispInput in;
  in.nchans = nchans;
  in.nbits = nbits;
  in.is_signed = is_signed;
  in.fch1_mhz = fch1_mhz;
  in.foff_mhz = foff_mhz;
  in.tsamp_s = tsamp_s;
  for (int c = 0; c < nchans; ++c) in.chan_freq_mhz.push_back(fch1_mhz + c * foff_mhz);
  return in;
}

/// Random packed data: every bit pattern for integers; floats uniform in [lo, hi) for nbits 32.
inline std::vector<std::uint8_t> random_packed(std::mt19937_64& rng, std::size_t nsamples, const DedispInput& in,
                                               float lo = -50.0f, float hi = 150.0f) {
  const std::size_t nbytes = nsamples * in.bytes_per_sample();
  std::vector<std::uint8_t> bytes(nbytes);
  if (in.nbits == 32) {
    std::uniform_real_distribution<float> u(lo, hi);
    for (std::size_t i = 0; i < nbytes / 4; ++i) {
      const float v = u(rng);
      std::memcpy(bytes.data() + 4 * i, &v, 4);
    }
  } else {
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
  }
  return bytes;
}

/// A problem shape for the reference comparisons.
struct Shape {
  int nchans;
  int nbits;
  bool is_signed;
  int downsample;
  int ndms;
  double dm_max;
  std::size_t nin;
  double kill_fraction;
  DelayModel model;
};

// A random problem of the given shape: band 1200-1500 MHz region, random DMs up to dm_max
// (always including DM 0), random killed channels.
inline DedispPlan random_plan(std::mt19937_64& rng, const Shape& s) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double fch1 = 1300.0 + 300.0 * u(rng);
  const double foff = -(0.1 + 2.0 * u(rng));
  const double tsamp = 64e-6 * (1.0 + 3.0 * u(rng));
  DedispProblem p;
  p.input = make_band(s.nchans, s.nbits, fch1, foff, tsamp, s.is_signed);
  p.downsample = s.downsample;
  p.model = s.model;
  p.dms.push_back(0.0);
  for (int i = 1; i < s.ndms; ++i) p.dms.push_back(s.dm_max * u(rng));
  if (s.kill_fraction > 0.0) {
    p.keep.assign(static_cast<std::size_t>(s.nchans), 1);
    for (auto& k : p.keep) k = u(rng) < s.kill_fraction ? 0 : 1;
    p.keep[static_cast<std::size_t>(s.nchans / 2)] = 1;  // at least one channel survives
  }
  return make_dedisp_plan(p);
}

/// Shapes every backend is checked on: every nbits, odd and single channel counts, DM 0,
/// downsampling, killed channels, delays longer than most gulps, both delay models.
inline std::vector<Shape> reference_shapes() {
  return {
      {1, 8, false, 1, 3, 50.0, 300, 0.0, DelayModel::presto},       // one channel: delays all zero
      {3, 8, false, 1, 5, 500.0, 900, 0.0, DelayModel::sigproc},     // odd channel count
      {7, 32, false, 1, 6, 300.0, 800, 0.0, DelayModel::presto},     // float input
      {64, 1, false, 1, 9, 200.0, 1200, 0.0, DelayModel::presto},    // 1-bit
      {64, 2, false, 2, 5, 300.0, 1300, 0.1, DelayModel::sigproc},   // 2-bit, downsampled, killed channels
      {96, 4, false, 3, 7, 150.0, 1000, 0.0, DelayModel::presto},    // 4-bit, odd downsampling
      {257, 8, false, 1, 6, 100.0, 900, 0.0, DelayModel::presto},    // more channels than fit a uint16 group
      {300, 8, true, 2, 5, 80.0, 700, 0.2, DelayModel::sigproc},     // signed 8-bit
      {128, 8, true, 1, 9, 60.0, 800, 0.05, DelayModel::presto},     // signed 8-bit, no downsampling
      {96, 8, false, 1, 2, 30.0, 700, 0.0, DelayModel::presto},      // two DMs (a small register block)
      {33, 16, false, 1, 5, 400.0, 900, 0.0, DelayModel::presto},    // 16-bit: uint32 lanes
      {40, 16, false, 2, 3, 100.0, 600, 0.0, DelayModel::sigproc},   // 16-bit downsampled
      {20, 32, false, 4, 4, 900.0, 2000, 0.1, DelayModel::sigproc},  // float, downsampled, long delays
      {16, 8, false, 1, 17, 2000.0, 1500, 0.0, DelayModel::presto},  // delays longer than most gulps
  };
}

/// Everything the backend handed out, assembled: ndms rows of `ncols` samples, where ncols =
/// nin / D - min_dm_max_delay (what flush() promises). Unwritten samples stay NaN.
struct StreamedOutput {
  std::size_t ncols = 0;
  std::vector<float> data;
  bool in_order = true;  ///< blocks came in order, without gaps or overlaps
};

/// Feeds `packed` (nin samples) in pushes of the sizes in `push_sizes` (cycled; each at most
/// the backend's gulp), then flushes.
inline StreamedOutput run_streaming(Dedisperser& dd, const std::vector<std::uint8_t>& packed, std::size_t nin,
                                    const std::vector<std::size_t>& push_sizes) {
  const DedispPlan& plan = dd.plan();
  const std::size_t D = static_cast<std::size_t>(plan.downsample());
  const std::size_t bps = plan.problem.input.bytes_per_sample();
  const std::size_t nds = nin / D;
  const auto mind = static_cast<std::size_t>(plan.min_dm_max_delay);
  StreamedOutput r;
  r.ncols = nds > mind ? nds - mind : 0;
  r.data.assign(plan.ndms() * r.ncols, std::numeric_limits<float>::quiet_NaN());
  std::uint64_t expect_first = 0;
  auto take = [&](const DedispBlock& b) {
    if (b.empty()) return;
    if (b.first != expect_first || b.first + b.nsamples > r.ncols) r.in_order = false;
    for (std::size_t i = 0; i < plan.ndms(); ++i) {
      for (std::size_t t = 0; t < b.nsamples && b.first + t < r.ncols; ++t) {
        r.data[i * r.ncols + b.first + t] = b.data[i * b.stride + t];
      }
    }
    expect_first = b.first + b.nsamples;
  };
  std::size_t done = 0;
  std::size_t which = 0;
  while (done < nin) {
    std::size_t n = std::min(push_sizes[which++ % push_sizes.size()], dd.gulp_samples());
    n = std::min(n, nin - done);
    if (done + n < nin) n = std::max<std::size_t>(D, n / D * D);  // only the last push may end mid-group
    n = std::min(n, nin - done);
    take(dd.push(packed.data() + done * bps, n));
    done += n;
  }
  for (int guard = 0; guard < 1000000; ++guard) {
    const DedispBlock b = dd.flush();
    if (b.empty()) break;
    take(b);
  }
  if (expect_first != r.ncols) r.in_order = false;
  return r;
}

/// Compares with the reference over the whole flushed range (the zero-padded definition):
/// bit-identical for integer input; for float input |out - ref| <= 1e-6 * sum |terms|.
inline void check_against_reference(const DedispPlan& plan, const std::vector<std::uint8_t>& packed, std::size_t nin,
                                    const StreamedOutput& got) {
  std::size_t nref = 0;
  const std::vector<float> ref = reference_dedisperse(plan, packed, nin, nref, true);
  REQUIRE(nref == got.ncols);
  CHECK(got.in_order);
  const bool is_float = plan.problem.input.nbits == 32;
  std::vector<float> abs_ref;
  if (is_float) {
    std::vector<std::uint8_t> abs_packed(packed.size());
    for (std::size_t i = 0; i + 4 <= packed.size(); i += 4) {
      float v;
      std::memcpy(&v, packed.data() + i, 4);
      v = std::fabs(v);
      std::memcpy(abs_packed.data() + i, &v, 4);
    }
    std::size_t n2 = 0;
    abs_ref = reference_dedisperse(plan, abs_packed, nin, n2, true);
  }
  std::size_t bad = 0;
  std::size_t first_bad = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const bool ok = is_float ? std::fabs(static_cast<double>(got.data[i]) - static_cast<double>(ref[i])) <=
                                   1e-6 * static_cast<double>(abs_ref[i]) + 1e-30
                             : std::memcmp(&got.data[i], &ref[i], sizeof(float)) == 0;
    if (!ok && bad++ == 0) first_bad = i;
  }
  if (bad > 0 && got.ncols > 0) {
    const std::size_t dm = first_bad / got.ncols;
    const std::size_t t = first_bad % got.ncols;
    INFO("first mismatch at DM #" << dm << " (" << plan.problem.dms[dm] << "), sample " << t << ": got "
                                  << got.data[first_bad] << ", reference " << ref[first_bad]);
    CHECK(bad == 0);
  }
}

}  // namespace fastpsr::test
