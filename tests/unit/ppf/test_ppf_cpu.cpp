// SPDX-License-Identifier: MIT
// The CPU channeliser against the double-precision reference (tests/support/reference_ppf.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "fastpsr/cpu/cpu_features.hpp"
#include "fastpsr/cpu/ppf_cpu.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/ppf.hpp"
#include "support/reference_ppf.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

std::unique_ptr<Channeliser> cpu_channeliser(const ChanneliserPlan& plan, std::size_t gulp = 0,
                                             const std::string& isa = "") {
  ChanneliserOptions o;
  o.gulp_samples = gulp;
  if (!isa.empty()) o.cpu_config["isa"] = isa;
  o.fftw_effort = ChanneliserOptions::FftwEffort::estimate;
  return cpu::make_channeliser(plan, o);
}

// Relative error bound of ppf.hpp's accuracy contract.
constexpr double kTolerance = 1e-5;

}  // namespace

TEST_CASE("ppf reference: the radix-2 FFT equals the naive DFT") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  for (std::size_t n : {1U, 2U, 8U, 64U, 256U}) {
    std::vector<test::cd> x(n);
    for (auto& v : x) v = {g(rng), g(rng)};
    const auto a = test::radix2_fft(x);
    const auto b = test::naive_dft(x);
    for (std::size_t k = 0; k < n; ++k) CHECK(std::abs(a[k] - b[k]) < 1e-11 * static_cast<double>(n));
  }
}

TEST_CASE("ppf cpu: matches the double-precision reference for every input type, C and T") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::uint64_t k = 0;
  for (int c : {1, 7, 32, 1024, 4096}) {
    for (int t : {1, 4, 16, 64}) {
      for (VoltageType type : {VoltageType::ci8, VoltageType::ci16, VoltageType::cf32}) {
        // CI budget: the large C get few spectra and one polarisation/order per type.
        const int npol = (c >= 1024 && type != VoltageType::ci8) ? 1 : 2;
        const bool descending = ((k++) % 2) == 1;
        const std::size_t nout = c >= 1024 ? 2 : 5;
        const std::size_t nsamples = static_cast<std::size_t>(c) * (static_cast<std::size_t>(t) - 1 + nout);
        CAPTURE(c);
        CAPTURE(t);
        CAPTURE(to_string(type));
        CAPTURE(npol);
        CAPTURE(descending);
        const auto plan = test::hann_plan(c, t, type, npol, PpfOutput::complex, Detection::I, 1, descending);
        const auto input = test::random_voltages(type, nsamples * static_cast<std::size_t>(npol) * 2, seed + k);
        const auto ref = test::reference_ppf(plan, input, nsamples);
        auto ch = cpu_channeliser(plan);
        const auto got = test::run_channeliser(*ch, input, nsamples);
        REQUIRE(got.size() == ref.size());
        CHECK(test::max_relative_error(got.data(), ref) <= kTolerance);
      }
    }
  }
}

TEST_CASE("ppf cpu: detection and integration (I, AA, BB, IQUV) match the reference") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  // The default FIR (the polarisations written apart where the CPU has AVX2) and the generic one
  // (interleaved): detection reads either layout.
  for (const char* isa : {"", "generic"}) {
    for (Detection d : {Detection::I, Detection::AA, Detection::BB, Detection::IQUV}) {
      for (int nint : {1, 3, 40}) {
        CAPTURE(isa);
        CAPTURE(to_string(d));
        CAPTURE(nint);
        const int c = 48;
        const int t = 8;
        const auto plan = test::hann_plan(c, t, VoltageType::ci8, 2, PpfOutput::power, d, nint, true, 3);
        const std::size_t nsamples = static_cast<std::size_t>(c) * (t - 1 + 2 * nint) + (c - 1);  // 2 rows
        const auto input =
            test::random_voltages(VoltageType::ci8, 3 * nsamples * 4, seed + static_cast<unsigned>(nint));
        const auto ref = test::reference_ppf(plan, input, nsamples);
        auto ch = cpu_channeliser(plan, 0, isa);
        const auto got = test::run_channeliser(*ch, input, nsamples, 100);
        REQUIRE(got.size() == ref.size());
        CHECK(got.size() == 2 * plan.row_floats());
        CHECK(test::max_relative_error(got.data(), ref) <= kTolerance);
      }
    }
  }
  // One polarisation: I is |X|^2.
  const auto plan = test::hann_plan(32, 4, VoltageType::cf32, 1, PpfOutput::power, Detection::I, 2);
  const std::size_t nsamples = 32 * 9;
  const auto input = test::random_voltages(VoltageType::cf32, nsamples * 2, seed);
  auto ch = cpu_channeliser(plan);
  CHECK(test::max_relative_error(test::run_channeliser(*ch, input, nsamples).data(),
                                 test::reference_ppf(plan, input, nsamples)) <= kTolerance);
}

TEST_CASE("ppf cpu: T = 1 with a flat window is a plain FFT, in fftshifted order") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  for (int c : {16, 15}) {
    for (bool descending : {false, true}) {
      ChanneliserProblem p;
      p.nchans = c;
      p.ntaps = 1;
      p.input = VoltageType::cf32;
      p.output = PpfOutput::complex;
      p.descending = descending;
      p.coeffs.assign(static_cast<std::size_t>(c), 1.0F);
      const auto plan = make_channeliser_plan(p);
      const std::size_t nspec = 3;
      const auto input = test::random_voltages(VoltageType::cf32, nspec * static_cast<std::size_t>(c) * 2, seed);
      auto ch = cpu_channeliser(plan);
      const auto got = test::run_channeliser(*ch, input, nspec * static_cast<std::size_t>(c));
      for (std::size_t s = 0; s < nspec; ++s) {
        std::vector<test::cd> x(static_cast<std::size_t>(c));
        for (std::size_t i = 0; i < x.size(); ++i) {
          const std::size_t n = s * static_cast<std::size_t>(c) + i;
          x[i] = {test::component(input.data(), 2 * n, p.input), test::component(input.data(), 2 * n + 1, p.input)};
        }
        const auto X = test::naive_dft(x);
        double scale = 0.0;
        for (const auto& v : X) scale = std::max(scale, std::abs(v));
        for (int j = 0; j < c; ++j) {
          // Ascending: lowest baseband frequency (bin −⌊C/2⌋) first; descending: highest first.
          const int bb = descending ? c - 1 - j - c / 2 : j - c / 2;
          const auto v = X[static_cast<std::size_t>((bb + c) % c)];
          const float* o = got.data() + (s * static_cast<std::size_t>(c) + static_cast<std::size_t>(j)) * 2;
          CHECK(std::abs(test::cd(o[0], o[1]) - v) <= kTolerance * scale);
        }
      }
    }
  }
}

TEST_CASE("ppf cpu: streaming gives the same bits for any gulp size") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  for (PpfOutput out : {PpfOutput::complex, PpfOutput::power}) {
    const int c = 64;
    const int t = 16;
    const auto plan =
        test::hann_plan(c, t, VoltageType::ci16, 2, out, Detection::IQUV, out == PpfOutput::power ? 7 : 1, true, 2);
    const std::size_t nsamples = static_cast<std::size_t>(c) * 200 + 33;
    const auto input = test::random_voltages(VoltageType::ci16, 2 * nsamples * 4, seed);
    auto whole = cpu_channeliser(plan, nsamples);
    const auto a = test::run_channeliser(*whole, input, nsamples);
    for (std::size_t gulp : {1UL, 63UL, 64UL, 1000UL, 4481UL}) {
      CAPTURE(gulp);
      auto ch = cpu_channeliser(plan, gulp);
      const auto b = test::run_channeliser(*ch, input, nsamples, gulp);
      REQUIRE(a.size() == b.size());
      CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    }
    CHECK(test::max_relative_error(a.data(), test::reference_ppf(plan, input, nsamples)) <= kTolerance);
  }
}

// The AVX2 FIR rotates by the phase inside its register tiles and the leftover spectra and
// channels separately (C = 100: 4 channels outside the 16-float tiles); which path a sample
// takes depends on how the pushes cut the stream, so both must give the same bits, and the same
// NaNs and infinities (float input can carry them).
TEST_CASE("ppf cpu: the FIR's tiles and its leftover rows give the same bits, NaN and infinity included") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  for (int npol : {1, 2}) {
    CAPTURE(npol);
    const int c = 100;
    const auto plan = test::hann_plan(c, 7, VoltageType::cf32, npol, PpfOutput::complex);
    const std::size_t nsamples = static_cast<std::size_t>(c) * 150;
    auto input = test::random_voltages(VoltageType::cf32, 2 * nsamples * static_cast<std::size_t>(npol), seed);
    auto* x = reinterpret_cast<float*>(input.data());
    const std::size_t nfloats = input.size() / sizeof(float);
    // A few of each, so that most spectra stay finite (the FFT spreads one over a spectrum).
    for (std::size_t i = 1234; i < nfloats; i += nfloats / 3) x[i] = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t i = 4321; i < nfloats; i += nfloats / 2) x[i] = -std::numeric_limits<float>::infinity();
    auto whole = cpu_channeliser(plan, nsamples);
    const auto a = test::run_channeliser(*whole, input, nsamples);
    std::size_t nans = 0;
    for (float v : a) nans += std::isnan(v) ? 1 : 0;
    CHECK(nans > 0);  // the NaNs reach the output
    CHECK(nans < a.size() / 4);
    for (std::size_t gulp : {1UL, 7UL, 33UL, 1001UL}) {
      CAPTURE(gulp);
      auto ch = cpu_channeliser(plan, gulp);
      const auto b = test::run_channeliser(*ch, input, nsamples, gulp);
      REQUIRE(a.size() == b.size());
      CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("ppf cpu: the FIR's AVX-512 and AVX2 variants give the same bits, generic matches the reference") {
  const auto& f = cpu::cpu_features();
  if (!f.avx512f || !f.avx2 || !f.fma) {
    MESSAGE("this CPU lacks AVX-512 or AVX2+FMA: the variants are compared where it has them");
  }
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::uint64_t k = 0;
  // C·P·2 floats a channel block of 256 channels: 100 channels -> 6 AVX-512 tiles and 8 floats
  // of rows (P = 1), 12 tiles and one AVX2 tile (P = 2); T below, at and above the tile's 4
  // spectra; 1 + T + 10 spectra: tiles and leftover spectra.
  for (int c : {100, 256}) {
    for (int t : {1, 3, 4, 5, 16}) {
      for (int npol : {1, 2}) {
        for (VoltageType type : {VoltageType::ci8, VoltageType::ci16, VoltageType::cf32}) {
          CAPTURE(c);
          CAPTURE(t);
          CAPTURE(npol);
          CAPTURE(to_string(type));
          const auto plan = test::hann_plan(c, t, type, npol, PpfOutput::complex);
          const std::size_t nsamples = static_cast<std::size_t>(c) * (static_cast<std::size_t>(t) + 11);
          const auto input = test::random_voltages(type, nsamples * static_cast<std::size_t>(npol) * 2, seed + k++);
          const auto ref = test::reference_ppf(plan, input, nsamples);
          auto generic = cpu_channeliser(plan, 0, "generic");
          const auto g = test::run_channeliser(*generic, input, nsamples);
          REQUIRE(g.size() == ref.size());
          CHECK(test::max_relative_error(g.data(), ref) <= kTolerance);
          if (!f.avx2 || !f.fma) continue;
          auto avx2 = cpu_channeliser(plan, 0, "avx2");
          const auto a = test::run_channeliser(*avx2, input, nsamples);
          REQUIRE(a.size() == ref.size());
          CHECK(test::max_relative_error(a.data(), ref) <= kTolerance);
          if (!f.avx512f) continue;
          auto avx512 = cpu_channeliser(plan, 0, "avx512");
          const auto b = test::run_channeliser(*avx512, input, nsamples);
          REQUIRE(a.size() == b.size());
          CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
        }
      }
    }
  }
}

TEST_CASE("ppf cpu: --cpu-config is checked") {
  const auto plan = test::hann_plan(16, 2, VoltageType::ci8, 1, PpfOutput::complex);
  CHECK_NOTHROW(cpu_channeliser(plan, 0, "generic"));
  CHECK_THROWS_WITH_AS(cpu_channeliser(plan, 0, "sse9"), doctest::Contains("expected avx512, avx2 or generic"), Error);
  ChanneliserOptions o;
  o.cpu_config["tile"] = "8";
  CHECK_THROWS_WITH_AS(cpu::make_channeliser(plan, o), doctest::Contains("unknown key 'tile'"), Error);
  if (!cpu::cpu_features().avx512f) {
    CHECK_THROWS_WITH_AS(cpu_channeliser(plan, 0, "avx512"), doctest::Contains("this CPU lacks it"), Error);
  }
  // The default is the widest variant this CPU runs.
  const auto& f = cpu::cpu_features();
  const char* widest = f.avx512f && f.avx2 && f.fma ? "FIR avx512" : f.avx2 && f.fma ? "FIR avx2" : "FIR generic";
  CHECK(cpu_channeliser(plan)->describe().find(widest) != std::string::npos);
  // Ordinary memory is as good for the CPU: no buffers of its own to read into.
  CHECK(cpu_channeliser(plan)->input_buffers(2, 4096).empty());
}

TEST_CASE("ppf cpu: push validates its size and flush ends the stream") {
  const auto plan = test::hann_plan(16, 2, VoltageType::ci8, 1, PpfOutput::complex);
  auto ch = cpu_channeliser(plan, 64);
  std::vector<std::uint8_t> in(2 * 65, 0);
  CHECK_THROWS_AS(ch->push(in.data(), 65), Error);
  CHECK(ch->flush().empty());
  CHECK(ch->host_bytes() > 0);
  CHECK(ch->describe().find("CPU") != std::string::npos);
}
