// SPDX-License-Identifier: MIT
#pragma once
// The shared-memory Stockham FFT (cuda/common/stockham_fft.cuh) run on the CPU: the threads of
// one block are emulated pass by pass with the kernels' own butterflies, destinations and
// shared-memory padding; the bank conflicts of every warp's scattered writes and unit-stride
// reads are recorded. Used by the accel and ppf unit tests.
#include <algorithm>
#include <array>
#include <vector>

#include "../../cuda/common/stockham_fft.cuh"

namespace fastpsr::test {

using fastpsr::cuda::fft::Cf;

struct Emulation {
  std::vector<float> re, im;  // the shared arrays of one transform
  std::vector<int> writes;    // how often each shared word was written in a pass
  bool layout_ok = true;      // every write inside the array, a bijection, reads of written words
  int worst_write_conflict = 1;
  int worst_read_conflict = 1;
};

/// Largest number of distinct words of one warp's access that fall into the same bank.
inline int bank_conflict(const std::vector<int>& words) {
  int worst = 0;
  for (int bank = 0; bank < 32; ++bank) {
    std::vector<int> in_bank;
    for (int w : words) {
      if (w % 32 == bank) in_bank.push_back(w);
    }
    std::sort(in_bank.begin(), in_bank.end());
    in_bank.erase(std::unique(in_bank.begin(), in_bank.end()), in_bank.end());
    worst = std::max(worst, static_cast<int>(in_bank.size()));
  }
  return worst;
}

/// Runs passes Pass .. last on regs[j][m] = x[j + m T] (thread j, slot m); on return regs[j][m]
/// holds output j + m T. `e` must hold Plan::smem_floats() words in re, im and writes. Powers:
/// the twiddle powers come from the power table (twiddles as fill_stockham_twiddles makes them).
template <class Plan, int Pass, bool Powers = false>
void run_passes(std::vector<std::array<Cf, Plan::R>>& regs, const std::vector<Cf>& twiddles, Emulation& e) {
  constexpr int R = Plan::R;
  constexpr int T = Plan::T;
  for (int j = 0; j < T; ++j) {
    Cf v[1][R];
    for (int m = 0; m < R; ++m) v[0][m] = regs[static_cast<std::size_t>(j)][static_cast<std::size_t>(m)];
    fastpsr::cuda::fft::stockham_butterflies<Plan, Pass, 1, Powers>(v, j, twiddles.data());
    for (int m = 0; m < R; ++m) regs[static_cast<std::size_t>(j)][static_cast<std::size_t>(m)] = v[0][m];
  }
  if constexpr (Pass + 1 < Plan::passes) {
    constexpr int rp = 1 << Plan::radix_bits(Pass);
    constexpr int per = R / rp;
    std::fill(e.writes.begin(), e.writes.end(), 0);
    for (int i = 0; i < per; ++i) {
      for (int r = 0; r < rp; ++r) {
        for (int w0 = 0; w0 < T; w0 += 32) {
          std::vector<int> words;
          for (int j = w0; j < std::min(T, w0 + 32); ++j) {
            const int dest = fastpsr::cuda::fft::stockham_destination<Plan, Pass>(j + i * T, r);
            const int word = Plan::smem_index(Pass, dest);
            if (word < 0 || word >= Plan::smem_floats()) {
              e.layout_ok = false;
              continue;
            }
            ++e.writes[static_cast<std::size_t>(word)];
            const Cf x = regs[static_cast<std::size_t>(j)][static_cast<std::size_t>(i + r * per)];
            e.re[static_cast<std::size_t>(word)] = x.re;
            e.im[static_cast<std::size_t>(word)] = x.im;
            words.push_back(word);
          }
          e.worst_write_conflict = std::max(e.worst_write_conflict, bank_conflict(words));
        }
      }
    }
    int written = 0;
    for (int n : e.writes) {
      e.layout_ok = e.layout_ok && n <= 1;  // a bijection onto the padded array
      written += n;
    }
    e.layout_ok = e.layout_ok && written == Plan::M;
    for (int m = 0; m < R; ++m) {
      for (int w0 = 0; w0 < T; w0 += 32) {
        std::vector<int> words;
        for (int j = w0; j < std::min(T, w0 + 32); ++j) {
          const int word = Plan::smem_index(Pass, j + m * T);
          e.layout_ok = e.layout_ok && e.writes[static_cast<std::size_t>(word)] == 1;
          regs[static_cast<std::size_t>(j)][static_cast<std::size_t>(m)] = {e.re[static_cast<std::size_t>(word)],
                                                                            e.im[static_cast<std::size_t>(word)]};
          words.push_back(word);
        }
        e.worst_read_conflict = std::max(e.worst_read_conflict, bank_conflict(words));
      }
    }
    run_passes<Plan, Pass + 1, Powers>(regs, twiddles, e);
  }
}

}  // namespace fastpsr::test
