// SPDX-License-Identifier: MIT
// What ppf writes: the filterbank header (fch1, foff, tsamp, tstart), the frequency of each
// channel checked end to end with a tone, the 8-bit scaling, the PSRDADA header of complex
// output, and external coefficient files.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <numbers>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/cpu/ppf_cpu.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/ppf_input.hpp"
#include "fastpsr/ppf_output.hpp"
#include "support/reference_ppf.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

VoltageInfo raw_info(double fcentre, double bw, int npol = 1) {
  VoltageInfo in;
  in.format = "raw";
  in.type = VoltageType::cf32;
  in.npol = npol;
  in.ncoarse = 1;
  in.tsamp_s = 1e-6 / std::abs(bw);
  in.chan_bw_mhz = bw;
  in.coarse_centre_mhz = {fcentre};
  in.tstart_mjd = 60000.25;
  return in;
}

ChanneliserPlan power_plan(const VoltageInfo& in, int c, int t, int nint) {
  ChanneliserProblem p;
  p.nchans = c;
  p.ntaps = t;
  p.ncoarse = in.ncoarse;
  p.npol = in.npol;
  p.input = in.type;
  p.nint = nint;
  p.descending = in.chan_bw_mhz > 0.0;
  return make_channeliser_plan(p);
}

// The channel of a filterbank with the largest power for a tone at `f_mhz`: cf32 input, the tone
// mixed down by its coarse channel's centre and sideband (zeros in the other coarse channels,
// as a coarse filterbank would leave them).
int loudest_channel(const VoltageInfo& in, const ChanneliserPlan& plan, double f_mhz) {
  const std::size_t nsamp = static_cast<std::size_t>(plan.nchans()) * static_cast<std::size_t>(plan.ntaps() + 2);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(in.ncoarse) * nsamp * 2 * sizeof(float));
  for (int f = 0; f < in.ncoarse; ++f) {
    const double sign = in.chan_bw_mhz > 0 ? 1.0 : -1.0;
    const double bb_hz = sign * (f_mhz - in.coarse_centre_mhz[static_cast<std::size_t>(f)]) * 1e6;
    if (std::abs(bb_hz) > std::abs(in.chan_bw_mhz) * 0.5e6) continue;
    for (std::size_t n = 0; n < nsamp; ++n) {
      const double ph = 2.0 * std::numbers::pi * std::fmod(bb_hz * in.tsamp_s * static_cast<double>(n), 1.0);
      const float v[2] = {static_cast<float>(std::cos(ph)), static_cast<float>(std::sin(ph))};
      std::memcpy(bytes.data() + (static_cast<std::size_t>(f) * nsamp + n) * sizeof(v), v, sizeof(v));
    }
  }
  auto ch = cpu::make_channeliser(plan, ChanneliserOptions{});
  const auto rows = test::run_channeliser(*ch, bytes, nsamp);
  int best = 0;
  for (std::size_t o = 0; o < plan.out_channels(); ++o) {
    if (rows[o] > rows[static_cast<std::size_t>(best)]) best = static_cast<int>(o);
  }
  return best;
}

}  // namespace

TEST_CASE("ppf output: filterbank header fch1, foff, tsamp = C·nint/rate, tstart + group delay") {
  // 400 MHz at 1400 MHz, C = 8: channels 50 MHz wide centred on 1400 + 50·b, b = −4 ... 3.
  const auto usb = raw_info(1400.0, 400.0);
  const auto plan = power_plan(usb, 8, 16, 64);
  const auto h = make_ppf_filterbank_header(usb, plan, 32, "raw.dat");
  CHECK(h.fch1 == 1550.0);
  CHECK(h.foff == -50.0);
  CHECK(h.nchans == 8);
  CHECK(h.nifs == 1);
  CHECK(h.nbits == 32);
  CHECK(h.tsamp == doctest::Approx(8.0 * 64 / 400e6).epsilon(1e-15));
  CHECK(h.tstart == doctest::Approx(60000.25 + 15.0 * 8 / 2 * 2.5e-9 / 86400.0).epsilon(1e-15));
  CHECK(h.rawdatafile == "raw.dat");
  CHECK(h.data_type == 1);
  // Inverted band: 1400 − 50·b, the highest channel is b = −4.
  const auto lsb = raw_info(1400.0, -400.0);
  const auto h2 = make_ppf_filterbank_header(lsb, power_plan(lsb, 8, 4, 1), 8, "x");
  CHECK(h2.fch1 == 1600.0);
  CHECK(h2.foff == -50.0);
  CHECK(h2.nbits == 8);
  // Odd C: the DC channel is the centre one.
  const auto h3 = make_ppf_filterbank_header(usb, power_plan(usb, 5, 4, 1), 32, "x");
  CHECK(h3.fch1 == 1400.0 + 2 * 80.0);
  CHECK(h3.foff == -80.0);
  // A mismatched order is a bug, not a user error.
  auto wrong = power_plan(usb, 8, 4, 1);
  wrong.problem.descending = false;
  CHECK_THROWS_AS(make_ppf_filterbank_header(usb, wrong, 32, "x"), Error);
}

TEST_CASE("ppf output: a tone lands in the channel whose header frequency is nearest (USB, LSB, coarse channels)") {
  for (double bw : {400.0, -400.0}) {
    CAPTURE(bw);
    const auto in = raw_info(1400.0, bw);
    const auto plan = power_plan(in, 16, 8, 1);
    const auto h = make_ppf_filterbank_header(in, plan, 32, "x");
    for (double f : {1400.0, 1237.0, 1580.0, 1212.5 + 0.3}) {
      CAPTURE(f);
      const int o = loudest_channel(in, plan, f);
      CHECK(std::abs(h.fch1 + o * h.foff - f) <= std::abs(h.foff) / 2 + 1e-9);
    }
  }
  for (double chan_bw : {3.125, -3.125}) {
    CAPTURE(chan_bw);
    VoltageInfo in = raw_info(0.0, chan_bw);
    in.ncoarse = 4;
    in.coarse_centre_mhz.clear();
    for (int i = 0; i < 4; ++i) in.coarse_centre_mhz.push_back(350.0 - 2 * chan_bw + (i + 0.5) * chan_bw);
    const auto plan = power_plan(in, 8, 4, 1);
    const auto h = make_ppf_filterbank_header(in, plan, 32, "x");
    CHECK(h.nchans == 32);
    // Away from the coarse channel edges: the FFT's Nyquist bin takes both edges of a coarse
    // channel (its outer half fine channel), as in any FFT channeliser.
    for (double f : {350.9, 344.8, 355.2, 347.9}) {
      CAPTURE(f);
      const int o = loudest_channel(in, plan, f);
      CHECK(std::abs(h.fch1 + o * h.foff - f) <= std::abs(h.foff) / 2 + 1e-9);
    }
  }
}

TEST_CASE("ppf output: complex output's PSRDADA header describes its channels") {
  auto in = raw_info(1400.0, -400.0, 2);
  ChanneliserProblem p;
  p.nchans = 8;
  p.ntaps = 4;
  p.npol = 2;
  p.input = in.type;
  p.output = PpfOutput::complex;
  const auto plan = make_channeliser_plan(p);
  in.source_name = "B1937+21";
  in.telescope = "GBT";
  const auto h = make_ppf_dada_header(in, plan);
  CHECK(*h.get("NCHAN") == "8");
  CHECK(*h.get("NPOL") == "2");
  CHECK(*h.get("NBIT") == "32");
  CHECK(*h.get("ORDER") == "TFP");
  CHECK(h.get_double("BW", "x") == -400.0);
  CHECK(h.get_double("TSAMP", "x") == doctest::Approx(8 * 2.5e-3));
  // Channel centres 1600 (b = −4) down to 1250 (b = 3): the band centre of the DADA convention.
  CHECK(h.get_double("FREQ", "x") == doctest::Approx(1425.0));
  CHECK(*h.get("SOURCE") == "B1937+21");
  // ppf reads its own output back with the same channel frequencies.
  auto bytes = encode_dada_header(h);
  bytes.resize(bytes.size() + 8 * 2 * 8 * 3, 0);
  auto r = open_voltage_reader(memory_source(bytes, "c.dada"), std::nullopt);
  CHECK(r->info().ncoarse == 8);
  CHECK(r->info().type == VoltageType::cf32);
  for (std::size_t o = 0; o < 8; ++o) {
    CHECK(r->info().coarse_centre_mhz[o] == doctest::Approx(ppf_channel_centre_mhz(in, plan, o)));
  }
}

TEST_CASE("ppf output: 8-bit scaling from the first rows, the same bytes for any push size") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  const std::size_t row = 6;
  const std::size_t nrows = 500;
  std::vector<float> rows(row * nrows);
  for (std::size_t r = 0; r < nrows; ++r) {
    for (std::size_t i = 0; i < row; ++i) {
      rows[r * row + i] =
          i == 5 ? 7.0F : static_cast<float>(100.0 * i + std::normal_distribution<double>(0, 1 + i)(rng));
    }
  }
  auto run = [&](std::size_t step) {
    PowerQuantiser q(row, 100);
    std::vector<std::uint8_t> out;
    for (std::size_t r = 0; r < nrows; r += step) q.push(rows.data() + r * row, std::min(step, nrows - r), out);
    q.finish(out);
    return out;
  };
  const auto a = run(nrows);
  REQUIRE(a.size() == rows.size());
  for (std::size_t step : {1UL, 7UL, 99UL, 100UL, 101UL}) CHECK(run(step) == a);
  // Over the calibration rows: mean 128, rms 16 (to rounding); the constant channel is 128.
  for (std::size_t i = 0; i < 5; ++i) {
    double sum = 0;
    double sum2 = 0;
    for (std::size_t r = 0; r < 100; ++r) {
      sum += a[r * row + i];
      sum2 += static_cast<double>(a[r * row + i]) * a[r * row + i];
    }
    const double mean = sum / 100;
    CHECK(mean == doctest::Approx(128.0).epsilon(0.005));
    CHECK(std::sqrt(sum2 / 100 - mean * mean) == doctest::Approx(16.0).epsilon(0.03));
  }
  for (std::size_t r = 0; r < nrows; ++r) CHECK(a[r * row + 5] == 128);
  // Fewer rows than the calibration wants: all of them calibrate.
  PowerQuantiser few(row, 1000);
  std::vector<std::uint8_t> out;
  few.push(rows.data(), 10, out);
  CHECK(out.empty());
  few.finish(out);
  CHECK(out.size() == 10 * row);
  CHECK(few.calibrated());
}

TEST_CASE("ppf output: external coefficients whose scale would overflow float32 are refused") {
  // 64 coefficients of 3e38 (finite floats): an all-inf filterbank, exit 0, before the check.
  test::TempDir dir;
  std::string big;
  for (int i = 0; i < 64; ++i) big += "3e38 ";
  test::write_file(dir / "big.txt", std::vector<std::uint8_t>(big.begin(), big.end()));
  CHECK_THROWS_WITH_AS(read_ppf_coeffs((dir / "big.txt").string(), 64),
                       doctest::Contains("the coefficients' absolute sum 1.92e+40 is above 1e+12"), Error);
  // Alternating signs do not hide the scale.
  std::string alt;
  for (int i = 0; i < 64; ++i) alt += i % 2 == 0 ? "1e11 " : "-0.99e11 ";
  test::write_file(dir / "alt.txt", std::vector<std::uint8_t>(alt.begin(), alt.end()));
  CHECK_THROWS_WITH_AS(read_ppf_coeffs((dir / "alt.txt").string(), 64), doctest::Contains("scale them down"), Error);
  // 16-bit integer coefficients (a common export) of 16 x 64 taps are fine.
  std::string ints;
  for (int i = 0; i < 1024; ++i) ints += "32767 ";
  test::write_file(dir / "ints.txt", std::vector<std::uint8_t>(ints.begin(), ints.end()));
  CHECK(read_ppf_coeffs((dir / "ints.txt").string(), 1024).size() == 1024);
}

TEST_CASE("ppf output: external coefficients, binary or text") {
  test::TempDir dir;
  const std::vector<float> c = {0.5F, -1.25F, 3.0F, 1e-3F, 2.0F, 0.0F};
  test::write_file(dir / "c.bin", std::vector<std::uint8_t>(reinterpret_cast<const std::uint8_t*>(c.data()),
                                                            reinterpret_cast<const std::uint8_t*>(c.data() + 6)));
  CHECK(read_ppf_coeffs((dir / "c.bin").string(), 6) == c);
  const std::string text = "# C = 3, T = 2\n0.5 -1.25, 3\n1e-3\t2 0\n";
  test::write_file(dir / "c.txt", std::vector<std::uint8_t>(text.begin(), text.end()));
  CHECK(read_ppf_coeffs((dir / "c.txt").string(), 6) == c);
  CHECK_THROWS_WITH_AS(read_ppf_coeffs((dir / "c.txt").string(), 8), doctest::Contains("6 coefficients"), Error);
  const std::string bad = "1 2 x 4\n";
  test::write_file(dir / "bad.txt", std::vector<std::uint8_t>(bad.begin(), bad.end()));
  CHECK_THROWS_WITH_AS(read_ppf_coeffs((dir / "bad.txt").string(), 4), doctest::Contains("not a number"), Error);
  CHECK_THROWS_AS(read_ppf_coeffs((dir / "missing").string(), 4), Error);
}
