// SPDX-License-Identifier: MIT
#pragma once
/// The device-resident PPF: raw input in device memory → output rows in device memory, in
/// chunks (FIR kernel → cuFFT → detection), or in one fused FIR + FFT kernel (fft=cluster),
/// shared by the streaming channeliser and the benchmark. Internal to the CUDA backend.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

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
  int chunk_spectra = 0;         ///< filtered spectra per coarse channel per chunk
  bool fused_fft = false;        ///< power output: FFT + detection in one kernel instead of cuFFT
  int segment_spectra = 1;       ///< fused: spectra per block (a row's segments are summed in order)
  int fft_log2r = 3;             ///< fused: log2 of the Stockham FFT's radix per thread (3 or 4)
  bool fir_fft = false;          ///< complex output: FIR + FFT fused in thread-block clusters (fft=cluster)
  int fir_fft_clusters = 0;      ///< fir_fft: clusters in flight on the GPU (one wave of them per launch)
  int fir_fft_batch = 16;        ///< fir_fft: spectra per cluster barrier
  bool fir_fft_lean = false;     ///< fir_fft: the lean variant (cluster=lean; ring by default)
  int buffers = 1;               ///< pipe=2: two filtered buffers, the FIR of chunk k+1 beside the FFT of chunk k
  bool l2_persist = false;       ///< l2=persist: the filtered buffers in the L2 cache's persisting part
  bool graph = false;            ///< graph=1: the chunk loop of a push captured once as a CUDA graph and replayed
  bool persist = false;          ///< fft=persist: FIR producers and FFT consumers in one resident grid
  int persist_fir_pct = 55;      ///< persist: percent of the grid's blocks that run the FIR
  int persist_slots = 8;         ///< persist: ring slots of kSliceSpectra filtered spectra
  int persist_grid = 0;          ///< persist: blocks in the grid (all resident)
  int persist_occ = 4;           ///< persist: the variant's blocks per SM (2, 3 or 4)
  bool persist_dynamic = false;  ///< persist: blocks claim ready items of either kind (sched=dynamic) or keep a role
  /// persist, static schedule: blocks that run the FIR items (the rest run the FFT items).
  [[nodiscard]] int persist_fir_blocks() const { return std::max(1, persist_grid * persist_fir_pct / 100); }
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
  ~PpfEngine();
  PpfEngine(const PpfEngine&) = delete;
  PpfEngine& operator=(const PpfEngine&) = delete;
  /// Rows [0, rows) of output from raw input at `in` (coarse channel f at f·in_coarse_stride
  /// samples, filtered spectrum 0 starting at sample 0), into `out`. Complex output writes whole
  /// chunks, so `out` must hold out_rows_capacity(rows) rows.
  void run(const void* in, std::size_t in_coarse_stride, std::size_t rows, void* out, unsigned stages = kStageAll);
  /// Rows the output buffer of run(rows) must hold.
  [[nodiscard]] std::size_t out_rows_capacity(std::size_t rows) const noexcept;
  [[nodiscard]] std::size_t device_bytes() const noexcept;
  [[nodiscard]] const GpuConfig& config() const noexcept { return cfg_; }

 private:
  // The chunk loop (FIR on stream_, everything after it on fft_stream(); with two buffers the
  // streams meet through events so that the FIR of one chunk runs beside the FFT of the one before).
  void run_chunks(const void* in, std::size_t in_coarse_stride, std::size_t rows, void* out, unsigned stages);
  /// The FIR arguments every FIR launch shares (input, coefficients, phase, shape, type).
  [[nodiscard]] FirArgs fir_args(const void* in) const;
  void fir_chunk(const void* in, std::size_t in_coarse_stride, std::size_t s0, std::size_t n, float2* filt) const;
  void after_fir(std::size_t s0, std::size_t n, const float2* filt, void* out, unsigned stages) const;
  void fft_chunk(std::size_t s0, const float2* filt, float2* out) const;
  void fir_fft_all(const void* in, std::size_t in_coarse_stride, std::size_t nspectra, void* out) const;
  void persist_all(const void* in, std::size_t nspectra, void* out) const;
  void fused_chunk(std::size_t s0, std::size_t n, const float2* filt, float* out, unsigned stages) const;
  void set_l2_window(cudaStream_t s, bool on) const;
  [[nodiscard]] cudaStream_t fft_stream() const noexcept { return second_ ? second_->get() : stream_; }
  [[nodiscard]] float2* filt_buffer(int b) const noexcept {
    return filt_.get() + static_cast<std::size_t>(b) * filt_each_;
  }
  [[nodiscard]] std::size_t segments_per_row() const noexcept;
  ChanneliserPlan plan_;
  GpuConfig cfg_;
  cudaStream_t stream_;
  DeviceBuffer<float> coeff_;
  DeviceBuffer<float2> phase_;
  DeviceBuffer<float2> filt_;        // cfg_.buffers x [P][F][chunk][C] complex
  std::size_t filt_each_ = 0;        // complex values of one buffer
  std::optional<Stream> second_;     // pipe=2: the FFT (and detection) stream
  std::vector<Event> fir_done_;      // pipe=2: per buffer
  std::vector<Event> fft_done_;      // pipe=2: per buffer
  std::optional<Event> fork_;        // pipe=2: the second stream starts after the work before run()
  std::optional<Event> join_;        // pipe=2: stream_ continues after the second stream's last work
  std::size_t l2_window_bytes_ = 0;  // l2=persist: the access-policy window set on the streams
  DeviceBuffer<float2> ring_;        // fft=persist: [slots][kSliceSpectra][C]
  DeviceBuffer<unsigned> counters_;  // fft=persist: filled[slots], consumed[slots]
  // graph=1: pushes captured, by their arguments (the streaming channeliser alternates two input
  // buffers, so a few are kept), and the pushes seen once and run directly.
  using PushKey = std::tuple<const void*, std::size_t, std::size_t, void*, unsigned>;
  std::vector<std::pair<PushKey, cudaGraphExec_t>> graphs_;
  std::vector<PushKey> seen_;
  DeviceBuffer<float2> twiddle_;  // fused FFT: exp(+2πi·t/C); FIR + FFT: exp(−2πi·t/C)
  DeviceBuffer<float> partial_;   // fused FFT: [rows per chunk][segments][nifs][F·C]
  FftPlan fft_;                   // complex: one plane's chunk into the rows; power: in place, F·chunk per plane
};

}  // namespace fastpsr::cuda::ppf
