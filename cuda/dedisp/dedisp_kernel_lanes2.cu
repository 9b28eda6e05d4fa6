// SPDX-License-Identifier: MIT
// The dedispersion kernels of one lane mode (one file per mode so they compile in parallel).
#include "dedisp/dedisp_kernel.cuh"

namespace fastpsr::cuda {

cudaError_t dedisp_lanes2_op(int op, const KernelShape& s, const DedispKernelParams* p, std::size_t shared_bytes,
                             cudaStream_t stream, KernelAttributes* attrs) {
  return detail::lanes_op<tiling::Lanes2>(op, s, p, shared_bytes, stream, attrs);
}

}  // namespace fastpsr::cuda
