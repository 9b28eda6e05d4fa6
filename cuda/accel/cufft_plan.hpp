// SPDX-License-Identifier: MIT
#pragma once
// RAII owner of a cuFFT plan (host .cpp code only; device buffers, streams and events are
// cuda/common/cuda_memory.hpp's). Every call is checked; the destructor never throws.
#include <cuda_runtime_api.h>
#include <cufft.h>

#include <cstddef>
#include <utility>

#include "common/cuda_try.hpp"

namespace fastpsr::cuda::accel {

/// Throws Error(device) (or resource for an allocation failure) naming the cuFFT call.
void cufft_check(cufftResult r, const char* call);
#define FASTPSR_CUFFT_TRY(call) ::fastpsr::cuda::accel::cufft_check((call), #call)

/// A batched 1-D cuFFT plan of `points` per transform, `batch` transforms `points` apart (for
/// CUFFT_R2C: points / 2 + 1 complex outputs apart), on `stream`. Its work area is allocated by
/// cuFFT, or, with `caller_work_area`, given by the caller (set_work_area, work_bytes() of it)
/// before the first exec: a caller that keeps plans while others come and go can then take the
/// area from the stream-ordered allocator, whose frees do not wait for the whole device.
class CufftPlan {
 public:
  CufftPlan() = default;
  CufftPlan(int points, int batch, cudaStream_t stream) : CufftPlan(points, batch, stream, CUFFT_C2C, false) {}
  CufftPlan(int points, int batch, cudaStream_t stream, cufftType type, bool caller_work_area);
  ~CufftPlan() {
    if (owned_) (void)cufftDestroy(plan_);
  }
  CufftPlan(CufftPlan&& o) noexcept
      : plan_(o.plan_),
        owned_(std::exchange(o.owned_, false)),
        batch_(std::exchange(o.batch_, 0)),
        points_(std::exchange(o.points_, 0)),
        work_(std::exchange(o.work_, 0)) {}
  CufftPlan& operator=(CufftPlan&& o) noexcept {
    if (this != &o) {
      CufftPlan old(std::move(*this));
      plan_ = o.plan_;
      owned_ = std::exchange(o.owned_, false);
      batch_ = std::exchange(o.batch_, 0);
      points_ = std::exchange(o.points_, 0);
      work_ = std::exchange(o.work_, 0);
    }
    return *this;
  }
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;
  /// In-place transform; `direction` CUFFT_FORWARD or CUFFT_INVERSE (unnormalised).
  void exec(cufftComplex* data, int direction) const;
  /// Real-to-complex transform (a CUFFT_R2C plan).
  void exec_r2c(const cufftReal* in, cufftComplex* out) const;
  /// The caller's work area of at least work_bytes() (a plan made with caller_work_area).
  void set_work_area(void* area) const;
  [[nodiscard]] bool valid() const noexcept { return owned_; }
  [[nodiscard]] int points() const noexcept { return points_; }
  [[nodiscard]] int batch() const noexcept { return batch_; }
  [[nodiscard]] std::size_t work_bytes() const noexcept { return work_; }

 private:
  cufftHandle plan_{};
  bool owned_ = false;  // cuFFT handles are plain integers: 0 may be a valid one
  int batch_ = 0;
  int points_ = 0;
  std::size_t work_ = 0;
};

}  // namespace fastpsr::cuda::accel
