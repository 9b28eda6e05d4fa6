// SPDX-License-Identifier: MIT
#pragma once
/// Index arithmetic and lane arithmetic of the CUDA dedisperser, in plain C++ that compiles both
/// for the device (nvcc) and for the host, so the unit tests can emulate the kernels on a CPU with
/// exactly this code. No CUDA headers here.
///
/// Layout ("lanes"): a gulp's n_out output samples are split into L segments of q samples each
/// (L = 4, 2 or 1). The prepared input G has one row of `row_words` 32-bit words per kept channel;
/// lane i of word u holds x_D[i*q + u] (the downsampled input, counted from the first sample the
/// gulp's output needs). One 32-bit load thus brings L samples that belong to L different outputs
/// of the same DM, whatever the delay, so the integer adds of the inner loop work on L samples at
/// once ("SIMD in the word") with no realignment:
///   L = 4: four 8-bit values (values <= 255), two accumulators of two 16-bit lanes each;
///   L = 2: two 16-bit values, one accumulator of two 16-bit lanes;
///   L = 1: one 32-bit integer or one float.
/// Lane sums are flushed into 32-bit totals before any 16-bit lane can overflow. L = 4 has two
/// variants of the same arithmetic (Lanes4, Lanes4Mad) that load different pipes of the SM.
///
/// Blocks: a block computes `dms_per_block` consecutive DMs x `tile_words` consecutive words u.
/// Per (DM block, kept channel) a record holds base = min delay over the block's DMs, the span
/// (max - min delay), and per DM the offset delay - base + (base & 3) (stored in bytes). The block
/// stages words [u0 + base - (base & 3), ...) of each channel row into shared memory with 16-byte
/// copies; a thread then reads word tile_word + offset of the staged row.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "fastpsr/worker_team.hpp"

#if defined(__CUDACC__)
#define FASTPSR_HD __host__ __device__ __forceinline__
#else
#define FASTPSR_HD inline
#endif
#if defined(__CUDA_ARCH__)
#define FASTPSR_UNROLL _Pragma("unroll")
#else
#define FASTPSR_UNROLL
#endif

namespace fastpsr::cuda::tiling {

/// Words of the block tile handled by a warp: warp w of the block's x dimension covers
/// [w * 32 * items_time, (w + 1) * 32 * items_time); its lane l takes l, l + 32, ... so every
/// warp-wide load reads 32 consecutive words (no shared-memory bank conflicts).
FASTPSR_HD int tile_word(int thread_x, int item, int items_time) {
  return (thread_x / 32) * 32 * items_time + (thread_x % 32) + 32 * item;
}

/// Words of a staged channel row: the copy starts 4-word aligned, `shift` = base & 3 words early.
struct RowWindow {
  std::int64_t start = 0;  ///< first G word copied (a multiple of 4)
  int words = 0;           ///< words copied (a multiple of 4)
};
FASTPSR_HD RowWindow row_window(std::int64_t u0, std::int32_t base, std::int32_t span, int tile_words) {
  RowWindow w;
  const int shift = base & 3;
  w.start = u0 + base - shift;
  w.words = ((shift + tile_words + span) + 3) & ~3;
  return w;
}

/// Shared-memory words per staged channel row for a maximum span.
FASTPSR_HD int row_pitch_words(int tile_words, int max_span) { return ((3 + tile_words + max_span) + 3) & ~3; }

/// Record of one (DM block, kept channel): int32 values. [0] base, [1] span,
/// [2] reuse rows (records built with a reuse group only, else 0): the same in every record of
///     the block, the number of its kept channels, counted from the first, past which no offset
///     carries kReuseFlag,
/// [3] unused,
/// [4 + j] offset of the block's DM j in bytes, 4 * (delay - base + (base & 3)), so that a thread
/// adds it to its row pointer with one instruction (padded to a multiple of 4 with zeros). Built
/// with a reuse group G (the DMs a thread has, items_dm), an offset also carries kReuseFlag in
/// its low bit when DM j has the delay of DM j - 1 and both belong to the same thread (j % G !=
/// 0): the thread then adds the words it loaded for DM j - 1 again instead of loading them
/// (add_rows with Reuse). The flag costs no instruction to strip: the load it would misalign is
/// the one it turns off.
constexpr int kRecordHeader = 4;
constexpr int kRecordReuseRows = 2;
constexpr std::int32_t kReuseFlag = 1;
FASTPSR_HD int record_ints(int dms_per_block) { return kRecordHeader + ((dms_per_block + 3) & ~3); }

/// Words per G row for a gulp: enough for every staged window of every tile.
FASTPSR_HD std::int64_t g_row_words(std::int64_t q, int tile_words, std::int32_t max_delay) {
  const std::int64_t tiles = (q + tile_words - 1) / tile_words;
  return ((tiles * tile_words + max_delay + 3) + 3) & ~std::int64_t{3};
}

/// Samples per lane segment for n_out outputs over `lanes` lanes.
FASTPSR_HD std::int64_t lane_segment(std::int64_t n_out, int lanes) { return (n_out + lanes - 1) / lanes; }

/// Downsampled samples the prep step must produce so that every lane's row is filled.
FASTPSR_HD std::int64_t prep_cover(std::int64_t q, std::int64_t row_words, int lanes, std::int64_t avail) {
  return q == 0 ? avail : (lanes - 1) * q + row_words;
}

// ---- lane arithmetic ------------------------------------------------------------------------

/// Four 8-bit values per word. `all` sums whole words (mod 2^32); `hi` sums bytes 1 and 3 in two
/// 16-bit lanes. With at most 65535 per lane, all - (hi << 8) = sum(byte 0) + 2^16 sum(byte 2)
/// exactly, so two accumulators carry four lane sums.
struct Lanes4 {
  static constexpr int kLanes = 4;
  static constexpr bool kIsFloat = false;
  static constexpr bool kFlushes = true;
  using Element = std::uint8_t;
  struct Partial {
    std::uint32_t all = 0, hi = 0;
  };
  struct Total {
    std::uint32_t v[4] = {0, 0, 0, 0};
  };
  /// Bytes 1 and 3 of w moved to bytes 0 and 2: one PRMT on the device.
  FASTPSR_HD static std::uint32_t odd_bytes(std::uint32_t w) {
#if defined(__CUDA_ARCH__)
    return __byte_perm(w, 0U, 0x4341U);
#else
    return (w >> 8) & 0x00FF00FFu;
#endif
  }
  FASTPSR_HD static void add(Partial& p, std::uint32_t a, std::uint32_t /*aux*/ = 0) {
    p.all += a;
    p.hi += odd_bytes(a);
  }
  FASTPSR_HD static void add2(Partial& p, std::uint32_t a, std::uint32_t b, std::uint32_t /*aux*/ = 0) {
    p.all += a + b;
    p.hi += odd_bytes(a) + odd_bytes(b);
  }
  FASTPSR_HD static void flush(Total& t, Partial& p) {
    const std::uint32_t even = p.all - (p.hi << 8);
    t.v[0] += even & 0xFFFFu;
    t.v[1] += p.hi & 0xFFFFu;
    t.v[2] += even >> 16;
    t.v[3] += p.hi >> 16;
    p.all = 0;
    p.hi = 0;
  }
  FASTPSR_HD static std::uint32_t lane_sum(const Total& t, const Partial&, int lane) { return t.v[lane]; }
};

/// Lanes4 with the odd bytes summed by IMAD.HI: hi + ((w & 0xFF00FF00) * 2^24 >> 32) is bytes 1
/// and 3 moved down and added in one multiply-add, on the FP32/IMAD pipe instead of the integer
/// ALU that the other adds and masks use. `aux` must be 2^24; it comes from a kernel parameter so
/// that the compiler cannot turn the multiply back into a shift.
struct Lanes4Mad : Lanes4 {
  FASTPSR_HD static std::uint32_t mad_hi(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
#if defined(__CUDA_ARCH__)
    std::uint32_t r;
    asm("mad.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
#else
    return static_cast<std::uint32_t>((std::uint64_t{a} * b) >> 32) + c;
#endif
  }
  FASTPSR_HD static void add(Partial& p, std::uint32_t a, std::uint32_t aux) {
    p.all += a;
    p.hi = mad_hi(a & 0xFF00FF00u, aux, p.hi);
  }
  FASTPSR_HD static void add2(Partial& p, std::uint32_t a, std::uint32_t b, std::uint32_t aux) {
    p.all += a + b;
    p.hi = mad_hi(a & 0xFF00FF00u, aux, mad_hi(b & 0xFF00FF00u, aux, p.hi));
  }
};

/// Two 16-bit values per word, summed in two 16-bit lanes.
struct Lanes2 {
  static constexpr int kLanes = 2;
  static constexpr bool kIsFloat = false;
  static constexpr bool kFlushes = true;
  using Element = std::uint16_t;
  struct Partial {
    std::uint32_t v = 0;
  };
  struct Total {
    std::uint32_t v[2] = {0, 0};
  };
  FASTPSR_HD static void add(Partial& p, std::uint32_t a, std::uint32_t /*aux*/ = 0) { p.v += a; }
  FASTPSR_HD static void add2(Partial& p, std::uint32_t a, std::uint32_t b, std::uint32_t /*aux*/ = 0) { p.v += a + b; }
  FASTPSR_HD static void flush(Total& t, Partial& p) {
    t.v[0] += p.v & 0xFFFFu;
    t.v[1] += p.v >> 16;
    p.v = 0;
  }
  FASTPSR_HD static std::uint32_t lane_sum(const Total& t, const Partial&, int lane) { return t.v[lane]; }
};

/// One 32-bit integer per word, summed in 32 bits (the host checks that nothing can wrap).
struct Lanes1 {
  static constexpr int kLanes = 1;
  static constexpr bool kIsFloat = false;
  static constexpr bool kFlushes = false;
  using Element = std::uint32_t;
  struct Partial {
    std::uint32_t v = 0;
  };
  struct Total {};
  FASTPSR_HD static void add(Partial& p, std::uint32_t a, std::uint32_t /*aux*/ = 0) { p.v += a; }
  FASTPSR_HD static void add2(Partial& p, std::uint32_t a, std::uint32_t b, std::uint32_t /*aux*/ = 0) { p.v += a + b; }
  FASTPSR_HD static void flush(Total&, Partial&) {}
  FASTPSR_HD static std::uint32_t lane_sum(const Total&, const Partial& p, int) { return p.v; }
};

/// One float per word: float partial sums over at most `flush` channels, added into a double.
struct LanesFloat {
  static constexpr int kLanes = 1;
  static constexpr bool kIsFloat = true;
  static constexpr bool kFlushes = true;
  using Element = float;
  struct Partial {
    float v = 0.0F;
  };
  struct Total {
    double v = 0.0;
  };
  FASTPSR_HD static float as_float(std::uint32_t w) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(w);
#else
    float f;
    __builtin_memcpy(&f, &w, sizeof f);
    return f;
#endif
  }
  FASTPSR_HD static void add(Partial& p, std::uint32_t a, std::uint32_t /*aux*/ = 0) { p.v += as_float(a); }
  FASTPSR_HD static void add2(Partial& p, std::uint32_t a, std::uint32_t b, std::uint32_t /*aux*/ = 0) {
    p.v += as_float(a);
    p.v += as_float(b);
  }
  FASTPSR_HD static void flush(Total& t, Partial& p) {
    t.v += static_cast<double>(p.v);
    p.v = 0.0F;
  }
};

/// `p` advanced by `bytes` (a multiple of 4).
FASTPSR_HD const std::uint32_t* at_byte(const std::uint32_t* p, std::int32_t bytes) {
  return reinterpret_cast<const std::uint32_t*>(reinterpret_cast<const char*>(p) + bytes);
}

/// Words::load_unless below in plain C++ (the host, and tiles other than T = 4 on the device):
/// the T words of each row unless its offset carries kReuseFlag, each made a W::Word.
template <class W, int T>
FASTPSR_HD void load_words_unless(typename W::Word (&a)[T], typename W::Word (&b)[T], const std::uint32_t* ra,
                                  const std::uint32_t* rb, std::int32_t oa, std::int32_t ob) {
  for (int k = 0; k < T; ++k) {
    if ((oa & kReuseFlag) == 0) a[k] = W::load(at_byte(ra, oa)[32 * k]);
    if ((ob & kReuseFlag) == 0) b[k] = W::load(at_byte(rb, ob)[32 * k]);
  }
}

/// The words a thread loaded for one DM, kept by the reuse path of ThreadTile::add_rows so that
/// the next DM, where it has the same delay in a row, adds them again. `load_unless` loads the T
/// words (32 words apart) of row `ra` at byte offset `oa` unless the offset carries kReuseFlag,
/// the same for `rb`, `ob`; on the device (T = 4) one predicated shared load per word, no branch:
/// a kept word still takes an issue slot but no shared-memory bandwidth. (A branch per DM, the
/// first version, cost BSSY + BSYNC + BRA per DM, as ptxas cannot see that the branch is
/// warp-uniform, and lost: docs/PERFORMANCE.md.) Generic (any Mode): the word alone; Lanes4
/// then makes its odd bytes again for every DM (`reuse=2`, 8 registers for two rows of 4 words).
template <class P, int Mode>
struct Words {
  struct Word {
    std::uint32_t w = 0;
  };
  FASTPSR_HD static Word load(std::uint32_t w) { return Word{w}; }
  template <int T>
  FASTPSR_HD static void load_unless(Word (&a)[T], Word (&b)[T], const std::uint32_t* ra, const std::uint32_t* rb,
                                     std::int32_t oa, std::int32_t ob) {
#if defined(__CUDA_ARCH__)
    if constexpr (T == 4) {
      asm volatile(
          "{\n\t.reg .pred pa, pb;\n\tsetp.eq.u32 pa, %10, 0;\n\tsetp.eq.u32 pb, %11, 0;\n\t"
          "@pa ld.shared.u32 %0, [%8];\n\t@pa ld.shared.u32 %1, [%8+128];\n\t"
          "@pa ld.shared.u32 %2, [%8+256];\n\t@pa ld.shared.u32 %3, [%8+384];\n\t"
          "@pb ld.shared.u32 %4, [%9];\n\t@pb ld.shared.u32 %5, [%9+128];\n\t"
          "@pb ld.shared.u32 %6, [%9+256];\n\t@pb ld.shared.u32 %7, [%9+384];\n\t}"
          : "+r"(a[0].w), "+r"(a[1].w), "+r"(a[2].w), "+r"(a[3].w), "+r"(b[0].w), "+r"(b[1].w), "+r"(b[2].w),
            "+r"(b[3].w)
          : "r"(static_cast<unsigned>(__cvta_generic_to_shared(ra)) + static_cast<unsigned>(oa)),
            "r"(static_cast<unsigned>(__cvta_generic_to_shared(rb)) + static_cast<unsigned>(ob)),
            "r"(static_cast<unsigned>(oa & kReuseFlag)), "r"(static_cast<unsigned>(ob & kReuseFlag)));
    } else  // NOLINT(readability-misleading-indentation): the other tiles and the host
#endif
    {
      load_words_unless<Words, T>(a, b, ra, rb, oa, ob);
    }
  }
  FASTPSR_HD static void add2(typename P::Partial& p, const Word& a, const Word& b, std::uint32_t aux) {
    P::add2(p, a.w, b.w, aux);
  }
};
/// Lanes4, mode 1 (`reuse=1`): the words and their odd bytes kept (16 registers for two rows of
/// 4 words): a kept word costs its add, no load and no PRMT (the PRMT predicated too).
/// The same sums as Lanes4::add2.
template <>
struct Words<Lanes4, 1> {
  struct Word {
    std::uint32_t w = 0, odd = 0;
  };
  FASTPSR_HD static Word load(std::uint32_t w) { return Word{w, Lanes4::odd_bytes(w)}; }
  template <int T>
  FASTPSR_HD static void load_unless(Word (&a)[T], Word (&b)[T], const std::uint32_t* ra, const std::uint32_t* rb,
                                     std::int32_t oa, std::int32_t ob) {
#if defined(__CUDA_ARCH__)
    if constexpr (T == 4) {
      asm volatile(
          "{\n\t.reg .pred pa, pb;\n\tsetp.eq.u32 pa, %18, 0;\n\tsetp.eq.u32 pb, %19, 0;\n\t"
          "@pa ld.shared.u32 %0, [%16];\n\t@pa ld.shared.u32 %1, [%16+128];\n\t"
          "@pa ld.shared.u32 %2, [%16+256];\n\t@pa ld.shared.u32 %3, [%16+384];\n\t"
          "@pb ld.shared.u32 %4, [%17];\n\t@pb ld.shared.u32 %5, [%17+128];\n\t"
          "@pb ld.shared.u32 %6, [%17+256];\n\t@pb ld.shared.u32 %7, [%17+384];\n\t"
          "@pa prmt.b32 %8, %0, 0, 0x4341;\n\t@pa prmt.b32 %9, %1, 0, 0x4341;\n\t"
          "@pa prmt.b32 %10, %2, 0, 0x4341;\n\t@pa prmt.b32 %11, %3, 0, 0x4341;\n\t"
          "@pb prmt.b32 %12, %4, 0, 0x4341;\n\t@pb prmt.b32 %13, %5, 0, 0x4341;\n\t"
          "@pb prmt.b32 %14, %6, 0, 0x4341;\n\t@pb prmt.b32 %15, %7, 0, 0x4341;\n\t}"
          : "+r"(a[0].w), "+r"(a[1].w), "+r"(a[2].w), "+r"(a[3].w), "+r"(b[0].w), "+r"(b[1].w), "+r"(b[2].w),
            "+r"(b[3].w), "+r"(a[0].odd), "+r"(a[1].odd), "+r"(a[2].odd), "+r"(a[3].odd), "+r"(b[0].odd),
            "+r"(b[1].odd), "+r"(b[2].odd), "+r"(b[3].odd)
          : "r"(static_cast<unsigned>(__cvta_generic_to_shared(ra)) + static_cast<unsigned>(oa)),
            "r"(static_cast<unsigned>(__cvta_generic_to_shared(rb)) + static_cast<unsigned>(ob)),
            "r"(static_cast<unsigned>(oa & kReuseFlag)), "r"(static_cast<unsigned>(ob & kReuseFlag)));
    } else  // NOLINT(readability-misleading-indentation): the other tiles and the host
#endif
    {
      load_words_unless<Words, T>(a, b, ra, rb, oa, ob);
    }
  }
  FASTPSR_HD static void add2(Lanes4::Partial& p, const Word& a, const Word& b, std::uint32_t /*aux*/) {
    p.all += a.w + b.w;
    p.hi += a.odd + b.odd;
  }
};

/// Loads the MD offsets of one record row (16-byte aligned when MD % 4 == 0, 8-byte when MD == 2)
/// with vector loads on the device: one shared-memory access per row instead of MD.
template <int MD>
FASTPSR_HD void load_offsets(const std::int32_t* p, std::int32_t (&o)[MD]) {
#if defined(__CUDA_ARCH__)
  if constexpr (MD % 4 == 0) {
    FASTPSR_UNROLL
    for (int q = 0; q < MD / 4; ++q) {
      const int4 v = reinterpret_cast<const int4*>(p)[q];
      o[4 * q] = v.x;
      o[4 * q + 1] = v.y;
      o[4 * q + 2] = v.z;
      o[4 * q + 3] = v.w;
    }
  } else if constexpr (MD == 2) {
    const int2 v = *reinterpret_cast<const int2*>(p);
    o[0] = v.x;
    o[1] = v.y;
  } else {
    FASTPSR_UNROLL
    for (int j = 0; j < MD; ++j) o[j] = p[j];
  }
#else
  for (int j = 0; j < MD; ++j) o[j] = p[j];
#endif
}

/// The accumulators of one thread: items_dm DMs x items_time words, and the flush countdown.
/// With LocalTotals the totals are not members but an array of the caller's (bind()), indexed in
/// the flush through an index the compiler cannot see through, so that array lives in local
/// memory (touched once a flush, every ~256 channels for 8-bit data) while the lane sums, which
/// every channel adds to, stay in the registers of a capped kernel. (As a member, the address
/// taken would put the whole tile, lane sums included, in local memory: 5x slower.)
template <class P, int T, int MD, bool LocalTotals = false>
struct ThreadTile {
  using Totals = typename P::Total[MD][T];
  typename P::Partial part[MD][T];
  std::conditional_t<LocalTotals, typename P::Total (*)[T], Totals> total;
  int since_flush = 0;
  std::uint32_t aux = 0;  ///< passed to the lane adds (Lanes4Mad: 2^24, from a kernel parameter)

  /// LocalTotals only: the totals array, zeroed by its constructors, outliving this tile's use.
  FASTPSR_HD void bind(Totals& totals) { total = totals; }

  FASTPSR_HD void flush_all() {
    FASTPSR_UNROLL
    for (int j = 0; j < MD; ++j) {
      FASTPSR_UNROLL
      for (int k = 0; k < T; ++k) {
        if constexpr (LocalTotals) {
          int index = j * T + k;
#ifdef __CUDA_ARCH__
          asm volatile("" : "+r"(index));  // opaque: keeps the totals in (addressable) local memory
#endif
          P::flush(total[index / T][index % T], part[j][k]);
        } else {
          P::flush(total[j][k], part[j][k]);
        }
      }
    }
    since_flush = 0;
  }

  /// Adds the staged rows [0, nrows) of one stage. `rows` holds the rows `row_pitch` words
  /// apart; `offsets` their records' offsets (record_ints apart, this thread's first DM at
  /// column `dm0`); `word0` = tile_word(thread_x, 0, T). Flushes before a lane could exceed
  /// `flush_chans` channels.
  /// With Reuse (1 or 2, the Words mode; records built with reuse group MD), the pairs of rows that start before
  /// `reuse_rows` honour kReuseFlag: a DM whose delay in a row is that of the thread's previous DM adds that DM's
  /// words of the row again instead of loading them (Words). Other rows carry no flag.
  template <int Reuse = 0>
  FASTPSR_HD void add_rows(const std::uint32_t* rows, int row_pitch, const std::int32_t* offsets, int record, int dm0,
                           int nrows, int word0, int flush_chans, int reuse_rows = 0) {
    int r = 0;
    if (flush_chans >= 2) {
      if constexpr (Reuse != 0) {
        using W = Words<P, Reuse>;
        for (; r + 1 < nrows && r < reuse_rows; r += 2) {
          if (P::kFlushes && since_flush + 2 > flush_chans) flush_all();
          const std::uint32_t* ra = rows + r * row_pitch + word0;
          const std::uint32_t* rb = ra + row_pitch;
          std::int32_t oa[MD], ob[MD];
          load_offsets<MD>(offsets + r * record + dm0, oa);
          load_offsets<MD>(offsets + (r + 1) * record + dm0, ob);
          typename W::Word wa[T], wb[T];
          FASTPSR_UNROLL
          for (int j = 0; j < MD; ++j) {
            if (j == 0) {  // never flagged: DM j - 1 is another thread's
              const std::uint32_t* pa = at_byte(ra, oa[j]);
              const std::uint32_t* pb = at_byte(rb, ob[j]);
              FASTPSR_UNROLL
              for (int k = 0; k < T; ++k) {
                wa[k] = W::load(pa[32 * k]);
                wb[k] = W::load(pb[32 * k]);
              }
            } else {
              W::template load_unless<T>(wa, wb, ra, rb, oa[j], ob[j]);
            }
            FASTPSR_UNROLL
            for (int k = 0; k < T; ++k) W::add2(part[j][k], wa[k], wb[k], aux);
          }
          since_flush += 2;
        }
      }
      for (; r + 1 < nrows; r += 2) {
        if (P::kFlushes && since_flush + 2 > flush_chans) flush_all();
        const std::uint32_t* ra = rows + r * row_pitch + word0;
        const std::uint32_t* rb = ra + row_pitch;
        std::int32_t oa[MD], ob[MD];
        load_offsets<MD>(offsets + r * record + dm0, oa);
        load_offsets<MD>(offsets + (r + 1) * record + dm0, ob);
        FASTPSR_UNROLL
        for (int j = 0; j < MD; ++j) {
          const std::uint32_t* pa = at_byte(ra, oa[j]);
          const std::uint32_t* pb = at_byte(rb, ob[j]);
          FASTPSR_UNROLL
          for (int k = 0; k < T; ++k) P::add2(part[j][k], pa[32 * k], pb[32 * k], aux);
        }
        since_flush += 2;
      }
    }
    for (; r < nrows; ++r) {
      if (P::kFlushes && since_flush + 1 > flush_chans) flush_all();
      const std::uint32_t* ra = rows + r * row_pitch + word0;
      std::int32_t oa[MD];
      load_offsets<MD>(offsets + r * record + dm0, oa);
      FASTPSR_UNROLL
      for (int j = 0; j < MD; ++j) {
        // With Reuse, a single row (the tail of a stage, or lane flushes every channel) loads
        // every word: its flags are stripped.
        const std::uint32_t* pa = at_byte(ra, Reuse != 0 ? oa[j] & ~kReuseFlag : oa[j]);
        FASTPSR_UNROLL
        for (int k = 0; k < T; ++k) P::add(part[j][k], pa[32 * k], aux);
      }
      since_flush += 1;
    }
  }
};

/// Output value of an integer lane sum: exact integer, minus the offset that made signed input
/// unsigned, rounded once to float (round to nearest even, like the double reference).
FASTPSR_HD float integer_output(std::uint32_t sum, std::int64_t signed_offset) {
  return signed_offset == 0 ? static_cast<float>(sum)
                            : static_cast<float>(static_cast<std::int64_t>(sum) - signed_offset);
}

// ---- host-side planning ----------------------------------------------------------------------

/// Records of every (DM block, kept channel) and the largest span, from the plan's delay table.
struct BlockRecords {
  std::vector<std::int32_t> ints;  ///< [(block * nkept + kept) * record_ints + ...]
  int record = 0;                  ///< ints per record
  int max_span = 0;
  int blocks = 0;
};

/// The records of blocks [b0, b1) into `br` (sized by make_block_records); returns their largest
/// span. Blocks are independent, so threads may fill disjoint ranges.
inline int fill_block_records(BlockRecords& br, const std::vector<std::int32_t>& delays, std::size_t ndms, int nchans,
                              const std::vector<int>& kept, int dms_per_block, int reuse_group, int b0, int b1) {
  const std::size_t nkept = kept.size();
  int max_span = 0;
  for (int b = b0; b < b1; ++b) {
    const std::size_t dm_first = static_cast<std::size_t>(b) * static_cast<std::size_t>(dms_per_block);
    const std::size_t dm_end = std::min(ndms, dm_first + static_cast<std::size_t>(dms_per_block));
    std::int32_t reuse_rows = 0;  // past the block's last channel with a flag
    for (std::size_t k = 0; k < nkept; ++k) {
      const auto chan = static_cast<std::size_t>(kept[k]);
      std::int32_t lo = delays[dm_first * static_cast<std::size_t>(nchans) + chan];
      std::int32_t hi = lo;
      for (std::size_t m = dm_first; m < dm_end; ++m) {
        const std::int32_t d = delays[m * static_cast<std::size_t>(nchans) + chan];
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
      }
      std::int32_t* rec =
          br.ints.data() + (static_cast<std::size_t>(b) * nkept + k) * static_cast<std::size_t>(br.record);
      rec[0] = lo;
      rec[1] = hi - lo;
      for (std::size_t m = dm_first; m < dm_end; ++m) {
        const std::size_t at = m * static_cast<std::size_t>(nchans) + chan;
        // In int64: a span this large never fits shared memory, so the clamped value is never used.
        const std::int64_t bytes = 4 * (std::int64_t{delays[at]} - lo + (lo & 3));
        std::int32_t off = static_cast<std::int32_t>(std::min<std::int64_t>(bytes, INT32_MAX - 3));
        const std::size_t j = m - dm_first;
        if (reuse_group > 0 && j % static_cast<std::size_t>(reuse_group) != 0 &&
            delays[at] == delays[at - static_cast<std::size_t>(nchans)]) {
          off |= kReuseFlag;
          reuse_rows = static_cast<std::int32_t>(k + 1);
        }
        rec[kRecordHeader + j] = off;
      }
      max_span = hi - lo > max_span ? hi - lo : max_span;
    }
    std::int32_t* block = br.ints.data() + static_cast<std::size_t>(b) * nkept * static_cast<std::size_t>(br.record);
    for (std::size_t k = 0; k < nkept; ++k)
      block[k * static_cast<std::size_t>(br.record) + kRecordReuseRows] = reuse_rows;
  }
  return max_span;
}

/// `delays[dm * nchans + chan]`, the kept channels in order, DMs grouped `dms_per_block` at a time.
/// `reuse_group` > 0 (the kernel's items_dm, with reuse): offsets carry kReuseFlag (see the record).
/// `threads` > 1 fills contiguous ranges of blocks on that many threads (the same records: a
/// meerkat automatic plan's first range, 10223 DMs x 4096 channels, took 0.42 s on one).
inline BlockRecords make_block_records(const std::vector<std::int32_t>& delays, std::size_t ndms, int nchans,
                                       const std::vector<int>& kept, int dms_per_block, int reuse_group = 0,
                                       int threads = 1) {
  BlockRecords br;
  br.record = record_ints(dms_per_block);
  br.blocks = static_cast<int>((ndms + static_cast<std::size_t>(dms_per_block) - 1) / dms_per_block);
  br.ints.assign(static_cast<std::size_t>(br.blocks) * kept.size() * static_cast<std::size_t>(br.record), 0);
  threads = std::max(1, std::min(threads, br.blocks));
  if (threads == 1) {
    br.max_span = fill_block_records(br, delays, ndms, nchans, kept, dms_per_block, reuse_group, 0, br.blocks);
    return br;
  }
  std::vector<int> spans(static_cast<std::size_t>(threads), 0);
  WorkerTeam team(static_cast<std::size_t>(threads));
  team.run(spans.size(), [&](std::size_t t) {
    const auto parts = static_cast<long long>(threads);
    const int b0 = static_cast<int>(static_cast<long long>(br.blocks) * static_cast<long long>(t) / parts);
    const int b1 = static_cast<int>(static_cast<long long>(br.blocks) * static_cast<long long>(t + 1) / parts);
    spans[t] = fill_block_records(br, delays, ndms, nchans, kept, dms_per_block, reuse_group, b0, b1);
  });
  br.max_span = *std::max_element(spans.begin(), spans.end());
  return br;
}

/// The largest delay span (max - min over a block's DMs) of any kept channel for blocks of
/// `dms_per_block` DMs, as make_block_records() reports it, from one pass over the table, row by row.
inline int max_block_span(const std::vector<std::int32_t>& delays, std::size_t ndms, int nchans,
                          const std::vector<int>& kept, int dms_per_block) {
  const auto per_block = static_cast<std::size_t>(dms_per_block);
  const auto row = [&](std::size_t m) { return delays.data() + m * static_cast<std::size_t>(nchans); };
  std::vector<std::int32_t> lo(kept.size());
  std::vector<std::int32_t> hi(kept.size());
  std::int32_t span = 0;
  for (std::size_t first = 0; first < ndms; first += per_block) {
    for (std::size_t k = 0; k < kept.size(); ++k) lo[k] = hi[k] = row(first)[kept[k]];
    for (std::size_t m = first + 1; m < std::min(ndms, first + per_block); ++m) {
      const std::int32_t* d = row(m);
      for (std::size_t k = 0; k < kept.size(); ++k) {
        lo[k] = std::min(lo[k], d[kept[k]]);
        hi[k] = std::max(hi[k], d[kept[k]]);
      }
    }
    for (std::size_t k = 0; k < kept.size(); ++k) span = std::max(span, hi[k] - lo[k]);
  }
  return span;
}

/// What make_block_records(..., sizes[i]).max_span would report, for every block size at once and
/// without building records: the kernel-shape choice compares six candidate sizes, and reading
/// the whole delay table once per size was most of the set-up of a large plan (meerkat's first
/// automatic range: 42 M delays). Power-of-two sizes nest (a block of 2s DMs is two blocks of s),
/// so each chunk of the largest size is read once and its lows and highs halved level by level;
/// other sizes take a pass of their own. Chunks are split over `threads`.
inline std::vector<int> max_block_spans(const std::vector<std::int32_t>& delays, std::size_t ndms, int nchans,
                                        const std::vector<int>& kept, const std::vector<int>& sizes, int threads = 1) {
  std::vector<int> out(sizes.size(), 0);
  if (ndms == 0 || kept.empty() || sizes.empty()) return out;
  const auto pow2 = [](int v) { return v > 0 && (v & (v - 1)) == 0; };
  int top = 1;  // the largest power-of-two size asked for
  for (int s : sizes) top = pow2(s) && s > top ? s : top;
  int levels = 0;
  while ((1 << levels) < top) ++levels;
  const std::size_t nkept = kept.size();
  const auto stride = static_cast<std::size_t>(nchans);
  const std::size_t chunks = (ndms + static_cast<std::size_t>(top) - 1) / static_cast<std::size_t>(top);
  threads =
      static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(static_cast<std::size_t>(threads), chunks)));
  // spans[t][l]: thread t's largest span for blocks of 2^l DMs.
  std::vector<std::vector<std::int32_t>> spans(static_cast<std::size_t>(threads),
                                               std::vector<std::int32_t>(static_cast<std::size_t>(levels) + 1, 0));
  auto run = [&](std::size_t t) {
    const std::size_t c0 = chunks * t / static_cast<std::size_t>(threads);
    const std::size_t c1 = chunks * (t + 1) / static_cast<std::size_t>(threads);
    std::vector<std::int32_t>& best = spans[t];
    // Lows and highs of the current level's blocks in the chunk, block-major.
    std::vector<std::int32_t> lo(static_cast<std::size_t>(top) * nkept);
    std::vector<std::int32_t> hi(static_cast<std::size_t>(top) * nkept);
    for (std::size_t c = c0; c < c1; ++c) {
      const std::size_t first = c * static_cast<std::size_t>(top);
      std::size_t count = std::min<std::size_t>(static_cast<std::size_t>(top), ndms - first);
      for (std::size_t m = 0; m < count; ++m) {
        const std::int32_t* row = delays.data() + (first + m) * stride;
        std::int32_t* l = lo.data() + m * nkept;
        for (std::size_t k = 0; k < nkept; ++k) l[k] = row[kept[k]];
      }
      std::copy(lo.begin(), lo.begin() + static_cast<std::ptrdiff_t>(count * nkept), hi.begin());
      for (int level = 1; level <= levels; ++level) {
        const std::size_t pairs = (count + 1) / 2;
        std::int32_t span = 0;
        for (std::size_t p = 0; p < pairs; ++p) {
          std::int32_t* l = lo.data() + p * nkept;
          std::int32_t* h = hi.data() + p * nkept;
          const std::int32_t* la = lo.data() + 2 * p * nkept;
          const std::int32_t* ha = hi.data() + 2 * p * nkept;
          if (2 * p + 1 < count) {
            const std::int32_t* lb = la + nkept;
            const std::int32_t* hb = ha + nkept;
            for (std::size_t k = 0; k < nkept; ++k) {
              l[k] = std::min(la[k], lb[k]);
              h[k] = std::max(ha[k], hb[k]);
              span = std::max(span, h[k] - l[k]);
            }
          } else {
            for (std::size_t k = 0; k < nkept; ++k) {
              l[k] = la[k];
              h[k] = ha[k];
              span = std::max(span, h[k] - l[k]);
            }
          }
        }
        best[static_cast<std::size_t>(level)] = std::max(best[static_cast<std::size_t>(level)], span);
        count = pairs;
      }
    }
  };
  if (threads == 1) {
    run(0);
  } else {
    WorkerTeam team(static_cast<std::size_t>(threads));
    team.run(static_cast<std::size_t>(threads), run);
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const int s = sizes[i];
    if (pow2(s)) {
      int level = 0;
      while ((1 << level) < s) ++level;
      for (const auto& t : spans) out[i] = std::max(out[i], t[static_cast<std::size_t>(level)]);
    } else {
      out[i] = max_block_span(delays, ndms, nchans, kept, s);  // a shape given by keys: rare
    }
  }
  return out;
}

/// Largest value of one prepared (downsampled, offset) input sample for integer input.
inline std::uint64_t max_prepared_value(int nbits, int downsample) {
  const std::uint64_t one = nbits == 8 ? 255U : (std::uint64_t{1} << nbits) - 1U;
  return one * static_cast<std::uint64_t>(downsample);
}

/// Channels a 16-bit lane can take before a flush, for values up to `max_value`.
inline int lane_flush_capacity(std::uint64_t max_value) {
  return max_value == 0 ? 65535 : static_cast<int>(65535U / max_value);
}

}  // namespace fastpsr::cuda::tiling
