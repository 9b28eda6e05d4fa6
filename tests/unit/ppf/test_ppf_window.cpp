// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <cmath>
#include <numeric>

#include "fastpsr/error.hpp"
#include "fastpsr/ppf.hpp"
#include "fastpsr/ppf_window.hpp"

using namespace fastpsr;

TEST_CASE("ppf window: names and parameters parse, bad ones are refused") {
  CHECK(parse_window("hann").kind == WindowKind::hann);
  CHECK(parse_window("hamming").kind == WindowKind::hamming);
  CHECK(parse_window("blackman").kind == WindowKind::blackman);
  CHECK(parse_window("rect").kind == WindowKind::rect);
  const auto k = parse_window("kaiser:5.5");
  CHECK(k.kind == WindowKind::kaiser);
  CHECK(k.kaiser_beta == 5.5);
  CHECK(parse_window("kaiser").kaiser_beta == 8.6);
  CHECK(to_string(parse_window("kaiser:5.5")) == "kaiser:5.5");
  CHECK_THROWS_WITH_AS(parse_window("gauss"), doctest::Contains("not one of hann"), Error);
  CHECK_THROWS_WITH_AS(parse_window("kaiser:x"), doctest::Contains("beta"), Error);
  CHECK_THROWS_WITH_AS(parse_window("kaiser:-1"), doctest::Contains("beta"), Error);
  CHECK_THROWS_WITH_AS(parse_window("hann:3"), doctest::Contains("only kaiser"), Error);
}

TEST_CASE("ppf window: textbook values") {
  const WindowSpec hann = parse_window("hann");
  CHECK(window_value(hann, 0, 9) == doctest::Approx(0.0));
  CHECK(window_value(hann, 4, 9) == doctest::Approx(1.0));
  CHECK(window_value(hann, 2, 9) == doctest::Approx(0.5));
  CHECK(window_value(parse_window("hamming"), 0, 9) == doctest::Approx(0.08));
  CHECK(window_value(parse_window("blackman"), 4, 9) == doctest::Approx(1.0));
  CHECK(window_value(parse_window("blackman"), 0, 9) == doctest::Approx(0.0).epsilon(1e-12));
  // Kaiser: 1 at the centre, I0(0)/I0(beta) at the ends.
  const WindowSpec kaiser = parse_window("kaiser:6");
  CHECK(window_value(kaiser, 4, 9) == doctest::Approx(1.0));
  CHECK(window_value(kaiser, 0, 9) == doctest::Approx(1.0 / 67.23440697647797).epsilon(1e-10));
  CHECK(window_value(hann, 0, 1) == 1.0);
}

TEST_CASE("ppf design: symmetric windowed sinc, normalised to the FFT's gain, float32 of a double design") {
  for (const char* w : {"hann", "hamming", "blackman", "kaiser:8", "rect"}) {
    for (const auto& [c, t] : std::vector<std::pair<int, int>>{{1, 1}, {7, 4}, {64, 16}, {32, 3}}) {
      CAPTURE(w);
      CAPTURE(c);
      CAPTURE(t);
      const auto h = design_ppf_prototype(c, t, parse_window(w), 1.0);
      REQUIRE(h.size() == static_cast<std::size_t>(c * t));
      CHECK(std::accumulate(h.begin(), h.end(), 0.0) == doctest::Approx(c).epsilon(1e-12));
      for (std::size_t n = 0; n < h.size(); ++n) CHECK(h[n] == doctest::Approx(h[h.size() - 1 - n]).epsilon(1e-12));
      const auto f = design_ppf_coeffs(c, t, parse_window(w), 1.0);
      for (std::size_t n = 0; n < h.size(); ++n) CHECK(f[n] == static_cast<float>(h[n]));
    }
  }
  // The sinc's zeros fall a whole channel count from the centre (C odd puts the centre on a tap).
  const auto h = design_ppf_prototype(5, 7, parse_window("rect"), 1.0);
  CHECK(std::abs(h[17 + 5]) < 1e-15);
  CHECK(std::abs(h[17 - 10]) < 1e-15);
  CHECK_THROWS_AS(design_ppf_prototype(0, 4, parse_window("hann"), 1.0), Error);
  CHECK_THROWS_AS(design_ppf_prototype(4, 0, parse_window("hann"), 1.0), Error);
  CHECK_THROWS_AS(design_ppf_prototype(4, 4, parse_window("hann"), 0.0), Error);
}

TEST_CASE("ppf design: the channel response of a plain FFT is the Dirichlet kernel") {
  // Unit coefficients, T = 1: |sin(πδ)| / (C·|sin(πδ/C)|).
  const int c = 64;
  const std::vector<float> ones(c, 1.0F);
  for (double d : {0.0, 0.25, 0.5, 1.5, 5.5, 10.5}) {
    const double expect = d == 0.0 ? 1.0 : std::abs(std::sin(M_PI * d) / (c * std::sin(M_PI * d / c)));
    CHECK(ppf_channel_response(ones, c, d) == doctest::Approx(expect).epsilon(1e-12));
  }
  const auto s = summarise_ppf_response(ones, c);
  CHECK(s.scalloping_db == doctest::Approx(-3.92).epsilon(0.01));
  // The windowed sinc crosses its neighbour at −6 dB (amplitude 1/2).
  const auto pfb = summarise_ppf_response(design_ppf_coeffs(c, 16, parse_window("hann"), 1.0), c);
  CHECK(pfb.scalloping_db == doctest::Approx(-6.02).epsilon(0.01));
  CHECK(pfb.leakage_db[1] < s.leakage_db[1] - 40.0);
  // A wider passband trades isolation for less scalloping.
  const auto wide = summarise_ppf_response(design_ppf_coeffs(c, 16, parse_window("hann"), 1.2), c);
  CHECK(wide.scalloping_db > pfb.scalloping_db + 1.0);
}

TEST_CASE("ppf plan: validation names the bad value") {
  ChanneliserProblem p;
  p.nchans = 16;
  p.ntaps = 4;
  CHECK_NOTHROW(make_channeliser_plan(p));
  auto bad = p;
  bad.nchans = 0;
  CHECK_THROWS_WITH_AS(make_channeliser_plan(bad), doctest::Contains("--channels"), Error);
  bad = p;
  bad.ntaps = 0;
  CHECK_THROWS_WITH_AS(make_channeliser_plan(bad), doctest::Contains("--taps"), Error);
  bad = p;
  bad.npol = 3;
  CHECK_THROWS_WITH_AS(make_channeliser_plan(bad), doctest::Contains("polarisations"), Error);
  bad = p;
  bad.detection = Detection::IQUV;
  CHECK_THROWS_WITH_AS(make_channeliser_plan(bad), doctest::Contains("two polarisations"), Error);
  bad = p;
  bad.coeffs.assign(63, 1.0F);
  CHECK_THROWS_WITH_AS(make_channeliser_plan(bad), doctest::Contains("need 64"), Error);
  bad.coeffs.assign(64, 1.0F);
  bad.coeffs[3] = NAN;
  CHECK_THROWS_WITH_AS(make_channeliser_plan(bad), doctest::Contains("NaN"), Error);
  CHECK_THROWS_WITH_AS(parse_voltage_type("ci4"), doctest::Contains("ci8, ci16, cf32"), Error);
  CHECK_THROWS_WITH_AS(parse_detection("XY"), doctest::Contains("I, AA, BB, IQUV"), Error);
  CHECK(parse_detection("iquv") == Detection::IQUV);
}

TEST_CASE("ppf plan: bin order is the fftshift, reversed for descending output, coarse channels too") {
  ChanneliserProblem p;
  p.nchans = 8;
  p.ncoarse = 2;
  auto plan = make_channeliser_plan(p);
  // Ascending: channel j holds bin (j − 4) mod 8: 4 5 6 7 0 1 2 3.
  const int asc[8] = {4, 5, 6, 7, 0, 1, 2, 3};
  for (int j = 0; j < 8; ++j) {
    CHECK(plan.bin_of(static_cast<std::size_t>(j)) == asc[j]);
    CHECK(plan.coarse_of(static_cast<std::size_t>(j)) == 0);
    CHECK(plan.coarse_of(static_cast<std::size_t>(8 + j)) == 1);
  }
  p.descending = true;
  plan = make_channeliser_plan(p);
  for (int j = 0; j < 8; ++j) {
    CHECK(plan.bin_of(static_cast<std::size_t>(j)) == asc[7 - j]);
    CHECK(plan.coarse_of(static_cast<std::size_t>(j)) == 1);
  }
  // Odd C: bins −3 ... 3 in order.
  p.nchans = 7;
  p.descending = false;
  plan = make_channeliser_plan(p);
  const int odd[7] = {4, 5, 6, 0, 1, 2, 3};
  for (int j = 0; j < 7; ++j) CHECK(plan.bin_of(static_cast<std::size_t>(j)) == odd[j]);
  CHECK(plan.phase[0] == 1.0F);
}

TEST_CASE("ppf plan: rows for a whole-file run") {
  ChanneliserProblem p;
  p.nchans = 10;
  p.ntaps = 4;
  p.nint = 3;
  const auto plan = make_channeliser_plan(p);
  CHECK(plan.rows_for_samples(0) == 0);
  CHECK(plan.rows_for_samples(39) == 0);  // 3 raw spectra < T
  CHECK(plan.rows_for_samples(60) == 1);  // 6 raw → 3 filtered → 1 row
  CHECK(plan.rows_for_samples(89) == 1);  // 8 raw → 5 filtered
  CHECK(plan.rows_for_samples(90) == 2);
}
