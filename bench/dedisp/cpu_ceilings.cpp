// SPDX-License-Identifier: MIT
#include "cpu_ceilings.hpp"

#include <omp.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include "fastpsr/cpu/cpu_features.hpp"

namespace fastpsr::bench {
namespace {

using Clock = std::chrono::steady_clock;

typedef std::uint16_t u16x32 __attribute__((vector_size(64)));
typedef std::uint16_t u16x16 __attribute__((vector_size(32)));

// Independent accumulator chains so that the adds, not their latency, limit the loop.
template <class V>
[[gnu::always_inline]] inline std::uint64_t add_loop(std::uint64_t iters) {
  V a0{}, a1{}, a2{}, a3{}, a4{}, a5{}, a6{}, a7{};
  V inc;
  std::memset(&inc, 1, sizeof inc);
  for (std::uint64_t i = 0; i < iters; ++i) {
    a0 += inc;
    a1 += inc;
    a2 += inc;
    a3 += inc;
    a4 += inc;
    a5 += inc;
    a6 += inc;
    a7 += inc;
    asm volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5), "+v"(a6), "+v"(a7));
  }
  V s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  std::uint64_t r = 0;
  std::memcpy(&r, &s, sizeof r);
  return r;
}

// The dedispersion kernel's shape: each add takes one operand from an L1-resident array.
template <class V>
[[gnu::always_inline]] inline std::uint64_t load_add_loop(const std::uint16_t* buf, std::size_t n,
                                                          std::uint64_t passes) {
  constexpr std::size_t L = sizeof(V) / 2;
  V a0{}, a1{}, a2{}, a3{}, a4{}, a5{}, a6{}, a7{};
  for (std::uint64_t p = 0; p < passes; ++p) {
    const std::uint16_t* b = buf + (p & 7);  // unaligned, as in the kernel
    for (std::size_t i = 0; i + 8 * L <= n; i += 8 * L) {
      V x0, x1, x2, x3, x4, x5, x6, x7;
      std::memcpy(&x0, b + i, sizeof x0);
      std::memcpy(&x1, b + i + L, sizeof x1);
      std::memcpy(&x2, b + i + 2 * L, sizeof x2);
      std::memcpy(&x3, b + i + 3 * L, sizeof x3);
      std::memcpy(&x4, b + i + 4 * L, sizeof x4);
      std::memcpy(&x5, b + i + 5 * L, sizeof x5);
      std::memcpy(&x6, b + i + 6 * L, sizeof x6);
      std::memcpy(&x7, b + i + 7 * L, sizeof x7);
      a0 += x0;
      a1 += x1;
      a2 += x2;
      a3 += x3;
      a4 += x4;
      a5 += x5;
      a6 += x6;
      a7 += x7;
    }
    asm volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5), "+v"(a6), "+v"(a7));
  }
  V s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  std::uint64_t r = 0;
  std::memcpy(&r, &s, sizeof r);
  return r;
}

__attribute__((target("avx512f,avx512bw"))) std::uint64_t add_avx512(std::uint64_t iters) {
  return add_loop<u16x32>(iters);
}
__attribute__((target("avx2"))) std::uint64_t add_avx2(std::uint64_t iters) { return add_loop<u16x16>(iters); }
__attribute__((target("avx512f,avx512bw"))) std::uint64_t load_add_avx512(const std::uint16_t* b, std::size_t n,
                                                                          std::uint64_t p) {
  return load_add_loop<u16x32>(b, n, p);
}
__attribute__((target("avx2"))) std::uint64_t load_add_avx2(const std::uint16_t* b, std::size_t n, std::uint64_t p) {
  return load_add_loop<u16x16>(b, n, p);
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace

CpuCeilings measure_cpu_ceilings(int threads) {
  CpuCeilings c;
  const int nt = threads > 0 ? threads : omp_get_max_threads();
  const bool avx512 = cpu::cpu_features().avx512f && cpu::cpu_features().avx512bw;
  c.isa = avx512 ? "avx512" : "avx2";
  const std::size_t lanes = avx512 ? 32 : 16;
  volatile std::uint64_t sink = 0;

  const std::uint64_t iters = std::uint64_t{1} << 26;
  auto t0 = Clock::now();
#pragma omp parallel num_threads(nt)
  { sink = sink + (avx512 ? add_avx512(iters) : add_avx2(iters)); }
  c.add_u16_per_s = static_cast<double>(iters) * 8.0 * static_cast<double>(lanes) * nt / seconds_since(t0);

  const std::size_t n = 8192;  // 16 KiB per thread: L1-resident
  const std::uint64_t passes = (std::uint64_t{1} << 30) / n;
  t0 = Clock::now();
#pragma omp parallel num_threads(nt)
  {
    std::vector<std::uint16_t> buf(n + 64, 1);
    sink = sink + (avx512 ? load_add_avx512(buf.data(), n, passes) : load_add_avx2(buf.data(), n, passes));
  }
  const std::size_t used = n / (8 * lanes) * 8 * lanes;
  c.load_add_u16_per_s = static_cast<double>(used) * static_cast<double>(passes) * nt / seconds_since(t0);

  const std::size_t bytes = std::size_t{256} << 20;
  std::vector<std::uint8_t> src(bytes, 1), dst(bytes, 0);
  const int reps = 4;
  t0 = Clock::now();
  for (int r = 0; r < reps; ++r) {
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int b = 0; b < 256; ++b) {
      std::memcpy(dst.data() + static_cast<std::size_t>(b) * (bytes / 256),
                  src.data() + static_cast<std::size_t>(b) * (bytes / 256), bytes / 256);
    }
    src[static_cast<std::size_t>(r)] = dst[static_cast<std::size_t>(r) + 1];
  }
  c.copy_bytes_per_s = 2.0 * static_cast<double>(bytes) * reps / seconds_since(t0);
  (void)sink;
  return c;
}

}  // namespace fastpsr::bench
