// SPDX-License-Identifier: MIT
// The FFT and the detection of power output in one kernel: a block loads the filtered spectra
// of one segment of an output row (both polarisations) from L2 into shared memory, transforms
// them in place (ppf_block_fft.hpp), and sums the detected products in registers; only the
// segment's sums leave the SM. Compared with cuFFT in place followed by a detection kernel,
// that saves writing the transformed spectra and reading them back (16 of 24 bytes per sample).
#include "ppf_block_fft.hpp"
#include "ppf_kernels.cuh"

namespace fastpsr::cuda::ppf {
namespace {

// blockIdx.x: segment (row r = x / segments_per_row, segment x % segments_per_row) of the
// chunk's rows; blockIdx.y: coarse channel. Thread t owns positions t + i·NT of the
// transformed spectrum, i < NCH, and so always the same bins; Q is the number of IFs (4 for
// IQUV, else 1).
template <int P, int NCH, int Q>
__global__ void fft_detect_kernel(FftDetectArgs a) {
  extern __shared__ Complex32 buf[];  // [P][C]
  const unsigned n = 1U << a.log2n;
  const unsigned nt = blockDim.x;
  const unsigned tid = threadIdx.x;
  const int f = static_cast<int>(blockIdx.y);
  const int segs = a.segments_per_row;
  const long long row = static_cast<long long>(blockIdx.x) / segs;
  const int seg = static_cast<int>(blockIdx.x % static_cast<unsigned>(segs));
  const long long g_begin = row * a.spectra_per_row + static_cast<long long>(seg) * a.segment_spectra;
  const long long g_end = min(g_begin + a.segment_spectra, (row + 1) * a.spectra_per_row);
  const auto* twiddle = reinterpret_cast<const Complex32*>(a.twiddle);
  float acc[NCH][Q];
#pragma unroll
  for (int i = 0; i < NCH; ++i) {
#pragma unroll
    for (int q = 0; q < Q; ++q) acc[i][q] = 0.0F;
  }
  for (long long g = g_begin; g < g_end; ++g) {
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const float2* src = a.spec + static_cast<std::size_t>(p) * a.spec_pol_stride +
                          static_cast<std::size_t>(f) * a.spec_coarse_stride + static_cast<std::size_t>(g) * n;
#pragma unroll
      for (int i = 0; i < NCH; ++i) {
        const float2 v = src[tid + static_cast<unsigned>(i) * nt];
        buf[p * n + tid + static_cast<unsigned>(i) * nt] = Complex32{v.x, v.y};
      }
    }
    __syncthreads();
    const int stages = fft_stage_count(a.log2n);
    for (int s = 0; s < stages; ++s) {
      const unsigned span = fft_stage_span(a.log2n, s);
      if (fft_stage_radix(a.log2n, s) == 4) {
        for (unsigned b = tid; b < n / 4; b += nt) {
#pragma unroll
          for (int p = 0; p < P; ++p) fft_radix4_butterfly(buf + p * n, n, span, b, twiddle, a.inverse);
        }
      } else {
        for (unsigned b = tid; b < n / 2; b += nt) {
#pragma unroll
          for (int p = 0; p < P; ++p) fft_radix2_butterfly(buf + p * n, n, span, b, twiddle, a.inverse);
        }
      }
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < NCH; ++i) {
      const Complex32 x = buf[tid + static_cast<unsigned>(i) * nt];
      const float xx = x.re * x.re + x.im * x.im;
      if constexpr (P == 1) {
        acc[i][0] += xx;
      } else {
        const Complex32 y = buf[n + tid + static_cast<unsigned>(i) * nt];
        const float yy = y.re * y.re + y.im * y.im;
        switch (a.detection) {
          case 0:
            acc[i][0] += xx + yy;
            break;
          case 1:
            acc[i][0] += xx;
            break;
          case 2:
            acc[i][0] += yy;
            break;
          default:
            acc[i][0] += xx + yy;
            acc[i][1] += xx - yy;
            acc[i][2] += 2.0F * (x.re * y.re + x.im * y.im);
            acc[i][3] += 2.0F * (x.re * y.im - x.im * y.re);
            break;
        }
      }
    }
    __syncthreads();  // the next spectrum overwrites buf
  }
  // One segment of the row: straight into the row when it is the only one, else a partial sum.
  const int f_out = a.descending ? a.ncoarse - 1 - f : f;
#pragma unroll
  for (int i = 0; i < NCH; ++i) {
    const unsigned k = fft_bin_at_position(tid + static_cast<unsigned>(i) * nt, a.log2n);
    const std::size_t o = static_cast<std::size_t>(f_out) * n + k;
#pragma unroll
    for (int q = 0; q < Q; ++q) {
      if (segs == 1) {
        a.out[static_cast<std::size_t>(row) * a.row_floats + static_cast<std::size_t>(q) * a.if_stride + o] = acc[i][q];
      } else {
        a.partial[((static_cast<std::size_t>(row) * segs + static_cast<std::size_t>(seg)) * Q + q) * a.if_stride + o] =
            acc[i][q];
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

template <int P, int NCH, int Q>
cudaError_t launch(const FftDetectArgs& a, int rows, cudaStream_t stream) {
  const unsigned n = 1U << a.log2n;
  const dim3 block(n / NCH);
  const dim3 grid(static_cast<unsigned>(rows * a.segments_per_row), static_cast<unsigned>(a.ncoarse));
  const std::size_t smem = static_cast<std::size_t>(P) * n * sizeof(Complex32);
  fft_detect_kernel<P, NCH, Q><<<grid, block, smem, stream>>>(a);
  return cudaGetLastError();
}

template <int P, int NCH, int Q>
cudaError_t prepare(std::size_t smem) {
  return cudaFuncSetAttribute(fft_detect_kernel<P, NCH, Q>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(smem));
}

// Calls Fn<P, NCH, Q> for the run-time polarisations, channels per thread and IFs.
template <template <int, int, int> class Fn, typename... Args>
cudaError_t by_shape(int npol, int nch, bool iquv, Args... args) {
  if (npol == 2) {
    if (iquv) {
      return nch == 4   ? Fn<2, 4, 4>::call(args...)
             : nch == 8 ? Fn<2, 8, 4>::call(args...)
                        : Fn<2, 16, 4>::call(args...);
    }
    return nch == 4 ? Fn<2, 4, 1>::call(args...) : nch == 8 ? Fn<2, 8, 1>::call(args...) : Fn<2, 16, 1>::call(args...);
  }
  return nch == 4 ? Fn<1, 4, 1>::call(args...) : nch == 8 ? Fn<1, 8, 1>::call(args...) : Fn<1, 16, 1>::call(args...);
}

template <int P, int NCH, int Q>
struct Launcher {
  static cudaError_t call(const FftDetectArgs* a, int rows, cudaStream_t s) { return launch<P, NCH, Q>(*a, rows, s); }
};
template <int P, int NCH, int Q>
struct Preparer {
  static cudaError_t call(std::size_t smem) { return prepare<P, NCH, Q>(smem); }
};

}  // namespace

int fft_detect_channels_per_thread(int log2n) {
  if (log2n < 8 || log2n > 12) return 0;  // 256 ... 4096 points
  return log2n <= 10 ? 4 : (log2n == 11 ? 8 : 16);
}

cudaError_t fft_detect_prepare(int log2n, int npol, bool iquv) {
  const std::size_t smem = static_cast<std::size_t>(npol) * (std::size_t{1} << log2n) * sizeof(Complex32);
  return by_shape<Preparer>(npol, fft_detect_channels_per_thread(log2n), iquv, smem);
}

cudaError_t launch_fft_detect(const FftDetectArgs& a, int npol, int rows, cudaStream_t stream) {
  if (rows <= 0) return cudaSuccess;
  const int nch = fft_detect_channels_per_thread(a.log2n);
  if (nch == 0) return cudaErrorInvalidValue;
  return by_shape<Launcher>(npol, nch, npol == 2 && a.detection == 3, &a, rows, stream);
}

cudaError_t launch_sum_segments(const FftDetectArgs& a, int nifs, int rows, cudaStream_t stream) {
  if (rows <= 0 || a.segments_per_row <= 1) return cudaSuccess;
  sum_segments_kernel<<<1024, 256, 0, stream>>>(a, nifs, rows);
  return cudaGetLastError();
}

}  // namespace fastpsr::cuda::ppf
