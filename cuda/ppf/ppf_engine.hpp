// SPDX-License-Identifier: MIT
#pragma once
/// The device-resident PPF: raw input in device memory → output rows in device memory, in
/// chunks (FIR kernel → cuFFT → detection), or in one fused FIR + FFT kernel (fft=cluster),
/// shared by the streaming channeliser and the benchmark. Internal to the CUDA backend.
#include <cuda_runtime_api.h>

#include <map>
#include <string>

#include "common/cuda_memory.hpp"
#include "fastpsr/cuda/runtime.hpp"
#include "fastpsr/ppf.hpp"
#include "ppf_kernels.cuh"
#include "ppf_resources.hpp"

namespace fastpsr::cuda::ppf {

/// The parsed --gpu-config (keys in ppf_cuda.hpp).
struct GpuConfig {
  enum class Fir { reg, cache, shared } fir = Fir::reg;
  FirCacheConfig cache;  ///< the register and the cache kernel
  FirSharedConfig shared;
  int chunk_spectra = 0;      ///< filtered spectra per coarse channel per chunk
  bool fused_fft = false;     ///< power output: FFT + detection in one kernel instead of cuFFT
  int segment_spectra = 1;    ///< fused: spectra per block (a row's segments are summed in order)
  int fft_log2r = 3;          ///< fused: log2 of the Stockham FFT's radix per thread (3 or 4)
  bool fir_fft = false;       ///< complex output: FIR + FFT fused in thread-block clusters (fft=cluster)
  int fir_fft_clusters = 0;   ///< fir_fft: clusters in flight on the GPU (one wave of them per launch)
  int fir_fft_batch = 16;     ///< fir_fft: spectra per cluster barrier
  bool fir_fft_lean = false;  ///< fir_fft: the lean variant (cluster=lean; ring by default)
  [[nodiscard]] std::string describe() const;
  [[nodiscard]] std::string describe_fir() const;
};
/// Validates the keys and values against the plan and the device (Error(invalid_argument)).
GpuConfig parse_gpu_config(const std::map<std::string, std::string>& kv, const ChanneliserPlan& plan,
                           const DeviceProperties& props);

/// Which stages run() executes (benchmarks time them one by one).
enum StageMask : unsigned { kStageFir = 1U, kStageFft = 2U, kStageDetect = 4U, kStageAll = 7U };

class PpfEngine {
 public:
  PpfEngine(const ChanneliserPlan& plan, const GpuConfig& cfg, cudaStream_t stream);
  /// Rows [0, rows) of output from raw input at `in` (coarse channel f at f·in_coarse_stride
  /// samples, filtered spectrum 0 starting at sample 0), into `out`. Complex output writes whole
  /// chunks, so `out` must hold out_rows_capacity(rows) rows.
  void run(const void* in, std::size_t in_coarse_stride, std::size_t rows, void* out, unsigned stages = kStageAll);
  /// Rows the output buffer of run(rows) must hold.
  [[nodiscard]] std::size_t out_rows_capacity(std::size_t rows) const noexcept;
  [[nodiscard]] std::size_t device_bytes() const noexcept;
  [[nodiscard]] const GpuConfig& config() const noexcept { return cfg_; }

 private:
  void fft_chunk(std::size_t s0, float2* out) const;
  void fir_fft_all(const void* in, std::size_t in_coarse_stride, std::size_t nspectra, void* out) const;
  void fused_chunk(std::size_t s0, std::size_t n, float* out, unsigned stages) const;
  [[nodiscard]] std::size_t segments_per_row() const noexcept;
  ChanneliserPlan plan_;
  GpuConfig cfg_;
  cudaStream_t stream_;
  DeviceBuffer<float> coeff_;
  DeviceBuffer<float2> phase_;
  DeviceBuffer<float2> filt_;     // [P][F][chunk][C] complex
  DeviceBuffer<float2> twiddle_;  // fused FFT: exp(+2πi·t/C); FIR + FFT: exp(−2πi·t/C)
  DeviceBuffer<float> partial_;   // fused FFT: [rows per chunk][segments][nifs][F·C]
  FftPlan fft_;                   // complex: one plane's chunk into the rows; power: in place, F·chunk per plane
};

}  // namespace fastpsr::cuda::ppf
