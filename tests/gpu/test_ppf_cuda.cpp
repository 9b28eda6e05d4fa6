// SPDX-License-Identifier: MIT
// The CUDA channeliser against the double-precision reference: the full matrix
// (C ∈ {1, 7, 32, 1024, 4096}, T ∈ {1, 4, 16, 64}, ci8/ci16/cf32, one and two polarisations),
// both FIR kernels, complex and power output, several chunk sizes, and streaming equality.
// Skipped (exit 77) without a GPU.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstring>
#include <string>
#include <vector>

#include "fastpsr/cuda/ppf_cuda.hpp"
#include "fastpsr/cuda/runtime.hpp"
#include "fastpsr/device.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/ppf.hpp"
#include "support/reference_ppf.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

constexpr double kTolerance = 1e-5;  // ppf.hpp's accuracy contract

std::unique_ptr<Channeliser> gpu(const ChanneliserPlan& plan, const std::string& config, std::size_t gulp = 0) {
  ChanneliserOptions o;
  o.gpu_config = parse_key_values(config);
  o.gulp_samples = gulp;
  return cuda::make_channeliser(plan, o, 0);
}

// Runs `config` over `input` in pushes of `gulp` samples (0: the channeliser's own) and checks
// that the output has the bits of `expected`.
void check_same_bits(const std::vector<float>& expected, const ChanneliserPlan& plan, const std::string& config,
                     const std::vector<std::uint8_t>& input, std::size_t nsamples, std::size_t gulp = 0) {
  auto ch = gpu(plan, config, gulp);
  const auto got = test::run_channeliser(*ch, input, nsamples, gulp);
  REQUIRE(got.size() == expected.size());
  CHECK(std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) == 0);
}

// Every FIR kernel, with default and unusual block shapes and chunks that split the spectra of
// a push (and of an integration) unevenly. The register kernel exists for T = 4, 8, 16, 32, 64.
// `all_shapes` false: each kernel once with its defaults (the GPU time of the full matrix).
// `fused`: also the fused FFT + detection kernel (power output where C takes it).
std::vector<std::string> kernel_configs(int ntaps, bool all_shapes = true, bool fused = false) {
  const bool reg = ntaps == 4 || ntaps == 8 || ntaps == 16 || ntaps == 32 || ntaps == 64;
  std::vector<std::string> v = {"fir=cache", "fir=shared", "fft=cufft"};
  if (reg) v.emplace_back("fir=register");
  if (fused) v.emplace_back("fft=fused");
  if (!all_shapes) return v;
  v.emplace_back("chunk=3");
  if (fused) {
    v.emplace_back("fft=fused,seg=1,chunk=3");
    v.emplace_back("fir=cache,fft=fused,seg=3");
  }
  v.emplace_back("pipe=2,chunk=3");
  v.emplace_back("pipe=2,l2=persist,graph=1,chunk=5");
  v.emplace_back("fir=cache,sb=1,cb=64,chunk=3");
  v.emplace_back("fir=shared,cb=64,sb=8,ry=2,chunk=5");
  if (reg) {
    v.emplace_back("fir=register,sb=16,cb=32,chunk=7");
    v.emplace_back("fir=register,sb=4,chunk=2");
    v.emplace_back("fir=register,sb=8,cpt=1,pipe=1,chunk=3");
  }
  return v;
}

}  // namespace

TEST_CASE("ppf gpu: the issue's matrix against the double-precision reference, every FIR kernel") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::uint64_t k = 0;
  for (int c : {1, 7, 32, 1024, 4096}) {
    for (int t : {1, 4, 16, 64}) {
      for (VoltageType type : {VoltageType::ci8, VoltageType::ci16, VoltageType::cf32}) {
        for (int npol : {1, 2}) {
          for (PpfOutput out : {PpfOutput::complex, PpfOutput::power}) {
            ++k;
            const bool descending = k % 2 == 0;
            const std::size_t nout = c >= 1024 ? 9 : 23;
            const std::size_t nsamples = static_cast<std::size_t>(c) * (static_cast<std::size_t>(t) - 1 + nout) +
                                         static_cast<std::size_t>(c / 2);
            CAPTURE(c);
            CAPTURE(t);
            CAPTURE(to_string(type));
            CAPTURE(npol);
            CAPTURE(out == PpfOutput::complex);
            CAPTURE(descending);
            const auto plan =
                test::hann_plan(c, t, type, npol, out, Detection::I, out == PpfOutput::power ? 2 : 1, descending);
            const auto input = test::random_voltages(type, nsamples * static_cast<std::size_t>(npol) * 2, seed + k);
            const auto ref = test::reference_ppf(plan, input, nsamples);
            const bool fused = out == PpfOutput::power && c >= 256;  // the fused kernel's sizes
            for (const auto& cfg : kernel_configs(t, c == 7 || c == 1024, fused)) {
              CAPTURE(cfg);
              auto ch = gpu(plan, cfg, nsamples);
              const auto got = test::run_channeliser(*ch, input, nsamples);
              REQUIRE(got.size() == ref.size());
              CHECK(test::max_relative_error(got.data(), ref) <= kTolerance);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("ppf gpu: detection, integration across chunks, coarse channels and both orders") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  for (Detection d : {Detection::I, Detection::AA, Detection::BB, Detection::IQUV}) {
    for (int nint : {1, 3, 40}) {
      for (bool descending : {false, true}) {
        CAPTURE(to_string(d));
        CAPTURE(nint);
        CAPTURE(descending);
        const int c = 48;
        const int t = 8;
        const auto plan = test::hann_plan(c, t, VoltageType::ci8, 2, PpfOutput::power, d, nint, descending, 3);
        const std::size_t nsamples = static_cast<std::size_t>(c) * (t - 1 + 3 * nint) + (c - 1);
        const auto input =
            test::random_voltages(VoltageType::ci8, 3 * nsamples * 4, seed + static_cast<unsigned>(nint));
        const auto ref = test::reference_ppf(plan, input, nsamples);
        for (const auto& cfg : kernel_configs(t)) {
          CAPTURE(cfg);
          auto ch = gpu(plan, cfg, 700);
          const auto got = test::run_channeliser(*ch, input, nsamples, 700);
          REQUIRE(got.size() == 3 * plan.row_floats());
          CHECK(test::max_relative_error(got.data(), ref) <= kTolerance);
        }
      }
    }
  }
}

TEST_CASE("ppf gpu: the fused FFT + detection kernel, every size it takes, every detection, segments") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::uint64_t k = 0;
  for (int c : {256, 512, 1024, 2048, 4096}) {
    for (int npol : {1, 2}) {
      for (Detection d : {Detection::I, Detection::AA, Detection::BB, Detection::IQUV}) {
        if (npol == 1 && (d == Detection::BB || d == Detection::IQUV)) continue;
        for (int nint : {1, 5, 64}) {
          ++k;
          const bool descending = k % 2 == 1;
          const int ncoarse = k % 3 == 0 ? 2 : 1;
          CAPTURE(c);
          CAPTURE(npol);
          CAPTURE(to_string(d));
          CAPTURE(nint);
          CAPTURE(descending);
          CAPTURE(ncoarse);
          const auto plan =
              test::hann_plan(c, 8, VoltageType::ci16, npol, PpfOutput::power, d, nint, descending, ncoarse);
          const std::size_t nsamples = static_cast<std::size_t>(c) * (7 + 3 * static_cast<std::size_t>(nint));
          const auto input = test::random_voltages(VoltageType::ci16,
                                                   ncoarse * nsamples * static_cast<std::size_t>(npol) * 2, seed + k);
          const auto ref = test::reference_ppf(plan, input, nsamples);
          std::vector<std::string> cfgs = {
              "", "fft=fused", "fft=fused,seg=1", "fft=fused,seg=3,chunk=130", "fft=fused,radix=8,seg=2", "fft=cufft"};
          if (c >= 1024) cfgs.emplace_back("fft=fused,radix=16,seg=5,chunk=70");
          for (const auto& cfg : cfgs) {
            CAPTURE(cfg);
            auto ch = gpu(plan, cfg, nsamples);
            // The fused kernel is the default for power output wherever it exists.
            CHECK(ch->describe().find(cfg == "fft=cufft" ? "cuFFT" : "FFT + detection fused") != std::string::npos);
            CHECK(test::max_relative_error(test::run_channeliser(*ch, input, nsamples).data(), ref) <= kTolerance);
          }
        }
      }
    }
  }
}

TEST_CASE("ppf gpu: FIR + FFT fused in thread-block clusters (fft=cluster), every size, type and tap count") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::uint64_t k = 0;
  for (int c : {1024, 2048, 4096}) {
    for (int t : {4, 8, 16}) {
      for (VoltageType type : {VoltageType::ci8, VoltageType::ci16, VoltageType::cf32}) {
        for (int npol : {1, 2}) {
          ++k;
          const bool descending = k % 2 == 0;
          const int ncoarse = k % 3 == 0 ? 2 : 1;
          // Outputs: one cluster with a partial batch, or several clusters (a third of them).
          const std::size_t nout = k % 3 == 1 ? 70 : 9;
          const std::size_t nsamples =
              static_cast<std::size_t>(c) * (static_cast<std::size_t>(t) - 1 + nout) + static_cast<std::size_t>(c / 3);
          CAPTURE(c);
          CAPTURE(t);
          CAPTURE(to_string(type));
          CAPTURE(npol);
          CAPTURE(descending);
          CAPTURE(ncoarse);
          const auto plan = test::hann_plan(c, t, type, npol, PpfOutput::complex, Detection::I, 1, descending, ncoarse);
          const auto input = test::random_voltages(
              type, static_cast<std::size_t>(ncoarse) * nsamples * static_cast<std::size_t>(npol) * 2, seed + k);
          const auto ref = test::reference_ppf(plan, input, nsamples);
          auto ch = gpu(plan, "fft=cluster", nsamples);
          CHECK(ch->describe().find("FIR + FFT fused") != std::string::npos);
          const auto got = test::run_channeliser(*ch, input, nsamples);
          REQUIRE(got.size() == ref.size());
          CHECK(test::max_relative_error(got.data(), ref) <= kTolerance);
          CHECK(ch->describe().find("ring") != std::string::npos);
          if (type == VoltageType::ci8 && npol == 1) {
            // The lean variant sums the same taps in the same order as the ring variant and runs
            // the same FFT, so the bits are the same.
            auto lean = gpu(plan, "fft=cluster,cluster=lean", nsamples);
            CHECK(lean->describe().find("lean") != std::string::npos);
            const auto r = test::run_channeliser(*lean, input, nsamples);
            REQUIRE(r.size() == got.size());
            CHECK(std::memcmp(r.data(), got.data(), r.size() * sizeof(float)) == 0);
            if (k % 5 == 0) {  // streaming: the same bits for uneven pushes
              const std::size_t gulp = static_cast<std::size_t>(c) * 3 + 11;
              check_same_bits(got, plan, "fft=cluster,cluster=lean", input, nsamples, gulp);
            }
          }
          if (k % 5 == 0) {  // streaming: the same bits for uneven pushes
            const std::size_t gulp = static_cast<std::size_t>(c) * 3 + 11;
            check_same_bits(got, plan, "fft=cluster", input, nsamples, gulp);
          }
        }
      }
    }
  }
  // Refused where it does not exist, with the reason.
  CHECK_THROWS_WITH_AS(gpu(test::hann_plan(512, 16, VoltageType::ci8, 1, PpfOutput::complex), "fft=cluster"),
                       doctest::Contains("fft=cluster"), Error);
  CHECK_THROWS_WITH_AS(gpu(test::hann_plan(4096, 32, VoltageType::ci8, 1, PpfOutput::complex), "fft=cluster"),
                       doctest::Contains("T = 32"), Error);
  CHECK_THROWS_WITH_AS(
      gpu(test::hann_plan(4096, 16, VoltageType::cf32, 1, PpfOutput::complex), "fft=cluster,cluster=lean"),
      doctest::Contains("cluster=lean"), Error);
  CHECK_THROWS_WITH_AS(gpu(test::hann_plan(4096, 16, VoltageType::ci8, 1, PpfOutput::power), "fft=cluster"),
                       doctest::Contains("complex output"), Error);
}

TEST_CASE("ppf gpu: complex output of several coarse channels lands in the right rows") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  for (bool descending : {false, true}) {
    const auto plan = test::hann_plan(64, 4, VoltageType::ci16, 2, PpfOutput::complex, Detection::I, 1, descending, 4);
    const std::size_t nsamples = 64 * 40 + 17;
    const auto input = test::random_voltages(VoltageType::ci16, 4 * nsamples * 4, seed);
    const auto ref = test::reference_ppf(plan, input, nsamples);
    for (const auto& cfg : kernel_configs(4)) {
      CAPTURE(cfg);
      auto ch = gpu(plan, cfg);
      CHECK(test::max_relative_error(test::run_channeliser(*ch, input, nsamples, 1000).data(), ref) <= kTolerance);
    }
  }
}

TEST_CASE("ppf gpu: streaming gives the same bits for any gulp size") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  for (PpfOutput out : {PpfOutput::complex, PpfOutput::power}) {
    for (const auto& cfg : kernel_configs(16, true, out == PpfOutput::power)) {
      CAPTURE(cfg);
      const int c = 256;
      const auto plan =
          test::hann_plan(c, 16, VoltageType::ci8, 2, out, Detection::IQUV, out == PpfOutput::power ? 5 : 1, true, 2);
      const std::size_t nsamples = static_cast<std::size_t>(c) * 300 + 101;
      const auto input = test::random_voltages(VoltageType::ci8, 2 * nsamples * 4, seed);
      auto whole = gpu(plan, cfg, nsamples);
      const auto a = test::run_channeliser(*whole, input, nsamples);
      for (std::size_t gulp : {1UL, 255UL, 256UL, 5000UL, 33333UL}) {
        CAPTURE(gulp);
        check_same_bits(a, plan, cfg, input, nsamples, gulp);
      }
      CHECK(test::max_relative_error(a.data(), test::reference_ppf(plan, input, nsamples)) <= kTolerance);
    }
  }
}

TEST_CASE("ppf gpu: pushes from input_buffers() (no staging copy) give the same bits") {
  // As the ppf tool reads: each gulp of every coarse channel into one of two of the
  // channeliser's page-locked buffers ([F][gulp] samples, stride gulp), pushed from there. Each
  // buffer is overwritten with junk as soon as its push returns (the reader refilling it), so an
  // upload not finished by then shows as different bits.
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  for (const char* cfg : {"", "fft=cufft", "fir=cache"}) {
    CAPTURE(cfg);
    const int f_count = 3;
    const auto plan = test::hann_plan(128, 8, VoltageType::ci8, 2, PpfOutput::complex, Detection::I, 1, false, f_count);
    const std::size_t nsamples = 128 * 90 + 77;
    const auto input = test::random_voltages(VoltageType::ci8, f_count * nsamples * 4, seed);
    auto plain = gpu(plan, cfg, 1000);
    const auto want = test::run_channeliser(*plain, input, nsamples, 1000);
    auto ch = gpu(plan, cfg, 1000);
    const std::size_t gulp = ch->gulp_samples();
    const std::size_t sb = plan.sample_bytes();
    const std::vector<std::uint8_t*> buffers = ch->input_buffers(2, f_count * gulp * sb);
    REQUIRE(buffers.size() == 2);
    CHECK(ch->host_bytes() >= 2 * f_count * gulp * sb);
    const std::size_t rf = plan.row_floats();
    std::vector<float> got(plan.rows_for_samples(nsamples) * rf, std::numeric_limits<float>::quiet_NaN());
    std::uint64_t next = 0;
    auto take = [&](const ChanneliserBlock& b) {
      if (b.empty()) return;
      REQUIRE(b.first == next);
      std::memcpy(got.data() + b.first * rf, b.data, b.nrows * rf * sizeof(float));
      next += b.nrows;
    };
    std::size_t k = 0;
    for (std::size_t n0 = 0; n0 < nsamples; n0 += gulp, ++k) {
      const std::size_t n = std::min(gulp, nsamples - n0);
      std::uint8_t* buf = buffers[k % 2];
      for (int f = 0; f < f_count; ++f) {
        std::memcpy(buf + f * gulp * sb, input.data() + (f * nsamples + n0) * sb, n * sb);
      }
      take(ch->push(buf, n, gulp));
      std::memset(buf, 0xAB, f_count * gulp * sb);
    }
    for (auto b = ch->flush(); !b.empty(); b = ch->flush()) take(b);
    REQUIRE(got.size() == want.size());
    CHECK(std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0);
    // Every push took the path without the staging copy (and no staging buffer was made); the
    // plain channeliser staged every push.
    CHECK_MESSAGE(
        ch->describe().find(fmt::format("pushes: {} from input_buffers(), 0 staged (0.0 MiB", k)) != std::string::npos,
        ch->describe());
    CHECK_MESSAGE(plain->describe().find("pushes: 0 from input_buffers(), ") != std::string::npos, plain->describe());
    CHECK(plain->describe().find(", 0 staged") == std::string::npos);
  }
}

TEST_CASE("ppf gpu: two buffers on two streams, L2 persistence and graphs give the default's bits") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  for (PpfOutput out : {PpfOutput::complex, PpfOutput::power}) {
    const int c = 1024;
    const auto plan = test::hann_plan(c, 16, VoltageType::ci8, 2, out, Detection::I, out == PpfOutput::power ? 4 : 1);
    const std::size_t nsamples = static_cast<std::size_t>(c) * 500 + 33;
    const auto input = test::random_voltages(VoltageType::ci8, 2 * nsamples * 4, seed);
    for (std::size_t gulp : {nsamples, std::size_t{c} * 37 + 5}) {
      CAPTURE(gulp);
      auto plain = gpu(plan, "chunk=16,pipe=1", gulp);
      const auto a = test::run_channeliser(*plain, input, nsamples, gulp);
      for (const char* cfg : {"chunk=16,pipe=2", "chunk=16,pipe=2,l2=persist", "chunk=16,pipe=2,graph=1",
                              "chunk=16,pipe=2,l2=persist,graph=1", "chunk=16,pipe=1,graph=1", "chunk=16"}) {
        CAPTURE(cfg);
        check_same_bits(a, plan, cfg, input, nsamples, gulp);
      }
    }
  }
}

TEST_CASE("ppf gpu: two channels a thread in the register kernel (cpt=2) give the same bits") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  for (VoltageType type : {VoltageType::ci8, VoltageType::ci16, VoltageType::cf32}) {
    for (int npol : {1, 2}) {
      for (int c : {32, 1024, 4096}) {
        for (int t : {4, 16, 64}) {
          CAPTURE(to_string(type));
          CAPTURE(npol);
          CAPTURE(c);
          CAPTURE(t);
          const int ncoarse = c == 32 ? 3 : 1;
          const auto plan = test::hann_plan(c, t, type, npol, PpfOutput::complex, Detection::I, 1, c == 1024, ncoarse);
          if (type == VoltageType::cf32 && npol == 2) {  // 32 bytes for two samples: no such load
            CHECK_THROWS_WITH_AS(gpu(plan, "fir=register,cpt=2"), doctest::Contains("cpt=2"), Error);
            continue;
          }
          const std::size_t nsamples = static_cast<std::size_t>(c) * (t + 40) + 3;
          const auto input = test::random_voltages(type, static_cast<std::size_t>(ncoarse * npol) * nsamples * 2, seed);
          auto one = gpu(plan, "fir=register,cpt=1,chunk=7");
          const auto a = test::run_channeliser(*one, input, nsamples);
          for (const char* cfg : {"fir=register,cpt=2,chunk=7", "fir=register,cpt=2,sb=4,cb=32,chunk=7",
                                  "fir=register,cpt=2,sb=16,chunk=7", "fir=register,sb=8,chunk=7", "chunk=7"}) {
            CAPTURE(cfg);
            check_same_bits(a, plan, cfg, input, nsamples);
          }
          CHECK(test::max_relative_error(a.data(), test::reference_ppf(plan, input, nsamples)) <= kTolerance);
        }
      }
    }
  }
  const auto odd = test::hann_plan(7, 4, VoltageType::ci8, 1, PpfOutput::complex);
  CHECK_THROWS_WITH_AS(gpu(odd, "fir=register,cpt=2"), doctest::Contains("even channel count"), Error);
  CHECK_THROWS_WITH_AS(gpu(odd, "fir=cache,cpt=2"), doctest::Contains("register kernel"), Error);
}

TEST_CASE("ppf gpu: FIR and FFT in one persistent grid (fft=persist) against the reference, any schedule") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  for (VoltageType type : {VoltageType::ci8, VoltageType::ci16, VoltageType::cf32}) {
    for (int t : {4, 16}) {
      for (bool descending : {false, true}) {
        CAPTURE(to_string(type));
        CAPTURE(t);
        CAPTURE(descending);
        const int c = 4096;
        const auto plan = test::hann_plan(c, t, type, 1, PpfOutput::complex, Detection::I, 1, descending);
        // 300 spectra: the ring of 2 slots of 32 wraps many times; 8 slots a few
        const std::size_t nsamples = static_cast<std::size_t>(c) * (300 + t - 1) + 123;
        const auto input = test::random_voltages(type, nsamples * 2, seed + static_cast<std::uint64_t>(t));
        auto first = gpu(plan, "fft=persist");
        const auto a = test::run_channeliser(*first, input, nsamples);
        CHECK(test::max_relative_error(a.data(), test::reference_ppf(plan, input, nsamples)) <= kTolerance);
        // The schedule moves no arithmetic: the same bits for either (static roles, the default,
        // or dynamic ones), any ring (2 slots: every FIR item waits for the ring to drain), FIR
        // share and occupancy variant.
        for (const char* cfg :
             {"fft=persist,slots=2", "fft=persist,sched=static", "fft=persist,sched=static,persist_fir=10",
              "fft=persist,sched=static,persist_fir=90,slots=3", "fft=persist,occ=3", "fft=persist,occ=4,slots=2",
              "fft=persist,occ=2", "fft=persist,occ=2,sched=static", "fft=persist,sched=dynamic,slots=200"}) {
          CAPTURE(cfg);
          check_same_bits(a, plan, cfg, input, nsamples);
        }
        for (std::size_t gulp : {std::size_t{c} * 7 + 1, std::size_t{c} * 100}) {  // pushes of a few spectra and more
          CAPTURE(gulp);
          for (const char* cfg : {"fft=persist", "fft=persist,sched=static"}) {
            CAPTURE(cfg);
            check_same_bits(a, plan, cfg, input, nsamples, gulp);
          }
        }
      }
    }
  }
  const auto two_pol = test::hann_plan(4096, 16, VoltageType::ci8, 2, PpfOutput::complex);
  CHECK_THROWS_WITH_AS(gpu(two_pol, "fft=persist"), doctest::Contains("fft=persist"), Error);
  const auto power = test::hann_plan(4096, 16, VoltageType::ci8, 1, PpfOutput::power, Detection::I, 4);
  CHECK_THROWS_WITH_AS(gpu(power, "fft=persist"), doctest::Contains("fft=persist"), Error);
  const auto plain = test::hann_plan(4096, 16, VoltageType::ci8, 1, PpfOutput::complex);
  CHECK_THROWS_WITH_AS(gpu(plain, "fft=persist,slots=1"), doctest::Contains("slots=1"), Error);
  CHECK_THROWS_WITH_AS(gpu(plain, "fft=cufft,slots=4"), doctest::Contains("only with fft=persist"), Error);
  CHECK_THROWS_WITH_AS(gpu(plain, "fir=register,occ=3"), doctest::Contains("only with fft=persist"), Error);
  CHECK_THROWS_WITH_AS(gpu(plain, "fft=persist,occ=5"), doctest::Contains("occ=5"), Error);
  CHECK_THROWS_WITH_AS(gpu(plain, "fft=persist,sched=fifo"), doctest::Contains("sched=fifo"), Error);
  CHECK_THROWS_WITH_AS(gpu(plain, "fft=persist,sched=dynamic,persist_fir=50"),
                       doctest::Contains("only with sched=static"), Error);
  CHECK_THROWS_WITH_AS(gpu(plain, "fft=cufft,sched=static"), doctest::Contains("only with fft=persist"), Error);
  // The default: the persistent kernel on sm_90 for 8- and 16-bit input, at T = 8 only with
  // less than 30 GB/s of peak memory bandwidth an SM (an H100, not an H200: measured faster
  // there); the chunked path for float input, on other GPUs, or when a key of the chunked path
  // is given.
  const auto props = cuda::device_properties(0);
  const bool sm90 = props.sm_major == 9;
  const bool slow_memory =
      props.peak_memory_bandwidth > 0.0 && props.peak_memory_bandwidth < 30e9 * props.multiprocessors;
  const bool by_default = sm90;  // plain: T = 16
  MESSAGE("peak memory bandwidth ", props.peak_memory_bandwidth / 1e12, " TB/s, ", props.multiprocessors, " SMs");
  const auto ci16 = test::hann_plan(4096, 8, VoltageType::ci16, 1, PpfOutput::complex);
  const auto ci16_t4 = test::hann_plan(4096, 4, VoltageType::ci16, 1, PpfOutput::complex);
  const auto cf32 = test::hann_plan(4096, 16, VoltageType::cf32, 1, PpfOutput::complex);
  CHECK((gpu(plain, "")->describe().find("persistent") != std::string::npos) == by_default);
  CHECK((gpu(ci16_t4, "")->describe().find("persistent") != std::string::npos) == sm90);
  CHECK((gpu(ci16, "")->describe().find("persistent") != std::string::npos) == (sm90 && slow_memory));
  if (by_default) {  // the persistent kernel's keys then need no fft=persist
    CHECK(gpu(plain, "occ=3")->describe().find("persistent") != std::string::npos);
  } else {
    CHECK_THROWS_WITH_AS(gpu(plain, "occ=3"), doctest::Contains("only with fft=persist"), Error);
  }
  CHECK(gpu(cf32, "")->describe().find("persistent") == std::string::npos);
  CHECK(gpu(plain, "fir=register")->describe().find("persistent") == std::string::npos);
  CHECK(gpu(plain, "pipe=2")->describe().find("persistent") == std::string::npos);
}

TEST_CASE("ppf gpu: T = 1 with a flat window is a plain FFT") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  for (int c : {4096, 1000}) {
    ChanneliserProblem p;
    p.nchans = c;
    p.ntaps = 1;
    p.input = VoltageType::cf32;
    p.output = PpfOutput::complex;
    p.coeffs.assign(static_cast<std::size_t>(c), 1.0F);
    const auto plan = make_channeliser_plan(p);
    const std::size_t nsamples = static_cast<std::size_t>(c) * 4;
    const auto input = test::random_voltages(VoltageType::cf32, nsamples * 2, seed);
    auto ch = gpu(plan, "");
    const auto got = test::run_channeliser(*ch, input, nsamples);
    for (std::size_t s = 0; s < 4; ++s) {
      std::vector<test::cd> x(static_cast<std::size_t>(c));
      for (std::size_t i = 0; i < x.size(); ++i) {
        const std::size_t n = s * static_cast<std::size_t>(c) + i;
        x[i] = {test::component(input.data(), 2 * n, p.input), test::component(input.data(), 2 * n + 1, p.input)};
      }
      const auto X = test::naive_dft(x);
      double scale = 0.0;
      for (const auto& v : X) scale = std::max(scale, std::abs(v));
      double err = 0.0;
      for (int j = 0; j < c; ++j) {
        const auto v = X[static_cast<std::size_t>((j - c / 2 + c) % c)];
        const float* o = got.data() + (s * static_cast<std::size_t>(c) + static_cast<std::size_t>(j)) * 2;
        err = std::max(err, std::abs(test::cd(o[0], o[1]) - v));
      }
      CHECK(err <= kTolerance * scale);
    }
  }
}

TEST_CASE("ppf gpu: bad --gpu-config values are refused with the key named") {
  const auto plan = test::hann_plan(64, 4, VoltageType::ci8, 1, PpfOutput::complex);
  CHECK_THROWS_WITH_AS(gpu(plan, "fir=magic"), doctest::Contains("fir=magic"), Error);
  CHECK_THROWS_WITH_AS(gpu(plan, "colour=blue"), doctest::Contains("unknown --gpu-config key 'colour'"), Error);
  CHECK_THROWS_WITH_AS(gpu(plan, "pipe=3"), doctest::Contains("pipe=3"), Error);
  CHECK_THROWS_WITH_AS(gpu(plan, "l2=sticky"), doctest::Contains("l2=sticky"), Error);
  CHECK_THROWS_WITH_AS(gpu(plan, "graph=2"), doctest::Contains("graph=2"), Error);
  CHECK_THROWS_WITH_AS(gpu(plan, "fir=cache,sb=3"), doctest::Contains("sb=3"), Error);
  CHECK_THROWS_WITH_AS(gpu(plan, "fir=shared,cb=48"), doctest::Contains("cb=48"), Error);
  CHECK_THROWS_WITH_AS(gpu(plan, "fir=shared,sb=6,ry=4"), doctest::Contains("sb=6"), Error);
  CHECK_THROWS_WITH_AS(gpu(plan, "chunk=0"), doctest::Contains("chunk=0"), Error);
  CHECK_THROWS_WITH_AS(gpu(plan, "chunk=x"), doctest::Contains("not an integer"), Error);
  CHECK_THROWS_WITH_AS(gpu(plan, "fir=register,sb=2"), doctest::Contains("sb=2"), Error);
  CHECK_THROWS_WITH_AS(gpu(plan, "fft=fused"), doctest::Contains("needs power output"), Error);
  CHECK_THROWS_WITH_AS(gpu(plan, "fft=fast"), doctest::Contains("fft=fast"), Error);
  CHECK_THROWS_WITH_AS(gpu(plan, "cluster=ring"), doctest::Contains("cluster=ring: only with fft=cluster"), Error);
  CHECK_THROWS_WITH_AS(gpu(plan, "radix=8"), doctest::Contains("radix=8: only for the fused FFT"), Error);
  const auto power = test::hann_plan(512, 4, VoltageType::ci8, 1, PpfOutput::power);
  CHECK_THROWS_WITH_AS(gpu(power, "radix=4"), doctest::Contains("radix=4: not 8 or 16"), Error);
  CHECK_THROWS_WITH_AS(gpu(power, "radix=16"), doctest::Contains("radix 16 from 1024"), Error);
  CHECK_THROWS_WITH_AS(gpu(power, "fft=cufft,radix=8"), doctest::Contains("not with fft=cufft"), Error);
  CHECK_THROWS_WITH_AS(gpu(test::hann_plan(64, 5, VoltageType::ci8, 1, PpfOutput::complex), "fir=register"),
                       doctest::Contains("compiled for"), Error);
  const auto big = test::hann_plan(64, 4096, VoltageType::cf32, 2, PpfOutput::complex);
  CHECK_THROWS_WITH_AS(gpu(big, "fir=shared,cb=1024,sb=1,ry=1"), doctest::Contains("shared memory"), Error);
  auto ch = gpu(plan, "");
  CHECK(ch->device_bytes() > 0);
  CHECK(ch->host_bytes() > 0);  // the pinned output buffers
  CHECK(ch->describe().find("GPU") != std::string::npos);
  CHECK(ch->describe().find("MiB of pinned output buffers") != std::string::npos);
}
