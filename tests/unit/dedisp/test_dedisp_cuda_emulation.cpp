// SPDX-License-Identifier: MIT
// Host emulation of the CUDA dedisperser (runs without a GPU, in CI): the gulp bookkeeping, the
// prep step's lane interleaving, the kernel's block records, staging windows, thread tiles and
// lane arithmetic, with the very functions the kernels use (cuda/dedisp/dedisp_tiling.hpp),
// compared bit for bit with the double-precision reference. Staged rows carry random poison past
// their copied window, so a read outside it changes the sums.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "dedisp/dedisp_subband.hpp"
#include "dedisp/dedisp_tiling.hpp"
#include "fastpsr/bitpack.hpp"
#include "support/dedisp_gpu_cases.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;
namespace tl = fastpsr::cuda::tiling;
namespace sb = fastpsr::cuda::subband;

namespace {

struct EmuShape {
  int lanes = 4;
  bool is_float = false;
  int threads_time = 32;
  int threads_dm = 2;
  int items_time = 2;
  int items_dm = 2;
  int chans_per_stage = 3;
  int flush = 0;    // 0 = capacity
  int subband = 0;  // G > 0: the subband kernel (Lanes4), units of G channels
  int reuse = 0;    // the staged kernel's add_rows<reuse> (same-delay DMs re-add the previous DM's words)
};

// x_D of the new input samples [0, n) of kept channel `chan`, as the prep kernel computes them.
std::uint32_t prepared(const DedispPlan& plan, const std::vector<float>& x, std::size_t row0, int chan) {
  const auto& in = plan.problem.input;
  if (in.nbits == 32) {
    float s = 0.0F;
    for (int d = 0; d < plan.downsample(); ++d) s += x[(row0 + static_cast<std::size_t>(d)) * in.nchans + chan];
    std::uint32_t bits;
    std::memcpy(&bits, &s, 4);
    return bits;
  }
  std::uint32_t s = 0;
  for (int d = 0; d < plan.downsample(); ++d) {
    const float v = x[(row0 + static_cast<std::size_t>(d)) * in.nchans + chan];
    s += static_cast<std::uint32_t>(static_cast<int>(v) + (in.is_signed ? 128 : 0));
  }
  return s;
}

template <class P, int T, int MD>
struct Emulator {
  const DedispPlan& plan;
  EmuShape sh;
  std::vector<int> kept;
  tl::BlockRecords rec;
  int row_pitch = 0;
  int flush = 0;
  std::int64_t signed_offset = 0;
  std::vector<std::vector<std::uint32_t>> hist;  // per kept channel, the prepared history
  std::mt19937_64 poison{12345};

  Emulator(const DedispPlan& p, EmuShape s) : plan(p), sh(s) {
    for (int c = 0; c < plan.nchans(); ++c) {
      if (plan.channel_kept(c)) kept.push_back(c);
    }
    rec = tl::make_block_records(plan.delays, plan.ndms(), plan.nchans(), kept, sh.threads_dm * MD,
                                 sh.reuse != 0 ? MD : 0);
    row_pitch = tl::row_pitch_words(sh.threads_time * T, rec.max_span);
    const auto& in = plan.problem.input;
    if (in.nbits == 32) {
      flush = sh.flush ? sh.flush : 16;
    } else {
      const int cap = tl::lane_flush_capacity(tl::max_prepared_value(in.nbits, plan.downsample()));
      flush = P::kLanes == 1 ? 65535 : (sh.flush ? std::min(sh.flush, cap) : cap);
      if (in.is_signed) signed_offset = 128LL * plan.downsample() * static_cast<std::int64_t>(kept.size());
    }
    hist.assign(kept.size(), {});
  }

  // One gulp: returns n_out outputs (ndms rows of n_out), like prep + dedisp kernels.
  std::vector<float> gulp(const std::vector<float>& x, std::size_t n_new, std::size_t n_zero, std::size_t& n_out) {
    const std::int64_t max_delay = plan.max_delay;
    const std::int64_t hist_len = static_cast<std::int64_t>(hist[0].size());
    const std::int64_t avail = hist_len + static_cast<std::int64_t>(n_new + n_zero);
    const std::int64_t nout = avail > max_delay ? avail - max_delay : 0;
    const std::int64_t new_hist = std::min(avail, max_delay);
    const int tile = sh.threads_time * T;
    const std::int64_t q = nout > 0 ? tl::lane_segment(nout, P::kLanes) : 0;
    const std::int64_t row_words = q > 0 ? tl::g_row_words(q, tile, plan.max_delay) : 0;
    const std::int64_t cover = tl::prep_cover(q, row_words, P::kLanes, avail);
    const std::size_t nk = kept.size();
    // Prep: G lanes and the next history; every lane of every G word must be written.
    std::vector<std::uint32_t> g(nk * static_cast<std::size_t>(row_words) * P::kLanes, 0);
    std::vector<std::uint8_t> written(g.size(), 0);
    std::vector<std::vector<std::uint32_t>> next_hist(nk);
    for (std::size_t k = 0; k < nk; ++k) {
      for (std::int64_t s = 0; s < cover; ++s) {
        // Appended zeros (flush) are prepared zeros: +128 per sample for signed input.
        std::uint32_t v = plan.problem.input.is_signed ? static_cast<std::uint32_t>(128 * plan.downsample()) : 0U;
        if (s < hist_len) {
          v = hist[k][static_cast<std::size_t>(s)];
        } else if (s < hist_len + static_cast<std::int64_t>(n_new)) {
          v = prepared(plan, x, static_cast<std::size_t>(s - hist_len) * plan.downsample(), kept[k]);
        }
        for (int lane = 0; lane < P::kLanes; ++lane) {
          const std::int64_t u = s - lane * q;
          if (u >= 0 && u < row_words) {
            const std::size_t at =
                (k * static_cast<std::size_t>(row_words) + static_cast<std::size_t>(u)) * P::kLanes + lane;
            g[at] = v;
            written[at] = 1;
          }
        }
        if (s >= avail - new_hist && s < avail) next_hist[k].push_back(v);
      }
      REQUIRE(static_cast<std::int64_t>(next_hist[k].size()) == new_hist);
    }
    REQUIRE(std::all_of(written.begin(), written.end(), [](auto w) { return w == 1; }));
    hist = std::move(next_hist);
    n_out = static_cast<std::size_t>(nout);
    std::vector<float> out(plan.ndms() * n_out, std::numeric_limits<float>::quiet_NaN());
    std::vector<int> writes(out.size(), 0);
    if (nout == 0) return out;
    // Pack G words as the device sees them (lane i in bits [i * 32 / L, ...)).
    std::vector<std::uint32_t> gw(nk * static_cast<std::size_t>(row_words));
    for (std::size_t w = 0; w < gw.size(); ++w) {
      std::uint32_t word = 0;
      for (int lane = 0; lane < P::kLanes; ++lane) word |= g[w * P::kLanes + lane] << (lane * (32 / P::kLanes));
      gw[w] = word;
    }
    const std::int64_t tiles = (q + tile - 1) / tile;
    if constexpr (std::is_same_v<P, tl::Lanes4>) {
      if (sh.subband != 0) {
        switch (sh.subband) {
          case 4:
            subband_tiles<4>(gw, row_words, q, nout, tiles, out, writes);
            break;
          case 8:
            subband_tiles<8>(gw, row_words, q, nout, tiles, out, writes);
            break;
          default:
            subband_tiles<16>(gw, row_words, q, nout, tiles, out, writes);
        }
        REQUIRE(std::all_of(writes.begin(), writes.end(), [](int w) { return w == 1; }));
        return out;
      }
    }
    const int cs = sh.chans_per_stage;
    const int nchunks = static_cast<int>((nk + static_cast<std::size_t>(cs) - 1) / cs);
    const int nthreads = sh.threads_time * sh.threads_dm;
    std::vector<std::uint32_t> sdata(static_cast<std::size_t>(cs * row_pitch));
    std::vector<std::int32_t> srec(static_cast<std::size_t>(cs * rec.record));
    for (std::int64_t t = 0; t < tiles; ++t) {
      for (int b = 0; b < rec.blocks; ++b) {
        const std::int64_t u0 = t * tile;
        std::vector<tl::ThreadTile<P, T, MD>> acc(static_cast<std::size_t>(nthreads));
        for (auto& a : acc) a.aux = 1U << 24;  // as the kernel sets it from DedispKernelParams
        for (int chunk = 0; chunk < nchunks; ++chunk) {
          const int first = chunk * cs;
          const int nrows = std::min(cs, static_cast<int>(nk) - first);
          for (auto& w : sdata) w = static_cast<std::uint32_t>(poison());
          for (int r = 0; r < nrows; ++r) {
            const std::int32_t* rc =
                rec.ints.data() + (static_cast<std::size_t>(b) * nk + static_cast<std::size_t>(first + r)) * rec.record;
            const tl::RowWindow win = tl::row_window(u0, rc[0], rc[1], tile);
            REQUIRE(win.start % 4 == 0);
            REQUIRE(win.words % 4 == 0);
            REQUIRE(win.start >= 0);
            REQUIRE(win.start + win.words <= row_words);
            REQUIRE(win.words <= row_pitch);
            std::memcpy(&sdata[static_cast<std::size_t>(r * row_pitch)],
                        &gw[static_cast<std::size_t>(first + r) * static_cast<std::size_t>(row_words) +
                            static_cast<std::size_t>(win.start)],
                        static_cast<std::size_t>(win.words) * 4);
            std::memcpy(&srec[static_cast<std::size_t>(r * rec.record)], rc, static_cast<std::size_t>(rec.record) * 4);
            // Every word a thread reads lies in the copied window.
            for (int j = 0; j < rec.record - tl::kRecordHeader; ++j) {
              const std::int32_t off = rc[tl::kRecordHeader + j];
              REQUIRE((off & ~tl::kReuseFlag) % 4 == 0);
              REQUIRE(off / 4 + tile - 1 < win.words);
              // Flags only with reuse, never on a thread's first DM, only in the reuse rows.
              if ((off & tl::kReuseFlag) != 0) {
                REQUIRE(sh.reuse != 0);
                REQUIRE(j % MD != 0);
                REQUIRE(first + r < rc[tl::kRecordReuseRows]);
              }
            }
          }
          // As the kernel: the block's reuse rows from its first record, clamped to this chunk.
          const int reuse_rows = std::clamp(
              rec.ints[static_cast<std::size_t>(b) * nk * static_cast<std::size_t>(rec.record) + tl::kRecordReuseRows] -
                  first,
              0, nrows);
          for (int ty = 0; ty < sh.threads_dm; ++ty) {
            for (int tx = 0; tx < sh.threads_time; ++tx) {
              auto& a = acc[static_cast<std::size_t>(ty * sh.threads_time + tx)];
              const std::int32_t* offsets = srec.data() + tl::kRecordHeader;
              if (sh.reuse == 1) {
                a.template add_rows<1>(sdata.data(), row_pitch, offsets, rec.record, ty * MD, nrows,
                                       tl::tile_word(tx, 0, T), flush, reuse_rows);
              } else if (sh.reuse == 2) {
                a.template add_rows<2>(sdata.data(), row_pitch, offsets, rec.record, ty * MD, nrows,
                                       tl::tile_word(tx, 0, T), flush, reuse_rows);
              } else {
                a.add_rows(sdata.data(), row_pitch, offsets, rec.record, ty * MD, nrows, tl::tile_word(tx, 0, T),
                           flush);
              }
            }
          }
        }
        for (int ty = 0; ty < sh.threads_dm; ++ty) {
          for (int tx = 0; tx < sh.threads_time; ++tx) {
            auto& a = acc[static_cast<std::size_t>(ty * sh.threads_time + tx)];
            if (P::kFlushes) a.flush_all();
            for (int j = 0; j < MD; ++j) {
              const int m = b * sh.threads_dm * MD + ty * MD + j;
              if (m >= static_cast<int>(plan.ndms())) continue;
              for (int k = 0; k < T; ++k) {
                const std::int64_t u = u0 + tl::tile_word(tx, k, T);
                if (u >= q) continue;
                for (int lane = 0; lane < P::kLanes; ++lane) {
                  const std::int64_t tt = lane * q + u;
                  if (tt >= nout) continue;
                  const std::size_t at = static_cast<std::size_t>(m) * n_out + static_cast<std::size_t>(tt);
                  if constexpr (P::kIsFloat) {
                    out[at] = static_cast<float>(a.total[j][k].v);
                  } else {
                    out[at] = tl::integer_output(P::lane_sum(a.total[j][k], a.part[j][k], lane), signed_offset);
                  }
                  ++writes[at];
                }
              }
            }
          }
        }
      }
    }
    REQUIRE(std::all_of(writes.begin(), writes.end(), [](int w) { return w == 1; }));
    return out;
  }

  // The subband kernel over every (time tile, DM block) of a gulp: staging with poison past each
  // copied window, phase A into a poisoned Y buffer, phase B per thread, as the kernel does.
  template <int G>
  void subband_tiles(const std::vector<std::uint32_t>& gw, std::int64_t row_words, std::int64_t q, std::int64_t nout,
                     std::int64_t tiles, std::vector<float>& out, std::vector<int>& writes) {
    const int tile = sh.threads_time * T;
    const int dms_per_block = sh.threads_dm * MD;
    const sb::UnitRecords ur =
        sb::make_unit_records(plan.delays, plan.ndms(), plan.nchans(), kept, dms_per_block, G, tile);
    const int nkept = static_cast<int>(kept.size());
    REQUIRE(ur.units == (nkept + G - 1) / G);
    const int pitch = tl::row_pitch_words(tile, ur.max_span);
    const int U = std::max(1, sh.chans_per_stage / G);
    const int dm_entry = sb::dm_entry(G, ur.max_patterns);
    REQUIRE(dm_entry % 4 == 0);
    REQUIRE(ur.record % 4 == 0);
    const auto n_out = static_cast<std::size_t>(nout);
    std::vector<std::uint32_t> rows(static_cast<std::size_t>(U * G * pitch));
    std::vector<std::int32_t> srec(static_cast<std::size_t>(U * ur.record));
    std::vector<std::uint32_t> ybuf(static_cast<std::size_t>(U) * 2 * static_cast<std::size_t>(ur.y_pitch));
    const std::vector<std::uint32_t> zero_row(static_cast<std::size_t>(pitch), 0);
    const int nthreads = sh.threads_time * sh.threads_dm;
    for (std::int64_t t = 0; t < tiles; ++t) {
      const std::int64_t u0 = t * tile;
      for (int b = 0; b < ur.blocks; ++b) {
        std::vector<sb::ThreadTile<T, MD>> acc(static_cast<std::size_t>(nthreads));
        for (int first = 0; first < ur.units; first += U) {
          const int nu = std::min(U, ur.units - first);
          for (auto& w : rows) w = static_cast<std::uint32_t>(poison());
          for (auto& w : ybuf) w = static_cast<std::uint32_t>(poison());
          std::memcpy(srec.data(), ur.ints.data() + (static_cast<std::size_t>(b) * ur.units + first) * ur.record,
                      static_cast<std::size_t>(nu * ur.record) * 4);
          std::vector<int> window_words(static_cast<std::size_t>(U * G), 0);
          for (int r = 0; r < nu * G && first * G + r < nkept; ++r) {
            const std::int32_t* rc = srec.data() + (r / G) * ur.record;
            const tl::RowWindow win =
                tl::row_window(u0, rc[sb::chan_entry(r % G)], rc[sb::chan_entry(r % G) + 1], tile);
            REQUIRE(win.start % 4 == 0);
            REQUIRE(win.start >= 0);
            REQUIRE(win.start + win.words <= row_words);
            REQUIRE(win.words <= pitch);
            std::memcpy(&rows[static_cast<std::size_t>(r * pitch)],
                        &gw[static_cast<std::size_t>(first * G + r) * static_cast<std::size_t>(row_words) +
                            static_cast<std::size_t>(win.start)],
                        static_cast<std::size_t>(win.words) * 4);
            window_words[static_cast<std::size_t>(r)] = win.words;
          }
          // Phase A: every pattern row of every unit; its reads lie in the copied windows.
          for (int uu = 0; uu < nu; ++uu) {
            const std::int32_t* rc = srec.data() + uu * ur.record;
            const int nch = sb::unit_channels(first + uu, G, nkept);
            REQUIRE(rc[0] <= ur.max_patterns);
            REQUIRE(rc[1] <= ur.y_pitch);
            for (int pat = 0; pat < rc[0]; ++pat) {
              const std::int32_t* e = rc + sb::pattern_entry(G, pat);
              REQUIRE(e[0] + e[1] <= rc[1]);
              for (int g = 0; g < nch; ++g) {
                REQUIRE(e[2 + g] >= 0);
                REQUIRE(e[2 + g] + e[1] <= window_words[static_cast<std::size_t>(uu * G + g)]);
              }
              const std::uint32_t* row[G];
              sb::pattern_rows<G>(rows.data() + uu * G * pitch, pitch, e, nch, zero_row.data(), row);
              for (int i = 0; i < e[1]; ++i) {
                REQUIRE(e[1] <= pitch);  // the zero row's length
                std::uint32_t all = 0, hi = 0;
                sb::build_position<G>(row, i, all, hi);
                const std::size_t at = static_cast<std::size_t>(uu) * 2 * static_cast<std::size_t>(ur.y_pitch) +
                                       2 * static_cast<std::size_t>(e[0] + i);
                ybuf[at] = all;
                ybuf[at + 1] = hi;
              }
            }
            // Phase B's reads: within the unit's Y positions.
            for (int j = 0; j < dms_per_block; ++j) {
              const std::int32_t o = rc[dm_entry + j];
              REQUIRE(o % 8 == 0);
              REQUIRE(o / 8 + tile <= rc[1]);
            }
          }
          for (int ty = 0; ty < sh.threads_dm; ++ty) {
            for (int tx = 0; tx < sh.threads_time; ++tx) {
              acc[static_cast<std::size_t>(ty * sh.threads_time + tx)].template add_stage<G>(
                  ybuf.data(), ur.y_pitch, srec.data(), ur.record, dm_entry, ty * MD, first, nu, nkept,
                  tl::tile_word(tx, 0, T), flush);
            }
          }
        }
        for (int ty = 0; ty < sh.threads_dm; ++ty) {
          for (int tx = 0; tx < sh.threads_time; ++tx) {
            auto& a = acc[static_cast<std::size_t>(ty * sh.threads_time + tx)];
            a.flush_all();
            for (int j = 0; j < MD; ++j) {
              const int m = b * dms_per_block + ty * MD + j;
              if (m >= static_cast<int>(plan.ndms())) continue;
              for (int k = 0; k < T; ++k) {
                const std::int64_t u = u0 + tl::tile_word(tx, k, T);
                if (u >= q) continue;
                for (int lane = 0; lane < 4; ++lane) {
                  const std::int64_t tt = lane * q + u;
                  if (tt >= nout) continue;
                  const std::size_t at = static_cast<std::size_t>(m) * n_out + static_cast<std::size_t>(tt);
                  out[at] = tl::integer_output(a.total[j][k].v[lane], signed_offset);
                  ++writes[at];
                }
              }
            }
          }
        }
      }
    }
  }
};

// Streams nin samples in gulps of `gulp_in` input samples (then zeros, as flush() does) through
// the emulator and compares the whole output with the reference.
template <class P, int T, int MD>
void emulate_and_check(const DedispPlan& plan, EmuShape sh, std::size_t nin, std::size_t gulp_in, std::uint64_t seed) {
  CAPTURE(seed);
  CAPTURE(sh.lanes);
  CAPTURE(T);
  CAPTURE(MD);
  CAPTURE(sh.threads_time);
  CAPTURE(sh.threads_dm);
  CAPTURE(sh.chans_per_stage);
  CAPTURE(sh.flush);
  CAPTURE(sh.subband);
  CAPTURE(sh.reuse);
  CAPTURE(plan.problem.input.nbits);
  CAPTURE(plan.downsample());
  CAPTURE(gulp_in);
  std::mt19937_64 rng(seed);
  const auto packed = test::random_packed(plan, nin, rng, seed % 2 == 0);
  std::vector<float> x(nin * static_cast<std::size_t>(plan.nchans()));
  unpack_to_float(packed.data(), x.data(), x.size(), plan.problem.input.nbits, plan.problem.input.is_signed);
  Emulator<P, T, MD> emu(plan, sh);
  const std::size_t D = static_cast<std::size_t>(plan.downsample());
  const std::size_t gulp_ds = std::max<std::size_t>(1, gulp_in / D);
  const std::size_t nout_total = test::stream_nout(plan, nin);
  std::vector<float> all(plan.ndms() * nout_total, std::numeric_limits<float>::quiet_NaN());
  std::size_t produced = 0;
  auto append = [&](const std::vector<float>& o, std::size_t n) {
    REQUIRE(produced + n <= nout_total);
    for (std::size_t i = 0; i < plan.ndms(); ++i) {
      for (std::size_t t = 0; t < n; ++t) all[i * nout_total + produced + t] = o[i * n + t];
    }
    produced += n;
  };
  const std::size_t nds = nin / D;
  for (std::size_t s = 0; s < nds; s += gulp_ds) {
    const std::size_t n = std::min(gulp_ds, nds - s);
    std::vector<float> xg(x.begin() + static_cast<std::ptrdiff_t>(s * D * plan.nchans()),
                          x.begin() + static_cast<std::ptrdiff_t>((s + n) * D * plan.nchans()));
    std::size_t n_out = 0;
    const auto o = emu.gulp(xg, n, 0, n_out);
    append(o, n_out);
  }
  // flush(): zeros until the output reaches nds - min_dm_max_delay.
  std::int64_t zeros = static_cast<std::int64_t>(nout_total) > static_cast<std::int64_t>(produced)
                           ? plan.max_delay - plan.min_dm_max_delay
                           : 0;
  while (zeros > 0) {
    const auto z = std::min<std::int64_t>(zeros, static_cast<std::int64_t>(gulp_ds));
    zeros -= z;
    std::size_t n_out = 0;
    const auto o = emu.gulp({}, 0, static_cast<std::size_t>(z), n_out);
    append(o, n_out);
  }
  REQUIRE(produced == nout_total);
  test::check_against_reference(plan, packed, nin, all, nout_total);
}

template <class P>
void every_tile(const DedispPlan& plan, EmuShape sh, std::size_t nin, std::size_t gulp, std::uint64_t seed) {
  emulate_and_check<P, 1, 1>(plan, sh, nin, gulp, seed);
  emulate_and_check<P, 1, 8>(plan, sh, nin, gulp, seed + 1);
  emulate_and_check<P, 2, 2>(plan, sh, nin, gulp, seed + 2);
  emulate_and_check<P, 2, 4>(plan, sh, nin, gulp, seed + 3);
  emulate_and_check<P, 4, 1>(plan, sh, nin, gulp, seed + 4);
  emulate_and_check<P, 4, 8>(plan, sh, nin, gulp, seed + 5);
}

}  // namespace

TEST_CASE("cuda dedisp emulation: lane arithmetic recovers four 8-bit sums from two words") {
  std::mt19937_64 rng(test::fresh_seed());
  for (int trial = 0; trial < 200; ++trial) {
    tl::Lanes4::Partial p;
    tl::Lanes4::Total t;
    std::uint64_t want[4] = {0, 0, 0, 0};
    const int n = static_cast<int>(rng() % 258);  // up to the 8-bit capacity, 257
    for (int i = 0; i < n; ++i) {
      const auto w = static_cast<std::uint32_t>(rng());
      for (int b = 0; b < 4; ++b) want[b] += (w >> (8 * b)) & 0xFFU;
      tl::Lanes4::add(p, w);
    }
    tl::Lanes4::flush(t, p);
    for (int b = 0; b < 4; ++b) CHECK(t.v[b] == want[b]);
  }
  // The IMAD.HI form of the odd bytes is the same number.
  for (int trial = 0; trial < 1000; ++trial) {
    const auto w = static_cast<std::uint32_t>(rng());
    const auto acc = static_cast<std::uint32_t>(rng() & 0x7FFF7FFFU);
    CHECK(tl::Lanes4Mad::mad_hi(w & 0xFF00FF00U, 1U << 24, acc) == acc + tl::Lanes4::odd_bytes(w));
  }
  CHECK(tl::lane_flush_capacity(255) == 257);
  CHECK(tl::lane_flush_capacity(255 * 2) == 128);
  CHECK(tl::max_prepared_value(8, 3) == 765);
  CHECK(tl::max_prepared_value(1, 1) == 1);
}

TEST_CASE("cuda dedisp emulation: tile words, windows and records") {
  // Every (thread, item) of a block maps to a distinct word of the tile.
  for (int threads : {32, 64, 96}) {
    for (int items : {1, 2, 4}) {
      std::vector<int> hit(static_cast<std::size_t>(threads * items), 0);
      for (int tx = 0; tx < threads; ++tx) {
        for (int k = 0; k < items; ++k) ++hit[static_cast<std::size_t>(tl::tile_word(tx, k, items))];
      }
      CHECK(std::all_of(hit.begin(), hit.end(), [](int h) { return h == 1; }));
    }
  }
  const auto w = tl::row_window(64, 13, 5, 64);
  CHECK(w.start == 76);
  CHECK(w.words == 72);  // shift 1 + 64 + 5 = 70 -> 72
  CHECK(w.words <= tl::row_pitch_words(64, 5));
  test::DedispCase c;
  c.nchans = 7;
  c.dms = test::dm_range(5, 40.0);
  const DedispPlan plan = test::make_case_plan(c);
  std::vector<int> kept(7);
  for (int i = 0; i < 7; ++i) kept[static_cast<std::size_t>(i)] = i;
  const auto r = tl::make_block_records(plan.delays, plan.ndms(), plan.nchans(), kept, 2);
  CHECK(r.blocks == 3);
  for (std::size_t m = 0; m < plan.ndms(); ++m) {
    for (int k = 0; k < 7; ++k) {
      const auto* rc = r.ints.data() + ((m / 2) * 7 + static_cast<std::size_t>(k)) * static_cast<std::size_t>(r.record);
      const int d = rc[0] - (rc[0] & 3) + rc[tl::kRecordHeader + m % 2] / 4;
      CHECK(d == plan.delays[m * 7 + static_cast<std::size_t>(k)]);
      CHECK(rc[tl::kRecordHeader + m % 2] / 4 - (rc[0] & 3) <= rc[1]);
    }
  }
  // Reuse flags and reuse rows, on DMs close enough to share delays.
  c.dms = test::dm_range(40, 0.5);
  const DedispPlan close = test::make_case_plan(c);
  for (auto [dms_per_block, group] : {std::pair{8, 4}, {32, 8}, {40, 8}, {8, 0}}) {
    const auto rr = tl::make_block_records(close.delays, close.ndms(), close.nchans(), kept, dms_per_block, group);
    int flags = 0;
    for (int b = 0; b < rr.blocks; ++b) {
      const auto* block = rr.ints.data() + static_cast<std::size_t>(b) * 7 * static_cast<std::size_t>(rr.record);
      int last = -1;
      for (int k = 0; k < 7; ++k) {
        const auto* rc = block + static_cast<std::size_t>(k) * static_cast<std::size_t>(rr.record);
        CHECK(rc[tl::kRecordReuseRows] == block[tl::kRecordReuseRows]);
        for (int j = 0; j < dms_per_block; ++j) {
          const std::size_t dm = static_cast<std::size_t>(b * dms_per_block + j);
          if (dm >= close.ndms()) break;
          const std::int32_t off = rc[tl::kRecordHeader + j];
          CHECK(rc[0] - (rc[0] & 3) + (off & ~tl::kReuseFlag) / 4 ==
                close.delays[dm * 7 + static_cast<std::size_t>(k)]);
          const bool same = group > 0 && j % group != 0 &&
                            close.delays[dm * 7 + static_cast<std::size_t>(k)] ==
                                close.delays[(dm - 1) * 7 + static_cast<std::size_t>(k)];
          CHECK(((off & tl::kReuseFlag) != 0) == same);
          if (same) last = k;
          flags += same ? 1 : 0;
        }
      }
      CHECK(block[tl::kRecordReuseRows] == last + 1);
    }
    CHECK((flags > 0) == (group > 0));  // the case has words to reuse
  }
  // On several threads (contiguous ranges of blocks each): the same records and span, for block
  // counts below, at and above the thread count.
  for (auto [dms_per_block, group] : {std::pair{8, 4}, {3, 0}, {40, 8}, {1, 0}}) {
    const auto one = tl::make_block_records(close.delays, close.ndms(), close.nchans(), kept, dms_per_block, group);
    for (int threads : {2, 3, 7, 64}) {
      CAPTURE(dms_per_block);
      CAPTURE(threads);
      const auto many =
          tl::make_block_records(close.delays, close.ndms(), close.nchans(), kept, dms_per_block, group, threads);
      CHECK(many.ints == one.ints);
      CHECK(many.max_span == one.max_span);
      CHECK(many.blocks == one.blocks);
      CHECK(many.record == one.record);
    }
  }
}

TEST_CASE("cuda dedisp emulation: every block size's span from one read of the delay table") {
  // Random delays in no order (a plan's are monotonic in DM; the spans must not depend on it),
  // DM counts that leave partial blocks, a subset of the channels kept, sizes that nest and
  // sizes that do not, one thread and several: each span as the records report it.
  const std::uint64_t seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (std::size_t ndms : {std::size_t{1}, std::size_t{31}, std::size_t{32}, std::size_t{33}, std::size_t{517}}) {
    const int nchans = 1 + static_cast<int>(rng() % 40);
    std::vector<std::int32_t> delays(ndms * static_cast<std::size_t>(nchans));
    for (auto& d : delays) d = static_cast<std::int32_t>(rng() % 5000);
    std::vector<int> kept;
    for (int c = 0; c < nchans; ++c) {
      if (c == 0 || rng() % 4 != 0) kept.push_back(c);
    }
    const std::vector<int> sizes{32, 16, 8, 4, 2, 1, 12, 3, 64};
    for (int threads : {1, 3, 16}) {
      CAPTURE(ndms);
      CAPTURE(threads);
      const std::vector<int> spans = tl::max_block_spans(delays, ndms, nchans, kept, sizes, threads);
      REQUIRE(spans.size() == sizes.size());
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        CAPTURE(sizes[i]);
        const auto r = tl::make_block_records(delays, ndms, nchans, kept, sizes[i]);
        CHECK(spans[i] == r.max_span);
        CHECK(tl::max_block_span(delays, ndms, nchans, kept, sizes[i]) == r.max_span);
      }
    }
  }
}

TEST_CASE("cuda dedisp emulation: 8-bit in four lanes, all thread tiles, streaming") {
  const std::uint64_t seed = test::fresh_seed();
  test::DedispCase c;
  c.nchans = 37;
  c.dms = test::dm_range(11, 25.0);
  const DedispPlan plan = test::make_case_plan(c);
  CAPTURE(plan.max_delay);
  every_tile<tl::Lanes4>(plan, EmuShape{4, false, 32, 2, 0, 0, 3, 0}, 700, 97, seed);
  every_tile<tl::Lanes4>(plan, EmuShape{4, false, 64, 1, 0, 0, 5, 0}, 700, static_cast<std::size_t>(plan.max_delay) + 1,
                         seed + 10);
  every_tile<tl::Lanes4>(plan, EmuShape{4, false, 32, 3, 0, 0, 2, 0}, 700, 700, seed + 20);
  every_tile<tl::Lanes4Mad>(plan, EmuShape{4, false, 32, 2, 0, 0, 3, 0}, 700, 97, seed + 30);
}

TEST_CASE("cuda dedisp emulation: DMs that share delays re-add the previous DM's words") {
  const std::uint64_t seed = test::fresh_seed();
  test::DedispCase c;
  c.nchans = 23;
  c.dms = test::dm_range(45, 1.5);  // many neighbours with the same delays, more so at the top
  const DedispPlan plan = test::make_case_plan(c);
  CAPTURE(plan.max_delay);
  for (int reuse : {1, 2}) {
    // Odd stage sizes put pairs across chunk ends; flush 1 and 3 take the single-row path.
    every_tile<tl::Lanes4>(plan, EmuShape{4, false, 32, 2, 0, 0, 3, 0, 0, reuse}, 600, 97, seed + 10 * reuse);
    every_tile<tl::Lanes4>(plan, EmuShape{4, false, 32, 3, 0, 0, 8, 0, 0, reuse}, 600, 600, seed + 10 * reuse + 6);
    emulate_and_check<tl::Lanes4, 4, 8>(plan, EmuShape{4, false, 32, 2, 4, 8, 5, 1, 0, reuse}, 400, 97, seed + 3);
    emulate_and_check<tl::Lanes4, 4, 4>(plan, EmuShape{4, false, 32, 1, 4, 4, 7, 3, 0, reuse}, 400, 97, seed + 4);
  }
  every_tile<tl::Lanes4Mad>(plan, EmuShape{4, false, 32, 2, 0, 0, 3, 0, 0, 1}, 600, 97, seed + 40);
  every_tile<tl::Lanes2>(plan, EmuShape{2, false, 32, 2, 0, 0, 4, 0, 0, 1}, 600, 97, seed + 50);
  every_tile<tl::Lanes1>(plan, EmuShape{1, false, 32, 2, 0, 0, 4, 0, 0, 1}, 600, 97, seed + 60);
  c.nbits = 32;
  const DedispPlan p32 = test::make_case_plan(c);
  every_tile<tl::LanesFloat>(p32, EmuShape{1, true, 32, 2, 0, 0, 3, 0, 0, 1}, 500, 89, seed + 70);
}

TEST_CASE("cuda dedisp emulation: lane flushes, signed input, masks, 1 channel, DM 0") {
  const std::uint64_t seed = test::fresh_seed();
  test::DedispCase c;
  c.nchans = 300;  // more than a 16-bit lane holds at 255 per channel
  c.dms = test::dm_range(3, 3.0);
  const DedispPlan plan = test::make_case_plan(c);
  for (int flush : {1, 2, 3, 0}) {
    emulate_and_check<tl::Lanes4, 2, 2>(plan, EmuShape{4, false, 32, 1, 2, 2, 16, flush}, 200, 64, seed + 2 * flush);
    emulate_and_check<tl::Lanes4Mad, 4, 2>(plan, EmuShape{4, false, 32, 1, 4, 2, 16, flush}, 200, 64, seed + 3);
    emulate_and_check<tl::Lanes2, 2, 2>(plan, EmuShape{2, false, 32, 1, 2, 2, 7, flush}, 200, 64, seed + 1);
  }
  c.is_signed = true;
  c.nchans = 33;
  c.keep.assign(33, 1);
  c.keep[0] = c.keep[5] = c.keep[32] = 0;
  c.dms = test::dm_range(6, 50.0);
  const DedispPlan signed_plan = test::make_case_plan(c);
  every_tile<tl::Lanes4>(signed_plan, EmuShape{4, false, 32, 2, 0, 0, 4, 0}, 600, 131, seed + 30);
  every_tile<tl::Lanes1>(signed_plan, EmuShape{1, false, 32, 2, 0, 0, 4, 0}, 600, 131, seed + 40);
  test::DedispCase one;
  one.nchans = 1;
  one.dms = {0.0};
  const DedispPlan one_plan = test::make_case_plan(one);
  every_tile<tl::Lanes4>(one_plan, EmuShape{4, false, 32, 1, 0, 0, 1, 0}, 150, 17, seed + 50);
}

TEST_CASE("cuda dedisp emulation: 1/2/4/16-bit input, downsampling, float input") {
  const std::uint64_t seed = test::fresh_seed();
  test::DedispCase c;
  c.dms = test::dm_range(9, 30.0);
  for (int nbits : {1, 2, 4}) {
    c.nbits = nbits;
    c.nchans = 24;
    for (int D : {1, 3}) {
      c.downsample = D;
      const DedispPlan plan = test::make_case_plan(c);
      every_tile<tl::Lanes4>(plan, EmuShape{4, false, 32, 2, 0, 0, 5, 0}, 500, 61, seed + 100 * nbits + D);
      emulate_and_check<tl::Lanes2, 2, 4>(plan, EmuShape{2, false, 32, 2, 2, 4, 5, 0}, 500, 61, seed + 7);
    }
  }
  c.nbits = 8;
  c.nchans = 19;
  for (int D : {2, 4}) {
    c.downsample = D;
    const DedispPlan plan = test::make_case_plan(c);
    every_tile<tl::Lanes2>(plan, EmuShape{2, false, 32, 2, 0, 0, 4, 0}, 800, 101, seed + 200 + D);
  }
  c.nbits = 16;
  c.downsample = 2;
  const DedispPlan p16 = test::make_case_plan(c);
  every_tile<tl::Lanes1>(p16, EmuShape{1, false, 32, 2, 0, 0, 3, 0}, 500, 89, seed + 300);
  c.nbits = 32;
  c.downsample = 1;
  const DedispPlan p32 = test::make_case_plan(c);
  every_tile<tl::LanesFloat>(p32, EmuShape{1, true, 32, 2, 0, 0, 3, 0}, 500, 89, seed + 400);
}

namespace {

// The subband kernel's compiled tiles (items_time x items_dm) for units of G channels.
void every_subband_tile(const DedispPlan& plan, EmuShape sh, std::size_t nin, std::size_t gulp, std::uint64_t seed) {
  emulate_and_check<tl::Lanes4, 2, 4>(plan, sh, nin, gulp, seed);
  emulate_and_check<tl::Lanes4, 4, 4>(plan, sh, nin, gulp, seed + 1);
  emulate_and_check<tl::Lanes4, 2, 8>(plan, sh, nin, gulp, seed + 2);
  emulate_and_check<tl::Lanes4, 4, 8>(plan, sh, nin, gulp, seed + 3);
}

}  // namespace

TEST_CASE("cuda dedisp emulation: subband kernel, units of 4, 8, 16 channels, streaming") {
  const std::uint64_t seed = test::fresh_seed();
  test::DedispCase c;
  c.nchans = 37;  // a short last unit for every G
  c.dms = test::dm_range(11, 25.0);
  const DedispPlan plan = test::make_case_plan(c);
  CAPTURE(plan.max_delay);
  for (int G : {4, 8, 16}) {
    // chans_per_stage below G (one unit per stage), G, and several units per stage.
    every_subband_tile(plan, EmuShape{4, false, 32, 2, 0, 0, 3, 0, G}, 700, 97, seed + static_cast<std::uint64_t>(G));
    every_subband_tile(plan, EmuShape{4, false, 64, 1, 0, 0, 2 * G, 0, G}, 700,
                       static_cast<std::size_t>(plan.max_delay) + 1, seed + 100 + static_cast<std::uint64_t>(G));
    every_subband_tile(plan, EmuShape{4, false, 32, 3, 0, 0, 3 * G, 0, G}, 700, 700, seed + 200 + G);
  }
  // Close DMs over a wide band (the regime the kernel is for): many DMs share each pattern.
  test::DedispCase w;
  w.nchans = 96;
  w.tsamp_s = 50e-6;
  w.fch1_mhz = 1720.0;
  w.foff_mhz = -300.0 / 96;
  w.dms = test::dm_range(70, 0.25);
  const DedispPlan wide = test::make_case_plan(w);
  CAPTURE(wide.max_delay);
  for (int G : {4, 8, 16}) {
    every_subband_tile(wide, EmuShape{4, false, 32, 4, 0, 0, 2 * G, 0, G}, 900, 333, seed + 300 + G);
  }
}

TEST_CASE("cuda dedisp emulation: subband kernel flushes, signed input, masks, low bit depths") {
  const std::uint64_t seed = test::fresh_seed();
  test::DedispCase c;
  c.nchans = 300;  // more than a 16-bit lane holds at 255 per channel
  c.dms = test::dm_range(5, 3.0);
  const DedispPlan plan = test::make_case_plan(c);
  for (int G : {4, 8, 16}) {
    for (int flush : {G, G + 1, 2 * G + 3, 0}) {
      emulate_and_check<tl::Lanes4, 2, 4>(plan, EmuShape{4, false, 32, 1, 2, 4, 4 * G, flush, G}, 200, 64,
                                          seed + static_cast<std::uint64_t>(flush));
    }
  }
  c.is_signed = true;
  c.nchans = 33;
  c.keep.assign(33, 1);
  c.keep[0] = c.keep[5] = c.keep[32] = 0;
  c.dms = test::dm_range(6, 50.0);
  const DedispPlan signed_plan = test::make_case_plan(c);
  every_subband_tile(signed_plan, EmuShape{4, false, 32, 2, 0, 0, 8, 0, 8}, 600, 131, seed + 30);
  test::DedispCase one;
  one.nchans = 1;
  one.dms = {0.0};
  const DedispPlan one_plan = test::make_case_plan(one);
  emulate_and_check<tl::Lanes4, 2, 4>(one_plan, EmuShape{4, false, 32, 1, 2, 4, 4, 0, 4}, 150, 17, seed + 50);
  test::DedispCase low;
  low.dms = test::dm_range(9, 30.0);
  low.nchans = 24;
  for (int nbits : {1, 2, 4}) {
    low.nbits = nbits;
    for (int D : {1, 3}) {
      low.downsample = D;
      const DedispPlan p = test::make_case_plan(low);
      emulate_and_check<tl::Lanes4, 4, 4>(
          p, EmuShape{4, false, 32, 2, 4, 4, 8, 0, 4}, 500, 61,
          seed + 100 * static_cast<std::uint64_t>(nbits) + static_cast<std::uint64_t>(D));
    }
  }
}
