// SPDX-License-Identifier: MIT
#include <charconv>

#include "fastpsr/cuda/accel_cuda.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr::cuda {
namespace {

std::int64_t parse_integer(const std::string& key, const std::string& value, std::int64_t lo, std::int64_t hi) {
  std::int64_t v = 0;
  const auto* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, v);
  FASTPSR_EXPECTS(ec == std::errc() && ptr == end && !value.empty(), "--gpu-config {}={}: not an integer", key, value);
  FASTPSR_EXPECTS(v >= lo && v <= hi, "--gpu-config {}={}: must be between {} and {}", key, value, lo, hi);
  return v;
}

int parse_choice(const std::string& key, const std::string& value, std::initializer_list<int> allowed) {
  const auto v = parse_integer(key, value, 0, 1 << 30);
  for (int a : allowed) {
    if (v == a) return a;
  }
  throw Error(ErrorCode::invalid_argument,
              fmt::format("--gpu-config {}={}: must be one of {}", key, value, fmt::join(allowed, ", ")));
}

}  // namespace

AccelGpuSettings parse_accel_gpu_config(const std::map<std::string, std::string>& config) {
  AccelGpuSettings s;
  for (const auto& [key, value] : config) {
    if (key == "path") {
      FASTPSR_EXPECTS(value == "custom" || value == "cufft", "--gpu-config path={}: must be custom or cufft", value);
      s.path = value == "custom" ? AccelGpuPath::custom : AccelGpuPath::cufft;
    } else if (key == "fft_len") {
      s.fft_len = static_cast<int>(parse_integer(key, value, 1, 1 << 20));
    } else if (key == "batch") {
      s.batch = static_cast<int>(parse_integer(key, value, 1, 64));
    } else if (key == "fft_radix") {
      s.fft_radix = parse_choice(key, value, {8, 16});
    } else if (key == "fft_twiddles") {
      FASTPSR_EXPECTS(value == "auto" || value == "chain" || value == "table",
                      "--gpu-config fft_twiddles={}: must be auto, chain or table", value);
      s.fft_twiddles = value == "auto"    ? AccelFftTwiddles::automatic
                       : value == "chain" ? AccelFftTwiddles::chain
                                          : AccelFftTwiddles::table;
    } else if (key == "segs_per_block") {
      s.segs_per_block = static_cast<int>(parse_integer(key, value, 1, 64));
    } else if (key == "zchunk") {
      s.zchunk = static_cast<int>(parse_integer(key, value, 1, 1 << 20));
    } else if (key == "hs_threads") {
      s.hs_threads = static_cast<int>(parse_integer(key, value, 32, 1024));
      FASTPSR_EXPECTS(s.hs_threads % 32 == 0, "--gpu-config hs_threads={}: must be a multiple of 32", value);
    } else if (key == "hs_rows") {
      s.hs_rows = parse_choice(key, value, {1, 2, 4, 8, 16});
    } else if (key == "hs_pair") {
      s.hs_pair = parse_choice(key, value, {0, 1});
    } else if (key == "hs") {
      FASTPSR_EXPECTS(value == "auto" || value == "pipe" || value == "tiled" || value == "gather",
                      "--gpu-config hs={}: must be auto, pipe, tiled or gather", value);
      s.hs = value == "auto"    ? AccelHarmonicKernel::automatic
             : value == "pipe"  ? AccelHarmonicKernel::pipe
             : value == "tiled" ? AccelHarmonicKernel::tiled
                                : AccelHarmonicKernel::gather;
    } else if (key == "hits") {
      s.hits = parse_integer(key, value, 1, std::int64_t{1} << 28);
    } else if (key == "plane") {
      FASTPSR_EXPECTS(value == "auto" || value == "f32" || value == "f16" || value == "f16bound",
                      "--gpu-config plane={}: must be auto, f32, f16 or f16bound", value);
      s.plane = value == "auto"  ? AccelPlaneStorage::automatic
                : value == "f32" ? AccelPlaneStorage::f32
                : value == "f16" ? AccelPlaneStorage::f16
                                 : AccelPlaneStorage::f16_bound;
    } else if (key == "overlap") {
      s.overlap = parse_choice(key, value, {0, 1});
    } else if (key == "block_rk") {
      s.block_rk = parse_integer(key, value, 16384, std::int64_t{1} << 40);
      FASTPSR_EXPECTS(s.block_rk % 16384 == 0, "--gpu-config block_rk={}: must be a multiple of 16384", value);
    } else if (key == "rescore_tasks") {
      s.rescore_tasks = static_cast<int>(parse_integer(key, value, 2, std::int64_t{1} << 24));
    } else {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("--gpu-config: unknown key '{}' for the acceleration search (keys: path, fft_len, "
                              "batch, fft_radix, fft_twiddles, segs_per_block, zchunk, hs_threads, "
                              "hs_rows, hs, hs_pair, hits, plane, overlap, block_rk, rescore_tasks)",
                              key));
    }
  }
  return s;
}

}  // namespace fastpsr::cuda
