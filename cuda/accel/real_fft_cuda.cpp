// SPDX-License-Identifier: MIT
// presto_realfft on a GPU (see fastpsr/cuda/accel_cuda.hpp for why). A RealFftCuda keeps a pool
// of workspaces (stream, device buffers, cuFFT plans), one for each caller at a time, so the
// accelsearch tool's preparing threads transform several DM trials at once and reuse plans and
// buffers from one trial to the next while the searcher uses the same device.
#include <cuda_runtime_api.h>
#include <cufft.h>

#include <algorithm>
#include <bit>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

#include "accel/bluestein_kernels.hpp"
#include "accel/cufft_plan.hpp"
#include "common/cuda_memory.hpp"
#include "common/cuda_try.hpp"
#include "fastpsr/cuda/accel_cuda.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr::cuda {
namespace {

using accel::CufftPlan;

// Device memory from the stream-ordered allocator, grown when a longer series comes: cudaFree
// would synchronise the whole device, stalling the search running beside the preparing threads.
class AsyncBuffer {
 public:
  explicit AsyncBuffer(cudaStream_t stream) : stream_(stream) {}
  ~AsyncBuffer() { release(); }
  AsyncBuffer(const AsyncBuffer&) = delete;
  AsyncBuffer& operator=(const AsyncBuffer&) = delete;
  void* reserve(std::size_t bytes) {
    if (bytes > bytes_) {
      release();
      FASTPSR_CUDA_TRY(cudaMallocAsync(&ptr_, bytes, stream_));
      bytes_ = bytes;
    }
    return ptr_;
  }

 private:
  void release() noexcept {
    if (ptr_ != nullptr) (void)cudaFreeAsync(ptr_, stream_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  cudaStream_t stream_;
};

// True when every prime factor of m is at most 7: cuFFT plans such lengths in ~1 ms.
bool smooth(std::size_t m) {
  for (const std::size_t p : {std::size_t{2}, std::size_t{3}, std::size_t{5}, std::size_t{7}}) {
    while (m % p == 0) m /= p;
  }
  return m == 1;
}

}  // namespace

// One caller's stream, buffers and plans. The plans stay for the next series: a direct plan
// for its length, the Bluestein plan for its power of two.
struct RealFftCuda::Workspace {
  Stream stream;
  AsyncBuffer input{stream.get()};
  AsyncBuffer first{stream.get()};
  AsyncBuffer second{stream.get()};
  AsyncBuffer work{stream.get()};
  CufftPlan direct;     // CUFFT_R2C of n points
  CufftPlan bluestein;  // CUFFT_C2C of M points

  void* work_area(const CufftPlan& plan) { return work.reserve(plan.work_bytes()); }
};

RealFftCuda::RealFftCuda(int device, std::size_t bluestein_from_bins)
    : device_(device), bluestein_from_(bluestein_from_bins) {}

RealFftCuda::~RealFftCuda() = default;

bool RealFftCuda::uses_bluestein(std::size_t n) const {
  const std::size_t m = n / 2;
  const std::size_t M = std::bit_ceil(2 * m - 1);
  return m >= bluestein_from_ && !smooth(m) && M <= (std::size_t{1} << 30);
}

std::unique_ptr<RealFftCuda::Workspace> RealFftCuda::acquire(std::size_t n) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      // The workspace whose plan fits this length, else the one used last.
      auto it = std::find_if(idle_.begin(), idle_.end(), [&](const std::unique_ptr<Workspace>& w) {
        return uses_bluestein(n)
                   ? w->bluestein.valid() && static_cast<std::size_t>(w->bluestein.points()) == std::bit_ceil(n - 1)
                   : w->direct.valid() && static_cast<std::size_t>(w->direct.points()) == n;
      });
      if (it == idle_.end()) it = std::prev(idle_.end());
      auto w = std::move(*it);
      idle_.erase(it);
      return w;
    }
  }
  FASTPSR_CUDA_TRY(cudaSetDevice(device_));
  return std::make_unique<Workspace>();
}

void RealFftCuda::release(std::unique_ptr<Workspace> w) {
  const std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(w));
}

std::vector<std::complex<float>> RealFftCuda::transform(std::span<const float> x) {
  const std::size_t n = x.size();
  FASTPSR_EXPECTS(n >= 2 && n % 2 == 0, "real FFT: the series length must be even and >= 2, got {}", n);
  FASTPSR_EXPECTS(n <= static_cast<std::size_t>(INT32_MAX), "real FFT: {} samples are more than cuFFT's 1-D plans take",
                  n);
  const std::size_t m = n / 2;
  FASTPSR_CUDA_TRY(cudaSetDevice(device_));
  std::unique_ptr<Workspace> w = acquire(n);
  Workspace& ws = *w;
  const cudaStream_t s = ws.stream.get();
  // A failed call leaves the workspace out of the pool: whatever it holds is freed with it.
  std::vector<std::complex<float>> result;
  void* in = ws.input.reserve(n * sizeof(float));
  FASTPSR_CUDA_TRY(cudaMemcpyAsync(in, x.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
  if (uses_bluestein(n)) {
    const std::size_t M = std::bit_ceil(2 * m - 1);  // == bit_ceil(n - 1)
    if (!ws.bluestein.valid() || static_cast<std::size_t>(ws.bluestein.points()) != M) {
      ws.bluestein = CufftPlan();
      ws.bluestein = CufftPlan(static_cast<int>(M), 1, s, CUFFT_C2C, true);
    }
    ws.bluestein.set_work_area(ws.work_area(ws.bluestein));
    auto* a = static_cast<cufftComplex*>(ws.first.reserve(M * sizeof(cufftComplex)));
    auto* b = static_cast<cufftComplex*>(ws.second.reserve(M * sizeof(cufftComplex)));
    const auto mm = static_cast<long long>(m);
    const auto MM = static_cast<long long>(M);
    FASTPSR_CUDA_TRY(accel::launch_bluestein_filter(mm, b, MM, s));
    ws.bluestein.exec(b, CUFFT_FORWARD);
    FASTPSR_CUDA_TRY(accel::launch_bluestein_premultiply(in, mm, a, MM, s));
    ws.bluestein.exec(a, CUFFT_FORWARD);
    FASTPSR_CUDA_TRY(accel::launch_bluestein_multiply(a, b, MM, 1.0F / static_cast<float>(M), s));
    ws.bluestein.exec(a, CUFFT_INVERSE);
    FASTPSR_CUDA_TRY(accel::launch_bluestein_real_finish(a, mm, b, s));
    result.resize(m);
    FASTPSR_CUDA_TRY(cudaMemcpyAsync(result.data(), b, m * sizeof(cufftComplex), cudaMemcpyDeviceToHost, s));
    FASTPSR_CUDA_TRY(cudaStreamSynchronize(s));
  } else {
    if (!ws.direct.valid() || static_cast<std::size_t>(ws.direct.points()) != n) {
      ws.direct = CufftPlan();
      ws.direct = CufftPlan(static_cast<int>(n), 1, s, CUFFT_R2C, true);
    }
    ws.direct.set_work_area(ws.work_area(ws.direct));
    auto* out = static_cast<cufftComplex*>(ws.first.reserve((m + 1) * sizeof(cufftComplex)));
    ws.direct.exec_r2c(static_cast<const cufftReal*>(in), out);
    result.resize(m + 1);
    FASTPSR_CUDA_TRY(cudaMemcpyAsync(result.data(), out, (m + 1) * sizeof(cufftComplex), cudaMemcpyDeviceToHost, s));
    FASTPSR_CUDA_TRY(cudaStreamSynchronize(s));
    // PRESTO's packing: the Nyquist bin's real part rides in bin 0's imaginary part.
    result[0] = {result[0].real(), result[m].real()};
    result.resize(m);
  }
  release(std::move(w));
  return result;
}

std::vector<std::complex<float>> presto_realfft_cuda(std::span<const float> x, int device) {
  RealFftCuda fft(device);
  return fft.transform(x);
}

}  // namespace fastpsr::cuda
