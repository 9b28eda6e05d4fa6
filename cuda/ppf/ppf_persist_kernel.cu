// SPDX-License-Identifier: MIT
// Complex output with the FIR and the FFT in one persistent launch (fft=persist; C = 4096, one
// polarisation, one coarse channel). The chunked path hands the filtered spectra from the FIR
// kernel to cuFFT through device memory (26 bytes a ci8 sample instead of 10), and smaller
// chunks that would stay in L2 lost to each kernel's ramp and tail (docs/PERFORMANCE.md, ppf).
// Here the grid is resident for the whole push. Its blocks run FIR items (producers) and FFT
// items (consumers), which meet in a ring of `nslots` slots of kSliceSpectra filtered spectra
// (a few tens of MB, so it stays in L2). Which block runs what:
//   - static (sched=static, the default): blocks [0, fir_blocks) the FIR items in turn, the
//     others the FFT items, each waiting at its item for the counter it needs. (Nsight Compute
//     put 29% of the stall samples in those waits: FIR blocks waiting for free slots, FFT blocks
//     for filled ones.)
//   - dynamic (sched=dynamic): every block holds a ticket of each kind and runs whichever is
//     ready first, an FFT item first (next_ready below), so the roles balance themselves; faster
//     at T = 8, slower at T = 16 (docs/PERFORMANCE.md).
// The items:
//   - a FIR item is (slice, group of 512 channels): it waits until the slot's previous slice has
//     been consumed, runs the register kernel's thread body (ppf_fir_register.cuh: 16 spectra,
//     two channels a thread) over the slice into the slot, and counts itself in filled[slot];
//   - an FFT item is one spectrum: it waits until all groups of its slice are in, reads the
//     spectrum from L2 (ld.global.cg: L1 is not coherent), runs the Stockham FFT of the fused
//     detection kernel (radix 16, 256 threads) and writes the output row, then counts itself in
//     consumed[slot].
// Counters only grow during a launch (generation g of a slot waits for g·kSliceSpectra
// consumed spectra, or (g + 1)·groups filled groups); every block of the grid must be resident
// at once (a cooperative launch of what the occupancy calculator allows: refused, not hung,
// where the GPU cannot hold them), and each role's items are taken in increasing order, so the
// earliest unfinished slice can always proceed.
#include "common/stockham_fft.cuh"
#include "ppf_fft_detect.hpp"
#include "ppf_fir_register.cuh"
#include "ppf_kernels.cuh"

namespace fastpsr::cuda::ppf {
namespace {

using fft::Cf;
using PersistPlan = fft::StockhamPlan<kPersistLog2C, 4>;  // 256 threads of 16 points
static_assert(PersistPlan::T == kPersistThreads);
constexpr int kChannels = 1 << kPersistLog2C;
static_assert(persist_groups(2) * kPersistThreads * 2 == kChannels);
static_assert(persist_groups(4) * kPersistThreads == kChannels);

__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v = 0;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Every thread of the block: returns once *counter >= target (thread 0 polls).
__device__ __forceinline__ void wait_at_least(const unsigned* counter, unsigned target) {
  if (threadIdx.x == 0) {
    while (load_acquire(counter) < target) __nanosleep(32);
  }
  __syncthreads();
}

// Every thread of the block, after writing a slot: the block's writes become visible (at GPU
// scope) before the count goes up. The barrier orders every thread's writes before thread 0's
// fence, which is cumulative (the pattern of cooperative groups' grid barrier); a fence in every
// thread made each wait for its own outstanding stores.
__device__ __forceinline__ void count_written(unsigned* counter) {
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    atomicAdd(counter, 1U);
  }
}

// Every thread of the block, after reading a slot: the values read are in registers, so the
// slot may be overwritten once every thread is past the barrier; no fence (the output stores
// need not be visible to anyone in this launch).
__device__ __forceinline__ void count_read(unsigned* counter) {
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(counter, 1U);
}

// One FIR item (slice, group of channels) into its ring slot, then counted in filled[slot]. The
// caller has seen the slot free (consumed[slot] >= gen * kSliceSpectra).
template <typename In, int T, int MINB>
__device__ __forceinline__ void fir_item(const PersistArgs& a, long long it) {
  constexpr int kPersistSb = persist_fir_spectra(MINB);
  constexpr int kPersistCpt = persist_fir_channels(MINB);
  constexpr int kGroups = persist_groups(MINB);
  using V = typename SampleVec<In, 1>::type;
  const long long slice = it / kGroups;
  const int group = static_cast<int>(it % kGroups);
  const int slot = static_cast<int>(slice % a.nslots);
  const long long s_begin = slice * kSliceSpectra;
  const int n = static_cast<int>(min(static_cast<long long>(kSliceSpectra), a.nspectra - s_begin));
  FirArgs f = a.fir;
  f.in = static_cast<const V*>(a.fir.in) + s_begin * kChannels;
  f.out = a.ring + static_cast<std::size_t>(slot) * kSliceSpectra * kChannels;
  f.nspectra = n;
  const int c = (group * kPersistThreads + static_cast<int>(threadIdx.x)) * kPersistCpt;
  for (int s0 = 0; s0 < n; s0 += kPersistSb) {
    const int nvalid = min(kPersistSb, n - s0);
    if (nvalid == kPersistSb) {
      fir_register_thread<In, 1, T, kPersistSb, kPersistCpt, true>(f, c, s0, nvalid);
    } else {
      fir_register_thread<In, 1, T, kPersistSb, kPersistCpt, false>(f, c, s0, nvalid);
    }
  }
  count_written(a.filled + slot);
}

// One FFT item (spectrum s) from its ring slot to its output row, then counted in
// consumed[slot]. The caller has seen the slice filled (filled[slot] >= (gen + 1) * groups).
__device__ __forceinline__ void fft_item(const PersistArgs& a, long long s, float* smem) {
  constexpr int R = PersistPlan::R;
  constexpr int TT = PersistPlan::T;
  const int j = static_cast<int>(threadIdx.x);
  const int slot = static_cast<int>((s / kSliceSpectra) % a.nslots);
  const float2* src =
      a.ring +
      (static_cast<std::size_t>(slot) * kSliceSpectra + static_cast<std::size_t>(s % kSliceSpectra)) * kChannels;
  Cf v[1][R];
#pragma unroll
  for (int m = 0; m < R; ++m) {
    const float2 x = __ldcg(src + j + m * TT);
    v[0][m] = stockham_input(x.x, x.y, a.inverse);
  }
  fft::stockham_inverse<PersistPlan, 0, 1>(v, smem, reinterpret_cast<const Cf*>(a.twiddle), j);
  float2* row = a.out + static_cast<std::size_t>(s) * kChannels;
#pragma unroll
  for (int m = 0; m < R; ++m) {
    // The forward DFT is conj(inverse(conj x)) (ppf_fft_detect.hpp).
    __stcs(row + j + m * TT, make_float2(v[0][m].re, a.inverse ? v[0][m].im : -v[0][m].im));
  }
  count_read(a.consumed + slot);
}

__device__ __forceinline__ unsigned load_relaxed(const unsigned* p) {
  unsigned v = 0;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Dynamic schedule, thread 0 of a block: holds at most one ticket of each kind (FFT: a spectrum,
// FIR: an item), taken in order by fetch-and-add on the kind's counter, and returns whichever
// held ticket is ready first, FFT first (it frees a slot), as s >= 0 for FFT spectrum s, -2 - it
// for FIR item it, -1 when no work is left. The roles so balance themselves. No deadlock: the
// oldest slice not yet consumed can always proceed (its FIR items are ready once claimed, as
// the slot's previous slice is consumed, and every block that holds a ticket of the other kind
// still claims them), and polls are relaxed loads that back off (an acquire load invalidates
// the SM's L1); one acquire fence once a ticket is seen ready. (Claiming only items seen ready,
// by compare-and-swap, serialised the grid on the counters' round trips: 36x slower.)
struct Tickets {  // plain (a __shared__ variable): start from kNoTickets
  long long fft;  ///< the FFT ticket held (a spectrum), or -1
  long long fir;  ///< the FIR ticket held (an item), or -1
  bool fft_left;  ///< FFT tickets not yet all taken
  bool fir_left;  ///< FIR tickets not yet all taken
};
constexpr Tickets kNoTickets = {-1, -1, true, true};

// `held` lives in shared memory, not in registers that would stay live through every item.
__device__ __forceinline__ long long next_ready(const PersistArgs& a, long long fir_items, int groups, Tickets& held) {
  Tickets t = held;
  unsigned sleep_ns = 32;
  for (;;) {
    if (t.fft < 0 && t.fft_left) {
      const unsigned f = atomicAdd(a.next + kPersistNextStride, 1U);
      t.fft_left = f < a.nspectra;
      if (t.fft_left) t.fft = f;
    }
    if (t.fft >= 0) {
      const long long slice = t.fft / kSliceSpectra;
      const auto gen = static_cast<unsigned>(slice / a.nslots);
      if (load_relaxed(a.filled + slice % a.nslots) >= (gen + 1U) * static_cast<unsigned>(groups)) {
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
        const long long s = t.fft;
        t.fft = -1;
        held = t;
        return s;
      }
    }
    if (t.fir < 0 && t.fir_left) {
      const unsigned r = atomicAdd(a.next, 1U);
      t.fir_left = r < fir_items;
      if (t.fir_left) t.fir = r;
    }
    if (t.fir >= 0) {
      const long long slice = t.fir / groups;
      const auto gen = static_cast<unsigned>(slice / a.nslots);
      if (load_relaxed(a.consumed + slice % a.nslots) >= gen * static_cast<unsigned>(kSliceSpectra)) {
        asm volatile("fence.acq_rel.gpu;" ::: "memory");
        const long long it = t.fir;
        t.fir = -1;
        held = t;
        return -2 - it;
      }
    }
    if (t.fft < 0 && t.fir < 0) return -1;  // both kinds exhausted (held no longer matters)
    __nanosleep(sleep_ns);
    sleep_ns = min(2 * sleep_ns, 256U);
  }
}

// DYN: the dynamic schedule, else the static one (two kernels, so that neither's registers pay
// for the other's code: one kernel with both spilled 116 bytes at T = 16, four blocks an SM).
template <typename In, int T, int MINB, bool DYN>
__global__ void __launch_bounds__(kPersistThreads, MINB) ppf_persist_kernel(PersistArgs a) {
  constexpr int kGroups = persist_groups(MINB);
  extern __shared__ float smem[];
  const long long nslices = (static_cast<long long>(a.nspectra) + kSliceSpectra - 1) / kSliceSpectra;
  const long long fir_items = nslices * kGroups;
  if constexpr (DYN) {
    __shared__ long long claimed;
    __shared__ Tickets tickets;  // thread 0's
    if (threadIdx.x == 0) tickets = kNoTickets;
    for (;;) {
      if (threadIdx.x == 0) claimed = next_ready(a, fir_items, kGroups, tickets);
      __syncthreads();
      const long long c = claimed;  // rewritten only after the item's closing barrier (count_*)
      if (c == -1) return;
      if (c >= 0) {
        fft_item(a, c, smem);
      } else {
        fir_item<In, T, MINB>(a, -2 - c);
      }
    }
  } else {
    // Static schedule: blocks [0, fir_blocks) the FIR items in turn, the others the FFT items.
    if (static_cast<int>(blockIdx.x) < a.fir_blocks) {
      for (long long it = blockIdx.x; it < fir_items; it += a.fir_blocks) {
        const long long slice = it / kGroups;
        wait_at_least(a.consumed + slice % a.nslots,
                      static_cast<unsigned>(slice / a.nslots) * static_cast<unsigned>(kSliceSpectra));
        fir_item<In, T, MINB>(a, it);
      }
      return;
    }
    const int nfft = static_cast<int>(gridDim.x) - a.fir_blocks;
    for (long long s = static_cast<long long>(blockIdx.x) - a.fir_blocks; s < a.nspectra; s += nfft) {
      const long long slice = s / kSliceSpectra;
      wait_at_least(a.filled + slice % a.nslots,
                    (static_cast<unsigned>(slice / a.nslots) + 1U) * static_cast<unsigned>(kGroups));
      fft_item(a, s, smem);
    }
  }
}

template <typename In, int T, int MINB, bool DYN>
cudaError_t with_occupancy(int op, PersistArgs* a, int* blocks_per_sm, cudaStream_t stream) {
  constexpr auto kernel = ppf_persist_kernel<In, T, MINB, DYN>;
  const std::size_t smem = persist_shared_bytes();
  if (op == 0) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, kernel, kPersistThreads, smem);
  }
  // A cooperative launch: the driver starts every block at once or refuses the launch
  // (cudaErrorCooperativeLaunchTooLarge, e.g. on a GPU shared with other work), where a plain
  // launch of blocks that wait for each other could hang.
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(static_cast<unsigned>(a->fir_blocks + a->fft_blocks));
  cfg.blockDim = dim3(kPersistThreads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeCooperative;
  attr[0].val.cooperative = 1;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, *a);
}

template <typename In, int T, bool DYN>
cudaError_t with_schedule(int op, PersistArgs* a, int* blocks_per_sm, cudaStream_t stream) {
  switch (a->blocks_per_sm) {
    case 2:
      return with_occupancy<In, T, 2, DYN>(op, a, blocks_per_sm, stream);
    case 3:
      return with_occupancy<In, T, 3, DYN>(op, a, blocks_per_sm, stream);
    case 4:
      return with_occupancy<In, T, 4, DYN>(op, a, blocks_per_sm, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

template <typename In, int T>
cudaError_t with_taps(int op, PersistArgs* a, int* blocks_per_sm, cudaStream_t stream) {
  return a->dynamic ? with_schedule<In, T, true>(op, a, blocks_per_sm, stream)
                    : with_schedule<In, T, false>(op, a, blocks_per_sm, stream);
}

template <typename In>
cudaError_t with_type(int op, int ntaps, PersistArgs* a, int* blocks_per_sm, cudaStream_t stream) {
  switch (ntaps) {
    case 4:
      return with_taps<In, 4>(op, a, blocks_per_sm, stream);
    case 8:
      return with_taps<In, 8>(op, a, blocks_per_sm, stream);
    case 16:
      return with_taps<In, 16>(op, a, blocks_per_sm, stream);
    default:
      return cudaErrorInvalidValue;
  }
}

cudaError_t dispatch(int op, InType type, int ntaps, PersistArgs* a, int* blocks_per_sm, cudaStream_t stream) {
  switch (type) {
    case InType::ci8:
      return with_type<std::int8_t>(op, ntaps, a, blocks_per_sm, stream);
    case InType::ci16:
      return with_type<std::int16_t>(op, ntaps, a, blocks_per_sm, stream);
    case InType::cf32:
      return with_type<float>(op, ntaps, a, blocks_per_sm, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace

bool persist_supports(int nchans, int ntaps, int npol, int ncoarse) {
  return nchans == kChannels && (ntaps == 4 || ntaps == 8 || ntaps == 16) && npol == 1 && ncoarse == 1;
}

std::size_t persist_shared_bytes() { return 2 * static_cast<std::size_t>(PersistPlan::smem_floats()) * sizeof(float); }

cudaError_t persist_blocks_per_sm(InType type, int ntaps, int wanted, bool dynamic, int* blocks_per_sm) {
  PersistArgs a;
  a.blocks_per_sm = wanted;
  a.dynamic = dynamic;
  return dispatch(0, type, ntaps, &a, blocks_per_sm, nullptr);
}

cudaError_t launch_persist(const PersistArgs& a, InType type, int ntaps, cudaStream_t stream) {
  if (a.nspectra <= 0) return cudaSuccess;
  PersistArgs copy = a;
  return dispatch(1, type, ntaps, &copy, nullptr, stream);
}

}  // namespace fastpsr::cuda::ppf
