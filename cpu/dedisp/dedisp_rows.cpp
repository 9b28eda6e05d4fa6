// SPDX-License-Identifier: MIT
#include "dedisp_rows.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "fastpsr/error.hpp"

#if defined(__x86_64__)
#include <emmintrin.h>  // SSE2: part of the x86-64 baseline, so no run-time check is needed
#endif

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

#if defined(__x86_64__)
// 16 spectra x 16 contiguous 8-bit channels -> 16 rows of 16 samples (uint8, or widened to
// uint16): a 16x16 byte transpose in four unpack stages. Signed input is offset by 128 (xor 0x80).
template <bool SIGNED, class R>
inline void transpose16_u8(const std::uint8_t* first, std::size_t bps, R* const* out) {
  const __m128i flip = _mm_set1_epi8(SIGNED ? static_cast<char>(0x80) : 0);
  __m128i a[16];
  for (int r = 0; r < 16; ++r) {
    a[r] = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(first + static_cast<std::size_t>(r) * bps)),
                         flip);
  }
  __m128i t[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm_unpacklo_epi8(a[2 * i], a[2 * i + 1]);
    t[2 * i + 1] = _mm_unpackhi_epi8(a[2 * i], a[2 * i + 1]);
  }
  __m128i u[16];
  for (int g = 0; g < 4; ++g) {  // rows 4g .. 4g+3
    u[4 * g + 0] = _mm_unpacklo_epi16(t[4 * g], t[4 * g + 2]);
    u[4 * g + 1] = _mm_unpackhi_epi16(t[4 * g], t[4 * g + 2]);
    u[4 * g + 2] = _mm_unpacklo_epi16(t[4 * g + 1], t[4 * g + 3]);
    u[4 * g + 3] = _mm_unpackhi_epi16(t[4 * g + 1], t[4 * g + 3]);
  }
  __m128i v[16];
  for (int h = 0; h < 2; ++h) {  // rows 8h .. 8h+7
    for (int q = 0; q < 4; ++q) {
      v[8 * h + 2 * q] = _mm_unpacklo_epi32(u[8 * h + q], u[8 * h + 4 + q]);
      v[8 * h + 2 * q + 1] = _mm_unpackhi_epi32(u[8 * h + q], u[8 * h + 4 + q]);
    }
  }
  const __m128i zero = _mm_setzero_si128();
  for (int k = 0; k < 8; ++k) {
    const __m128i ch0 = _mm_unpacklo_epi64(v[k], v[k + 8]);
    const __m128i ch1 = _mm_unpackhi_epi64(v[k], v[k + 8]);
    if constexpr (sizeof(R) == 1) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out[2 * k]), ch0);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out[2 * k + 1]), ch1);
    } else {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out[2 * k]), _mm_unpacklo_epi8(ch0, zero));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out[2 * k] + 8), _mm_unpackhi_epi8(ch0, zero));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out[2 * k + 1]), _mm_unpacklo_epi8(ch1, zero));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out[2 * k + 1] + 8), _mm_unpackhi_epi8(ch1, zero));
    }
  }
}
#endif

// One block of the tiled transpose: channels [k0, k1) of `kept`, downsampled samples
// [s0, s0 + ns). Each channel's row segment is written contiguously while the block's spectra
// (a few KiB) stay in L1.
template <class R, int NBITS, bool SIGNED>
void append_block(const InputFormat& in, const std::uint8_t* packed, const RowsTarget& dst, std::size_t pos, int k0,
                  int k1, std::size_t s0, std::size_t ns) {
  const std::vector<int>& kept = *in.kept;
  const std::size_t D = in.downsample;
  const std::size_t bps = in.bytes_per_sample;
  R* rows = static_cast<R*>(dst.rows);
  const std::size_t row_len = dst.row_len;
  int k = k0;
  std::size_t done = 0;  // samples of channels [k0, k) already written by the 16 x 16 transpose
#if defined(__x86_64__)
  // 8-bit input, no downsampling: 16 x 16 blocks of contiguous kept channels.
  if constexpr (NBITS == 8 && sizeof(R) <= 2) {
    const std::size_t n16 = ns / 16 * 16;
    if (D == 1 && n16 > 0) {
      while (k + 16 <= k1 && kept[static_cast<std::size_t>(k + 15)] - kept[static_cast<std::size_t>(k)] == 15) {
        const int c0 = kept[static_cast<std::size_t>(k)];
        for (std::size_t s1 = 0; s1 < n16; s1 += 16) {
          R* out[16];
          for (int i = 0; i < 16; ++i) out[i] = rows + static_cast<std::size_t>(k + i) * row_len + pos + s0 + s1;
          transpose16_u8<SIGNED, R>(packed + (s0 + s1) * bps + static_cast<std::size_t>(c0), bps, out);
        }
        k += 16;
      }
      done = n16;
    }
  }
#endif
  for (int kk = k0; kk < k1; ++kk) {
    const std::size_t first = kk < k ? done : 0;
    const int c = kept[static_cast<std::size_t>(kk)];
    R* row = rows + static_cast<std::size_t>(kk) * row_len + pos + s0;
    if (D == 1) {
      const std::uint8_t* spectrum = packed + (s0 + first) * bps;
      for (std::size_t ss = first; ss < ns; ++ss, spectrum += bps)
        row[ss] = sample_value<NBITS, SIGNED, R>(spectrum, c);
    } else {
      for (std::size_t ss = first; ss < ns; ++ss) {
        const std::uint8_t* spectrum = packed + (s0 + ss) * D * bps;
        R acc = 0;
        for (std::size_t j = 0; j < D; ++j, spectrum += bps) acc += sample_value<NBITS, SIGNED, R>(spectrum, c);
        row[ss] = acc;
      }
    }
  }
}

// The tiled transpose over (channel block x time block) tasks.
template <class R, int NBITS, bool SIGNED>
void append_typed(const InputFormat& in, const std::uint8_t* packed, std::size_t n_ds, const RowsTarget& dst,
                  std::size_t pos, WorkerTeam* team) {
  constexpr int kChanBlock = 64;
  constexpr std::size_t kTimeBlock = 64;
  const int nk = static_cast<int>(in.kept->size());
  const std::size_t nblocks = static_cast<std::size_t>((nk + kChanBlock - 1) / kChanBlock);
  const std::size_t ntime = (n_ds + kTimeBlock - 1) / kTimeBlock;
  auto block = [&](std::size_t kb, std::size_t tb) {
    const int k0 = static_cast<int>(kb) * kChanBlock;
    const std::size_t s0 = tb * kTimeBlock;
    append_block<R, NBITS, SIGNED>(in, packed, dst, pos, k0, std::min(nk, k0 + kChanBlock), s0,
                                   std::min(kTimeBlock, n_ds - s0));
  };
  if (team == nullptr || team->size() == 1) {
    for (std::size_t tb = 0; tb < ntime; ++tb) {
      for (std::size_t kb = 0; kb < nblocks; ++kb) block(kb, tb);
    }
    return;
  }
  // Tasks of several time blocks: a task is worth a wake-up, and its spectra are read once.
  constexpr std::size_t kTimeBlocksPerTask = 16;
  const std::size_t ntasks = (ntime + kTimeBlocksPerTask - 1) / kTimeBlocksPerTask;
  team->run_dynamic(ntasks, [&](std::size_t task, std::size_t) {
    for (std::size_t tb = task * kTimeBlocksPerTask; tb < std::min(ntime, (task + 1) * kTimeBlocksPerTask); ++tb) {
      for (std::size_t kb = 0; kb < nblocks; ++kb) block(kb, tb);
    }
  });
}

template <class R>
void append_for_rows(const InputFormat& in, const std::uint8_t* packed, std::size_t n_ds, const RowsTarget& dst,
                     std::size_t pos, WorkerTeam* team) {
  switch (in.nbits) {
    case 1:
      return append_typed<R, 1, false>(in, packed, n_ds, dst, pos, team);
    case 2:
      return append_typed<R, 2, false>(in, packed, n_ds, dst, pos, team);
    case 4:
      return append_typed<R, 4, false>(in, packed, n_ds, dst, pos, team);
    case 8:
      if (in.is_signed) return append_typed<R, 8, true>(in, packed, n_ds, dst, pos, team);
      return append_typed<R, 8, false>(in, packed, n_ds, dst, pos, team);
    case 16:
      if constexpr (sizeof(R) >= 2) return append_typed<R, 16, false>(in, packed, n_ds, dst, pos, team);
      break;
    default:
      throw Error(ErrorCode::unsupported,
                  fmt::format("the CPU dedisperser reads nbits 1, 2, 4, 8, 16 or 32, not {}", in.nbits));
  }
  throw Error(ErrorCode::internal, "16-bit input cannot go into 8-bit rows");
}

}  // namespace

void append_rows(const InputFormat& in, const std::uint8_t* packed, std::size_t n_ds, const RowsTarget& dst,
                 std::size_t pos, WorkerTeam* team) {
  if (n_ds == 0) return;
  if (dst.is_float_rows) {
    FASTPSR_ASSERT(in.nbits == 32);
    return append_typed<float, 32, false>(in, packed, n_ds, dst, pos, team);
  }
  if (dst.elem_bytes == 1) {
    FASTPSR_ASSERT(in.nbits <= 8);
    return append_for_rows<std::uint8_t>(in, packed, n_ds, dst, pos, team);
  }
  if (dst.elem_bytes == 2) return append_for_rows<std::uint16_t>(in, packed, n_ds, dst, pos, team);
  return append_for_rows<std::uint32_t>(in, packed, n_ds, dst, pos, team);
}

}  // namespace fastpsr::cpu::dedisp_detail
