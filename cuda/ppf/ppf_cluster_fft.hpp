// SPDX-License-Identifier: MIT
#pragma once
/// The index logic of the fused FIR + FFT kernel (ppf_fir_fft_kernel.cu), written as host/device
/// functions so that the unit tests run the same arithmetic on the CPU (test_ppf_cluster_fft.cpp).
///
/// FFT split. A cluster of 8 blocks computes Z[k] = Σ_c y[c]·exp(+2πi·c·k/C) (the direction of
/// the Stockham FFT of common/stockham_fft.cuh; ppf_output_channel() turns it into the problem's
/// forward or inverse transform and its channel order). The C = 16·M points are decimated in time
/// into 16 sequences x_s[n] = y[16·n + s], n < M; block b holds sequences b and b + 8 and
/// transforms them (radix-16 Stockham passes, natural-order output Y_s[k1]). Then
///   Z[k1 + M·k2] = Σ_s exp(+2πi·s·k1/C) · exp(+2πi·s·k2/16) · Y_s[k1],   k1 < M, k2 < 16:
/// a twiddle and a 16-point DFT in registers per k1 that reads Y_s[k1] of every block of the
/// cluster (distributed shared memory); block b takes k1 in [b·M/8, (b + 1)·M/8).
///
/// Threads: a block has 2M threads. For the FIR, thread t filters channel
/// cluster_channel(b, t): sequence s = b + 8·(t / M), position n = t mod M. A batch holds
/// S = 16/P spectra, so it makes 32 transforms per block (spectrum i, sequence half h, pol p:
/// cluster_transform), one per M/16 threads in the Stockham FFT.
///
/// Raw input. Block q loads, for every spectrum of a batch, the channels whose position n lies in
/// [q·M/8, (q + 1)·M/8) (a contiguous 1/8 of the spectrum: 16-byte chunks, coalesced) into its
/// shared memory; the 8 channels 16·n + 8·h + (0..7) (a "group", the raw samples of one position
/// of the 8 blocks) lie together, their 16-byte chunks swizzled so that the FIR threads of a
/// warp (consecutive n) read them without bank conflicts beyond the minimum.
#include "../common/stockham_fft.cuh"

namespace fastpsr::cuda::ppf {

constexpr int kClusterBlocks = 8;       ///< blocks per cluster (the portable maximum)
constexpr int kClusterSeqs = 16;        ///< decimated sequences, 2 per block
constexpr int kClusterLog2R = 4;        ///< radix of the blocks' Stockham passes (16 points a thread)
constexpr int kClusterTransforms = 32;  ///< transforms per block per batch (2M threads / (M/16))

/// Spectra per batch (one cluster barrier each): 16 for one polarisation, 8 for two.
FASTPSR_HD constexpr int cluster_batch(int npol) { return 16 / npol; }

/// Channel of the FIR of thread t of block b (M = 2^log2m points per sequence).
FASTPSR_HD constexpr unsigned cluster_channel(unsigned b, unsigned t, int log2m) {
  return 16U * (t & ((1U << log2m) - 1U)) + 8U * (t >> log2m) + b;
}

/// The transform of a batch that spectrum i, sequence half h (sequence b + 8·h), polarisation p
/// go to.
FASTPSR_HD constexpr unsigned cluster_transform(unsigned i, unsigned h, unsigned p, int npol) {
  return (2U * i + h) * static_cast<unsigned>(npol) + p;
}

/// Floats per transform in the blocks' FFT buffer: the padded Stockham arrays (real parts, then
/// imaginary parts from offset Plan::smem_floats()), rounded up so that transform q starts at
/// bank q·T (T = M/16 threads per transform): the warps' unit-stride accesses to 32/T transforms
/// side by side are then free of conflicts.
template <class Plan>
FASTPSR_HD constexpr int cluster_transform_floats() {
  int n = 2 * Plan::smem_floats();
  while (n % 32 != Plan::T % 32) ++n;
  return n;
}

/// Where Z[k] goes in the output row of its coarse channel (fine channel j, ppf.hpp): the
/// problem's bin is X[k'] = Σ_c y[c]·exp(−2πi·k'·c/C) = Z[−k'], at j = (k' + h) mod C ascending,
/// j = (C − 1 − h − k') mod C descending (h = C/2).
FASTPSR_HD constexpr unsigned ppf_output_channel(unsigned k, unsigned c, bool descending) {
  const unsigned h = c / 2U;
  return descending ? (k + c - h - 1U) & (c - 1U) : (h + c - k) & (c - 1U);
}

/// Raw layout (all in 16-byte chunks). vb: bytes of one sample (2, 4, 8, 16), so a group of 8
/// channels is nch = vb/2 chunks. Positions per block: mq = M/8.
FASTPSR_HD constexpr unsigned raw_group_chunks(int log2vb) { return 1U << (log2vb - 1); }
/// The swizzle of position n's chunks: chunk u of the group lies at u ^ raw_key(n).
FASTPSR_HD constexpr unsigned raw_key(unsigned n, int log2vb) {
  return (n >> (4 - log2vb)) & (raw_group_chunks(log2vb) - 1U);
}
/// Chunk of (spectrum i, half h, position n, chunk u of the group) in the buffer of its owner
/// block raw_owner(n).
FASTPSR_HD constexpr unsigned raw_chunk(unsigned i, unsigned h, unsigned n, unsigned u, int log2m, int log2vb) {
  const unsigned mq = 1U << (log2m - 3);
  return ((2U * i + h) * mq + (n & (mq - 1U))) * raw_group_chunks(log2vb) + (u ^ raw_key(n, log2vb));
}
FASTPSR_HD constexpr unsigned raw_owner(unsigned n, int log2m) { return n >> (log2m - 3); }
/// Chunks of one spectrum a block loads (and holds): M/4 groups.
FASTPSR_HD constexpr unsigned raw_block_chunks(int log2m, int log2vb) {
  return (1U << (log2m - 2)) * raw_group_chunks(log2vb);
}
/// Block q's e-th chunk of a batch (e < S·raw_block_chunks): spectrum i, and w, the chunk's
/// index in the block's contiguous share of that spectrum (global chunk q·raw_block_chunks + w),
/// stored at raw_chunk(i, h, n, u).
struct RawLoad {
  unsigned i;
  unsigned w;
  unsigned dst;
};
FASTPSR_HD constexpr RawLoad raw_load(unsigned q, unsigned e, int log2m, int log2vb) {
  const unsigned per = raw_block_chunks(log2m, log2vb);
  const unsigned nch = raw_group_chunks(log2vb);
  const unsigned i = e / per;
  const unsigned w = e % per;
  const unsigned g = w / nch;  // group within the share: position q·M/8 + g/2, half g mod 2
  const unsigned u = w % nch;
  const unsigned n = q * (1U << (log2m - 3)) + g / 2U;
  return RawLoad{i, w, raw_chunk(i, g & 1U, n, u, log2m, log2vb)};
}
/// Byte offset of the sample of channel cluster_channel(b, t) of spectrum i in the owner's buffer.
FASTPSR_HD constexpr unsigned raw_sample_byte(unsigned b, unsigned t, unsigned i, int log2m, int log2vb) {
  const unsigned n = t & ((1U << log2m) - 1U);
  const unsigned h = t >> log2m;
  const unsigned byte = b << log2vb;  // within the group of 8 samples
  return raw_chunk(i, h, n, byte >> 4, log2m, log2vb) * 16U + (byte & 15U);
}

/// The combine stage's work item of thread t of block b: polarisation p, spectrum i of the
/// batch, bin k1.
struct CombineItem {
  unsigned p;
  unsigned i;
  unsigned k1;
};
FASTPSR_HD constexpr CombineItem combine_item(unsigned b, unsigned t, int log2m, int npol) {
  const unsigned rest = t / static_cast<unsigned>(npol);
  const unsigned mq = 1U << (log2m - 3);
  return CombineItem{t % static_cast<unsigned>(npol), rest / mq, b * mq + rest % mq};
}

/// The cluster's last stage for one k1: y[s] = Y_s[k1] on entry, Z[k1 + M·k2] in y[k2] on return.
/// `twiddle` is the C-point table exp(+2πi·t/C) (t = s·k1 < C).
FASTPSR_HD void cluster_combine(fft::Cf (&y)[16], unsigned k1, const fft::Cf* twiddle) {
  FASTPSR_UNROLL
  for (unsigned s = 1; s < 16; ++s) y[s] = fft::mul(y[s], fft::load_twiddle(twiddle, static_cast<int>(s * k1)));
  fft::idft<16>(y);
}

/// The lean kernel's raw ring: raw buffers of S spectra each, enough that a batch's FIR window
/// (its T − 1 spectra of history and its own S) is resident while nothing else is: 1 + ⌈(T−1)/S⌉.
FASTPSR_HD constexpr int lean_ring_batches(int ntaps, int s) { return 1 + (ntaps - 1 + s - 1) / s; }
/// The lean kernel's FIR window of batch k: position j < S + T − 1 is input spectrum k·S + d,
/// d = j − (T − 1), held in the ring buffer of batch k + lean_window_batch(j) (≤ 0) at spectrum
/// lean_window_index(j) of that buffer.
FASTPSR_HD constexpr int lean_window_batch(int j, int ntaps, int s) {
  return (j - (ntaps - 1) + s * ntaps) / s - ntaps;  // ⌊d / S⌋ (d ≥ −T·S)
}
FASTPSR_HD constexpr int lean_window_index(int j, int ntaps, int s) {
  return j - (ntaps - 1) - s * lean_window_batch(j, ntaps, s);
}

/// The transposed-form FIR's ring of T accumulators: input r (relative to the cluster's first
/// input spectrum) adds tap t to the accumulator of output r − t, slot (r − t) mod T; the slot
/// of output r − (T − 1) is complete after input r and is next reused by output r + 1.
FASTPSR_HD constexpr int fir_ring_slot(int r, int t, int ntaps) { return ((r - t) % ntaps + ntaps) % ntaps; }

}  // namespace fastpsr::cuda::ppf
