// SPDX-License-Identifier: MIT
// presto_realfft on a GPU (see fastpsr/cuda/accel_cuda.hpp for why). Each call owns its stream,
// device buffers and cuFFT plan, so the accelsearch tool's preparing threads may transform
// several DM trials at once while the searcher uses the same device.
#include <cuda_runtime_api.h>
#include <cufft.h>

#include <complex>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "accel/cufft_plan.hpp"
#include "common/cuda_memory.hpp"
#include "common/cuda_try.hpp"
#include "fastpsr/cuda/accel_cuda.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr::cuda {
namespace {

// Device memory from the stream-ordered allocator: cudaFree would synchronise the whole device,
// stalling the search running beside the preparing threads on it.
class AsyncBuffer {
 public:
  AsyncBuffer(std::size_t bytes, cudaStream_t stream) : stream_(stream) {
    if (bytes > 0) FASTPSR_CUDA_TRY(cudaMallocAsync(&ptr_, bytes, stream));
  }
  ~AsyncBuffer() {
    if (ptr_ != nullptr) (void)cudaFreeAsync(ptr_, stream_);
  }
  AsyncBuffer(const AsyncBuffer&) = delete;
  AsyncBuffer& operator=(const AsyncBuffer&) = delete;
  [[nodiscard]] void* get() const noexcept { return ptr_; }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_;
};

// A real-to-complex plan of n points whose work area the caller provides, destroyed however the
// call ends.
class RealPlan {
 public:
  RealPlan(int n, cudaStream_t stream) {
    FASTPSR_CUFFT_TRY(cufftCreate(&plan_));
    owned_ = true;
    FASTPSR_CUFFT_TRY(cufftSetAutoAllocation(plan_, 0));
    FASTPSR_CUFFT_TRY(cufftMakePlan1d(plan_, n, CUFFT_R2C, 1, &work_bytes_));
    FASTPSR_CUFFT_TRY(cufftSetStream(plan_, stream));
  }
  ~RealPlan() {
    if (owned_) (void)cufftDestroy(plan_);
  }
  RealPlan(const RealPlan&) = delete;
  RealPlan& operator=(const RealPlan&) = delete;
  [[nodiscard]] cufftHandle get() const noexcept { return plan_; }
  [[nodiscard]] std::size_t work_bytes() const noexcept { return work_bytes_; }

 private:
  cufftHandle plan_ = 0;
  bool owned_ = false;
  std::size_t work_bytes_ = 0;
};

}  // namespace

std::vector<std::complex<float>> presto_realfft_cuda(std::span<const float> x, int device) {
  const std::size_t n = x.size();
  FASTPSR_EXPECTS(n >= 2 && n % 2 == 0, "real FFT: the series length must be even and >= 2, got {}", n);
  FASTPSR_EXPECTS(n <= static_cast<std::size_t>(INT32_MAX), "real FFT: {} samples are more than cuFFT's 1-D plans take",
                  n);
  const std::size_t half = n / 2;
  FASTPSR_CUDA_TRY(cudaSetDevice(device));
  Stream stream;
  std::vector<std::complex<float>> result(half + 1);
  {
    // Destroyed in reverse order: the buffers' frees are queued on the stream before it goes.
    RealPlan plan(static_cast<int>(n), stream.get());
    AsyncBuffer work(plan.work_bytes(), stream.get());
    AsyncBuffer in(n * sizeof(float), stream.get());
    AsyncBuffer out((half + 1) * sizeof(cufftComplex), stream.get());
    if (plan.work_bytes() > 0) FASTPSR_CUFFT_TRY(cufftSetWorkArea(plan.get(), work.get()));
    FASTPSR_CUDA_TRY(cudaMemcpyAsync(in.get(), x.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream.get()));
    FASTPSR_CUFFT_TRY(
        cufftExecR2C(plan.get(), static_cast<cufftReal*>(in.get()), static_cast<cufftComplex*>(out.get())));
    FASTPSR_CUDA_TRY(cudaMemcpyAsync(result.data(), out.get(), (half + 1) * sizeof(cufftComplex),
                                     cudaMemcpyDeviceToHost, stream.get()));
    FASTPSR_CUDA_TRY(cudaStreamSynchronize(stream.get()));
  }
  // PRESTO's packing: the Nyquist bin's real part rides in bin 0's imaginary part.
  result[0] = {result[0].real(), result[half].real()};
  result.resize(half);
  return result;
}

}  // namespace fastpsr::cuda
