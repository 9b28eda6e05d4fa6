// SPDX-License-Identifier: MIT
// The custom correlation path (the FDAS paper's shared-memory FFT): one thread block per
// (segment group, template pair). For each segment it multiplies the segment's forward FFT by
// the template of z >= 0 in registers (and, for the pair's -z row, conj(S[-k]) by the same
// template), runs the inverse FFTs in shared memory (stockham_fft.cuh), and writes only the
// good outputs' powers (both Fourier phases, or interbinned), times the power scale of their
// columns, to the plane. The segments never
// go to device memory between these steps.
#include <cuda_fp16.h>

#include <type_traits>

#include "accel/accel_kernels.hpp"
#include "accel/plane_io.cuh"
#include "common/stockham_fft.cuh"

namespace fastpsr::cuda::accel {
namespace {

using fft::Cf;

__device__ __forceinline__ Cf load_cf(const float2* p) {
  const float2 v = __ldg(p);
  return {v.x, v.y};
}

// One segment of one pair: Rows = 1 for z = 0, 2 for the rows (+z, -z). Two transforms are in
// flight at a time: the two phases of one row (Fourier; the rows one after the other) or the two
// rows (interbinning), so that no powers wait in registers for a later transform. Powers: the
// FFT's twiddle powers from the table (stockham_fft.cuh).
template <class Plan, bool Fourier, int Rows, bool Powers, typename P>
__device__ __forceinline__ void correlate_segment(const float2* __restrict__ seg, const float2* __restrict__ tmpl,
                                                  const Cf* twiddles, const float* __restrict__ scale,
                                                  P* __restrict__ row_plus, P* __restrict__ row_minus, long long col0,
                                                  int use, float* smem, int j) {
  constexpr int R = Plan::R;
  constexpr int T = Plan::T;
  constexpr int M = Plan::M;
  // The -z row correlates conj(S[-k]) with the z template (accel_layout.hpp).
  auto spectrum = [&](int row, int k) {
    return row == 0 ? load_cf(seg + k) : fft::conj(load_cf(seg + ((M - k) & (M - 1))));
  };
  if constexpr (Fourier) {
#pragma unroll 1  // one row at a time: unrolled, the second row's loads would compete for registers
    for (int row = 0; row < Rows; ++row) {
      Cf v[2][R];
      FASTPSR_UNROLL
      for (int m = 0; m < R; ++m) {
        const int k = j + m * T;
        const Cf x = spectrum(row, k);
        v[0][m] = fft::mul(x, load_cf(tmpl + k));
        v[1][m] = fft::mul(x, load_cf(tmpl + M + k));
      }
      fft::stockham_inverse<Plan, 0, 2, Powers>(v, smem, twiddles, j);
      P* out = row == 0 ? row_plus : row_minus;
      FASTPSR_UNROLL
      for (int m = 0; m < R; ++m) {
        const int jj = j + m * T;
        if (jj < use) {
          const float2 f = __ldg(reinterpret_cast<const float2*>(scale + col0 + 2 * jj));
          PlaneIo<P>::store2(out + col0 + 2 * jj, f.x * fft::norm(v[0][m]), f.y * fft::norm(v[1][m]));
        }
      }
    }
  } else {
    Cf v[Rows][R];
    FASTPSR_UNROLL
    for (int m = 0; m < R; ++m) {
      const int k = j + m * T;
      const Cf kk = load_cf(tmpl + k);
      FASTPSR_UNROLL
      for (int row = 0; row < Rows; ++row) v[row][m] = fft::mul(spectrum(row, k), kk);
    }
    fft::stockham_inverse<Plan, 0, Rows, Powers>(v, smem, twiddles, j);
    // Interbinning needs C(o + 1), held by the next thread: exchange through shared memory.
    constexpr int F = Plan::smem_floats();
    __syncthreads();
    FASTPSR_UNROLL
    for (int row = 0; row < Rows; ++row) {
      FASTPSR_UNROLL
      for (int m = 0; m < R; ++m) {
        smem[row * 2 * F + j + m * T] = v[row][m].re;
        smem[row * 2 * F + F + j + m * T] = v[row][m].im;
      }
    }
    __syncthreads();
    constexpr float quarter_pi = 0.785398163397448F;
    FASTPSR_UNROLL
    for (int row = 0; row < Rows; ++row) {
      P* out = row == 0 ? row_plus : row_minus;
      FASTPSR_UNROLL
      for (int m = 0; m < R; ++m) {
        const int jj = j + m * T;
        if (jj < use) {
          const Cf next = {smem[row * 2 * F + jj + 1], smem[row * 2 * F + F + jj + 1]};
          const Cf d = fft::sub(v[row][m], next);
          const Cf odd = {quarter_pi * d.re, quarter_pi * d.im};
          const float2 f = __ldg(reinterpret_cast<const float2*>(scale + col0 + 2 * jj));
          PlaneIo<P>::store2(out + col0 + 2 * jj, f.x * fft::norm(v[row][m]), f.y * fft::norm(odd));
        }
      }
    }
  }
}

template <int T, typename P>
constexpr int min_blocks() {
  // f16 planes at 128 threads (radix 16, M = 2048: the Fourier default): three blocks an SM, so
  // up to 168 registers. At 128 the f16 store's conversions spilled 64 bytes, and with 168 none
  // spill: fdas-8m zmax 200 correlation 5.84 -> 5.31-5.36 ms on the H200 (2026-11-27), while the
  // f32 kernel (24 bytes spilled at 128) measured the same either way, so it keeps four blocks.
  if constexpr (T == 128 && (std::is_same_v<P, __half> || std::is_same_v<P, HalfBound>)) return 3;
  // At most 128 registers a thread (64 at 1024 threads); 16 blocks an SM is the most Turing runs.
  return T >= 512 ? 1 : (512 / T > 16 ? 16 : 512 / T);
}

// Tasks: launch_correlate_tasks's instantiation (a block per listed (segment, pair), rows of its
// own), compiled apart so that the plane's own kernel keeps its code and registers (one kernel
// for both made the plane's correlation 25% slower on the H200); the arithmetic is the same
// source, so the same bits (GPU test: plane=f16bound's hits equal f32's).
template <int LOG2M, int LOG2R, bool Fourier, bool Powers, typename P, bool Tasks = false>
__global__ void __launch_bounds__(fft::StockhamPlan<LOG2M, LOG2R>::T,
                                  min_blocks<fft::StockhamPlan<LOG2M, LOG2R>::T, P>())
    correlate_custom_kernel(const float2* __restrict__ segments, const float2* __restrict__ templates,
                            const float2* __restrict__ twiddles, const float* __restrict__ scale, P* __restrict__ plane,
                            CorrelateGeometry g, int segs_per_block, const int* __restrict__ tasks) {
  using Plan = fft::StockhamPlan<LOG2M, LOG2R>;
  extern __shared__ float smem[];
  const int j = static_cast<int>(threadIdx.x);
  int pair = static_cast<int>(blockIdx.x % static_cast<unsigned>(g.pairs));
  long long group = blockIdx.x / static_cast<unsigned>(g.pairs);
  const long long b = blockIdx.y;
  const float2* spectrum_segments = segments + b * g.segment_stride();
  P* pl = plane + b * g.plane_stride() + g.out_origin;
  const float* spectrum_scale = scale + b * g.plane_cols;
  P* row_plus = pl + static_cast<long long>(g.center_row + pair) * g.out_pitch;
  P* row_minus = pl + static_cast<long long>(g.center_row - pair) * g.out_pitch;
  long long col_shift = 0;
  if constexpr (Tasks) {
    // Task mode (launch_correlate_tasks): block x computes (segment, pair) = tasks[x] (key
    // segment * npairs + pair) into out rows 2x (+z) and 2x + 1 (-z) of 2 use values, with the
    // very code of the plane's own launch, so the same bits.
    const int key = __ldg(tasks + blockIdx.x);
    group = key / g.npairs;
    pair = key - static_cast<int>(group) * g.npairs;
    col_shift = 2 * group * g.use;
    spectrum_scale += col_shift;
    row_plus = plane + 2LL * blockIdx.x * g.out_pitch;
    row_minus = row_plus + g.out_pitch;
  }
  const float2* tmpl = templates + static_cast<long long>(pair) * g.phases * Plan::M;
  const Cf* tw = reinterpret_cast<const Cf*>(twiddles);
  for (int i = 0; i < segs_per_block; ++i) {
    const long long k = group * segs_per_block + i;
    if (k >= g.seg_count) return;  // the same for every thread of the block
    const long long s = g.seg_lo + k;
    const float2* seg = spectrum_segments + s * Plan::M;
    const long long col0 = 2 * s * g.use - col_shift;
    if (pair == 0) {
      correlate_segment<Plan, Fourier, 1, Powers>(seg, tmpl, tw, spectrum_scale, row_plus, row_minus, col0, g.use, smem,
                                                  j);
    } else {
      correlate_segment<Plan, Fourier, 2, Powers>(seg, tmpl, tw, spectrum_scale, row_plus, row_minus, col0, g.use, smem,
                                                  j);
    }
  }
}

template <int LOG2M, int LOG2R>
constexpr std::size_t smem_bytes() {
  return 2 * 2 * static_cast<std::size_t>(fft::StockhamPlan<LOG2M, LOG2R>::smem_floats()) * sizeof(float);
}

template <int LOG2M, int LOG2R, bool Fourier, typename P, bool Tasks = false>
auto kernel_of(bool powers) {
  return powers ? correlate_custom_kernel<LOG2M, LOG2R, Fourier, true, P, Tasks>
                : correlate_custom_kernel<LOG2M, LOG2R, Fourier, false, P, Tasks>;
}

// Calls f(integral_constant<LOG2M>, integral_constant<LOG2R>) for the built shapes: M = 2^7 ..
// 2^13, R = 8 or 16. Returns false for any other shape.
template <int LOG2M = 7, class F>
bool with_shape(int log2m, int log2r, F&& f) {
  if constexpr (LOG2M > 13) {
    return false;
  } else {
    if (log2m == LOG2M) {
      if (log2r == 3) {
        f(std::integral_constant<int, LOG2M>{}, std::integral_constant<int, 3>{});
        return true;
      }
      if (log2r == 4) {
        f(std::integral_constant<int, LOG2M>{}, std::integral_constant<int, 4>{});
        return true;
      }
      return false;
    }
    return with_shape<LOG2M + 1>(log2m, log2r, f);
  }
}

// tasks == nullptr: the segments, pairs and view g names, for `batch` spectra; else `ntasks`
// (segment, pair) tasks of one spectrum into rows of 2 use values (launch_correlate_tasks).
template <typename P>
cudaError_t launch_typed(const float2* segments, const float2* templates, const float2* twiddles, const float* scale,
                         P* plane, const CorrelateGeometry& g, int log2m, int log2r, bool powers, int segs_per_block,
                         int batch, cudaStream_t stream, const int* tasks = nullptr, int ntasks = 0) {
  cudaError_t status = cudaErrorInvalidValue;
  if (g.seg_lo < 0 || g.seg_lo + g.seg_count > g.nseg || g.pairs > g.npairs || g.out_pitch < 1) return status;
  const bool fourier = g.phases == 2;
  with_shape(log2m, log2r, [&](auto lm, auto lr) {
    constexpr int L2M = decltype(lm)::value;
    constexpr int L2R = decltype(lr)::value;
    constexpr std::size_t smem = smem_bytes<L2M, L2R>();
    constexpr bool kFloat = std::is_same_v<P, float>;  // task mode stores float32 only
    const auto kernel =
        tasks != nullptr && kFloat
            ? (fourier ? kernel_of<L2M, L2R, true, P, kFloat>(powers) : kernel_of<L2M, L2R, false, P, kFloat>(powers))
            : (fourier ? kernel_of<L2M, L2R, true, P>(powers) : kernel_of<L2M, L2R, false, P>(powers));
    if (tasks != nullptr && !kFloat) return;
    status = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
    if (status != cudaSuccess) return;
    const long long groups = (g.seg_count + segs_per_block - 1) / segs_per_block;
    if (groups < 1 || g.pairs < 1) return;  // nothing to correlate
    const dim3 grid = tasks != nullptr ? dim3(static_cast<unsigned>(ntasks), 1U)
                                       : dim3(static_cast<unsigned>(groups * g.pairs), static_cast<unsigned>(batch));
    if (grid.x == 0) return;
    kernel<<<grid, fft::StockhamPlan<L2M, L2R>::T, smem, stream>>>(segments, templates, twiddles, scale, plane, g,
                                                                   segs_per_block, tasks);
    status = cudaGetLastError();
  });
  return status;
}

}  // namespace

cudaError_t launch_correlate_custom(const void* segment_ffts, const void* templates, const void* twiddles,
                                    const float* scale, void* plane, PlaneFormat format, const CorrelateGeometry& g,
                                    int log2m, int log2r, bool powers, int segs_per_block, int batch,
                                    cudaStream_t stream) {
  const auto* s = static_cast<const float2*>(segment_ffts);
  const auto* t = static_cast<const float2*>(templates);
  const auto* w = static_cast<const float2*>(twiddles);
  if (format == PlaneFormat::f16) {
    return launch_typed(s, t, w, scale, static_cast<__half*>(plane), g, log2m, log2r, powers, segs_per_block, batch,
                        stream);
  }
  if (format == PlaneFormat::f16_bound) {
    return launch_typed(s, t, w, scale, static_cast<HalfBound*>(plane), g, log2m, log2r, powers, segs_per_block, batch,
                        stream);
  }
  return launch_typed(s, t, w, scale, static_cast<float*>(plane), g, log2m, log2r, powers, segs_per_block, batch,
                      stream);
}

cudaError_t launch_correlate_tasks(const void* segment_ffts, const void* templates, const void* twiddles,
                                   const float* scale, const int* tasks, int ntasks, float* out,
                                   const CorrelateGeometry& g, int log2m, int log2r, bool powers, cudaStream_t stream) {
  CorrelateGeometry tg = g;
  tg.whole_plane();
  tg.out_pitch = 2LL * g.use;
  return launch_typed(static_cast<const float2*>(segment_ffts), static_cast<const float2*>(templates),
                      static_cast<const float2*>(twiddles), scale, out, tg, log2m, log2r, powers, 1, 1, stream, tasks,
                      ntasks);
}

std::size_t correlate_custom_smem_bytes(int log2m, int log2r) {
  std::size_t bytes = 0;
  with_shape(log2m, log2r, [&](auto lm, auto lr) { bytes = smem_bytes<decltype(lm)::value, decltype(lr)::value>(); });
  return bytes;
}

int correlate_custom_threads(int log2m, int log2r) {
  int threads = 0;
  with_shape(log2m, log2r,
             [&](auto lm, auto lr) { threads = fft::StockhamPlan<decltype(lm)::value, decltype(lr)::value>::T; });
  return threads;
}

int correlate_custom_registers(int log2m, int log2r, bool fourier, bool powers, PlaneFormat format) {
  int regs = -1;
  with_shape(log2m, log2r, [&](auto lm, auto lr) {
    constexpr int L2M = decltype(lm)::value;
    constexpr int L2R = decltype(lr)::value;
    cudaFuncAttributes a{};
    cudaError_t e = cudaSuccess;
    if (format == PlaneFormat::f16) {
      e = fourier ? cudaFuncGetAttributes(&a, kernel_of<L2M, L2R, true, __half>(powers))
                  : cudaFuncGetAttributes(&a, kernel_of<L2M, L2R, false, __half>(powers));
    } else if (format == PlaneFormat::f16_bound) {
      e = fourier ? cudaFuncGetAttributes(&a, kernel_of<L2M, L2R, true, HalfBound>(powers))
                  : cudaFuncGetAttributes(&a, kernel_of<L2M, L2R, false, HalfBound>(powers));
    } else {
      e = fourier ? cudaFuncGetAttributes(&a, kernel_of<L2M, L2R, true, float>(powers))
                  : cudaFuncGetAttributes(&a, kernel_of<L2M, L2R, false, float>(powers));
    }
    if (e == cudaSuccess) {
      regs = a.numRegs;
    } else {
      (void)cudaGetLastError();
    }
  });
  return regs;
}

}  // namespace fastpsr::cuda::accel
