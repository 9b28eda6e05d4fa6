// SPDX-License-Identifier: MIT
#pragma once
/// RAII owners of CUDA resources for host (.cpp) code: device buffers, pinned host buffers,
/// streams and events. Every runtime call is checked (FASTPSR_CUDA_TRY); destructors never throw.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "common/cuda_try.hpp"

namespace fastpsr::cuda {

/// `count` elements of T in device memory (cudaMalloc; 256-byte aligned).
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
      DeviceBuffer tmp(std::move(*this));
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

/// `count` elements of T in page-locked host memory (cudaHostAlloc), for asynchronous copies.
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
      PinnedBuffer tmp(std::move(*this));
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

/// Copies `bytes` from host memory to the device and returns when they are there. cudaMemcpy
/// from pageable memory returns once the data is staged, before the DMA has landed, and
/// cudaMemset only enqueues; both go to the legacy default stream, which kernels on the
/// non-blocking streams used everywhere here do not wait for. On a GPU shared with other
/// processes that ordering was seen to fail (dedisp's second gulp summed a buffer that a late
/// cudaMemset of the set-up had just cleared), so set-up copies and clears use these.
inline void copy_to_device_now(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  FASTPSR_CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, cudaStreamLegacy));
  FASTPSR_CUDA_TRY(cudaStreamSynchronize(cudaStreamLegacy));
}

/// Sets `bytes` of device memory to zero and returns when that is done (copy_to_device_now
/// says why).
inline void zero_device_now(void* dst, std::size_t bytes) {
  if (bytes == 0) return;
  FASTPSR_CUDA_TRY(cudaMemsetAsync(dst, 0, bytes, cudaStreamLegacy));
  FASTPSR_CUDA_TRY(cudaStreamSynchronize(cudaStreamLegacy));
}

/// A non-blocking stream (no implicit synchronisation with the legacy default stream).
class Stream {
 public:
  Stream() { FASTPSR_CUDA_TRY(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  /// A stream of the device's highest priority: its blocks are placed first where SMs free up
  /// while another stream's kernel also waits for them.
  static Stream high_priority() {
    int least = 0;
    int greatest = 0;
    FASTPSR_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t s = nullptr;
    FASTPSR_CUDA_TRY(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
    return Stream(s);
  }
  ~Stream() {
    if (s_ != nullptr) {
      (void)cudaStreamSynchronize(s_);
      (void)cudaStreamDestroy(s_);
    }
  }
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&&) = delete;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  [[nodiscard]] cudaStream_t get() const noexcept { return s_; }
  void synchronize() const { FASTPSR_CUDA_TRY(cudaStreamSynchronize(s_)); }
  /// Makes later work on this stream wait for `e` (a no-op for an event never recorded).
  void wait(cudaEvent_t e) const { FASTPSR_CUDA_TRY(cudaStreamWaitEvent(s_, e, 0)); }

 private:
  explicit Stream(cudaStream_t s) noexcept : s_(s) {}  // takes ownership
  cudaStream_t s_ = nullptr;
};

/// An event; `timing` enables cudaEventElapsedTime.
class Event {
 public:
  explicit Event(bool timing = false) {
    FASTPSR_CUDA_TRY(cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  ~Event() {
    if (e_ != nullptr) (void)cudaEventDestroy(e_);
  }
  Event(Event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  Event& operator=(Event&&) = delete;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  [[nodiscard]] cudaEvent_t get() const noexcept { return e_; }
  void record(cudaStream_t s) const { FASTPSR_CUDA_TRY(cudaEventRecord(e_, s)); }
  void synchronize() const { FASTPSR_CUDA_TRY(cudaEventSynchronize(e_)); }
  /// Milliseconds from `start` to this event (both recorded, timing events).
  [[nodiscard]] float elapsed_ms_since(const Event& start) const {
    float ms = 0.0F;
    FASTPSR_CUDA_TRY(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

}  // namespace fastpsr::cuda
