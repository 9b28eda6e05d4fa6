// SPDX-License-Identifier: MIT
// plane=f16bound: the harmonic sums ran on powers rounded up to half, so their hits are a
// superset of the float32 plane's (fdot_searcher_cuda.cpp). Here each such hit's stage sum is
// summed again, in the sums' own order, from the float32 powers that launch_correlate_tasks
// computed for the (segment, pair) tasks the hits touch: the float32 plane's hits and powers,
// bit for bit.
#include "accel/accel_kernels.hpp"

namespace fastpsr::cuda::accel {
namespace {

// The float32 power at plane column `col` (rk - plane_base) and row `zi`, from the tasks' rows.
__device__ __forceinline__ float task_power(const int* __restrict__ tasks, int ntasks, const float* __restrict__ out,
                                            const CorrelateGeometry& cg, long long col, int zi) {
  const long long row_values = 2LL * cg.use;
  const long long segment = col / row_values;
  const long long c = col - segment * row_values;
  const int offset = zi - cg.center_row;
  const int pair = offset < 0 ? -offset : offset;
  const int key = static_cast<int>(segment) * cg.npairs + pair;
  int lo = 0;
  int hi = ntasks - 1;
  while (lo < hi) {  // the first task >= key; the host put every key a hit needs in the list
    const int mid = (lo + hi) / 2;
    if (__ldg(tasks + mid) < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return __ldg(out + (2LL * lo + (offset < 0 ? 1 : 0)) * row_values + c);
}

__global__ void rescore_hits_kernel(const DeviceHit* __restrict__ hits, int n, const int* __restrict__ tasks,
                                    int ntasks, const float* __restrict__ out, const int* __restrict__ sub_zi,
                                    HarmonicGeometry hg, CorrelateGeometry cg, float* __restrict__ power) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const DeviceHit hit = hits[i];
  const long long rk = hit.rk;
  const int zi = hit.zi;
  float acc = task_power(tasks, ntasks, out, cg, rk - hg.plane_base, zi);
  int term = 0;
  for (int s = 1; s <= hit.stage; ++s) {
    const int H = 1 << s;
    for (int h = 1; h < H; h += 2, ++term) {  // harmonic_sum.cu's order: odd h of each stage
      const long long srk = (rk * h + (H >> 1)) >> s;
      const int row = __ldg(sub_zi + term * hg.numz + zi);
      acc += task_power(tasks, ntasks, out, cg, srk - hg.plane_base, row);
    }
  }
  power[i] = acc > hg.powcut[hit.stage] ? acc : -1.0F;
}

}  // namespace

cudaError_t launch_rescore_hits(const DeviceHit* hits, int n, const int* tasks, int ntasks, const float* out,
                                const int* sub_zi, const HarmonicGeometry& hg, const CorrelateGeometry& cg,
                                float* power, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  if (ntasks <= 0) return cudaErrorInvalidValue;
  constexpr int kThreads = 128;
  rescore_hits_kernel<<<(n + kThreads - 1) / kThreads, kThreads, 0, stream>>>(hits, n, tasks, ntasks, out, sub_zi, hg,
                                                                              cg, power);
  return cudaGetLastError();
}

}  // namespace fastpsr::cuda::accel
