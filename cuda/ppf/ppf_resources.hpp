// SPDX-License-Identifier: MIT
#pragma once
/// RAII owners of the CUDA and cuFFT resources the PPF backend uses.
#include <cuda_runtime_api.h>
#include <cufft.h>

#include <cstddef>
#include <utility>

#include "common/cuda_try.hpp"

#define FASTPSR_CUFFT_TRY(call)                                                                                        \
  do {                                                                                                                 \
    const cufftResult fastpsr_cufft_status_ = (call);                                                                  \
    if (fastpsr_cufft_status_ != CUFFT_SUCCESS) {                                                                      \
      throw ::fastpsr::Error(                                                                                          \
          fastpsr_cufft_status_ == CUFFT_ALLOC_FAILED ? ::fastpsr::ErrorCode::resource : ::fastpsr::ErrorCode::device, \
          fmt::format("cuFFT error {} in {} ({}:{})", static_cast<int>(fastpsr_cufft_status_), #call, __FILE__,        \
                      __LINE__));                                                                                      \
    }                                                                                                                  \
  } while (0)

namespace fastpsr::cuda::ppf {

/// Device memory of `bytes` bytes.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes > 0) FASTPSR_CUDA_TRY(cudaMalloc(&ptr_, bytes));
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) (void)cudaFree(ptr_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <typename T = void>
  [[nodiscard]] T* get() const noexcept {
    return static_cast<T*>(ptr_);
  }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Page-locked host memory, so that copies run at full bus speed and asynchronously.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes > 0) FASTPSR_CUDA_TRY(cudaMallocHost(&ptr_, bytes));
  }
  ~PinnedBuffer() {
    if (ptr_ != nullptr) (void)cudaFreeHost(ptr_);
  }
  PinnedBuffer(PinnedBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  template <typename T = void>
  [[nodiscard]] T* get() const noexcept {
    return static_cast<T*>(ptr_);
  }
  [[nodiscard]] std::size_t bytes() const noexcept { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class Stream {
 public:
  Stream() { FASTPSR_CUDA_TRY(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { (void)cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  [[nodiscard]] cudaStream_t get() const noexcept { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  explicit Event(bool timing = false) {
    FASTPSR_CUDA_TRY(cudaEventCreateWithFlags(&e_, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  ~Event() { (void)cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  [[nodiscard]] cudaEvent_t get() const noexcept { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

class FftPlan {
 public:
  FftPlan() = default;
  ~FftPlan() {
    if (made_) (void)cufftDestroy(h_);
  }
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;
  /// A batched 1-D C2C plan with the advanced layout (element j of batch b at b·dist + j·stride).
  void make(int n, int istride, int idist, int ostride, int odist, int batch, cudaStream_t stream) {
    FASTPSR_CUFFT_TRY(cufftCreate(&h_));
    made_ = true;
    FASTPSR_CUFFT_TRY(cufftSetAutoAllocation(h_, 1));
    int dims[1] = {n};
    int nembed[1] = {n};
    FASTPSR_CUFFT_TRY(
        cufftMakePlanMany(h_, 1, dims, nembed, istride, idist, nembed, ostride, odist, CUFFT_C2C, batch, &work_bytes_));
    FASTPSR_CUFFT_TRY(cufftSetStream(h_, stream));
  }
  [[nodiscard]] cufftHandle get() const noexcept { return h_; }
  [[nodiscard]] bool made() const noexcept { return made_; }
  [[nodiscard]] std::size_t work_bytes() const noexcept { return work_bytes_; }

 private:
  cufftHandle h_ = 0;
  bool made_ = false;
  std::size_t work_bytes_ = 0;
};

}  // namespace fastpsr::cuda::ppf
