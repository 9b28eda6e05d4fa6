// SPDX-License-Identifier: MIT
#include "realfft.hpp"

#if defined(FASTPSR_HAVE_CUDA)
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <span>
#include <thread>
#include <vector>

#include "fastpsr/cuda/accel_cuda.hpp"
#include "fastpsr/presto_fft.hpp"

namespace fastpsr::bench {
namespace {

using Clock = std::chrono::steady_clock;
using Transform = std::function<std::vector<std::complex<float>>(std::span<const float>)>;

double rms_difference(const std::vector<std::complex<float>>& a, const std::vector<std::complex<float>>& b) {
  double diff = 0.0;
  double power = 0.0;
  for (std::size_t k = 1; k < b.size(); ++k) {
    diff += std::norm(std::complex<double>(a[k]) - std::complex<double>(b[k]));
    power += std::norm(std::complex<double>(b[k]));
  }
  return std::sqrt(diff / power);
}

// Seconds for every series, `threads` at a time, each thread taking every threads-th one.
double timed(const Transform& fft, const std::vector<std::vector<float>>& series, int threads) {
  const auto t0 = Clock::now();
  std::vector<std::thread> team;
  for (int t = 0; t < threads; ++t) {
    team.emplace_back([&, t] {
      for (std::size_t i = static_cast<std::size_t>(t); i < series.size(); i += static_cast<std::size_t>(threads))
        (void)fft(series[i]);
    });
  }
  for (auto& th : team) th.join();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

void run_realfft_table(int device) {
  // dedisp's trials lose a DM's delay each: even lengths a few hundred samples apart.
  std::vector<std::vector<float>> series;
  std::mt19937_64 rng(5);
  std::normal_distribution<float> g(0.0F, 1.0F);
  for (int i = 0; i < 24; ++i) {
    const std::size_t n = (std::size_t{1} << 22) - 2 * static_cast<std::size_t>(167 * i + (i * i) % 13);
    std::vector<float> x(n);
    for (auto& v : x) v = 2048.0F + 40.0F * g(rng);
    series.push_back(std::move(x));
  }
  std::printf("\n# real FFT of %zu DM-trial-like series (lengths 2^22 - 0..7700, even), PRESTO's packing\n",
              series.size());
  std::printf("%-40s %7s %10s %10s %12s\n", "engine", "threads", "wall_ms", "ms/trial", "rms_vs_fftw");
  const auto reference = presto_realfft(series[1]);
  struct Engine {
    const char* name;
    std::function<Transform()> make;  // a fresh engine for each row: its first plans included
  };
  const std::vector<Engine> engines = {
      {"gpu: Bluestein on kept plans (default)",
       [device] {
         auto fft = std::make_shared<cuda::RealFftCuda>(device);
         return Transform([fft](std::span<const float> x) { return fft->transform(x); });
       }},
      {"gpu: a cuFFT plan for each length",
       [device] {
         auto fft = std::make_shared<cuda::RealFftCuda>(device, std::numeric_limits<std::size_t>::max());
         return Transform([fft](std::span<const float> x) { return fft->transform(x); });
       }},
      {"host: FFTW (presto_realfft)",
       [] { return Transform([](std::span<const float> x) { return presto_realfft(x); }); }},
  };
  for (const auto& e : engines) {
    const double diff = rms_difference(e.make()(series[1]), reference);
    for (int threads : {1, 8}) {
      const double s = timed(e.make(), series, threads);
      std::printf("%-40s %7d %10.1f %10.2f %12.2e\n", e.name, threads, 1e3 * s,
                  1e3 * s / static_cast<double>(series.size()), diff);
    }
  }
}

}  // namespace fastpsr::bench
#else
namespace fastpsr::bench {
void run_realfft_table(int /*device*/) {}
}  // namespace fastpsr::bench
#endif
