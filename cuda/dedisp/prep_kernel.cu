// SPDX-License-Identifier: MIT
// The prep step of each gulp: unpack the packed upload (1/2/4/8/16/32-bit, signed 8-bit made
// unsigned by +128), sum `downsample` samples per channel, keep only the kept channels, and write
// the downsampled series x_D (history first, then new samples, then zeros) into the lane-
// interleaved rows G (lane i of word u = x_D[i*q + u]) and the history of the next gulp.
// A 32-sample x 32-channel tile goes through shared memory so that the reads (channels
// contiguous) and the writes (samples contiguous) are both coalesced.
#include <cuda_runtime.h>

#include "dedisp/dedisp_kernels.hpp"
#include "dedisp/dedisp_tiling.hpp"

namespace fastpsr::cuda {
namespace {

constexpr int kTile = 32;
constexpr int kRows = 8;

/// Sample `index` (= row * nchans + channel) of the packed input, as an unsigned integer (or the
/// bits of a float for 32-bit input).
template <int Nbits>
__device__ __forceinline__ std::uint32_t read_sample(const std::uint8_t* in, std::int64_t index, bool is_signed) {
  if constexpr (Nbits < 8) {
    const std::int64_t bit = index * Nbits;
    return (static_cast<std::uint32_t>(in[bit >> 3]) >> (bit & 7)) & ((1U << Nbits) - 1U);
  } else if constexpr (Nbits == 8) {
    const std::uint8_t b = in[index];
    return is_signed ? static_cast<std::uint32_t>(static_cast<int>(static_cast<std::int8_t>(b)) + 128)
                     : static_cast<std::uint32_t>(b);
  } else if constexpr (Nbits == 16) {
    return reinterpret_cast<const std::uint16_t*>(in)[index];
  } else {
    return reinterpret_cast<const std::uint32_t*>(in)[index];
  }
}

template <int Nbits, class P>
__global__ void prep_kernel(const PrepParams p) {
  using Element = typename P::Element;
  __shared__ std::uint32_t tile[kTile][kTile + 1];
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  const std::int64_t s0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
  const int k0 = static_cast<int>(blockIdx.y) * kTile;

  // Phase 1: threads along channels; x_D of the new samples (0 for history, zeros, beyond).
  {
    const int k = k0 + tx;
    const int chan = k < p.nkept ? p.kept[k] : 0;
    for (int j = ty; j < kTile; j += kRows) {
      const std::int64_t s = s0 + j;
      // Past the new samples the input continues with zeros (flush); signed input is stored
      // offset by +128 per sample, so its zero is zero_value.
      std::uint32_t v = s >= p.hist_len + p.n_new ? p.zero_value : 0U;
      if (k < p.nkept && s >= p.hist_len && s < p.hist_len + p.n_new) {
        const std::int64_t row0 = (s - p.hist_len) * p.downsample;
        if constexpr (P::kIsFloat) {
          float sum = 0.0F;
          for (int d = 0; d < p.downsample; ++d) {
            sum += __uint_as_float(read_sample<Nbits>(p.in, (row0 + d) * p.nchans + chan, false));
          }
          v = __float_as_uint(sum);
        } else {
          for (int d = 0; d < p.downsample; ++d)
            v += read_sample<Nbits>(p.in, (row0 + d) * p.nchans + chan, p.is_signed);
        }
      }
      tile[j][tx] = v;
    }
  }
  __syncthreads();

  // Phase 2: threads along samples; write every lane word that holds sample s, and the history.
  const std::int64_t s = s0 + tx;
  if (s >= p.cover) return;
  const std::int64_t avail = p.hist_len + p.n_new + p.n_zero;
  const auto* hist_in = static_cast<const Element*>(p.hist_in);
  auto* hist_out = static_cast<Element*>(p.hist_out);
  auto* g = reinterpret_cast<Element*>(p.g);
  for (int j = ty; j < kTile; j += kRows) {
    const int k = k0 + j;
    if (k >= p.nkept) break;
    const std::size_t hrow = static_cast<std::size_t>(k) * static_cast<std::size_t>(p.hist_pitch);
    Element v;
    if (s < p.hist_len) {
      v = hist_in[hrow + static_cast<std::size_t>(s)];
    } else if constexpr (P::kIsFloat) {
      v = __uint_as_float(tile[tx][j]);
    } else {
      v = static_cast<Element>(tile[tx][j]);
    }
    const std::size_t grow = static_cast<std::size_t>(k) * static_cast<std::size_t>(p.g_row_words);
#pragma unroll
    for (int lane = 0; lane < P::kLanes; ++lane) {
      const std::int64_t u = s - lane * p.q;
      if (u >= 0 && u < p.g_row_words) g[(grow + static_cast<std::size_t>(u)) * P::kLanes + lane] = v;
    }
    if (s >= p.keep_from && s < avail) hist_out[hrow + static_cast<std::size_t>(s - p.keep_from)] = v;
  }
}

template <int Nbits, class P>
cudaError_t launch(const PrepParams& p, cudaStream_t stream) {
  if (p.cover <= 0 || p.nkept <= 0) return cudaSuccess;
  const std::int64_t xblocks = (p.cover + kTile - 1) / kTile;
  const int yblocks = (p.nkept + kTile - 1) / kTile;
  if (xblocks > 0x7FFFFFFF || yblocks > 65535) return cudaErrorInvalidConfiguration;
  prep_kernel<Nbits, P>
      <<<dim3(static_cast<unsigned>(xblocks), static_cast<unsigned>(yblocks)), dim3(kTile, kRows), 0, stream>>>(p);
  return cudaGetLastError();
}

template <int Nbits>
cudaError_t launch_integer(int lanes, const PrepParams& p, cudaStream_t stream) {
  if (lanes == 4) return launch<Nbits, tiling::Lanes4>(p, stream);
  if (lanes == 2) return launch<Nbits, tiling::Lanes2>(p, stream);
  if (lanes == 1) return launch<Nbits, tiling::Lanes1>(p, stream);
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t launch_prep_kernel(int nbits, int lanes, bool is_float, const PrepParams& p, cudaStream_t stream) {
  if (is_float) return nbits == 32 ? launch<32, tiling::LanesFloat>(p, stream) : cudaErrorInvalidValue;
  switch (nbits) {
    case 1:
      return launch_integer<1>(lanes, p, stream);
    case 2:
      return launch_integer<2>(lanes, p, stream);
    case 4:
      return launch_integer<4>(lanes, p, stream);
    case 8:
      return launch_integer<8>(lanes, p, stream);
    case 16:
      return launch_integer<16>(lanes, p, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace fastpsr::cuda
