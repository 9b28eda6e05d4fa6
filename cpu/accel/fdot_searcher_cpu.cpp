// SPDX-License-Identifier: MIT
#include <fftw3.h>
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <mutex>
#include <new>

#include "fastpsr/accel_templates.hpp"
#include "fastpsr/cpu/accel_cpu.hpp"
#include "fastpsr/accel_plane_windows.hpp"
#include "fastpsr/cpu/fftw_planning.hpp"
#include "fastpsr/cpu/harmonic_kernels.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/fftw_lock.hpp"

namespace fastpsr::cpu {
namespace {

using cf = std::complex<float>;

// The harmonic sums take rk in chunks of this many (a chunk's running sums stay in L2); blocks of
// the block search are whole chunks, so both searches hand the sink the same ranges.
constexpr std::int64_t kChunk = 1 << 14;

// Where the harmonic sums find term t's powers: row zi of the plane (or of the term's window)
// starts at row(zi) and holds columns (rk) from col0.
struct TermView {
  float* base = nullptr;  // row row0
  std::int64_t col0 = 0;
  std::size_t pitch = 0;
  int row0 = 0;
  [[nodiscard]] float* row(int zi) const noexcept { return base + static_cast<std::size_t>(zi - row0) * pitch; }
};

struct FftwFree {
  void operator()(void* p) const noexcept { fftwf_free(p); }
};
template <typename T>
using FftwBuffer = std::unique_ptr<T[], FftwFree>;
template <typename T>
FftwBuffer<T> fftw_alloc(std::size_t n) {
  auto* p = static_cast<T*>(fftwf_malloc(n * sizeof(T)));
  if (p == nullptr)
    throw Error(ErrorCode::resource, fmt::format("out of memory ({} bytes for FFT buffers)", n * sizeof(T)));
  return FftwBuffer<T>(p);
}

class FftwPlan {
 public:
  FftwPlan(int n, cf* in, cf* out, int sign, unsigned flags) {
    const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    plan_ =
        fftwf_plan_dft_1d(n, reinterpret_cast<fftwf_complex*>(in), reinterpret_cast<fftwf_complex*>(out), sign, flags);
    if (plan_ == nullptr) throw Error(ErrorCode::internal, "FFTW could not plan a correlation FFT");
  }
  ~FftwPlan() {
    const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    fftwf_destroy_plan(plan_);
  }
  FftwPlan(const FftwPlan&) = delete;
  FftwPlan& operator=(const FftwPlan&) = delete;
  // New-array execution is thread-safe (FFTW manual 5.4).
  void run(cf* in, cf* out) const {
    fftwf_execute_dft(plan_, reinterpret_cast<fftwf_complex*>(in), reinterpret_cast<fftwf_complex*>(out));
  }

 private:
  fftwf_plan plan_ = nullptr;
};

// The FFT length with the least work per good output point: L log L / (L - span), powers of two
// up to 2^16; beyond it (templates wider than 2^15 points: zmax above ~14900) the shortest that
// holds twice the span, up to 2^24 (0: none does).
int auto_fft_len(int span) {
  int best = 0;
  double best_cost = 0.0;
  for (int len = 256; len <= (1 << 16) || (best == 0 && len <= (1 << 24)); len *= 2) {
    if (len < 2 * span) continue;
    const double cost = len * std::log2(static_cast<double>(len)) / (len - span);
    if (best == 0 || cost < best_cost * 0.98) {
      best = len;
      best_cost = cost;
    }
  }
  return best;
}

// One thread's buffers for correlating segments: the segment, its transform, a product, the
// correlation, and the segment's power scale.
struct SegmentScratch {
  SegmentScratch(int len, int use)
      : seg(fftw_alloc<cf>(static_cast<std::size_t>(len))),
        segf(fftw_alloc<cf>(static_cast<std::size_t>(len))),
        prod(fftw_alloc<cf>(static_cast<std::size_t>(len))),
        corr(fftw_alloc<cf>(static_cast<std::size_t>(len))),
        factors(2 * static_cast<std::size_t>(use + 2)) {}
  FftwBuffer<cf> seg;
  FftwBuffer<cf> segf;
  FftwBuffer<cf> prod;
  FftwBuffer<cf> corr;
  std::vector<float> factors;
};

class CpuFdotSearcher final : public FdotSearcher {
 public:
  CpuFdotSearcher(const AccelSearchProblem& p, const AccelSearchOptions& o) : p_(p), threads_(o.threads) {
    validate(p_);
    nb_ = p_.interp == AccelInterp::fourier ? 2 : 1;
    hmax_ = template_halfwidth(p_.zmax);
    span_ = 2 * nb_ * hmax_;
    len_ = o.fft_len > 0 ? o.fft_len : auto_fft_len(span_);
    FASTPSR_EXPECTS(len_ >= 2 * span_ && len_ <= (1 << 24),
                    "accel: FFT length {} must be at least twice the widest template ({} points) and at most 2^24",
                    len_, span_);
    use_ = len_ - span_;
    if (nb_ == 2) use_ -= use_ % 2;
    plane_lo_ = sub_rk(p_.rk_begin, 1, p_.numharm);
    plane_len_ = p_.rk_end - plane_lo_;
    // Output index o (rk for fourier, integer r for interbin) range the correlations must cover.
    o_lo_ = nb_ == 2 ? plane_lo_ : plane_lo_ / 2;
    o_hi_ = nb_ == 2 ? p_.rk_end : p_.rk_end / 2 + 1;  // interbin needs C(r+1) for odd rk
    nseg_ = (o_hi_ - o_lo_ + use_ - 1) / use_;
    const unsigned flags = fftw_flags(o.fftw_effort);
    auto a = fftw_alloc<cf>(static_cast<std::size_t>(len_));
    auto b = fftw_alloc<cf>(static_cast<std::size_t>(len_));
    fwd_ = std::make_unique<FftwPlan>(len_, a.get(), b.get(), FFTW_FORWARD, flags);
    inv_ = std::make_unique<FftwPlan>(len_, a.get(), b.get(), FFTW_BACKWARD, flags);
    make_kernels();
    terms_ = sum_terms(p_.stages());
    whole_plane_bytes_ = accel_plane_bytes(p_);
    FASTPSR_EXPECTS(o.block_rk >= 0 && o.block_rk % kChunk == 0,
                    "accel: the block search's width must be a positive multiple of {} rk, got {}", kChunk, o.block_rk);
    if (o.block_rk > 0) {
      block_rk_ = o.block_rk;
    } else if (o.plane_memory > 0 && whole_plane_bytes_ > o.plane_memory) {
      block_rk_ = widest_block(o.plane_memory);
      // A short range or a tiny limit: blocks of one chunk can take more than the whole plane.
      if (block_window_bytes(terms_, p_.zmax, block_rk_) >= whole_plane_bytes_) block_rk_ = 0;
    }
    // Not zeroed here: search() poisons it in parallel, so its pages are first touched by the
    // threads that use them. The padding after the last row lets the harmonic sums' vector loads
    // run past a row's end (stretched_add).
    plane_size_ = block_rk_ > 0 ? block_window_bytes(terms_, p_.zmax, block_rk_) / sizeof(float)
                                : whole_plane_bytes_ / sizeof(float);
    try {
      plane_.reset(new float[plane_size_ + kStretchedPad]);
    } catch (const std::bad_alloc&) {
      throw Error(ErrorCode::resource,
                  fmt::format("accel: no memory for the f-fdot plane ({:.1f} MiB{}): search in blocks within less "
                              "memory (accelsearch --plane-memory, not -inmem) or lower zmax",
                              static_cast<double>(plane_size_ * sizeof(float)) / 1048576.0,
                              block_rk_ > 0 ? " of windows for blocks" : ""));
    }
    std::fill(plane_.get() + plane_size_, plane_.get() + plane_size_ + kStretchedPad, 0.0F);
  }

  [[nodiscard]] const AccelSearchProblem& problem() const noexcept override { return p_; }

  void search(std::span<const std::complex<float>> spectrum, const AccelPowerScale& scale,
              AccelHitSink& sink) override {
    FASTPSR_EXPECTS(static_cast<std::int64_t>(spectrum.size()) == p_.numbins,
                    "accel: the spectrum has {} bins, the plan {}", spectrum.size(), p_.numbins);
    FASTPSR_EXPECTS(scale.rk_start.size() == scale.factor.size(), "accel: the power scale has {} starts for {} factors",
                    scale.rk_start.size(), scale.factor.size());
    scale_ = &scale;
    if (block_rk_ == 0) {
      compute_plane(spectrum);
      const std::vector<TermView> views(terms_.size(),
                                        TermView{plane_.get(), plane_lo_, static_cast<std::size_t>(plane_len_), 0});
      harmonic_sums(sink, views, p_.rk_begin, p_.rk_end);
      return;
    }
    for (std::int64_t a = p_.rk_begin; a < p_.rk_end; a += block_rk_) {
      const std::int64_t b = std::min(a + block_rk_, p_.rk_end);
      harmonic_sums(sink, compute_windows(spectrum, a, b), a, b);
    }
  }

  void set_powcut(std::span<const float> powcut) override {
    FASTPSR_EXPECTS(powcut.size() == p_.powcut.size(), "accel: {} power thresholds for {} harmonic stages",
                    powcut.size(), p_.powcut.size());
    p_.powcut.assign(powcut.begin(), powcut.end());
  }

  [[nodiscard]] std::string describe() const override {
    constexpr double mib = 1024.0 * 1024.0;
    const std::string plane =
        block_rk_ == 0
            ? fmt::format("plane {:.1f} MiB", static_cast<double>(whole_plane_bytes_) / mib)
            : fmt::format(
                  "block search: {} half bins (rk) a block, sub-harmonic windows recomputed for each ({:.1f} MiB; the "
                  "whole plane would take {:.1f} MiB)",
                  block_rk_, static_cast<double>(plane_size_ * sizeof(float)) / mib,
                  static_cast<double>(whole_plane_bytes_) / mib);
    return fmt::format(
        "CPU FFTW overlap-save: {} templates (z {}..{} step 2), {} interpolation, FFT length {} ({} good points, {} "
        "segments), harmonic stages {}, {}",
        p_.numz(), -p_.zmax, p_.zmax, nb_ == 2 ? "Fourier (numbetween 2)" : "interbin", len_, use_, nseg_, p_.stages(),
        plane);
  }
  [[nodiscard]] std::int64_t block_rk() const noexcept override { return block_rk_; }
  [[nodiscard]] std::size_t host_bytes() const noexcept override {
    return (plane_size_ + kStretchedPad) * sizeof(float) + kernels_.size() * sizeof(cf);
  }

 private:
  // The widest block (whole chunks) whose windows fit `budget` bytes; one chunk at the least.
  [[nodiscard]] std::int64_t widest_block(std::size_t budget) const {
    const std::int64_t width = widest_fitting_block(p_.rk_end - p_.rk_begin, kChunk, [&](std::int64_t w) {
      return block_window_bytes(terms_, p_.zmax, w) <= budget;
    });
    return std::max(width, kChunk);
  }

  void make_kernels() {
    const int numz = p_.numz();
    kernels_.assign(static_cast<std::size_t>(numz) * static_cast<std::size_t>(len_), cf(0.0F, 0.0F));
    auto g = fftw_alloc<cf>(static_cast<std::size_t>(len_));
    auto gf = fftw_alloc<cf>(static_cast<std::size_t>(len_));
    const float scale = 1.0F / static_cast<float>(len_);
    for (int zi = 0; zi < numz; ++zi) {
      const int z = p_.z_of(zi);
      const auto t = correlation_template(z, nb_);
      const int off = nb_ * (hmax_ - template_halfwidth(z));
      std::fill(g.get(), g.get() + len_, cf(0.0F, 0.0F));
      // c[i] = sum_n seg[i+n] g[n] = IFFT(FFT(seg) * conj(FFT(conj g))) / L
      for (std::size_t m = 0; m < t.size(); ++m) g[static_cast<std::size_t>(off) + m] = std::conj(t[m]);
      fwd_->run(g.get(), gf.get());
      cf* k = kernels_.data() + static_cast<std::size_t>(zi) * static_cast<std::size_t>(len_);
      for (int i = 0; i < len_; ++i) k[i] = std::conj(gf[static_cast<std::size_t>(i)]) * scale;
    }
  }

  void compute_plane(std::span<const cf> x) {
    poison(plane_size_);
    const int numz = p_.numz();
#pragma omp parallel num_threads(threads())
    {
      SegmentScratch buf(len_, use_);
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t s = 0; s < nseg_; ++s) {
        const std::int64_t o0 = o_lo_ + s * use_;
        const std::int64_t count = transform_segment(x, s, buf);
        for (int zi = 0; zi < numz; ++zi) {
          correlate(buf, zi);
          float* row = plane_.get() + static_cast<std::size_t>(zi) * static_cast<std::size_t>(plane_len_);
          store_powers(row, plane_lo_, p_.rk_end, o0, buf.corr.get(), count, buf.factors.data());
        }
      }
    }
  }

  [[nodiscard]] int threads() const noexcept { return threads_ > 0 ? threads_ : omp_get_max_threads(); }

  // Fills the first n floats of the plane (or windows) with -1: every point must be written.
  // In parallel, so that pages are first touched by the threads that use them.
  void poison(std::size_t n) {
    const auto points = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static) num_threads(threads())
    for (std::int64_t i = 0; i < points; ++i) plane_[i] = -1.0F;
  }

  // The block search: the windows of every term for rk in [a, b), each from the same segment
  // (and so the same bits) as in the whole plane. Returns where the sums find them.
  std::vector<TermView> compute_windows(std::span<const cf> x, std::int64_t a, std::int64_t b) {
    std::vector<PlaneWindow> windows;
    std::vector<TermView> views;
    std::size_t offset = 0;
    for (const auto& t : terms_) {
      windows.push_back(term_window(t, p_.zmax, a, b));
      const auto& w = windows.back();
      views.push_back({plane_.get() + offset, w.col_lo, static_cast<std::size_t>(term_pitch(t, block_rk_)), w.row_lo});
      offset += static_cast<std::size_t>(w.rows()) * views.back().pitch;
    }
    FASTPSR_ASSERT(offset <= plane_size_);
    const auto jobs = segment_jobs(windows, o_lo_, use_, nb_ == 1);
    poison(offset);
    const auto njobs = static_cast<std::int64_t>(jobs.size());
#pragma omp parallel num_threads(threads())
    {
      SegmentScratch buf(len_, use_);
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t j = 0; j < njobs; ++j) {
        const auto& job = jobs[static_cast<std::size_t>(j)];
        const std::int64_t o0 = o_lo_ + job.segment * use_;
        const std::int64_t count = transform_segment(x, job.segment, buf);
        for (int zi = job.row_lo; zi <= job.row_hi; ++zi) {
          correlate(buf, zi);
          for (std::size_t t = 0; t < windows.size(); ++t) {
            const auto& w = windows[t];
            if ((job.terms >> t & 1U) == 0 || zi < w.row_lo || zi > w.row_hi) continue;
            store_powers(views[t].row(zi), w.col_lo, w.col_hi, o0, buf.corr.get(), count, buf.factors.data());
          }
        }
      }
    }
    return views;
  }

  // Fills b.seg with segment s of the (spread) spectrum and transforms it into b.segf; b.factors
  // gets the power scale of its rk. Returns how many outputs it has (see store_powers).
  std::int64_t transform_segment(std::span<const cf> x, std::int64_t s, SegmentScratch& b) const {
    cf* seg = b.seg.get();
    cf* segf = b.segf.get();
    std::vector<float>& factors = b.factors;
    const auto numbins = static_cast<std::int64_t>(x.size());
    const std::int64_t o0 = o_lo_ + s * use_;
    const std::int64_t q0 = o0 - static_cast<std::int64_t>(nb_) * hmax_;  // spread-domain start
    for (int n = 0; n < len_; ++n) {
      const std::int64_t q = q0 + n;
      cf v(0.0F, 0.0F);
      if (q >= 0 && q % nb_ == 0 && q / nb_ < numbins) v = x[static_cast<std::size_t>(q / nb_)];
      seg[static_cast<std::size_t>(n)] = v;
    }
    fwd_->run(seg, segf);
    const std::int64_t count = std::min<std::int64_t>(use_ + (nb_ == 1 ? 1 : 0), o_hi_ - o0);
    // The power scale of this segment's rk, looked up once for all templates.
    const std::int64_t rk0 = nb_ == 2 ? o0 : 2 * o0;
    for (std::int64_t i = 0; i < (3 - nb_) * count; ++i) factors[static_cast<std::size_t>(i)] = scale_->at(rk0 + i);
    return count;
  }

  // b.corr = the correlation of the transformed segment b.segf with template zi.
  void correlate(SegmentScratch& b, int zi) const {
    const cf* k = kernels_.data() + static_cast<std::size_t>(zi) * static_cast<std::size_t>(len_);
    multiply(b.segf.get(), k, b.prod.get());
    inv_->run(b.prod.get(), b.corr.get());
  }

  // out = a * b elementwise, written on floats so that it vectorises (std::complex's operator*
  // keeps a NaN-recovery branch).
  void multiply(const cf* a, const cf* b, cf* out) const {
    const auto* x = reinterpret_cast<const float*>(a);
    const auto* y = reinterpret_cast<const float*>(b);
    auto* o = reinterpret_cast<float*>(out);
    for (int i = 0; i < 2 * len_; i += 2) {
      o[i] = x[i] * y[i] - x[i + 1] * y[i + 1];
      o[i + 1] = x[i] * y[i + 1] + x[i + 1] * y[i];
    }
  }

  // Writes row[rk - lo] for the rk in [lo, hi) this segment owns, from the correlations
  // c[i] = C(o0 + i), i < count. f[j] is the power scale at rk = rk0 + j (rk0 = o0 for fourier,
  // 2 o0 for interbin).
  void store_powers(float* row, std::int64_t lo, std::int64_t hi, std::int64_t o0, const cf* c, std::int64_t count,
                    const float* f) const {
    if (nb_ == 2) {
      for (std::int64_t i = std::max<std::int64_t>(0, lo - o0); i < std::min(count, hi - o0); ++i) {
        row[o0 + i - lo] = f[i] * std::norm(c[i]);
      }
      return;
    }
    // Interbin: rk = 2r from C(r); rk = 2r + 1 from (pi/4)(C(r) - C(r+1)). C(o0 + use_), the
    // extra value the last odd rk needs, is the next segment's first output: that segment owns
    // its even rk (the two round differently, and threads finish in any order; the GPU does the
    // same).
    const float quarter_pi = 0.785398163397448F;
    const std::int64_t first = std::max<std::int64_t>(0, lo / 2 - o0 - 1);
    const std::int64_t last = std::min(count, (hi + 1) / 2 - o0 + 1);
    for (std::int64_t i = first; i < last; ++i) {
      const std::int64_t rk = 2 * (o0 + i);
      if (i < use_ && rk >= lo && rk < hi) row[rk - lo] = f[2 * i] * std::norm(c[i]);
      if (i + 1 < count && rk + 1 >= lo && rk + 1 < hi) {
        row[rk + 1 - lo] = f[2 * i + 1] * std::norm(quarter_pi * (c[i] - c[i + 1]));
      }
    }
  }

  // The sums, thresholds and hits of rk in [begin, end) (whole chunks from rk_begin), reading
  // each term through its view.
  void harmonic_sums(AccelHitSink& sink, const std::vector<TermView>& views, std::int64_t begin, std::int64_t end) {
    constexpr std::int64_t chunk = kChunk;
    const int numz = p_.numz();
    const int stages = p_.stages();
    const int nthreads = threads();
    const std::int64_t nchunks = (end - begin + chunk - 1) / chunk;
    // Threads take whole chunks (every z row of them), a group of chunks per parallel region;
    // the hits then go to the sink in chunk order.
    const std::int64_t group = 8 * static_cast<std::int64_t>(nthreads);
    std::vector<std::vector<AccelHit>> chunk_hits(static_cast<std::size_t>(group));
    for (std::int64_t g0 = 0; g0 < nchunks; g0 += group) {
      const std::int64_t g1 = std::min(nchunks, g0 + group);
#pragma omp parallel num_threads(nthreads)
      {
        std::vector<float> sum(static_cast<std::size_t>(chunk));
        std::vector<std::uint32_t> above(static_cast<std::size_t>(chunk));  // a stage's hits in a row
        // For each odd h/H (stage by stage) the plane offset of every rk of the chunk: the same
        // for all z rows (PRESTO's rinds), so it is computed once per chunk.
        std::vector<std::vector<std::int32_t>> index;
        for (int s = 1; s < stages; ++s) {
          for (int h = 1; h < (1 << s); h += 2) index.emplace_back(static_cast<std::size_t>(chunk));
        }
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t c = g0; c < g1; ++c) {
          const std::int64_t a = begin + c * chunk;
          const std::int64_t b = std::min(a + chunk, end);
          for (std::size_t t = 1; t < terms_.size(); ++t) {
            const auto [h, H] = terms_[t];
            for (std::int64_t rk = a; rk < b; ++rk) {
              index[t - 1][static_cast<std::size_t>(rk - a)] =
                  static_cast<std::int32_t>(sub_rk(rk, h, H) - views[t].col0);
            }
          }
          auto& out = chunk_hits[static_cast<std::size_t>(c - g0)];
          out.clear();
          for (int zi = 0; zi < numz; ++zi) sum_row(zi, a, b, stages, views, index, sum, above, out);
        }
      }
      for (std::int64_t c = g0; c < g1; ++c) {
        const std::int64_t a = begin + c * chunk;
        sink.consume(a, std::min(a + chunk, end), chunk_hits[static_cast<std::size_t>(c - g0)]);
      }
    }
  }

  void sum_row(int zi, std::int64_t a, std::int64_t b, int stages, const std::vector<TermView>& views,
               const std::vector<std::vector<std::int32_t>>& index, std::vector<float>& sum,
               std::vector<std::uint32_t>& above, std::vector<AccelHit>& out) const {
    const int z = p_.z_of(zi);
    const std::size_t n = static_cast<std::size_t>(b - a);
    const float* top = views[0].row(zi) + (a - views[0].col0);
    float* acc = sum.data();
    for (std::size_t i = 0; i < n; ++i) acc[i] = top[i];
    std::size_t t = 0;
    for (int s = 0; s < stages; ++s) {
      const int H = 1 << s;
      // Stage s adds the odd harmonics h/H; the even ones were added as (h/2)/(H/2) before.
      for (int h = 1; h < H; h += 2, ++t) {
        const int szi = (sub_z(z, h, H) + p_.zmax) / 2;
        const float* row = views[t + 1].row(szi);
        const std::int32_t* idx = index[t].data();
        stretched_add(acc, row, idx, n);  // acc[i] += row[idx[i]], same bits on every path
      }
      const float cut = p_.powcut[static_cast<std::size_t>(s)];
      const std::size_t nabove = indices_above(acc, n, cut, above.data());
      for (std::size_t k = 0; k < nabove; ++k) {
        const std::uint32_t i = above[k];
        out.push_back({a + static_cast<std::int64_t>(i), zi, 0, static_cast<std::int16_t>(s), acc[i]});
      }
    }
  }

  AccelSearchProblem p_;
  int threads_ = 0;
  int nb_ = 2;
  int hmax_ = 0;
  int span_ = 0;
  int len_ = 0;
  int use_ = 0;
  std::int64_t plane_lo_ = 0;
  std::int64_t plane_len_ = 0;
  std::int64_t o_lo_ = 0;
  std::int64_t o_hi_ = 0;
  std::int64_t nseg_ = 0;
  std::unique_ptr<FftwPlan> fwd_;
  std::unique_ptr<FftwPlan> inv_;
  std::vector<cf> kernels_;                 // [zi][len]: conj(FFT(conj template)) / len
  const AccelPowerScale* scale_ = nullptr;  // of the spectrum being searched
  std::vector<SumTerm> terms_;              // of the harmonic sums, term 0 the highest harmonic
  std::size_t whole_plane_bytes_ = 0;
  std::int64_t block_rk_ = 0;       // rk a block of the block search; 0: the whole plane
  std::unique_ptr<float[]> plane_;  // [zi][rk - plane_lo], or the block's windows
  std::size_t plane_size_ = 0;      // floats
};

}  // namespace

std::unique_ptr<FdotSearcher> make_fdot_searcher(const AccelSearchProblem& problem, const AccelSearchOptions& options) {
  return std::make_unique<CpuFdotSearcher>(problem, options);
}

}  // namespace fastpsr::cpu
