// SPDX-License-Identifier: MIT
#include "accel/cufft_plan.hpp"

namespace fastpsr::cuda::accel {

void cufft_check(cufftResult r, const char* call) {
  if (r == CUFFT_SUCCESS) return;
  throw Error(r == CUFFT_ALLOC_FAILED ? ErrorCode::resource : ErrorCode::device,
              fmt::format("cuFFT error {} in {}", static_cast<int>(r), call));
}

CufftPlan::CufftPlan(int points, int batch, cudaStream_t stream, cufftType type, bool caller_work_area)
    : batch_(batch), points_(points) {
  FASTPSR_CUFFT_TRY(cufftCreate(&plan_));
  owned_ = true;
  if (caller_work_area) FASTPSR_CUFFT_TRY(cufftSetAutoAllocation(plan_, 0));
  int n = points;
  const int out_dist = type == CUFFT_R2C ? points / 2 + 1 : points;
  FASTPSR_CUFFT_TRY(cufftMakePlanMany(plan_, 1, &n, nullptr, 1, points, nullptr, 1, out_dist, type, batch, &work_));
  FASTPSR_CUFFT_TRY(cufftSetStream(plan_, stream));
}

void CufftPlan::exec_r2c(const cufftReal* in, cufftComplex* out) const {
  FASTPSR_CUFFT_TRY(cufftExecR2C(plan_, const_cast<cufftReal*>(in), out));  // cuFFT's API is not const-correct
}

void CufftPlan::set_work_area(void* area) const { FASTPSR_CUFFT_TRY(cufftSetWorkArea(plan_, area)); }

void CufftPlan::exec(cufftComplex* data, int direction) const {
  FASTPSR_CUFFT_TRY(cufftExecC2C(plan_, data, data, direction));
}

}  // namespace fastpsr::cuda::accel
