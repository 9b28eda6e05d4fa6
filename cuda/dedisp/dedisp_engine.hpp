// SPDX-License-Identifier: MIT
#pragma once
/// The device side of the CUDA dedisperser for one plan: the resolved configuration, the
/// delay records, the kept-channel list, the lane-interleaved input G, the history kept on the
/// device between gulps, and the input/output slots of the pipeline. It launches the two kernels
/// of a gulp on a stream; the streaming (pinned buffers, streams, events) is in
/// cuda_dedisperser.cpp, and the kernel timing of the benchmark uses it directly.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/cuda_memory.hpp"
#include "dedisp/dedisp_config.hpp"
#include "dedisp/dedisp_tiling.hpp"
#include "fastpsr/cuda/runtime.hpp"
#include "fastpsr/dedisp.hpp"

namespace fastpsr::cuda {

/// What one gulp does: its prep and kernel parameters (pointers to slots filled at launch).
struct GulpWork {
  std::int64_t n_new = 0;   ///< new downsampled samples uploaded
  std::int64_t n_zero = 0;  ///< zeros appended (flush)
  std::int64_t n_out = 0;   ///< output samples produced
  std::int64_t new_hist_len = 0;
  PrepParams prep;
  DedispKernelParams kernel;
};

class DedispEngine {
 public:
  /// Resolves and validates the configuration against the device and the plan, chooses the
  /// gulp (shrinking it to fit device memory) and allocates `slots` input/output slots
  /// (0: the configuration's `pipeline`).
  /// Throws Error(invalid_argument) for a bad --gpu-config, Error(unsupported) for input this
  /// backend cannot sum exactly, Error(resource) when even the smallest gulp does not fit.
  DedispEngine(const DedispPlan& plan, const DedispOptions& options, int device, int slots);

  [[nodiscard]] const DedispPlan& plan() const noexcept { return plan_; }
  [[nodiscard]] const DedispGpuConfig& config() const noexcept { return cfg_; }
  [[nodiscard]] const DeviceProperties& device() const noexcept { return props_; }
  /// Downsampled samples per gulp; input samples per gulp = gulp_ds() * downsample.
  [[nodiscard]] std::size_t gulp_ds() const noexcept { return gulp_ds_; }
  [[nodiscard]] std::size_t bytes_per_sample() const noexcept { return bps_; }
  [[nodiscard]] int slots() const noexcept { return static_cast<int>(in_.size()); }
  [[nodiscard]] std::int64_t out_pitch() const noexcept { return out_pitch_; }
  [[nodiscard]] std::int64_t hist_len() const noexcept { return hist_len_; }
  [[nodiscard]] std::size_t device_bytes() const noexcept { return device_bytes_; }
  [[nodiscard]] std::uint8_t* in_slot(int i) const noexcept { return in_[static_cast<std::size_t>(i)].get(); }
  [[nodiscard]] float* out_slot(int i) const noexcept { return out_[static_cast<std::size_t>(i)].get(); }
  [[nodiscard]] const KernelAttributes& kernel_attributes() const noexcept { return attrs_; }
  [[nodiscard]] std::size_t shared_bytes() const noexcept { return shared_bytes_; }
  [[nodiscard]] int max_span() const noexcept { return max_span_; }
  [[nodiscard]] int dm_blocks() const noexcept { return dm_blocks_; }

  /// The work of the next gulp with n_new uploaded and n_zero appended downsampled samples.
  [[nodiscard]] GulpWork plan_gulp(std::int64_t n_new, std::int64_t n_zero, int in_slot, int out_slot) const;
  /// Launches the prep kernel and (when n_out > 0) the dedispersion kernel on `stream`.
  void launch_prep(const GulpWork& w, cudaStream_t stream) const;
  void launch_dedisp(const GulpWork& w, cudaStream_t stream) const;
  /// Takes the history the gulp wrote as current (after its launches were queued).
  void advance(const GulpWork& w);

  /// Configuration, sizes and device, for -v.
  [[nodiscard]] std::string describe() const;
  /// Where the construction's time went ("device properties 1.0 ms, ..."), for -v.
  [[nodiscard]] const std::string& setup_note() const noexcept { return setup_note_; }

 private:
  void resolve_lanes();
  void choose_shape();
  /// Sets best.max_regs (and, with a cap, chans_per_stage) unless given; checks a given cap.
  void choose_register_cap(KernelShape& best, int span) const;
  /// Blocks an SM can hold by shared memory alone, for a block that stages `shared_bytes` (the
  /// driver reserves 1 KiB a block beside it).
  [[nodiscard]] std::size_t blocks_per_sm_by_shared(std::size_t shared_bytes) const;
  void choose_subband_shape();
  void choose_gulp(std::size_t requested_in, int slots, std::uint64_t input_samples);
  [[nodiscard]] std::size_t bytes_for(std::size_t gulp_ds, int slots) const;

  DedispPlan plan_;
  DedispGpuConfig cfg_;
  int device_ = 0;
  DeviceProperties props_;
  std::vector<int> kept_;
  std::size_t bps_ = 0;
  std::size_t element_bytes_ = 1;
  std::int64_t signed_offset_ = 0;
  tiling::BlockRecords records_;
  int max_span_ = 0;
  int dm_blocks_ = 0;
  int row_pitch_ = 0;
  int units_ = 0;  // the subband kernel's units, Y pitch and DM-offset entry
  int y_pitch_ = 0;
  int dm_entry_ = 0;
  double mean_patterns_ = 0.0;
  std::size_t shared_bytes_ = 0;
  KernelAttributes attrs_;
  std::size_t gulp_ds_ = 0;
  std::int64_t out_pitch_ = 0;
  std::int64_t hist_pitch_ = 0;
  std::int64_t g_words_ = 0;  // allocated G words per row
  std::size_t device_bytes_ = 0;
  std::string shrink_note_;
  std::string setup_note_;

  DeviceBuffer<std::int32_t> d_records_;
  DeviceBuffer<int> d_kept_;
  DeviceBuffer<std::uint32_t> d_g_;
  DeviceBuffer<std::uint8_t> d_hist_[2];
  std::vector<DeviceBuffer<std::uint8_t>> in_;
  std::vector<DeviceBuffer<float>> out_;
  int hist_cur_ = 0;
  std::int64_t hist_len_ = 0;
};

}  // namespace fastpsr::cuda
