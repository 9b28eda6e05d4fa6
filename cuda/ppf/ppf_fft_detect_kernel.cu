// SPDX-License-Identifier: MIT
// The FFT and the detection of power output in one kernel: a block of T = C/R threads loads
// the filtered spectra of one segment of an output row (both polarisations) straight into
// registers (thread j: points j + m·T, m < R, coalesced), transforms them with the register-
// blocked Stockham FFT of common/stockham_fft.cuh (radix R per thread, padded shared-memory
// exchanges free of bank conflicts, natural-order output: thread j then holds bin j + m·T), and
// sums the detected products in registers; only the segment's sums leave the SM. Compared with
// cuFFT in place followed by a detection kernel, that saves writing the transformed spectra and
// reading them back (16 of 24 bytes per sample). Several blocks per SM overlap one block's loads
// with another's transform (loading the next spectrum into registers during the transform was
// tried: no faster on an H100, as the registers cost blocks per SM).
// The per-bin arithmetic (direction, detection) is in ppf_fft_detect.hpp, tested on the CPU.
#include <type_traits>

#include "common/stockham_fft.cuh"
#include "ppf_fft_detect.hpp"
#include "ppf_kernels.cuh"

namespace fastpsr::cuda::ppf {
namespace {

using fft::Cf;

// Registers a thread needs, roughly: the spectra in flight and the ones being loaded, the sums,
// addresses and twiddles. Sets the launch bound so that the compiler keeps them without spills
// while as many blocks as that allows fit on an SM.
// Threads an SM can hold on the architecture being compiled (ptxas rejects a bound above it:
// 1024 on sm_75, 1536 on sm_86/87/89, 2048 on sm_80 and sm_90).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
constexpr int kMaxThreadsPerSm = 1024;
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
constexpr int kMaxThreadsPerSm = 1536;
#else
constexpr int kMaxThreadsPerSm = 2048;
#endif

template <int T, int R, int P, int Q>
constexpr int min_blocks() {
  constexpr int regs = 2 * P * R + R * Q + (Q == 4 ? 40 : 24);
  constexpr int by_regs = 65536 / (T * regs);
  constexpr int by_threads = kMaxThreadsPerSm / T;
  constexpr int blocks = by_regs < by_threads ? by_regs : by_threads;
  return blocks < 1 ? 1 : (blocks > 16 ? 16 : blocks);
}

// blockIdx.x: segment (row r = x / segments_per_row, segment x % segments_per_row) of the
// chunk's rows; blockIdx.y: coarse channel. Q is the number of IFs (4 for IQUV, else 1).
template <int LOG2M, int LOG2R, int P, int Q>
__global__ void __launch_bounds__(fft::StockhamPlan<LOG2M, LOG2R>::T,
                                  min_blocks<fft::StockhamPlan<LOG2M, LOG2R>::T, (1 << LOG2R), P, Q>())
    fft_detect_kernel(FftDetectArgs a) {
  using Plan = fft::StockhamPlan<LOG2M, LOG2R>;
  constexpr int R = Plan::R;
  constexpr int T = Plan::T;
  constexpr int M = Plan::M;
  extern __shared__ float smem[];  // [P][2][F]
  const int j = static_cast<int>(threadIdx.x);
  const int f = static_cast<int>(blockIdx.y);
  const int segs = a.segments_per_row;
  const long long row = static_cast<long long>(blockIdx.x) / segs;
  const int seg = static_cast<int>(blockIdx.x % static_cast<unsigned>(segs));
  const long long g_begin = row * a.spectra_per_row + static_cast<long long>(seg) * a.segment_spectra;
  const long long g_end = min(g_begin + a.segment_spectra, (row + 1) * a.spectra_per_row);
  const auto* twiddles = reinterpret_cast<const Cf*>(a.twiddle);
  const float2* base = a.spec + static_cast<std::size_t>(f) * a.spec_coarse_stride;

  float acc[R][Q];
  FASTPSR_UNROLL
  for (int m = 0; m < R; ++m) {
    FASTPSR_UNROLL
    for (int q = 0; q < Q; ++q) acc[m][q] = 0.0F;
  }
  for (long long g = g_begin; g < g_end; ++g) {  // the same trip count for every thread
    Cf v[P][R];
    FASTPSR_UNROLL
    for (int p = 0; p < P; ++p) {
      const float2* src = base + static_cast<std::size_t>(p) * a.spec_pol_stride + static_cast<std::size_t>(g) * M;
      FASTPSR_UNROLL
      for (int m = 0; m < R; ++m) {
        const float2 x = __ldcs(src + j + m * T);  // read once: do not keep it in the caches
        v[p][m] = stockham_input(x.x, x.y, a.inverse);
      }
    }
    fft::stockham_inverse<Plan, 0, P>(v, smem, twiddles, j);
    FASTPSR_UNROLL
    for (int m = 0; m < R; ++m) add_detected<P, Q>(acc[m], v[0][m], v[P - 1][m], a.detection, a.inverse);
  }
  // One segment of the row: straight into the row when it is the only one, else a partial sum.
  const int f_out = a.descending ? a.ncoarse - 1 - f : f;
  FASTPSR_UNROLL
  for (int m = 0; m < R; ++m) {
    const std::size_t o = static_cast<std::size_t>(f_out) * M + static_cast<std::size_t>(j + m * T);
    FASTPSR_UNROLL
    for (int q = 0; q < Q; ++q) {
      if (segs == 1) {
        a.out[static_cast<std::size_t>(row) * a.row_floats + static_cast<std::size_t>(q) * a.if_stride + o] = acc[m][q];
      } else {
        a.partial[((static_cast<std::size_t>(row) * segs + static_cast<std::size_t>(seg)) * Q + q) * a.if_stride + o] =
            acc[m][q];
      }
    }
  }
}

// Sums the segments of each row in order: out[row][q][o] = Σ_seg partial[row][seg][q][o].
__global__ void sum_segments_kernel(FftDetectArgs a, int nifs, int rows) {
  const std::size_t per_row = static_cast<std::size_t>(nifs) * a.if_stride;
  const std::size_t total = static_cast<std::size_t>(rows) * per_row;
  for (std::size_t e = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; e < total;
       e += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t row = e / per_row;
    const std::size_t within = e - row * per_row;
    float sum = 0.0F;
    for (int s = 0; s < a.segments_per_row; ++s) {
      sum += a.partial[(row * static_cast<std::size_t>(a.segments_per_row) + static_cast<std::size_t>(s)) * per_row +
                       within];
    }
    a.out[row * a.row_floats + within] = sum;
  }
}

template <int LOG2M, int LOG2R, int P>
constexpr std::size_t smem_bytes() {
  return static_cast<std::size_t>(P) * 2 * static_cast<std::size_t>(fft::StockhamPlan<LOG2M, LOG2R>::smem_floats()) *
         sizeof(float);
}

// Calls fn(kernel, threads, shared bytes) for the kernel of the run-time shape; false when it
// is not built (C = 2^8 ... 2^12; radix 8, and 16 from C = 2^10).
template <int LOG2M = 8, class Fn>
bool with_kernel(int log2m, int log2r, int npol, bool iquv, Fn&& fn) {
  if constexpr (LOG2M > 12) {
    return false;
  } else {
    if (log2m != LOG2M) return with_kernel<LOG2M + 1>(log2m, log2r, npol, iquv, fn);
    auto by_radix = [&](auto lr) {
      constexpr int L2R = decltype(lr)::value;
      constexpr int T = fft::StockhamPlan<LOG2M, L2R>::T;
      if (npol == 1) {
        fn(fft_detect_kernel<LOG2M, L2R, 1, 1>, T, smem_bytes<LOG2M, L2R, 1>());
      } else if (iquv) {
        fn(fft_detect_kernel<LOG2M, L2R, 2, 4>, T, smem_bytes<LOG2M, L2R, 2>());
      } else {
        fn(fft_detect_kernel<LOG2M, L2R, 2, 1>, T, smem_bytes<LOG2M, L2R, 2>());
      }
    };
    if (log2r == 3) {
      by_radix(std::integral_constant<int, 3>{});
      return true;
    }
    if constexpr (LOG2M >= 10) {
      if (log2r == 4) {
        by_radix(std::integral_constant<int, 4>{});
        return true;
      }
    }
    return false;
  }
}

}  // namespace

bool fft_detect_supports(int log2n, int log2r) {
  return log2n >= 8 && log2n <= 12 && (log2r == 3 || (log2r == 4 && log2n >= 10));
}

int fft_detect_default_log2r(int log2n, bool iquv) { return log2n >= 11 && !iquv ? 4 : 3; }

std::size_t fft_detect_shared_bytes(int log2n, int log2r, int npol) {
  std::size_t bytes = 0;
  with_kernel(log2n, log2r, npol, false, [&](auto, int, std::size_t smem) { bytes = smem; });
  return bytes;
}

cudaError_t fft_detect_prepare(int log2n, int log2r, int npol, bool iquv) {
  cudaError_t status = cudaErrorInvalidValue;
  with_kernel(log2n, log2r, npol, iquv, [&](auto kernel, int, std::size_t smem) {
    status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  });
  return status;
}

cudaError_t launch_fft_detect(const FftDetectArgs& a, int npol, int rows, cudaStream_t stream) {
  if (rows <= 0) return cudaSuccess;
  cudaError_t status = cudaErrorInvalidValue;
  with_kernel(a.log2n, a.log2r, npol, npol == 2 && a.detection == 3, [&](auto kernel, int threads, std::size_t smem) {
    const dim3 grid(static_cast<unsigned>(rows * a.segments_per_row), static_cast<unsigned>(a.ncoarse));
    kernel<<<grid, static_cast<unsigned>(threads), smem, stream>>>(a);
    status = cudaGetLastError();
  });
  return status;
}

cudaError_t launch_sum_segments(const FftDetectArgs& a, int nifs, int rows, cudaStream_t stream) {
  if (rows <= 0 || a.segments_per_row <= 1) return cudaSuccess;
  sum_segments_kernel<<<1024, 256, 0, stream>>>(a, nifs, rows);
  return cudaGetLastError();
}

}  // namespace fastpsr::cuda::ppf
