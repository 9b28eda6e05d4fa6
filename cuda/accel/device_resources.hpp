// SPDX-License-Identifier: MIT
#pragma once
// RAII owners of the CUDA resources of the acceleration search (host .cpp code only): device
// and pinned buffers, streams, events and cuFFT plans. Every call is checked; destructors never
// throw. (The dedisp-cuda branch has an equivalent cuda/common/cuda_memory.hpp; these live here
// until that is merged, then one set should go.)
#include <cuda_runtime_api.h>
#include <cufft.h>

#include <cstddef>
#include <utility>

#include "common/cuda_try.hpp"

namespace fastpsr::cuda::accel {

/// Throws Error(device) (or resource for an allocation failure) naming the cuFFT call.
void cufft_check(cufftResult r, const char* call);
#define FASTPSR_CUFFT_TRY(call) ::fastpsr::cuda::accel::cufft_check((call), #call)

/// `count` elements of T in device memory.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) FASTPSR_CUDA_TRY(cudaMalloc(reinterpret_cast<void**>(&ptr_), count_ * sizeof(T)));
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) (void)cudaFree(ptr_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      DeviceBuffer old(std::move(*this));
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  [[nodiscard]] T* get() const noexcept { return ptr_; }
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// `count` elements of T in page-locked host memory, for asynchronous copies.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) {
      FASTPSR_CUDA_TRY(cudaHostAlloc(reinterpret_cast<void**>(&ptr_), count_ * sizeof(T), cudaHostAllocDefault));
    }
  }
  ~PinnedBuffer() {
    if (ptr_ != nullptr) (void)cudaFreeHost(ptr_);
  }
  PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      PinnedBuffer old(std::move(*this));
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  [[nodiscard]] T* get() const noexcept { return ptr_; }
  [[nodiscard]] std::size_t size() const noexcept { return count_; }
  [[nodiscard]] std::size_t bytes() const noexcept { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// A non-blocking stream.
class Stream {
 public:
  Stream() { FASTPSR_CUDA_TRY(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (s_ != nullptr) {
      (void)cudaStreamSynchronize(s_);
      (void)cudaStreamDestroy(s_);
    }
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  [[nodiscard]] cudaStream_t get() const noexcept { return s_; }
  void synchronize() const { FASTPSR_CUDA_TRY(cudaStreamSynchronize(s_)); }
  void wait(cudaEvent_t e) const { FASTPSR_CUDA_TRY(cudaStreamWaitEvent(s_, e, 0)); }

 private:
  cudaStream_t s_ = nullptr;
};

/// An event; `timing` enables elapsed_ms_since.
class Event {
 public:
  explicit Event(bool timing = false) {
    FASTPSR_CUDA_TRY(cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  ~Event() {
    if (e_ != nullptr) (void)cudaEventDestroy(e_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  [[nodiscard]] cudaEvent_t get() const noexcept { return e_; }
  void record(cudaStream_t s) const { FASTPSR_CUDA_TRY(cudaEventRecord(e_, s)); }
  void synchronize() const { FASTPSR_CUDA_TRY(cudaEventSynchronize(e_)); }
  /// Milliseconds from `start` to this event (both recorded and complete).
  [[nodiscard]] double elapsed_ms_since(const Event& start) const {
    float ms = 0.0F;
    FASTPSR_CUDA_TRY(cudaEventElapsedTime(&ms, start.e_, e_));
    return static_cast<double>(ms);
  }

 private:
  cudaEvent_t e_ = nullptr;
};

/// A batched 1-D complex-to-complex cuFFT plan of `points` per transform, `batch` transforms
/// `points` apart, on `stream`; its work area is allocated by cuFFT.
class CufftPlan {
 public:
  CufftPlan() = default;
  CufftPlan(int points, int batch, cudaStream_t stream);
  ~CufftPlan() {
    if (owned_) (void)cufftDestroy(plan_);
  }
  CufftPlan(CufftPlan&& o) noexcept
      : plan_(o.plan_),
        owned_(std::exchange(o.owned_, false)),
        batch_(std::exchange(o.batch_, 0)),
        work_(std::exchange(o.work_, 0)) {}
  CufftPlan& operator=(CufftPlan&& o) noexcept {
    if (this != &o) {
      CufftPlan old(std::move(*this));
      plan_ = o.plan_;
      owned_ = std::exchange(o.owned_, false);
      batch_ = std::exchange(o.batch_, 0);
      work_ = std::exchange(o.work_, 0);
    }
    return *this;
  }
  CufftPlan(const CufftPlan&) = delete;
  CufftPlan& operator=(const CufftPlan&) = delete;
  /// In-place transform; `direction` CUFFT_FORWARD or CUFFT_INVERSE (unnormalised).
  void exec(cufftComplex* data, int direction) const;
  [[nodiscard]] int batch() const noexcept { return batch_; }
  [[nodiscard]] std::size_t work_bytes() const noexcept { return work_; }

 private:
  cufftHandle plan_{};
  bool owned_ = false;  // cuFFT handles are plain integers: 0 may be a valid one
  int batch_ = 0;
  std::size_t work_ = 0;
};

}  // namespace fastpsr::cuda::accel
