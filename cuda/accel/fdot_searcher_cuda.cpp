// SPDX-License-Identifier: MIT
// Host orchestration of the CUDA acceleration searcher: memory plan, templates, streams, the
// per-group pipeline (upload of group g+1 overlaps the search of group g) and hit delivery with
// the overflow fallback. Kernels are in the .cu files beside it (accel_kernels.hpp).
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#include "accel/accel_kernels.hpp"
#include "accel/cufft_plan.hpp"
#include "common/cuda_memory.hpp"
#include "common/stockham_fft.cuh"
#include "fastpsr/accel_layout.hpp"
#include "fastpsr/accel_plane_windows.hpp"
#include "fastpsr/cuda/accel_cuda.hpp"
#include "fastpsr/cuda/runtime.hpp"

namespace fastpsr::cuda {
namespace {

using namespace accel;
using Clock = std::chrono::steady_clock;

constexpr int kCustomMaxPoints = 8192;  // largest transform the custom kernels are built for
constexpr int kCustomAutoPoints = 4096;
// plane=f16bound's (segment, pair) tasks are marked in a host table of one byte each.
constexpr std::int64_t kRescoreMaxTasks = std::int64_t{1} << 27;
// plane=auto takes f16 bounds from this zmax (below it f32: see the choice in the constructor).
constexpr int kBoundPlaneMinZmax = 100;
constexpr int kCufftMaxPoints = 32768;
constexpr int kCufftAutoPoints = 4096;
constexpr std::size_t kProductBudget = std::size_t{512} << 20;
constexpr std::size_t kBatchPlaneBudget = std::size_t{256} << 20;
// Peak memory bandwidth an SM from which the pipe kernel's f32 tiles default to 4 rows.
constexpr double kWideBandwidthBytesPerSm = 30e9;
// The block search's widths are whole chunks of rk (as the CPU backend's).
constexpr std::int64_t kBlockChunk = std::int64_t{1} << 14;
// Plane values: term windows start and their rows are padded at this alignment (256 bytes of
// f32), so that every view keeps the plane's 16-byte bulk-copy alignment (TermView).
constexpr long long kWindowAlign = 64;

long long round_up(long long v, long long to) { return (v + to - 1) / to * to; }

// A window of the block search: whole segments [s_lo, s_hi] of template pairs 0 .. pairs - 1
// (plane rows center - pairs + 1 .. center + pairs - 1), serving the terms in `terms`.
struct BlockWindow {
  long long s_lo = 0;
  long long s_hi = 0;
  int pairs = 0;
  std::vector<int> terms;
  [[nodiscard]] long long col0(long long seg_cols) const { return s_lo * seg_cols / kWindowAlign * kWindowAlign; }
  [[nodiscard]] long long pitch(long long seg_cols) const {
    return round_up((s_hi + 1) * seg_cols - col0(seg_cols), kWindowAlign);
  }
  /// Plane values it takes (and, near enough, what correlating it costs).
  [[nodiscard]] long long values(long long seg_cols) const {
    return round_up(static_cast<long long>(2 * pairs - 1) * pitch(seg_cols), kWindowAlign);
  }
};

// Merges windows into their bounding box wherever that takes no more values than the two apart
// (wide blocks: the windows of h/H near 1 overlap the highest harmonic's), the pair that saves
// most first, so that overlapping terms share one correlation. Every term's window stays inside
// the window that serves it, so the sums read the same values.
void merge_windows(std::vector<BlockWindow>& windows, long long seg_cols) {
  for (;;) {
    long long best_saving = -1;
    std::size_t bi = 0;
    std::size_t bj = 0;
    for (std::size_t i = 0; i < windows.size(); ++i) {
      for (std::size_t j = i + 1; j < windows.size(); ++j) {
        BlockWindow box;
        box.s_lo = std::min(windows[i].s_lo, windows[j].s_lo);
        box.s_hi = std::max(windows[i].s_hi, windows[j].s_hi);
        box.pairs = std::max(windows[i].pairs, windows[j].pairs);
        const long long saving = windows[i].values(seg_cols) + windows[j].values(seg_cols) - box.values(seg_cols);
        if (saving > best_saving) {
          best_saving = saving;
          bi = i;
          bj = j;
        }
      }
    }
    if (best_saving < 0) return;
    BlockWindow& a = windows[bi];
    const BlockWindow& b = windows[bj];
    a.s_lo = std::min(a.s_lo, b.s_lo);
    a.s_hi = std::max(a.s_hi, b.s_hi);
    a.pairs = std::max(a.pairs, b.pairs);
    a.terms.insert(a.terms.end(), b.terms.begin(), b.terms.end());
    windows.erase(windows.begin() + static_cast<std::ptrdiff_t>(bj));
  }
}

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double gib(double bytes) { return bytes / (1024.0 * 1024.0 * 1024.0); }

// The shared-memory layout of the tiled harmonic-sum kernel (accel_kernels.hpp's TiledLayout):
// a term's window has at most floor((threads - 1) h/H) + 2 columns, and as many rows as the
// sub-harmonic rows of the widest band of `rows` z.
// The most sub-harmonic rows that term t's window needs for any band of `rows` z (sub_zi is
// monotonic in z, so a band's rows run from its first z's to its last z's).
int widest_band_rows(const std::vector<std::int32_t>& sub_zi, int numz, int t, int rows) {
  const std::int32_t* of_z = sub_zi.data() + static_cast<std::size_t>(t) * static_cast<std::size_t>(numz);
  int widest = 0;
  for (int z0 = 0; z0 < numz; z0 += rows) widest = std::max(widest, of_z[std::min(z0 + rows, numz) - 1] - of_z[z0] + 1);
  return widest;
}

TiledLayout tiled_layout(const std::vector<std::int32_t>& sub_zi, int numz, int stages, int threads, int rows) {
  TiledLayout layout;
  int t = 0;
  for (int s = 1; s < stages; ++s) {
    const int H = 1 << s;
    for (int h = 1; h < H; h += 2, ++t) {
      const int widest = widest_band_rows(sub_zi, numz, t, rows);
      layout.offset[t + 1] = layout.offset[t] + ((threads - 1) * h / H + 2) * widest;
    }
  }
  return layout;
}

// The layout of the pipe kernel's buffers (accel_kernels.hpp's PipeLayout): the tiled layout with
// each row's pitch rounded for 16-byte aligned bulk copies, and the count of window rows.
PipeLayout pipe_layout(const std::vector<std::int32_t>& sub_zi, int numz, int stages, int threads, int step, int rows,
                       PlaneFormat format) {
  PipeLayout layout;
  int t = 0;
  for (int s = 1; s < stages; ++s) {
    const int H = 1 << s;
    for (int h = 1; h < H; h += 2, ++t) {
      const int widest = widest_band_rows(sub_zi, numz, t, rows);
      layout.offset[t + 1] = layout.offset[t] + pipe_window_pitch(threads, step, h, s, format) * widest;
      layout.rows += widest;
    }
  }
  return layout;
}

// Makes the GPU current before any stream or event of the searcher is created (members are
// initialised in order); device_properties first, for its clear message about a missing GPU.
struct DeviceSelection {
  explicit DeviceSelection(int device) : props(device_properties(device)) { set_device(device); }
  DeviceProperties props;
};

class CudaSearcher final : public CudaFdotSearcher {
 public:
  CudaSearcher(const AccelSearchProblem& problem, const AccelSearchOptions& options, int device);

  [[nodiscard]] const AccelSearchProblem& problem() const noexcept override { return p_; }
  void search(std::span<const std::complex<float>> spectrum, const AccelPowerScale& scale,
              AccelHitSink& sink) override {
    FASTPSR_EXPECTS(static_cast<std::int64_t>(spectrum.size()) == p_.numbins,
                    "accel: the spectrum has {} bins, the plan {}", spectrum.size(), p_.numbins);
    AccelHitSink* sinks[1] = {&sink};
    search_batch(spectrum.data(), spectrum.size(), {&scale, 1}, sinks);
  }
  void search_batch(const std::complex<float>* spectra, std::size_t stride, std::span<const AccelPowerScale> scales,
                    std::span<AccelHitSink* const> sinks) override;
  void set_powcut(std::span<const float> powcut) override {
    FASTPSR_EXPECTS(powcut.size() == p_.powcut.size(), "accel: {} power thresholds for {} harmonic stages",
                    powcut.size(), p_.powcut.size());
    p_.powcut.assign(powcut.begin(), powcut.end());
    for (int s = 0; s < p_.stages(); ++s) hg_.powcut[s] = p_.powcut[static_cast<std::size_t>(s)];
  }
  [[nodiscard]] std::string describe() const override;
  [[nodiscard]] std::size_t host_bytes() const noexcept override {
    return staging_[0].bytes() + staging_[1].bytes() + counts_host_.bytes() + hits_host_.bytes() +
           rescore_tasks_host_.bytes() + rescore_power_host_.bytes() + rescore_seen_.size();
  }
  [[nodiscard]] std::size_t device_bytes() const noexcept override { return device_bytes_; }
  [[nodiscard]] AccelGpuSettings settings() const override { return s_; }
  [[nodiscard]] AccelGpuTimings last_timings() const override { return timings_; }
  [[nodiscard]] double modelled_bytes_per_spectrum() const override;
  /// rk a block of the block search; 0 when the whole plane is kept.
  [[nodiscard]] std::int64_t block_rk() const noexcept override { return block_rk_; }
  [[nodiscard]] double modelled_flops_per_spectrum() const override;
  std::vector<float> plane_for_test(std::span<const std::complex<float>> spectrum,
                                    const AccelPowerScale& scale) override;

 private:
  struct Group {
    std::size_t first = 0;  // index of its first spectrum in the call
    int count = 0;
    int slot = 0;   // staging and upload buffers (always two)
    int pslot = 0;  // plane, hits and counts (two with overlap=1, else one)
  };
  [[nodiscard]] std::size_t plane_value_bytes() const { return s_.plane == AccelPlaneStorage::f32 ? sizeof(float) : 2; }
  /// plane=f16bound: the plane holds upper bounds, and deliver() re-scores the hits exactly.
  [[nodiscard]] bool bound() const { return s_.plane == AccelPlaneStorage::f16_bound; }
  /// How the correlation stores the plane (the sums read format_).
  [[nodiscard]] PlaneFormat store_format() const { return bound() ? PlaneFormat::f16_bound : format_; }
  [[nodiscard]] std::size_t plane_bytes_per_spectrum() const {
    return static_cast<std::size_t>(p_.numz()) * static_cast<std::size_t>(os_.plane_cols) * plane_value_bytes();
  }
  [[nodiscard]] std::size_t slot_index(int pslot, int b) const {
    return static_cast<std::size_t>(pslot) * static_cast<std::size_t>(s_.batch) + static_cast<std::size_t>(b);
  }
  [[nodiscard]] char* plane_of(int pslot, int b) const {
    return plane_.get() + slot_index(pslot, b) * plane_bytes_per_spectrum();
  }
  [[nodiscard]] DeviceHit* hits_of(int pslot, int b) const { return hits_.get() + slot_index(pslot, b) * capacity_; }
  [[nodiscard]] unsigned long long* counts_of(int pslot, int b) const { return counts_.get() + slot_index(pslot, b); }
  /// Where the harmonic sums run: their own stream when overlapping, else the correlation's.
  [[nodiscard]] const Stream& sums_stream() const { return slots_ == 2 ? sums_ : compute_; }
  void choose_settings(const AccelSearchOptions& options, const DeviceProperties& props);
  void allocate(std::size_t free_bytes);
  void make_templates();
  [[nodiscard]] std::size_t block_window_values(std::int64_t width) const;
  [[nodiscard]] std::int64_t widest_block(std::size_t budget) const;
  [[nodiscard]] std::vector<BlockWindow> block_windows(std::int64_t a, std::int64_t b) const;
  void search_blocks(const Group& g, AccelHitSink& sink);
  void enqueue_segments(const Group& g);
  void upload(const std::complex<float>* spectra, std::size_t stride, std::span<const AccelPowerScale> scales,
              const Group& g);
  void enqueue_plane(const Group& g);
  void enqueue_harmonics(const Group& g);
  void launch_harmonics(const char* plane, const HarmonicGeometry& g, DeviceHit* hits, unsigned long long* counts,
                        int batch, cudaStream_t stream);
  void finish(const Group& g, std::span<AccelHitSink* const> sinks);
  std::uint64_t harmonics_range(int pslot, int b, std::int64_t rk_lo, std::int64_t rk_hi);
  void deliver(int pslot, int b, std::int64_t rk_lo, std::int64_t rk_hi, std::uint64_t count, AccelHitSink& sink);
  void search_in_halves(int pslot, int b, std::int64_t rk_lo, std::int64_t rk_hi, AccelHitSink& sink);
  void rescore(int pslot, int b, std::uint64_t count);
  void add_rescore_keys(const DeviceHit& h, std::vector<int>& keys) const;
  const CufftPlan& forward_plan(int spectra);
  const CufftPlan& inverse_plan(int rows);

  AccelSearchProblem p_;
  AccelGpuSettings s_;
  int device_ = 0;
  DeviceSelection selection_;
  AccelOverlapSave os_;
  CorrelateGeometry cg_;
  HarmonicGeometry hg_;
  PlaneFormat format_ = PlaneFormat::f32;
  int log2m_ = 0;
  int log2r_ = 0;
  /// Whether the custom FFT loads its twiddle powers (launch_correlate_custom).
  [[nodiscard]] bool fft_powers() const { return s_.fft_twiddles == AccelFftTwiddles::table; }
  std::uint64_t capacity_ = 0;  // hits per spectrum
  std::vector<std::int32_t> sub_zi_host_;
  TiledLayout tiled_layout_;  // hs=tiled
  PipeLayout pipe_layout_;    // hs=pipe
  std::size_t device_bytes_ = 0;
  // The block search (block_rk_ > 0): the plane_ buffer holds one block's term windows, and the
  // harmonic sums read them through block_hg_'s views.
  std::int64_t block_rk_ = 0;
  std::vector<SumTerm> terms_;  // term 0 the highest harmonic, then stage by stage (HarmonicGeometry::view)
  HarmonicGeometry block_hg_;
  double block_values_ = 0;    // plane values all blocks' windows take (the models)
  double block_row_segs_ = 0;  // rows x segments they correlate (the models)
  Event block_start_{true};
  Event block_plane_{true};
  Event block_done_{true};

  Stream compute_;
  Stream copy_;
  Stream sums_{Stream::high_priority()};  // harmonic sums with overlap=1
  Stream download_;                       // hit downloads and overflow re-searches
  int slots_ = 1;                         // plane slots: 2 with overlap=1
  DeviceBuffer<float2> spectra_[2];       // [batch][numbins], double-buffered between groups
  PinnedBuffer<std::complex<float>> staging_[2];
  DeviceBuffer<float2> segments_;   // [batch][nseg][M]
  DeviceBuffer<char> plane_;        // [slots][batch][numz][plane_cols] of f32 or f16
  DeviceBuffer<float2> templates_;  // [npairs][phases][M]
  DeviceBuffer<float2> twiddles_;   // exp(+2 pi i t / M)
  DeviceBuffer<int> sub_zi_;        // [term][numz]
  DeviceBuffer<DeviceHit> hits_;    // [slots][batch][capacity]
  DeviceBuffer<unsigned long long> counts_;
  PinnedBuffer<unsigned long long> counts_host_;
  PinnedBuffer<DeviceHit> hits_host_;
  DeviceBuffer<float2> products_;  // cufft path: [zchunk][phases][nseg][M]
  // Power-scale tables per slot: offsets [batch + 1] then starts (index), factors; and the scale
  // expanded to plane columns, [batch][plane_cols].
  PinnedBuffer<long long> scale_index_host_[2];
  PinnedBuffer<float> scale_factor_host_[2];
  DeviceBuffer<long long> scale_index_[2];
  DeviceBuffer<float> scale_factor_[2];
  DeviceBuffer<float> scale_cols_;
  std::map<int, CufftPlan> forward_plans_;
  std::map<int, CufftPlan> inverse_plans_;
  std::vector<AccelHit> delivered_;
  // plane=f16bound's exact re-scoring (deliver): the (segment, pair) tasks of a chunk of hits,
  // their float32 rows, and the hits' exact powers.
  std::vector<std::uint8_t> rescore_seen_;  // [segment * npairs + pair]: 0 outside rescore()
  std::vector<int> rescore_keys_;
  DeviceBuffer<int> rescore_tasks_;
  PinnedBuffer<int> rescore_tasks_host_;
  DeviceBuffer<float> rescore_rows_;  // [task][2][2 use]
  DeviceBuffer<float> rescore_power_;
  PinnedBuffer<float> rescore_power_host_;

  // Events: uploads per slot (timing), the slot's last reader, and the compute stages.
  Event upload_start_[2] = {Event(true), Event(true)};
  Event uploaded_[2] = {Event(true), Event(true)};
  Event gathered_[2];
  // Per plane slot: the stages' times, and t_done_ the slot's harmonic sums (and counts) done.
  Event t_start_[2] = {Event(true), Event(true)};
  Event t_segments_[2] = {Event(true), Event(true)};
  Event t_plane_[2] = {Event(true), Event(true)};
  Event t_sums_[2] = {Event(true), Event(true)};
  Event t_done_[2] = {Event(true), Event(true)};
  AccelGpuTimings timings_;
};

CudaSearcher::CudaSearcher(const AccelSearchProblem& problem, const AccelSearchOptions& options, int device)
    : p_(problem), s_(parse_accel_gpu_config(options.gpu_config)), device_(device), selection_(device) {
  validate(p_);
  FASTPSR_EXPECTS(p_.numbins <= (std::int64_t{1} << 29), "accel (GPU): at most 2^29 bins, the spectrum has {}",
                  p_.numbins);
  FASTPSR_EXPECTS(p_.numz() <= 32767, "accel (GPU): at most 32767 z values, zmax {} gives {}", p_.zmax, p_.numz());
  choose_settings(options, selection_.props);
  FASTPSR_EXPECTS(options.block_rk >= 0 && options.block_rk % kBlockChunk == 0,
                  "accel: the block search's width must be a positive multiple of {} rk, got {}", kBlockChunk,
                  options.block_rk);
  if (s_.block_rk == 0) s_.block_rk = options.block_rk;
  FASTPSR_EXPECTS(s_.block_rk == 0 || s_.path == AccelGpuPath::custom,
                  "--gpu-config block_rk: the block search runs on the custom path only (not path=cufft)");
  const auto [free_bytes, total_bytes] = memory_info();
  (void)total_bytes;
  allocate(free_bytes);
  make_templates();
}

void CudaSearcher::choose_settings(const AccelSearchOptions& options, const DeviceProperties& props) {
  const bool custom = s_.path == AccelGpuPath::custom;
  const int nb = p_.interp == AccelInterp::fourier ? 2 : 1;
  if (s_.fft_len == 0) s_.fft_len = options.fft_len;
  if (s_.fft_len == 0) {
    const int need = template_halfwidth(p_.zmax) * 4 + 4;  // smallest transform for zmax
    if (custom) {
      s_.fft_len = auto_accel_fft_len(p_, need <= kCustomAutoPoints ? kCustomAutoPoints : kCustomMaxPoints);
    } else {
      s_.fft_len = nb * std::max(kCufftAutoPoints, static_cast<int>(std::bit_ceil(static_cast<unsigned>(need))));
    }
  }
  os_ = make_accel_overlap_save(p_, s_.fft_len);  // checks power of two and the template width
  const int m = os_.fft_points;
  log2m_ = std::countr_zero(static_cast<unsigned>(m));
  // Fourier: radix 16 (two shared-memory exchanges instead of three for M = 2048) with the powers
  // loaded: 7.25 -> 5.64 ms for fdas-8m zmax 200 on the H100 (PERFORMANCE.md); below M = 1024 the
  // blocks of M / 16 threads are small. Interbinning measured best as before (radix 8, chain).
  const bool fourier = p_.interp == AccelInterp::fourier;
  if (s_.fft_radix == 0) s_.fft_radix = fourier && m >= 1024 ? 16 : 8;
  if (s_.fft_twiddles == AccelFftTwiddles::automatic) {
    s_.fft_twiddles = fourier ? AccelFftTwiddles::table : AccelFftTwiddles::chain;
  }
  log2r_ = std::countr_zero(static_cast<unsigned>(s_.fft_radix));
  if (custom) {
    FASTPSR_EXPECTS(m >= 128 && m <= kCustomMaxPoints,
                    "--gpu-config fft_len={}: the custom path transforms 128 to {} points, this is {}", s_.fft_len,
                    kCustomMaxPoints, m);
    const int threads = correlate_custom_threads(log2m_, log2r_);
    const std::size_t smem = correlate_custom_smem_bytes(log2m_, log2r_);
    FASTPSR_EXPECTS(threads > 0 && threads <= props.max_threads_per_block,
                    "--gpu-config fft_radix={}: {} threads per block for {}-point transforms, the device allows {}",
                    s_.fft_radix, threads, m, props.max_threads_per_block);
    FASTPSR_EXPECTS(smem <= props.shared_per_block_optin,
                    "--gpu-config fft_len={}: the custom kernel needs {} bytes of shared memory per block, the "
                    "device allows {}",
                    s_.fft_len, smem, props.shared_per_block_optin);
  } else {
    FASTPSR_EXPECTS(m >= 128 && m <= kCufftMaxPoints,
                    "--gpu-config fft_len={}: the cufft path transforms 128 to {} points, this is {}", s_.fft_len,
                    kCufftMaxPoints, m);
  }
  sub_zi_host_ = accel_sub_zi_table(p_);
  // auto: f16 bounds re-scored exactly (the f32 plane's hits with half its traffic and memory)
  // from zmax 100 wherever that runs: the custom path without overlap, with its tasks indexable.
  // Below zmax 100 the plane is small and the f32 sums (4-row tiles on an H200) and no re-scoring
  // win (H200, device ms a trial, f32 / f16bound: fdas-8m 16 harmonics zmax 0 0.30 / 0.72, 50
  // 4.29 / 4.46, 100 8.41 / 7.41; fdas-2m 16 harmonics zmax 50 1.11 / 1.46, 100 2.17 / 2.25, 200
  // 4.26 / 3.86; bench/results/h200-session16.md).
  const bool tasks_indexable = os_.nseg * os_.npairs <= kRescoreMaxTasks;
  if (s_.plane == AccelPlaneStorage::automatic) {
    s_.plane = custom && s_.overlap == 0 && tasks_indexable && p_.zmax >= kBoundPlaneMinZmax
                   ? AccelPlaneStorage::f16_bound
                   : AccelPlaneStorage::f32;
  }
  format_ = s_.plane == AccelPlaneStorage::f32 ? PlaneFormat::f32 : PlaneFormat::f16;
  // The re-scoring recomputes powers with the custom kernel, on the segments of the group whose
  // hits it delivers: with overlap=1 the next group's segments would already be there.
  FASTPSR_EXPECTS(!bound() || tasks_indexable,
                  "--gpu-config plane=f16bound: {} segments x {} template pairs are more (segment, pair) tasks than "
                  "the re-scoring indexes (2^27); use plane=f32 or plane=f16",
                  os_.nseg, os_.npairs);
  FASTPSR_EXPECTS(!bound() || (custom && s_.overlap == 0),
                  "--gpu-config plane=f16bound: needs path=custom and overlap=0 (the re-scoring recomputes powers "
                  "with the custom kernel from the delivered group's segments)");
  // The harmonic-sum kernel and, where hs_threads is not given, its tile width: pipe 256 rk (else
  // 128 or 64 where the windows of 256 do not fit), tiled and gather 128.
  const int given_threads = s_.hs_threads;
  const bool rows_given = s_.hs_rows != 0;
  // Rows of a tile, where not given: 16, but 4 for the pipe kernel on a float32 plane where the
  // GPU has at least 30 GB/s of peak memory bandwidth an SM (an H200: 36; an H100 80GB HBM3: 25).
  // There a 256 x 16 f32 tile's two window buffers (172 KiB) leave room for one block an SM, and
  // with bandwidth to spare more blocks win over the larger windows' fewer bytes. fdas-8m, zmax
  // 200, 16 harmonics, harmonic sums in ms for 16 / 8 / 4 rows (2026-11-27, bench/results/
  // h200-accel-hs-rows.md): H200 13.16 / 11.33 / 10.81-11.14 (interbinning 13.26 / 11.45 /
  // 10.86); H100 14.56 / 14.90 / 15.35. An f16 plane keeps 16 (H200 8.12 against 10.21 with 8).
  if (!rows_given) {
    const bool wide_bandwidth = props.peak_memory_bandwidth >= kWideBandwidthBytesPerSm * props.multiprocessors;
    s_.hs_rows = s_.hs != AccelHarmonicKernel::tiled && s_.hs != AccelHarmonicKernel::gather &&
                         format_ == PlaneFormat::f32 && wide_bandwidth
                     ? 4
                     : 16;
  }
  if (s_.hs == AccelHarmonicKernel::pipe || s_.hs == AccelHarmonicKernel::automatic) {
    const bool shape = s_.hs_rows == 4 || s_.hs_rows == 8 || s_.hs_rows == 16;
    const int step = s_.pipe_rk_step();
    const PipeKernelLimits limits = shape ? harmonic_sums_pipe_limits(s_.hs_rows, step) : PipeKernelLimits{};
    bool fits = false;
    int threads = 0;
    std::size_t smem = 0;
    for (const int candidate : given_threads != 0 ? std::vector<int>{given_threads} : std::vector<int>{256, 128, 64}) {
      threads = candidate;
      if (shape) {
        pipe_layout_ = pipe_layout(sub_zi_host_, p_.numz(), p_.stages(), threads, step, s_.hs_rows, format_);
        smem = pipe_dynamic_smem_bytes(pipe_layout_, p_.stages(), format_) + limits.static_smem_bytes;
      }
      fits = limits.available && smem <= props.shared_per_block_optin && threads <= limits.max_threads &&
             threads <= props.max_threads_per_block;
      if (fits) break;
    }
    FASTPSR_EXPECTS(fits || s_.hs == AccelHarmonicKernel::automatic,
                    "--gpu-config hs=pipe: needs hs_rows 4, 8 or 16 (it is {}) and a device of sm_90 or newer ({}), "
                    "and {} rk x {} rows a block need {} bytes of shared memory and {} threads, the device allows "
                    "{} bytes and the kernel's registers {} threads",
                    s_.hs_rows, limits.available ? "it is" : "it is not", threads, s_.hs_rows, smem, threads,
                    props.shared_per_block_optin, std::min(limits.max_threads, props.max_threads_per_block));
    if (fits) {
      s_.hs = AccelHarmonicKernel::pipe;
      s_.hs_threads = threads;
    }
  }
  FASTPSR_EXPECTS(s_.hs_pair == 0 || s_.hs == AccelHarmonicKernel::pipe,
                  "--gpu-config hs_pair=1: needs the pipe kernel (hs=pipe or auto, on a device of sm_90 or newer "
                  "where its windows fit)");
  if (s_.hs != AccelHarmonicKernel::pipe && given_threads == 0) s_.hs_threads = 128;
  if (s_.hs != AccelHarmonicKernel::pipe && !rows_given) s_.hs_rows = 16;  // the rule's 4 is the pipe kernel's
  FASTPSR_EXPECTS(s_.hs_threads <= props.max_threads_per_block,
                  "--gpu-config hs_threads={}: the device allows {} threads per block", s_.hs_threads,
                  props.max_threads_per_block);
  const long long custom_blocks = (os_.nseg + s_.segs_per_block - 1) / s_.segs_per_block * os_.npairs;
  const long long harmonic_blocks =
      (p_.rk_end - p_.rk_begin + s_.hs_threads - 1) / s_.hs_threads * ((p_.numz() + s_.hs_rows - 1) / s_.hs_rows);
  FASTPSR_EXPECTS(std::max(custom_blocks, harmonic_blocks) < (1LL << 31),
                  "accel (GPU): the problem needs more thread blocks than a launch allows: raise segs_per_block, "
                  "hs_threads or hs_rows");
  if (s_.hs == AccelHarmonicKernel::tiled || s_.hs == AccelHarmonicKernel::automatic) {
    tiled_layout_ = tiled_layout(sub_zi_host_, p_.numz(), p_.stages(), s_.hs_threads, s_.hs_rows);
    const TiledKernelLimits limits = harmonic_sums_tiled_limits(s_.hs_rows);
    const std::size_t smem =
        static_cast<std::size_t>(tiled_layout_.offset[(1 << (p_.stages() - 1)) - 1]) * plane_value_bytes() +
        limits.static_smem_bytes;
    const bool fits = smem <= props.shared_per_block_optin && s_.hs_threads <= limits.max_threads;
    FASTPSR_EXPECTS(fits || s_.hs == AccelHarmonicKernel::automatic,
                    "--gpu-config hs=tiled: {} rk x {} rows a block need {} bytes of shared memory and {} threads, "
                    "the device allows {} bytes and the kernel's registers {} threads: lower hs_threads or hs_rows",
                    s_.hs_threads, s_.hs_rows, smem, s_.hs_threads, props.shared_per_block_optin, limits.max_threads);
    s_.hs = fits ? AccelHarmonicKernel::tiled : AccelHarmonicKernel::gather;
  }
  // One rk has at most numz * stages hits: with at least that room the halving always ends.
  capacity_ =
      static_cast<std::uint64_t>(std::max<std::int64_t>(s_.hits, static_cast<std::int64_t>(p_.numz()) * p_.stages()));
  s_.hits = static_cast<std::int64_t>(capacity_);

  cg_.fft_points = m;
  cg_.use = os_.use;
  cg_.npairs = os_.npairs;
  cg_.phases = os_.phases();
  cg_.center_row = p_.zmax / 2;
  cg_.numz = p_.numz();
  cg_.nseg = os_.nseg;
  cg_.first_bin = os_.segment_first_bin(0);
  cg_.numbins = p_.numbins;
  cg_.spectrum_stride = p_.numbins;
  cg_.plane_cols = os_.plane_cols;

  hg_.plane_base = os_.plane_base;
  hg_.plane_cols = os_.plane_cols;
  hg_.plane_stride = cg_.plane_stride();
  hg_.rk_lo = p_.rk_begin;
  hg_.rk_hi = p_.rk_end;
  hg_.numz = p_.numz();
  hg_.stages = p_.stages();
  for (int s = 0; s < p_.stages(); ++s) hg_.powcut[s] = p_.powcut[static_cast<std::size_t>(s)];
  hg_.whole_plane();
  cg_.whole_plane();
  terms_ = sum_terms(p_.stages());
}

// Plane values one block of `width` rk needs for its term windows, wherever it starts: per term
// its rows by whole segments covering term_pitch columns (plus one segment, as a window may start
// anywhere in its first), aligned (block_views lays them out so).
std::size_t CudaSearcher::block_window_values(std::int64_t width) const {
  const long long seg_cols = 2LL * os_.use;
  std::size_t values = 0;
  for (const auto& t : terms_) {
    const auto w = term_window(t, p_.zmax, 0, 1);
    const long long segs = (term_pitch(t, width) + seg_cols - 2) / seg_cols + 1;
    const long long pitch = round_up(segs * seg_cols + kWindowAlign, kWindowAlign);
    values += static_cast<std::size_t>(round_up(static_cast<long long>(w.rows()) * pitch, kWindowAlign));
  }
  return values;
}

// The windows of block [a, b): one a term (accel_plane_windows.hpp's, widened to whole segments
// and (z, -z) pairs), then merged where they overlap.
std::vector<BlockWindow> CudaSearcher::block_windows(std::int64_t a, std::int64_t b) const {
  const long long seg_cols = 2LL * os_.use;  // plane columns a segment writes
  std::vector<BlockWindow> windows;
  for (std::size_t t = 0; t < terms_.size(); ++t) {
    const PlaneWindow w = term_window(terms_[t], p_.zmax, a, b);
    FASTPSR_ASSERT(w.row_lo + w.row_hi == 2 * cg_.center_row);  // symmetric: whole (z, -z) pairs
    windows.push_back({(w.col_lo - os_.plane_base) / seg_cols,
                       (w.col_hi - 1 - os_.plane_base) / seg_cols,
                       cg_.center_row - w.row_lo + 1,
                       {static_cast<int>(t)}});
  }
  merge_windows(windows, seg_cols);
  return windows;
}

// The widest block (whole chunks) whose windows fit `budget` bytes; 0 if one chunk does not.
std::int64_t CudaSearcher::widest_block(std::size_t budget) const {
  return widest_fitting_block(p_.rk_end - p_.rk_begin, kBlockChunk, [&](std::int64_t width) {
    return block_window_values(width) * plane_value_bytes() <= budget;
  });
}

void CudaSearcher::allocate(std::size_t free_bytes) {
  const auto m = static_cast<std::size_t>(os_.fft_points);
  const auto nseg = static_cast<std::size_t>(os_.nseg);
  const auto numbins = static_cast<std::size_t>(p_.numbins);
  const std::size_t segment_bytes = nseg * m * sizeof(float2);
  slots_ = s_.overlap != 0 ? 2 : 1;
  const std::size_t per_slot = plane_bytes_per_spectrum() + capacity_ * sizeof(DeviceHit) + sizeof(unsigned long long);
  const std::size_t per_spectrum = 2 * numbins * sizeof(float2) + segment_bytes +
                                   static_cast<std::size_t>(os_.plane_cols) * sizeof(float) +
                                   static_cast<std::size_t>(slots_) * per_slot;
  std::size_t fixed = static_cast<std::size_t>(os_.npairs * os_.phases()) * m * sizeof(float2) + m * sizeof(float2);
  if (s_.path == AccelGpuPath::cufft) {
    const std::size_t per_row = static_cast<std::size_t>(os_.phases()) * segment_bytes;
    if (s_.zchunk == 0) s_.zchunk = static_cast<int>(std::clamp<std::size_t>(kProductBudget / per_row, 1, 4096));
    s_.zchunk = std::min(s_.zchunk, p_.numz());
    fixed += static_cast<std::size_t>(s_.zchunk) * per_row * 2;  // products and (at most) as much cuFFT work
  }
  if (s_.batch == 0) {
    // Batches help small problems fill the GPU; a large one keeps it busy alone (and groups of one
    // still overlap the next upload). At most a quarter of the free memory.
    const std::size_t small = std::clamp<std::size_t>(kBatchPlaneBudget / plane_bytes_per_spectrum(), 1, 8);
    s_.batch = static_cast<int>(std::clamp<std::size_t>(free_bytes / 4 / per_spectrum, 1, small));
  }
  const double usable = 0.9 * static_cast<double>(free_bytes);
  double need = static_cast<double>(fixed + static_cast<std::size_t>(s_.batch) * (per_spectrum + segment_bytes));
  // The block search: forced (block_rk), or where the whole plane of even one spectrum does not
  // fit (custom path): one spectrum at a time, one block's term windows in plane_.
  const std::size_t one_spectrum = fixed + per_spectrum + segment_bytes;  // + forward FFT work
  if (s_.path == AccelGpuPath::custom && (s_.block_rk > 0 || static_cast<double>(one_spectrum) >= usable)) {
    const std::size_t others = fixed + 2 * numbins * sizeof(float2) + 2 * segment_bytes +
                               static_cast<std::size_t>(os_.plane_cols) * sizeof(float) +
                               capacity_ * sizeof(DeviceHit) + sizeof(unsigned long long);
    const double room = usable - static_cast<double>(others);
    block_rk_ = s_.block_rk > 0 ? s_.block_rk : room > 0 ? widest_block(static_cast<std::size_t>(room)) : 0;
    if (block_rk_ > 0) {
      s_.block_rk = block_rk_;
      for (std::int64_t a = p_.rk_begin; a < p_.rk_end; a += block_rk_) {
        for (const BlockWindow& w : block_windows(a, std::min(a + block_rk_, p_.rk_end))) {
          block_values_ += static_cast<double>(w.values(2LL * os_.use));
          block_row_segs_ += static_cast<double>(2 * w.pairs - 1) * static_cast<double>(w.s_hi - w.s_lo + 1);
        }
      }
      s_.batch = 1;
      s_.overlap = 0;
      slots_ = 1;
      need = static_cast<double>(others + block_window_values(block_rk_) * plane_value_bytes());
    }
  }
  const auto batch = static_cast<std::size_t>(s_.batch);
  // A resource error: with --device auto the search moves to the CPU, whose block search keeps
  // any plane within --plane-memory (dispatch/accel_backends.cpp).
  if (need >= usable) {
    throw Error(ErrorCode::resource,
                fmt::format("accel (GPU): the search needs {:.2f} GiB of device memory ({:.2f} GiB of plane per "
                            "spectrum, batch {}, {} plane{}{}), {:.2f} GiB are free: use --gpu-config plane=f16, a "
                            "smaller batch or zchunk, overlap=0, a smaller zmax, or --device cpu (which searches "
                            "a plane of any size in blocks within --plane-memory)",
                            gib(need), gib(static_cast<double>(plane_bytes_per_spectrum())), s_.batch, slots_,
                            slots_ == 1 ? "" : "s",
                            block_rk_ > 0 ? fmt::format(", searched in blocks of {} rk", block_rk_) : "",
                            gib(static_cast<double>(free_bytes))));
  }
  for (int i = 0; i < 2; ++i) {
    spectra_[i] = DeviceBuffer<float2>(batch * numbins);
    staging_[i] = PinnedBuffer<std::complex<float>>(batch * numbins);
  }
  segments_ = DeviceBuffer<float2>(batch * nseg * m);
  const auto slots = static_cast<std::size_t>(slots_);
  plane_ = DeviceBuffer<char>(block_rk_ > 0 ? block_window_values(block_rk_) * plane_value_bytes()
                                            : slots * batch * plane_bytes_per_spectrum());
  templates_ = DeviceBuffer<float2>(static_cast<std::size_t>(os_.npairs * os_.phases()) * m);
  twiddles_ = DeviceBuffer<float2>(m + static_cast<std::size_t>(fft::stockham_power_entries(log2m_, log2r_)));
  const auto& table = sub_zi_host_;
  sub_zi_ = DeviceBuffer<int>(std::max<std::size_t>(table.size(), 1));
  if (!table.empty()) {
    copy_to_device_now(sub_zi_.get(), table.data(), table.size() * sizeof(int));
  }
  scale_cols_ = DeviceBuffer<float>(batch * static_cast<std::size_t>(os_.plane_cols));
  hits_ = DeviceBuffer<DeviceHit>(slots * batch * capacity_);
  counts_ = DeviceBuffer<unsigned long long>(slots * batch);
  counts_host_ = PinnedBuffer<unsigned long long>(slots * batch);
  hits_host_ = PinnedBuffer<DeviceHit>(capacity_);
  if (s_.path == AccelGpuPath::cufft) {
    products_ = DeviceBuffer<float2>(static_cast<std::size_t>(s_.zchunk * os_.phases()) * nseg * m);
  }
  if (bound()) {
    // 128 MiB of float32 rows (4 use values a task: 4700 tasks for fdas-8m, where a trial with a
    // pulsar re-scored 4240 hits in 3.5 chunks of 32 MiB, ~0.5 ms each), or a 16th of the free
    // memory; at least the 2^stages tasks of one hit.
    const std::size_t task_bytes = 4 * static_cast<std::size_t>(os_.use) * sizeof(float);
    const std::size_t given = static_cast<std::size_t>(s_.rescore_tasks);
    const std::size_t budget = std::min<std::size_t>(std::size_t{128} << 20, free_bytes / 16);
    s_.rescore_tasks =
        static_cast<int>(std::max<std::size_t>(given > 0 ? given : budget / task_bytes, std::size_t{1} << p_.stages()));
    rescore_seen_.assign(static_cast<std::size_t>(os_.nseg) * static_cast<std::size_t>(os_.npairs), 0);
    const auto tasks = static_cast<std::size_t>(s_.rescore_tasks);
    rescore_tasks_ = DeviceBuffer<int>(tasks);
    rescore_tasks_host_ = PinnedBuffer<int>(tasks);
    rescore_rows_ = DeviceBuffer<float>(tasks * 4 * static_cast<std::size_t>(os_.use));
    rescore_power_ = DeviceBuffer<float>(capacity_);
    rescore_power_host_ = PinnedBuffer<float>(capacity_);
  }
  device_bytes_ = spectra_[0].bytes() * 2 + segments_.bytes() + plane_.bytes() + templates_.bytes() +
                  twiddles_.bytes() + sub_zi_.bytes() + hits_.bytes() + counts_.bytes() + products_.bytes() +
                  scale_cols_.bytes() + rescore_tasks_.bytes() + rescore_rows_.bytes() + rescore_power_.bytes();
  // The plans of full groups and chunks now, so that their work areas are counted.
  (void)forward_plan(s_.batch);
  if (s_.path == AccelGpuPath::cufft) {
    (void)inverse_plan(s_.zchunk);
    if (p_.numz() % s_.zchunk != 0) (void)inverse_plan(p_.numz() % s_.zchunk);
  }
}

void CudaSearcher::make_templates() {
  const int m = os_.fft_points;
  const auto mm = static_cast<std::size_t>(m);
  const int rows = os_.npairs * os_.phases();
  std::vector<std::complex<float>> g(static_cast<std::size_t>(rows) * mm);
  for (int pair = 0; pair < os_.npairs; ++pair) {
    for (int phase = 0; phase < os_.phases(); ++phase) {
      const auto row = accel_template_row(os_, 2 * pair, phase);
      std::copy(row.begin(), row.end(), g.begin() + static_cast<std::ptrdiff_t>((pair * os_.phases() + phase) * m));
    }
  }
  copy_to_device_now(templates_.get(), g.data(), g.size() * sizeof(float2));
  // K[k] = (1/M) sum_t G[t] exp(+2 pi i k t / M): cuFFT's (unnormalised) inverse, scaled.
  {
    const CufftPlan plan(m, rows, compute_.get());
    plan.exec(reinterpret_cast<cufftComplex*>(templates_.get()), CUFFT_INVERSE);
    FASTPSR_CUDA_TRY(launch_scale_complex(templates_.get(), static_cast<long long>(g.size()),
                                          1.0F / static_cast<float>(m), compute_.get()));
    compute_.synchronize();
  }
  std::vector<float2> w(twiddles_.size());
  fft::fill_stockham_twiddles(log2m_, log2r_, w.data());
  copy_to_device_now(twiddles_.get(), w.data(), w.size() * sizeof(float2));
}

const CufftPlan& CudaSearcher::forward_plan(int spectra) {
  auto it = forward_plans_.find(spectra);
  if (it == forward_plans_.end()) {
    const auto batch = static_cast<long long>(spectra) * os_.nseg;
    FASTPSR_EXPECTS(batch < (1LL << 31), "accel (GPU): {} segments exceed cuFFT's batch limit", batch);
    it = forward_plans_.emplace(spectra, CufftPlan(os_.fft_points, static_cast<int>(batch), compute_.get())).first;
    device_bytes_ += it->second.work_bytes();
  }
  return it->second;
}

const CufftPlan& CudaSearcher::inverse_plan(int rows) {
  auto it = inverse_plans_.find(rows);
  if (it == inverse_plans_.end()) {
    const auto batch = static_cast<long long>(rows) * os_.phases() * os_.nseg;
    FASTPSR_EXPECTS(batch < (1LL << 31), "accel (GPU): {} transforms exceed cuFFT's batch limit (lower zchunk)", batch);
    it = inverse_plans_.emplace(rows, CufftPlan(os_.fft_points, static_cast<int>(batch), compute_.get())).first;
    device_bytes_ += it->second.work_bytes();
  }
  return it->second;
}

void CudaSearcher::upload(const std::complex<float>* spectra, std::size_t stride,
                          std::span<const AccelPowerScale> scales, const Group& g) {
  const auto numbins = static_cast<std::size_t>(p_.numbins);
  const int slot = g.slot;
  uploaded_[slot].synchronize();  // the staging buffers' previous copies are done
  std::complex<float>* stage = staging_[slot].get();
  for (int b = 0; b < g.count; ++b) {
    std::memcpy(stage + static_cast<std::size_t>(b) * numbins,
                spectra + (g.first + static_cast<std::size_t>(b)) * stride, numbins * sizeof(std::complex<float>));
  }
  // Scale tables: offsets[0 .. count], then every spectrum's starts; factors alike.
  std::size_t entries = 0;
  for (int b = 0; b < g.count; ++b) {
    const AccelPowerScale& sc = scales[g.first + static_cast<std::size_t>(b)];
    FASTPSR_EXPECTS(sc.rk_start.size() == sc.factor.size(), "accel: the power scale has {} starts for {} factors",
                    sc.rk_start.size(), sc.factor.size());
    entries += sc.factor.size();
  }
  const std::size_t index_size = static_cast<std::size_t>(g.count) + 1 + entries;
  if (scale_index_host_[slot].size() < index_size ||
      scale_factor_host_[slot].size() < std::max<std::size_t>(entries, 1)) {
    // Grow (rare): nothing may still read the old buffers.
    copy_.synchronize();
    compute_.synchronize();
    const std::size_t room = 2 * index_size;
    scale_index_host_[slot] = PinnedBuffer<long long>(room);
    scale_factor_host_[slot] = PinnedBuffer<float>(room);
    scale_index_[slot] = DeviceBuffer<long long>(room);
    scale_factor_[slot] = DeviceBuffer<float>(room);
  }
  long long* index = scale_index_host_[slot].get();
  float* factors = scale_factor_host_[slot].get();
  std::size_t at = 0;
  for (int b = 0; b < g.count; ++b) {
    const AccelPowerScale& sc = scales[g.first + static_cast<std::size_t>(b)];
    index[b] = static_cast<long long>(at);
    std::copy(sc.rk_start.begin(), sc.rk_start.end(), index + g.count + 1 + at);
    std::copy(sc.factor.begin(), sc.factor.end(), factors + at);
    at += sc.factor.size();
  }
  index[g.count] = static_cast<long long>(at);
  copy_.wait(gathered_[slot].get());  // the device buffers' previous readers are done
  upload_start_[slot].record(copy_.get());
  FASTPSR_CUDA_TRY(cudaMemcpyAsync(spectra_[slot].get(), stage,
                                   static_cast<std::size_t>(g.count) * numbins * sizeof(float2), cudaMemcpyHostToDevice,
                                   copy_.get()));
  FASTPSR_CUDA_TRY(cudaMemcpyAsync(scale_index_[slot].get(), index, index_size * sizeof(long long),
                                   cudaMemcpyHostToDevice, copy_.get()));
  if (entries > 0) {
    FASTPSR_CUDA_TRY(cudaMemcpyAsync(scale_factor_[slot].get(), factors, entries * sizeof(float),
                                     cudaMemcpyHostToDevice, copy_.get()));
  }
  uploaded_[slot].record(copy_.get());
}

// The power scale by columns and the segments' forward transforms of a group.
void CudaSearcher::enqueue_segments(const Group& g) {
  const cudaStream_t s = compute_.get();
  compute_.wait(uploaded_[g.slot].get());
  compute_.wait(t_done_[g.pslot].get());  // the plane slot's last harmonic sums have read it
  t_start_[g.pslot].record(s);
  const long long* index = scale_index_[g.slot].get();
  FASTPSR_CUDA_TRY(launch_expand_power_scale(index, index + g.count + 1, scale_factor_[g.slot].get(), os_.plane_base,
                                             os_.plane_cols, g.count, scale_cols_.get(), s));
  FASTPSR_CUDA_TRY(launch_gather_segments(spectra_[g.slot].get(), segments_.get(), cg_, g.count, s));
  gathered_[g.slot].record(s);
  forward_plan(g.count).exec(reinterpret_cast<cufftComplex*>(segments_.get()), CUFFT_FORWARD);
  t_segments_[g.pslot].record(s);
}

void CudaSearcher::enqueue_plane(const Group& g) {
  const cudaStream_t s = compute_.get();
  enqueue_segments(g);
  if (s_.path == AccelGpuPath::custom) {
    FASTPSR_CUDA_TRY(launch_correlate_custom(segments_.get(), templates_.get(), twiddles_.get(), scale_cols_.get(),
                                             plane_of(g.pslot, 0), store_format(), cg_, log2m_, log2r_, fft_powers(),
                                             s_.segs_per_block, g.count, s));
  } else {
    for (int b = 0; b < g.count; ++b) {
      const float2* seg =
          segments_.get() + static_cast<std::size_t>(b) * static_cast<std::size_t>(cg_.segment_stride());
      for (int row = 0; row < p_.numz(); row += s_.zchunk) {
        const int rows = std::min(s_.zchunk, p_.numz() - row);
        FASTPSR_CUDA_TRY(launch_multiply_templates(seg, templates_.get(), products_.get(), cg_, row, rows, s));
        inverse_plan(rows).exec(reinterpret_cast<cufftComplex*>(products_.get()), CUFFT_INVERSE);
        FASTPSR_CUDA_TRY(launch_products_to_plane(
            products_.get(), scale_cols_.get() + static_cast<std::size_t>(b) * static_cast<std::size_t>(os_.plane_cols),
            plane_of(g.pslot, b), format_, cg_, row, rows, s));
      }
    }
  }
  t_plane_[g.pslot].record(s);
}

void CudaSearcher::enqueue_harmonics(const Group& g) {
  const Stream& st = sums_stream();
  const cudaStream_t s = st.get();
  st.wait(t_plane_[g.pslot].get());
  t_sums_[g.pslot].record(s);
  FASTPSR_CUDA_TRY(
      cudaMemsetAsync(counts_of(g.pslot, 0), 0, static_cast<std::size_t>(g.count) * sizeof(unsigned long long), s));
  launch_harmonics(plane_of(g.pslot, 0), hg_, hits_of(g.pslot, 0), counts_of(g.pslot, 0), g.count, s);
  FASTPSR_CUDA_TRY(cudaMemcpyAsync(counts_host_.get() + slot_index(g.pslot, 0), counts_of(g.pslot, 0),
                                   static_cast<std::size_t>(g.count) * sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, s));
  t_done_[g.pslot].record(s);
}

void CudaSearcher::launch_harmonics(const char* plane, const HarmonicGeometry& g, DeviceHit* hits,
                                    unsigned long long* counts, int batch, cudaStream_t stream) {
  if (s_.hs == AccelHarmonicKernel::pipe) {
    FASTPSR_CUDA_TRY(launch_harmonic_sums_pipe(plane, format_, sub_zi_.get(), g, pipe_layout_, hits, counts, capacity_,
                                               s_.hs_threads, s_.hs_rows, s_.pipe_rk_step(), batch,
                                               selection_.props.multiprocessors, stream));
  } else if (s_.hs == AccelHarmonicKernel::tiled) {
    FASTPSR_CUDA_TRY(launch_harmonic_sums_tiled(plane, format_, sub_zi_.get(), g, tiled_layout_, hits, counts,
                                                capacity_, s_.hs_threads, s_.hs_rows, batch, stream));
  } else {
    FASTPSR_CUDA_TRY(launch_harmonic_sums(plane, format_, sub_zi_.get(), g, hits, counts, capacity_, s_.hs_threads,
                                          s_.hs_rows, batch, stream));
  }
}

void CudaSearcher::search_batch(const std::complex<float>* spectra, std::size_t stride,
                                std::span<const AccelPowerScale> scales, std::span<AccelHitSink* const> sinks) {
  FASTPSR_EXPECTS(scales.size() == sinks.size(), "search_batch: {} scales for {} spectra", scales.size(), sinks.size());
  FASTPSR_EXPECTS(sinks.empty() || stride >= static_cast<std::size_t>(p_.numbins),
                  "accel: spectra {} values apart overlap ({} bins each)", stride, p_.numbins);
  set_device(device_);
  timings_ = AccelGpuTimings{};
  const auto t0 = Clock::now();
  if (block_rk_ > 0) {  // one spectrum at a time, block by block
    for (std::size_t i = 0; i < sinks.size(); ++i) {
      Group g;
      g.first = i;
      g.count = 1;
      g.slot = static_cast<int>(i % 2);
      upload(spectra, stride, scales, g);
      search_blocks(g, *sinks[i]);
    }
    timings_.spectra = static_cast<int>(sinks.size());
    timings_.wall_ms = ms_between(t0, Clock::now());
    return;
  }
  Group pending;
  bool have_pending = false;
  std::size_t index = 0;
  for (std::size_t first = 0; first < sinks.size(); first += static_cast<std::size_t>(s_.batch), ++index) {
    Group g;
    g.first = first;
    g.count = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(s_.batch), sinks.size() - first));
    g.slot = static_cast<int>(index % 2);
    g.pslot = slots_ == 2 ? g.slot : 0;
    upload(spectra, stride, scales, g);  // while the GPU still searches the previous group
    // One plane: the previous group's hits (and any re-search of them) first. Two: this group's
    // correlation is queued first, to run beside the previous group's harmonic sums.
    if (have_pending && slots_ == 1) finish(pending, sinks);
    enqueue_plane(g);
    enqueue_harmonics(g);
    if (have_pending && slots_ == 2) finish(pending, sinks);
    pending = g;
    have_pending = true;
  }
  if (have_pending) finish(pending, sinks);
  timings_.spectra = static_cast<int>(sinks.size());
  timings_.wall_ms = ms_between(t0, Clock::now());
}

// The block search of one uploaded spectrum: per block of rk, each term's window (the plane points
// its harmonic sums read: accel_plane_windows.hpp) correlated from the whole segments that own
// them into plane_ (overlapping windows merged: merge_windows), then the sums through views of
// those windows. Every power is computed by the same kernel from the same segment as in the
// whole plane, so the hits are the same bits.
void CudaSearcher::search_blocks(const Group& g, AccelHitSink& sink) {
  const cudaStream_t s = compute_.get();
  enqueue_segments(g);
  t_segments_[0].synchronize();
  timings_.upload_ms += static_cast<double>(uploaded_[g.slot].elapsed_ms_since(upload_start_[g.slot]));
  timings_.segments_ms += static_cast<double>(t_segments_[0].elapsed_ms_since(t_start_[0]));
  const long long seg_cols = 2LL * os_.use;  // plane columns a segment writes
  const auto capacity_values = static_cast<long long>(block_window_values(block_rk_));
  for (std::int64_t a = p_.rk_begin; a < p_.rk_end; a += block_rk_) {
    const std::int64_t b = std::min(a + block_rk_, p_.rk_end);
    block_hg_ = hg_;
    block_hg_.rk_lo = a;
    block_hg_.rk_hi = b;
    block_hg_.plane_stride = 0;  // one spectrum
    block_start_.record(s);
    const std::vector<BlockWindow> windows = block_windows(a, b);
    long long offset = 0;
    for (const BlockWindow& w : windows) {
      const long long pitch = w.pitch(seg_cols);
      const long long origin = offset - static_cast<long long>(cg_.center_row - w.pairs + 1) * pitch - w.col0(seg_cols);
      for (const int t : w.terms) block_hg_.view[t] = TermView{origin, pitch};
      CorrelateGeometry cg = cg_;
      cg.seg_lo = w.s_lo;
      cg.seg_count = w.s_hi - w.s_lo + 1;
      cg.pairs = w.pairs;
      cg.out_origin = origin;
      cg.out_pitch = pitch;
      FASTPSR_CUDA_TRY(launch_correlate_custom(segments_.get(), templates_.get(), twiddles_.get(), scale_cols_.get(),
                                               plane_.get(), store_format(), cg, log2m_, log2r_, fft_powers(),
                                               s_.segs_per_block, 1, s));
      offset += w.values(seg_cols);
    }
    FASTPSR_ASSERT(offset <= capacity_values);
    block_plane_.record(s);
    FASTPSR_CUDA_TRY(cudaMemsetAsync(counts_of(0, 0), 0, sizeof(unsigned long long), s));
    launch_harmonics(plane_.get(), block_hg_, hits_of(0, 0), counts_of(0, 0), 1, s);
    FASTPSR_CUDA_TRY(
        cudaMemcpyAsync(counts_host_.get(), counts_of(0, 0), sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
    block_done_.record(s);
    block_done_.synchronize();
    timings_.correlate_ms += static_cast<double>(block_plane_.elapsed_ms_since(block_start_));
    timings_.harmonics_ms += static_cast<double>(block_done_.elapsed_ms_since(block_plane_));
    const auto t1 = Clock::now();
    const std::uint64_t count = counts_host_.get()[0];
    if (count <= capacity_) {
      deliver(0, 0, a, b, count, sink);
    } else {
      ++timings_.overflows;
      search_in_halves(0, 0, a, b, sink);
    }
    timings_.hits_ms += ms_between(t1, Clock::now());
  }
}

void CudaSearcher::finish(const Group& g, std::span<AccelHitSink* const> sinks) {
  const int p = g.pslot;
  t_done_[p].synchronize();
  timings_.upload_ms += static_cast<double>(uploaded_[g.slot].elapsed_ms_since(upload_start_[g.slot]));
  timings_.segments_ms += static_cast<double>(t_segments_[p].elapsed_ms_since(t_start_[p]));
  timings_.correlate_ms += static_cast<double>(t_plane_[p].elapsed_ms_since(t_segments_[p]));
  timings_.harmonics_ms += static_cast<double>(t_done_[p].elapsed_ms_since(t_sums_[p]));
  const auto t0 = Clock::now();
  const unsigned long long* first = counts_host_.get() + slot_index(p, 0);
  std::vector<unsigned long long> counts(first, first + g.count);
  for (int b = 0; b < g.count; ++b) {
    AccelHitSink& sink = *sinks[g.first + static_cast<std::size_t>(b)];
    if (counts[static_cast<std::size_t>(b)] <= capacity_) {
      deliver(p, b, p_.rk_begin, p_.rk_end, counts[static_cast<std::size_t>(b)], sink);
    } else {
      ++timings_.overflows;
      search_in_halves(p, b, p_.rk_begin, p_.rk_end, sink);
    }
  }
  timings_.hits_ms += ms_between(t0, Clock::now());
}

void CudaSearcher::deliver(int pslot, int b, std::int64_t rk_lo, std::int64_t rk_hi, std::uint64_t count,
                           AccelHitSink& sink) {
  delivered_.clear();
  if (count > 0) {
    // On a stream of its own: with overlap=1 the others already hold the next group's work.
    FASTPSR_CUDA_TRY(cudaMemcpyAsync(hits_host_.get(), hits_of(pslot, b), count * sizeof(DeviceHit),
                                     cudaMemcpyDeviceToHost, download_.get()));
    download_.synchronize();
    delivered_.reserve(count);
    if (bound()) {
      rescore(pslot, b, count);
    } else {
      for (std::uint64_t i = 0; i < count; ++i) {
        const DeviceHit& h = hits_host_.get()[i];
        delivered_.push_back({h.rk, h.zi, 0, h.stage, h.power});
      }
    }
  }
  sink.consume(rk_lo, rk_hi, delivered_);
}

// The (segment, pair) keys of the float32 powers hit h's stage sum reads (accel_kernels.hpp's
// launch_correlate_tasks), appended to keys.
void CudaSearcher::add_rescore_keys(const DeviceHit& h, std::vector<int>& keys) const {
  const long long row_values = 2LL * os_.use;
  auto add = [&](long long rk, int zi) {
    const long long segment = (rk - os_.plane_base) / row_values;
    keys.push_back(static_cast<int>(segment) * os_.npairs + std::abs(zi - cg_.center_row));
  };
  const long long rk = h.rk;
  add(rk, h.zi);
  int term = 0;
  for (int s = 1; s <= h.stage; ++s) {
    const int H = 1 << s;
    for (int k = 1; k < H; k += 2, ++term) {
      add(sub_rk(rk, k, H), sub_zi_host_[static_cast<std::size_t>(term) * static_cast<std::size_t>(p_.numz()) +
                                         static_cast<std::size_t>(h.zi)]);
    }
  }
}

// plane=f16bound: the hits in hits_host_ (count of them, spectrum b of plane slot pslot) were
// found on powers rounded up, so every float32 hit is among them. In chunks whose tasks fit the
// buffers: the float32 powers of every (segment, pair) the chunk's sums read, recomputed by the
// plane's own kernel from the group's segments, then each hit's sum again in the sums' order;
// the hits whose exact sum passes their stage's cut go to delivered_ with that sum, in order.
void CudaSearcher::rescore(int pslot, int b, std::uint64_t count) {
  const auto t0 = Clock::now();
  const cudaStream_t s = download_.get();
  timings_.rescored += static_cast<std::int64_t>(count);
  const float2* segments =
      segments_.get() + static_cast<std::size_t>(b) * static_cast<std::size_t>(cg_.segment_stride());
  const float* scale = scale_cols_.get() + static_cast<std::size_t>(b) * static_cast<std::size_t>(os_.plane_cols);
  const DeviceHit* hits = hits_host_.get();
  std::vector<int>& keys = rescore_keys_;
  std::vector<int> one;
  std::uint64_t first = 0;
  while (first < count) {
    // The hits from `first` on whose tasks together fit the buffers (one hit's always do); the
    // chunk's keys are marked in a table of every (segment, pair), cleared after.
    keys.clear();
    std::uint64_t end = first;
    for (; end < count; ++end) {
      one.clear();
      add_rescore_keys(hits[end], one);
      std::sort(one.begin(), one.end());
      one.erase(std::unique(one.begin(), one.end()), one.end());
      const auto fresh = static_cast<std::size_t>(std::count_if(
          one.begin(), one.end(), [&](int key) { return rescore_seen_[static_cast<std::size_t>(key)] == 0; }));
      if (keys.size() + fresh > static_cast<std::size_t>(s_.rescore_tasks)) break;
      for (const int key : one) {
        if (rescore_seen_[static_cast<std::size_t>(key)] == 0) {
          rescore_seen_[static_cast<std::size_t>(key)] = 1;
          keys.push_back(key);
        }
      }
    }
    FASTPSR_ASSERT(end > first);
    for (const int key : keys) rescore_seen_[static_cast<std::size_t>(key)] = 0;
    std::sort(keys.begin(), keys.end());  // the re-scoring kernel finds them by bisection
    const auto ntasks = static_cast<int>(keys.size());
    const auto n = static_cast<int>(end - first);
    std::copy(keys.begin(), keys.end(), rescore_tasks_host_.get());
    FASTPSR_CUDA_TRY(cudaMemcpyAsync(rescore_tasks_.get(), rescore_tasks_host_.get(), keys.size() * sizeof(int),
                                     cudaMemcpyHostToDevice, s));
    FASTPSR_CUDA_TRY(launch_correlate_tasks(segments, templates_.get(), twiddles_.get(), scale, rescore_tasks_.get(),
                                            ntasks, rescore_rows_.get(), cg_, log2m_, log2r_, fft_powers(), s));
    FASTPSR_CUDA_TRY(launch_rescore_hits(hits_of(pslot, b) + first, n, rescore_tasks_.get(), ntasks,
                                         rescore_rows_.get(), sub_zi_.get(), hg_, cg_, rescore_power_.get(), s));
    FASTPSR_CUDA_TRY(cudaMemcpyAsync(rescore_power_host_.get(), rescore_power_.get(),
                                     static_cast<std::size_t>(n) * sizeof(float), cudaMemcpyDeviceToHost, s));
    download_.synchronize();
    for (int i = 0; i < n; ++i) {
      const float power = rescore_power_host_.get()[i];
      if (power < 0.0F) continue;
      const DeviceHit& h = hits[first + static_cast<std::uint64_t>(i)];
      delivered_.push_back({h.rk, h.zi, 0, h.stage, power});
    }
    first = end;
    ++timings_.rescore_chunks;
  }
  timings_.rescore_ms += ms_between(t0, Clock::now());
}

// Harmonic sums of spectrum b (still in plane slot pslot) for [rk_lo, rk_hi) alone; returns the
// hit count. On the download stream: with overlap=1 the sums stream holds the next group's sums,
// which use the other slot.
std::uint64_t CudaSearcher::harmonics_range(int pslot, int b, std::int64_t rk_lo, std::int64_t rk_hi) {
  const cudaStream_t s = download_.get();
  HarmonicGeometry g = block_rk_ > 0 ? block_hg_ : hg_;
  g.rk_lo = rk_lo;
  g.rk_hi = rk_hi;
  unsigned long long* count = counts_of(pslot, b);
  FASTPSR_CUDA_TRY(cudaMemsetAsync(count, 0, sizeof(unsigned long long), s));
  launch_harmonics(plane_of(pslot, b), g, hits_of(pslot, b), count, 1, s);
  unsigned long long* host = counts_host_.get() + slot_index(pslot, b);
  FASTPSR_CUDA_TRY(cudaMemcpyAsync(host, count, sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
  download_.synchronize();
  return *host;
}

void CudaSearcher::search_in_halves(int pslot, int b, std::int64_t rk_lo, std::int64_t rk_hi, AccelHitSink& sink) {
  // A single rk holds at most numz * stages <= capacity hits, so the halving ends.
  FASTPSR_ASSERT(rk_hi - rk_lo >= 2);
  const std::int64_t mid = rk_lo + (rk_hi - rk_lo) / 2;
  for (const auto& [lo, hi] : {std::pair{rk_lo, mid}, std::pair{mid, rk_hi}}) {
    const std::uint64_t n = harmonics_range(pslot, b, lo, hi);
    if (n <= capacity_) {
      deliver(pslot, b, lo, hi, n, sink);
    } else {
      search_in_halves(pslot, b, lo, hi, sink);
    }
  }
}

std::vector<float> CudaSearcher::plane_for_test(std::span<const std::complex<float>> spectrum,
                                                const AccelPowerScale& scale) {
  FASTPSR_EXPECTS(static_cast<std::int64_t>(spectrum.size()) == p_.numbins,
                  "accel: the spectrum has {} bins, the plan {}", spectrum.size(), p_.numbins);
  FASTPSR_EXPECTS(block_rk_ == 0, "accel (GPU): plane_for_test needs the whole plane (no block search)");
  set_device(device_);
  FASTPSR_CUDA_TRY(cudaMemsetAsync(plane_of(0, 0), 0xFF, plane_bytes_per_spectrum(), compute_.get()));  // NaN
  Group g;
  g.count = 1;
  upload(spectrum.data(), spectrum.size(), {&scale, 1}, g);
  enqueue_plane(g);
  const std::int64_t width = p_.rk_end - os_.plane_lo;
  DeviceBuffer<float> out(static_cast<std::size_t>(p_.numz()) * static_cast<std::size_t>(width));
  FASTPSR_CUDA_TRY(launch_plane_to_float(plane_of(0, 0), format_, os_.plane_cols, p_.numz(),
                                         os_.plane_lo - os_.plane_base, width, out.get(), compute_.get()));
  std::vector<float> host(out.size());
  FASTPSR_CUDA_TRY(cudaMemcpyAsync(host.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost, compute_.get()));
  compute_.synchronize();
  return host;
}

double CudaSearcher::modelled_bytes_per_spectrum() const {
  const double segment = static_cast<double>(os_.nseg) * os_.fft_points * sizeof(float2);
  const double value = static_cast<double>(plane_value_bytes());
  // Spectrum read + segments written, FFT'd in place (read + write) and read once by the
  // correlation; the power scale written and read once per column.
  double bytes = static_cast<double>(p_.numbins) * sizeof(float2) + 4.0 * segment +
                 2.0 * static_cast<double>(os_.plane_cols) * sizeof(float);
  // The plane written once; the harmonic sums read it once for the highest harmonic and, per tile,
  // the window of each term h/H, (h/H)^2 of the tile (no L2 holds a window until the tile at
  // r H/h that shares it: docs/PERFORMANCE.md, accelsearch).
  double windows = 1.0;
  for (int s = 1; s < p_.stages(); ++s) {
    const double H = static_cast<double>(1 << s);
    for (int h = 1; h < (1 << s); h += 2) windows += (h / H) * (h / H);
  }
  // The block search writes every block's windows instead.
  bytes +=
      (block_rk_ > 0 ? block_values_ : static_cast<double>(p_.numz()) * 2.0 * static_cast<double>(os_.nseg) * os_.use) *
      value;
  bytes += static_cast<double>(p_.numz()) * static_cast<double>(p_.rk_end - os_.plane_lo) * value * windows;
  if (s_.path == AccelGpuPath::cufft) {
    // Per (row, phase): products written, inverse FFT read + write, powers read.
    bytes += static_cast<double>(p_.numz()) * os_.phases() * 4.0 * segment;
  }
  return bytes;
}

double CudaSearcher::modelled_flops_per_spectrum() const {
  const double m = os_.fft_points;
  const double fft = 5.0 * m * std::log2(m);
  // The block search correlates every block's windows: rows x segments.
  const double row_segs = block_rk_ > 0 ? block_row_segs_ : static_cast<double>(os_.nseg) * p_.numz();
  const double transforms = static_cast<double>(os_.nseg) + row_segs * os_.phases();
  const double products = row_segs * os_.phases() * m * 6.0;
  return transforms * fft + products;
}

std::string CudaSearcher::describe() const {
  const bool custom = s_.path == AccelGpuPath::custom;
  std::string path;
  if (custom) {
    path = fmt::format(
        "custom shared-memory FFT path (radix {}, twiddle powers {}, {} threads, {} registers, {:.1f} KiB shared "
        "memory a block, {} segment{} a block)",
        s_.fft_radix, fft_powers() ? "loaded" : "multiplied out", correlate_custom_threads(log2m_, log2r_),
        correlate_custom_registers(log2m_, log2r_, os_.phases() == 2, fft_powers(), format_),
        static_cast<double>(correlate_custom_smem_bytes(log2m_, log2r_)) / 1024.0, s_.segs_per_block,
        s_.segs_per_block == 1 ? "" : "s");
  } else {
    path = fmt::format("cuFFT path ({} plane rows a batched inverse FFT)", s_.zchunk);
  }
  return fmt::format(
      "CUDA GPU {} ({}): {}; fft_len {} ({} transforms of {} points, {} good), {} segments, {} z in {} template "
      "pairs, {}; plane {} {:.2f} GiB a spectrum{}; harmonic sums ({}) {} rk x {} rows a block, {} stage{}; batch "
      "{}{}; hit capacity {} a spectrum; device memory {:.2f} GiB",
      device_, selection_.props.name, path, s_.fft_len, os_.phases() == 2 ? "2 phases of" : "interbinned",
      os_.fft_points, os_.use, os_.nseg, p_.numz(), os_.npairs,
      p_.interp == AccelInterp::fourier ? "Fourier interpolation" : "interbinning",
      s_.plane == AccelPlaneStorage::f32   ? "f32"
      : s_.plane == AccelPlaneStorage::f16 ? "f16"
                                           : "f16bound (f16 rounded up; hits re-scored exactly in f32)",
      gib(static_cast<double>(plane_bytes_per_spectrum())),
      block_rk_ > 0
          ? fmt::format(", searched in blocks of {} rk (block search: {:.2f} GiB of windows a block, each "
                        "correlated from its own segments)",
                        block_rk_, gib(static_cast<double>(block_window_values(block_rk_) * plane_value_bytes())))
          : std::string(),
      s_.hs == AccelHarmonicKernel::pipe && s_.hs_pair == 1
          ? "pipe, persistent blocks, sub-harmonic windows double-buffered in shared memory by bulk copies; rk "
            "in pairs, bounded together, summed exactly where a bound passes a cut"
      : s_.hs == AccelHarmonicKernel::pipe
          ? "pipe, persistent blocks, sub-harmonic windows double-buffered in shared memory by bulk copies"
      : s_.hs == AccelHarmonicKernel::tiled ? "tiled, sub-harmonic windows in shared memory"
                                            : "gather",
      s_.hs_threads, s_.hs_rows, p_.stages(), p_.stages() == 1 ? "" : "s", s_.batch,
      slots_ == 2 ? ", two planes: a group's correlation beside the previous group's harmonic sums (overlap=1)" : "",
      capacity_, gib(static_cast<double>(device_bytes_)));
}

}  // namespace

std::unique_ptr<CudaFdotSearcher> make_cuda_fdot_searcher(const AccelSearchProblem& problem,
                                                          const AccelSearchOptions& options, int device) {
  return std::make_unique<CudaSearcher>(problem, options, device);
}

std::unique_ptr<FdotSearcher> make_fdot_searcher(const AccelSearchProblem& problem, const AccelSearchOptions& options,
                                                 int device) {
  return make_cuda_fdot_searcher(problem, options, device);
}

}  // namespace fastpsr::cuda
