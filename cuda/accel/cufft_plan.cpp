// SPDX-License-Identifier: MIT
#include "accel/cufft_plan.hpp"

namespace fastpsr::cuda::accel {

void cufft_check(cufftResult r, const char* call) {
  if (r == CUFFT_SUCCESS) return;
  throw Error(r == CUFFT_ALLOC_FAILED ? ErrorCode::resource : ErrorCode::device,
              fmt::format("cuFFT error {} in {}", static_cast<int>(r), call));
}

CufftPlan::CufftPlan(int points, int batch, cudaStream_t stream) : batch_(batch) {
  FASTPSR_CUFFT_TRY(cufftCreate(&plan_));
  owned_ = true;
  int n = points;
  FASTPSR_CUFFT_TRY(cufftMakePlanMany(plan_, 1, &n, nullptr, 1, points, nullptr, 1, points, CUFFT_C2C, batch, &work_));
  FASTPSR_CUFFT_TRY(cufftSetStream(plan_, stream));
}

void CufftPlan::exec(cufftComplex* data, int direction) const {
  FASTPSR_CUFFT_TRY(cufftExecC2C(plan_, data, data, direction));
}

}  // namespace fastpsr::cuda::accel
