// SPDX-License-Identifier: MIT
// The index and stage logic of the CUDA fused FIR + FFT kernel (ppf_fir_fft_kernel.cu), run on
// the CPU with the same host/device functions: the raw-input layout (every block's loads, the
// FIR threads' reads and their bank conflicts), the whole cluster FFT (16 decimated sequences,
// the blocks' Stockham FFTs emulated thread by thread, the combine stage over the blocks' k1
// ranges, the output channel order) against the double-precision DFT, and the transposed FIR's
// accumulator ring over batches of spectra.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <numbers>
#include <random>
#include <set>
#include <vector>

#include "../../../cuda/ppf/ppf_cluster_fft.hpp"
#include "support/reference_ppf.hpp"
#include "support/stockham_emulation.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;
using fastpsr::cuda::fft::Cf;
namespace ppf = fastpsr::cuda::ppf;

namespace {

std::vector<Cf> twiddle_table(unsigned n) {  // exp(+2πi·t/n), as the engine uploads it
  std::vector<Cf> tw(n);
  for (unsigned t = 0; t < n; ++t) {
    const double a = 2.0 * std::numbers::pi * t / n;
    tw[t] = {static_cast<float>(std::cos(a)), static_cast<float>(std::sin(a))};
  }
  return tw;
}

// One C = 16·M point transform as the cluster does it; out[j] is fine channel j of the row.
template <int LOG2M>
std::vector<Cf> cluster_fft(const std::vector<Cf>& y, bool descending, int npol, bool& layout_ok) {
  using Plan = fastpsr::cuda::fft::StockhamPlan<LOG2M, ppf::kClusterLog2R>;
  constexpr unsigned M = 1U << LOG2M;
  constexpr unsigned C = 16U * M;
  constexpr unsigned B = ppf::kClusterBlocks;
  const auto tw_c = twiddle_table(C);
  const auto tw_m = twiddle_table(M);
  // FIR threads: thread t of block b holds channel cluster_channel(b, t) = 16·n + s.
  std::vector<std::vector<Cf>> seq(16, std::vector<Cf>(M, Cf{std::nanf(""), 0.0F}));
  std::set<unsigned> channels;
  for (unsigned b = 0; b < B; ++b) {
    for (unsigned t = 0; t < 2 * M; ++t) {
      const unsigned c = ppf::cluster_channel(b, t, LOG2M);
      REQUIRE(c < C);
      channels.insert(c);
      const unsigned h = t / M;
      const unsigned n = t % M;
      CHECK(c == 16 * n + 8 * h + b);
      seq[b + 8 * h][n] = y[c];
    }
  }
  CHECK(channels.size() == C);
  // The blocks' Stockham FFTs (thread j holds x[j + m·T] in slot m), natural order out.
  std::vector<std::vector<Cf>> out_seq(16, std::vector<Cf>(M));
  for (unsigned s = 0; s < 16; ++s) {
    std::vector<std::array<Cf, Plan::R>> regs(Plan::T);
    for (int j = 0; j < Plan::T; ++j) {
      for (int m = 0; m < Plan::R; ++m)
        regs[static_cast<std::size_t>(j)][static_cast<std::size_t>(m)] =
            seq[s][static_cast<std::size_t>(j + m * Plan::T)];
    }
    test::Emulation e;
    e.re.assign(static_cast<std::size_t>(Plan::smem_floats()), 0.0F);
    e.im = e.re;
    e.writes.assign(e.re.size(), 0);
    test::run_passes<Plan, 0>(regs, tw_m, e);
    layout_ok = layout_ok && e.layout_ok;
    for (int j = 0; j < Plan::T; ++j) {
      for (int m = 0; m < Plan::R; ++m)
        out_seq[s][static_cast<std::size_t>(j + m * Plan::T)] =
            regs[static_cast<std::size_t>(j)][static_cast<std::size_t>(m)];
    }
  }
  // The combine: every (p, i, k1) once over the blocks' threads; spectrum 0, pol 0 computed.
  std::vector<Cf> out(C, Cf{std::nanf(""), std::nanf("")});
  std::set<unsigned> items;
  const unsigned S = static_cast<unsigned>(ppf::cluster_batch(npol));
  for (unsigned b = 0; b < B; ++b) {
    for (unsigned t = 0; t < 2 * M; ++t) {
      const auto it = ppf::combine_item(b, t, LOG2M, npol);
      REQUIRE(it.p < static_cast<unsigned>(npol));
      REQUIRE(it.i < S);
      REQUIRE(it.k1 < M);
      CHECK(it.k1 / (M / 8) == b);  // the block's own range of k1
      items.insert((it.p * S + it.i) * M + it.k1);
      if (it.p != 0 || it.i != 0) continue;
      Cf v[16];
      for (unsigned s = 0; s < 16; ++s) v[s] = out_seq[s][it.k1];
      ppf::cluster_combine(v, it.k1, tw_c.data());
      for (unsigned k2 = 0; k2 < 16; ++k2) out[ppf::ppf_output_channel(it.k1 + M * k2, C, descending)] = v[k2];
    }
  }
  CHECK(items.size() == static_cast<std::size_t>(npol) * S * M);
  return out;
}

template <int LOG2M>
void check_cluster_fft(std::mt19937_64& rng) {
  constexpr unsigned C = 16U << LOG2M;
  std::normal_distribution<double> g;
  for (bool descending : {false, true}) {
    for (int npol : {1, 2}) {
      CAPTURE(C);
      CAPTURE(descending);
      CAPTURE(npol);
      std::vector<Cf> y(C);
      std::vector<test::cd> yd(C);
      for (unsigned c = 0; c < C; ++c) {
        y[c] = {static_cast<float>(g(rng)), static_cast<float>(g(rng))};
        yd[c] = {y[c].re, y[c].im};
      }
      bool layout_ok = true;
      const auto got = cluster_fft<LOG2M>(y, descending, npol, layout_ok);
      CHECK(layout_ok);
      // ppf.hpp: fine channel j holds X[k(j)], k(j) = (j − h) mod C ascending, (C − 1 − j − h) mod C
      // descending, X the forward DFT.
      const auto x = test::naive_dft(yd);
      const unsigned h = C / 2;
      double err = 0.0;
      double scale = 0.0;
      for (unsigned j = 0; j < C; ++j) {
        const unsigned k = descending ? (2 * C - 1 - j - h) % C : (j + C - h) % C;
        err = std::max(err, std::abs(test::cd(got[j].re, got[j].im) - x[k]));  // NaN: unwritten
        scale = std::max(scale, std::abs(x[k]));
      }
      CHECK(err <= 1e-6 * scale);
    }
  }
}

// The raw input of one batch through the blocks' loads into their buffers, read back by the FIR
// threads; the worst bank conflict of a warp's read (distinct words of one bank, per owner).
template <int LOG2M>
void check_raw_layout(int log2vb, int npol) {
  constexpr unsigned M = 1U << LOG2M;
  constexpr unsigned C = 16U * M;
  const unsigned vb = 1U << log2vb;
  const unsigned S = static_cast<unsigned>(ppf::cluster_batch(npol));
  const unsigned per = ppf::raw_block_chunks(LOG2M, log2vb);
  CHECK(per * 16U * 8U == C * vb);  // the 8 blocks' shares make up the spectrum
  std::vector<std::uint8_t> global(static_cast<std::size_t>(S) * C * vb);
  for (std::size_t i = 0; i < global.size(); ++i) global[i] = static_cast<std::uint8_t>((i * 2654435761U) >> 13);
  std::vector<std::vector<std::uint8_t>> buf(8, std::vector<std::uint8_t>(static_cast<std::size_t>(S) * per * 16U));
  std::vector<std::vector<int>> written(8, std::vector<int>(static_cast<std::size_t>(S) * per, 0));
  for (unsigned q = 0; q < 8; ++q) {
    for (unsigned e = 0; e < S * per; ++e) {
      const auto l = ppf::raw_load(q, e, LOG2M, log2vb);
      REQUIRE(l.i < S);
      REQUIRE(l.w < per);
      REQUIRE(l.dst < S * per);
      ++written[q][l.dst];
      std::memcpy(&buf[q][l.dst * 16U], &global[(static_cast<std::size_t>(l.i) * C * vb) + (q * per + l.w) * 16U], 16);
    }
    for (int n : written[q]) CHECK(n == 1);
  }
  int worst = 0;
  for (unsigned b = 0; b < 8; ++b) {
    for (unsigned i = 0; i < S; ++i) {
      for (unsigned w0 = 0; w0 < 2 * M; w0 += 32) {
        std::vector<std::set<std::pair<unsigned, unsigned>>> bank(32);
        for (unsigned t = w0; t < w0 + 32; ++t) {
          const unsigned c = ppf::cluster_channel(b, t, LOG2M);
          const unsigned owner = ppf::raw_owner(t % M, LOG2M);
          const unsigned at = ppf::raw_sample_byte(b, t, i, LOG2M, log2vb);
          REQUIRE(owner < 8);
          REQUIRE(at + vb <= buf[owner].size());
          CHECK(at % vb == 0);
          CHECK(at == ppf::raw_sample_byte(b, t, 0, LOG2M, log2vb) + i * (per * 16U));  // the kernel's stride
          CHECK(std::memcmp(&buf[owner][at], &global[(static_cast<std::size_t>(i) * C + c) * vb], vb) == 0);
          for (unsigned word = at / 4; word < (at + vb + 3) / 4; ++word) bank[word % 32].insert({owner, word});
        }
        for (const auto& s : bank) worst = std::max(worst, static_cast<int>(s.size()));
      }
    }
  }
  CHECK(worst <= 4);  // 32 threads × 16-byte groups: 512 bytes, 4 wavefronts
}

}  // namespace

TEST_CASE("ppf cluster FFT: raw input layout, every block's loads and every FIR thread's reads") {
  for (int npol : {1, 2}) {
    for (int log2vb : {1, 2, 3, 4}) {
      CAPTURE(npol);
      CAPTURE(log2vb);
      check_raw_layout<6>(log2vb, npol);
      check_raw_layout<7>(log2vb, npol);
      check_raw_layout<8>(log2vb, npol);
    }
  }
}

TEST_CASE(
    "ppf cluster FFT: 16 sequences, the blocks' Stockham FFTs and the combine give the DFT in channel order, C = 1024, "
    "2048, 4096") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  check_cluster_fft<6>(rng);
  check_cluster_fft<7>(rng);
  check_cluster_fft<8>(rng);
}

namespace {

// A random FIR case of `ntaps` taps and n_out outputs (n_out + ntaps - 1 inputs).
struct FirCase {
  std::vector<float> w, x;
};
FirCase random_fir_case(std::mt19937_64& rng, int ntaps, int n_out) {
  std::normal_distribution<float> g;
  FirCase f;
  f.w.resize(static_cast<std::size_t>(ntaps));
  f.x.resize(static_cast<std::size_t>(n_out + ntaps - 1));
  for (auto& v : f.w) v = g(rng);
  for (auto& v : f.x) v = g(rng);
  return f;
}

// Checks every output against the register kernel's order: taps in increasing order, fused
// multiply-adds, so the kernels' schedules must give these bits exactly.
void check_register_order(const FirCase& f, const std::vector<float>& got) {
  const auto ntaps = f.w.size();
  for (std::size_t s = 0; s < got.size(); ++s) {
    float want = 0.0F;
    for (std::size_t t = 0; t < ntaps; ++t) want = std::fma(f.w[t], f.x[s + t], want);
    CAPTURE(s);
    CHECK(got[s] == want);
  }
}

}  // namespace

TEST_CASE("ppf cluster FFT: the transposed FIR's ring over batches gives every output, taps in order") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int npol : {1, 2}) {
    const int S = ppf::cluster_batch(npol);
    for (int ntaps : {4, 8, 16}) {
      for (int n_out : {1, 7, 8, 9, 40}) {
        CAPTURE(npol);
        CAPTURE(ntaps);
        CAPTURE(n_out);
        const int n_in = n_out + ntaps - 1;
        const FirCase f = random_fir_case(rng, ntaps, n_out);
        const auto& w = f.w;
        const auto& x = f.x;
        // The kernel's schedule: batches of S inputs (zeros past the end), ring offset (k·S) mod T.
        std::vector<float> acc(static_cast<std::size_t>(ntaps), 0.0F);
        std::vector<float> got(static_cast<std::size_t>(n_out), std::nanf(""));
        const int nbatch = (n_in + S - 1) / S;
        for (int k = 0; k < nbatch; ++k) {
          const int off = (k * S) % ntaps;
          CHECK((off == 0 || off == S));
          for (int i = 0; i < S; ++i) {
            const int r = k * S + i;
            const float xi = r < n_in ? x[static_cast<std::size_t>(r)] : 0.0F;
            for (int t = 0; t < ntaps; ++t) {
              auto& a = acc[static_cast<std::size_t>(ppf::fir_ring_slot(off + i, t, ntaps))];
              a = t == 0 ? w[0] * xi : std::fma(w[static_cast<std::size_t>(t)], xi, a);
            }
            const int s = r - (ntaps - 1);
            if (s >= 0 && s < n_out)
              got[static_cast<std::size_t>(s)] =
                  acc[static_cast<std::size_t>(ppf::fir_ring_slot(off + i + 1, 0, ntaps))];
          }
        }
        check_register_order(f, got);
      }
    }
  }
}

TEST_CASE("ppf cluster FFT: the lean FIR window over the ring of raw batches gives every output, taps in order") {
  const auto seed = test::fresh_seed();
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int npol : {1, 2}) {
    const int S = ppf::cluster_batch(npol);
    for (int ntaps : {4, 8, 16}) {
      const int nb = ppf::lean_ring_batches(ntaps, S);
      CHECK((nb - 1) * S >= ntaps - 1);  // the history fits behind the batch
      CHECK((nb - 2) * S < ntaps - 1);   // and no buffer more
      for (int n_out : {1, 7, 8, 9, 40}) {
        CAPTURE(npol);
        CAPTURE(ntaps);
        CAPTURE(n_out);
        const int n_in = n_out + ntaps - 1;
        const FirCase f = random_fir_case(rng, ntaps, n_out);
        const auto& w = f.w;
        const auto& x = f.x;
        // The kernel's schedule: batch 0 loaded first; FIR of batch k from the window, then
        // batch k + 1 loaded over buffer (k + 1) mod nb. The ring holds input indices (−1: never
        // loaded) so that every read is checked against the spectrum it must be.
        std::vector<int> ring(static_cast<std::size_t>(nb * S), -1);
        auto load = [&](int k) {
          for (int i = 0; i < S; ++i) ring[static_cast<std::size_t>((k % nb) * S + i)] = k * S + i;
        };
        std::vector<float> got(static_cast<std::size_t>(n_out), std::nanf(""));
        const int nbatch = (n_in + S - 1) / S;
        load(0);
        for (int k = 0; k < nbatch; ++k) {
          const int W = S + ntaps - 1;
          std::vector<float> acc(static_cast<std::size_t>(S), 0.0F);
          for (int j = 0; j < W; ++j) {
            const int m = -ppf::lean_window_batch(j, ntaps, S);
            const int i = ppf::lean_window_index(j, ntaps, S);
            REQUIRE(m >= 0);
            REQUIRE(m < nb);
            REQUIRE(i >= 0);
            REQUIRE(i < S);
            const int r = ring[static_cast<std::size_t>(((k + nb - m) % nb) * S + i)];
            const int want_r = k * S + j - (ntaps - 1);
            if (want_r >= 0) CHECK(r == want_r);  // before the first input: whatever, discarded
            const float xj = r >= 0 && r < n_in ? x[static_cast<std::size_t>(r)] : 0.0F;
            for (int t = 0; t < ntaps; ++t) {
              const int o = j - t;
              if (o < 0 || o >= S) continue;
              auto& a = acc[static_cast<std::size_t>(o)];
              a = t == 0 ? w[0] * xj : std::fma(w[static_cast<std::size_t>(t)], xj, a);
            }
          }
          for (int o = 0; o < S; ++o) {
            const int s = k * S + o - (ntaps - 1);
            if (s >= 0 && s < n_out) got[static_cast<std::size_t>(s)] = acc[static_cast<std::size_t>(o)];
          }
          if (k + 1 < nbatch) load(k + 1);
        }
        check_register_order(f, got);
      }
    }
  }
}
