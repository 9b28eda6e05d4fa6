// SPDX-License-Identifier: MIT
#include "dedisp_rows.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "fastpsr/error.hpp"

namespace fastpsr::cpu::dedisp_detail {
namespace {

// Value of channel c in one packed spectrum, as the unsigned (or float) number the rows hold.
template <int NBITS, bool SIGNED, class V>
inline V sample_value(const std::uint8_t* spectrum, int c) {
  if constexpr (NBITS == 32) {
    float v;
    std::memcpy(&v, spectrum + 4 * static_cast<std::size_t>(c), sizeof v);
    return v;
  } else if constexpr (NBITS == 16) {
    std::uint16_t v;  // little-endian files on a little-endian host (formats.md §1.6)
    std::memcpy(&v, spectrum + 2 * static_cast<std::size_t>(c), sizeof v);
    return v;
  } else if constexpr (NBITS == 8) {
    if constexpr (SIGNED) return static_cast<V>(static_cast<int>(static_cast<std::int8_t>(spectrum[c])) + 128);
    return spectrum[c];
  } else {
    const auto bit = static_cast<std::size_t>(c) * NBITS;
    return static_cast<V>((spectrum[bit >> 3] >> (bit & 7)) & ((1u << NBITS) - 1u));
  }
}

template <class R, int NBITS, bool SIGNED>
void append_typed(const InputFormat& in, const std::uint8_t* packed, std::size_t n_ds, const RowsTarget& dst,
                  std::size_t pos, int threads) {
  constexpr int kChanBlock = 32;
  const std::vector<int>& kept = *in.kept;
  const int nk = static_cast<int>(kept.size());
  const std::size_t D = in.downsample;
  const std::size_t bps = in.bytes_per_sample;
  R* rows = static_cast<R*>(dst.rows);
  const std::size_t row_len = dst.row_len;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int kb = 0; kb < nk; kb += kChanBlock) {
    const int kn = std::min(kChanBlock, nk - kb);
    int chans[kChanBlock];
    for (int i = 0; i < kn; ++i) chans[i] = kept[static_cast<std::size_t>(kb + i)];
    for (std::size_t s = 0; s < n_ds; ++s) {
      R acc[kChanBlock] = {};
      for (std::size_t j = 0; j < D; ++j) {
        const std::uint8_t* spectrum = packed + (s * D + j) * bps;
        for (int i = 0; i < kn; ++i) acc[i] += sample_value<NBITS, SIGNED, R>(spectrum, chans[i]);
      }
      for (int i = 0; i < kn; ++i) rows[static_cast<std::size_t>(kb + i) * row_len + pos + s] = acc[i];
    }
  }
}

template <class R>
void append_for_rows(const InputFormat& in, const std::uint8_t* packed, std::size_t n_ds, const RowsTarget& dst,
                     std::size_t pos, int threads) {
  switch (in.nbits) {
    case 1:
      return append_typed<R, 1, false>(in, packed, n_ds, dst, pos, threads);
    case 2:
      return append_typed<R, 2, false>(in, packed, n_ds, dst, pos, threads);
    case 4:
      return append_typed<R, 4, false>(in, packed, n_ds, dst, pos, threads);
    case 8:
      if (in.is_signed) return append_typed<R, 8, true>(in, packed, n_ds, dst, pos, threads);
      return append_typed<R, 8, false>(in, packed, n_ds, dst, pos, threads);
    case 16:
      return append_typed<R, 16, false>(in, packed, n_ds, dst, pos, threads);
    default:
      throw Error(ErrorCode::unsupported,
                  fmt::format("the CPU dedisperser reads nbits 1, 2, 4, 8, 16 or 32, not {}", in.nbits));
  }
}

}  // namespace

void append_rows(const InputFormat& in, const std::uint8_t* packed, std::size_t n_ds, const RowsTarget& dst,
                 std::size_t pos, int threads) {
  if (n_ds == 0) return;
  const int nthreads = threads > 0 ? threads : omp_get_max_threads();
  if (dst.is_float_rows) {
    FASTPSR_ASSERT(in.nbits == 32);
    return append_typed<float, 32, false>(in, packed, n_ds, dst, pos, nthreads);
  }
  if (dst.elem_bytes == 2) return append_for_rows<std::uint16_t>(in, packed, n_ds, dst, pos, nthreads);
  return append_for_rows<std::uint32_t>(in, packed, n_ds, dst, pos, nthreads);
}

}  // namespace fastpsr::cpu::dedisp_detail
