// SPDX-License-Identifier: MIT
#pragma once
/// The cuFFT plan owner of the PPF backend (buffers, streams and events: common/cuda_memory.hpp).
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
