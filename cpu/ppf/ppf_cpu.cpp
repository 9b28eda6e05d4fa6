// SPDX-License-Identifier: MIT
#include "fastpsr/cpu/ppf_cpu.hpp"

#include <fftw3.h>
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <random>

#include "fastpsr/cpu/cpu_features.hpp"
#include "fastpsr/cpu/fftw_planning.hpp"
#include "fastpsr/error.hpp"
#include "ppf_fir_cpu.hpp"

namespace fastpsr::cpu {
namespace {

// FFTW's planner is not thread-safe; every planner and wisdom call goes through this lock.
std::mutex& fftw_planner_mutex() {
  static std::mutex m;
  return m;
}

struct FftwFree {
  void operator()(fftwf_complex* p) const noexcept { fftwf_free(p); }
};
using FftwBuffer = std::unique_ptr<fftwf_complex, FftwFree>;

struct FftwPlanDestroy {
  void operator()(fftwf_plan_s* p) const noexcept {
    const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    fftwf_destroy_plan(p);
  }
};
using FftwPlan = std::unique_ptr<fftwf_plan_s, FftwPlanDestroy>;

// --cpu-config: isa=avx512|avx2|generic (the FIR's SIMD variant; default the widest this CPU
// runs). avx512 and avx2 give the same bits; generic rounds twice a tap.
FirIsa choose_fir_isa(const std::map<std::string, std::string>& config) {
  check_ppf_cpu_config(config);
  const auto it = config.find("isa");
  if (it == config.end()) return best_fir_isa();
  check_cpu_isa(it->second, [](const std::string& name) { return fir_isa_supported(fir_isa_named(name)); });
  return fir_isa_named(it->second);
}

constexpr std::size_t kScratchTargetBytes = std::size_t{1} << 20;  // per thread: FIR + FFT block in L2
constexpr int kMaxSpectraPerBlock = 16;
constexpr std::size_t kDefaultGulpBytes = std::size_t{16} << 20;

// Copies n floats with non-temporal stores (SSE, in every x86-64): the complex output rows are
// read again only after the whole push, out of cache by then, and ordinary stores would first
// read each line of them (measured: the target's complex output 0.65 -> 0.73 Gsamp/s on the
// 2-vCPU Zen 5 VM). The caller fences (_mm_sfence) before others read dst.
void stream_copy(float* dst, const float* src, std::size_t n) {
  std::size_t i = 0;
  for (; i < n && (reinterpret_cast<std::uintptr_t>(dst + i) & 15) != 0; ++i) dst[i] = src[i];
  for (; i + 4 <= n; i += 4) _mm_stream_ps(dst + i, _mm_loadu_ps(src + i));
  for (; i < n; ++i) dst[i] = src[i];
}

// Writes c complex pairs (x[j], y[j]) to dst[4j .. 4j + 3], the output's polarisation-interleaved
// order, with non-temporal stores (as stream_copy). dst is 16-byte aligned: the rows start at
// whole channels of 16 bytes in a buffer from operator new (16-byte aligned on x86-64).
void stream_interleave(float* dst, const float* x, const float* y, std::size_t c) {
  FASTPSR_EXPECTS((reinterpret_cast<std::uintptr_t>(dst) & 15) == 0, "stream_interleave: unaligned row (internal)");
  for (std::size_t j = 0; j < c; ++j) {
    const __m128 xj = _mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(x + 2 * j)));
    const __m128 yj = _mm_castpd_ps(_mm_load_sd(reinterpret_cast<const double*>(y + 2 * j)));
    _mm_stream_ps(dst + 4 * j, _mm_movelh_ps(xj, yj));
  }
}

// Stages of process(); benchmarks time them one by one.
enum Stage : unsigned { kFir = 1U, kFft = 2U, kOut = 4U, kAll = 7U };

class CpuChanneliser final : public Channeliser {
 public:
  CpuChanneliser(const ChanneliserPlan& plan, const ChanneliserOptions& options) : plan_(plan) {
    const auto& p = plan_.problem;
    threads_ = options.threads > 0 ? options.threads : thread_count();
    isa_ = choose_fir_isa(options.cpu_config);
    // The generic FIR has no tiles to split the polarisations in: its rows would run two floats
    // at a time (measured 5x slower than the interleaved FIR and strided transforms).
    split_ = p.npol == 2 && isa_ != FirIsa::baseline;
    const std::size_t c = static_cast<std::size_t>(p.nchans);
    const std::size_t pol = static_cast<std::size_t>(p.npol);
    const std::size_t spr = static_cast<std::size_t>(plan_.spectra_per_row());
    sample_bytes_ = plan_.sample_bytes();

    // Spectra per FIR/FFT block: a block of C·P complex per spectrum fits the per-thread target.
    sb_ = static_cast<int>(
        std::clamp<std::size_t>(kScratchTargetBytes / (c * pol * sizeof(fftwf_complex)), 1, kMaxSpectraPerBlock));
    if (plan_.complex_output()) {
      rows_per_unit_ = sb_;
    } else {
      rows_per_unit_ = p.nint >= sb_ ? 1 : sb_ / p.nint;
    }
    block_channels_ = std::max(1, 256 / p.npol);

    // History: T − 1 raw spectra, an unfinished integration and a partial spectrum at most.
    history_max_ = (static_cast<std::size_t>(p.ntaps - 1) + spr - 1) * c + (c - 1);
    const std::size_t row_samples = c * spr;
    if (options.gulp_samples > 0) {
      gulp_ = options.gulp_samples;
    } else {
      const std::size_t per_sample = sample_bytes_ * static_cast<std::size_t>(p.ncoarse);
      gulp_ = std::max<std::size_t>(1, kDefaultGulpBytes / per_sample / row_samples) * row_samples;
    }
    capacity_ = history_max_ + gulp_;
    // The raw and output buffers grow with the gulp: made at the first push, so that a caller
    // can weigh host_bytes() against the memory it may use before they exist.
    raw_.resize(static_cast<std::size_t>(p.ncoarse));
    max_rows_ = static_cast<std::size_t>(plan_.rows_for_samples(capacity_));

    // One cache line between the taps' rows (see FirBlock::coeff_stride).
    coeff_stride_ = c * pol * 2 + 16;
    coeffx_.assign(static_cast<std::size_t>(p.ntaps) * coeff_stride_, 0.0F);
    for (std::size_t t = 0; t < static_cast<std::size_t>(p.ntaps); ++t) {
      for (std::size_t ch = 0; ch < c; ++ch) {
        const float w = plan_.coeffs[t * c + ch];
        std::fill_n(coeffx_.begin() + static_cast<std::ptrdiff_t>(t * coeff_stride_ + ch * pol * 2), pol * 2, w);
      }
    }
    phasex_.resize(2 * c * pol * 2);  // [re, im][C·P·2]
    for (std::size_t ch = 0; ch < c; ++ch) {
      const auto at = static_cast<std::ptrdiff_t>(ch * pol * 2);
      std::fill_n(phasex_.begin() + at, pol * 2, plan_.phase[2 * ch]);
      std::fill_n(phasex_.begin() + static_cast<std::ptrdiff_t>(c * pol * 2) + at, pol * 2, plan_.phase[2 * ch + 1]);
    }

    const std::size_t block_complex = static_cast<std::size_t>(sb_) * c * pol;
    for (int i = 0; i < threads_; ++i) {
      FftwBuffer buf(fftwf_alloc_complex(block_complex));
      if (!buf) throw Error(ErrorCode::resource, "out of memory for the PPF work buffers");
      std::memset(buf.get(), 0, block_complex * sizeof(fftwf_complex));
      scratch_.push_back(std::move(buf));
    }
    make_fft_plan(fftw_flags(options.fftw_effort));
  }

  [[nodiscard]] const ChanneliserPlan& plan() const noexcept override { return plan_; }
  [[nodiscard]] std::size_t gulp_samples() const noexcept override { return gulp_; }

  // The FIR reads the spectra that lie wholly in the new samples straight from the caller's
  // buffer; only the samples that continue the kept history (a block's worth past it) and those
  // kept for the next push are copied into raw_. (Copying every gulp into raw_ first made the
  // ppf tool ~9% slower end to end on two cores.)
  ChanneliserBlock push(const void* in, std::size_t n, std::size_t stride) override {
    FASTPSR_EXPECTS(n <= gulp_, "push of {} samples exceeds the gulp of {}", n, gulp_);
    allocate();
    if (stride == 0) stride = n;
    const auto* src = static_cast<const std::uint8_t*>(in);
    const std::size_t c = static_cast<std::size_t>(plan_.nchans());
    const std::size_t hist = count_;
    const auto rows = static_cast<std::size_t>(plan_.rows_for_samples(hist + n));
    ChanneliserBlock block;
    block.first = rows_done_;
    block.nrows = rows;
    block.row_floats = plan_.row_floats();
    block.data = out_.data();
    // New samples after the history in raw_: all of them when no row is complete, else enough
    // for every block that starts inside the history (such a block reads up to sb_ + T − 1
    // spectra on from its start).
    const std::size_t seam = (hist + c - 1) / c + static_cast<std::size_t>(sb_ + plan_.ntaps());
    const std::size_t appended = rows == 0 ? n : std::min(n, seam * c - std::min(seam * c, hist));
    append_raw(src, stride, 0, appended);
    if (rows == 0) return block;
    new_input_ = src;
    new_stride_ = stride;
    history_ = hist;
    process(rows);
    new_input_ = nullptr;
    // Keep the samples a later row needs: the tail of history + new data from `consumed` on.
    const std::size_t consumed = rows * static_cast<std::size_t>(plan_.spectra_per_row()) * c;
    if (consumed < hist) {
      for (auto& r : raw_) {
        std::memmove(r.data(), r.data() + consumed * sample_bytes_, (hist + appended - consumed) * sample_bytes_);
      }
      count_ = hist + appended - consumed;
      append_raw(src, stride, appended, n);
    } else {
      count_ = 0;
      append_raw(src, stride, consumed - hist, n);
    }
    rows_done_ += rows;
    return block;
  }

  ChanneliserBlock flush() override {
    ChanneliserBlock block;
    block.first = rows_done_;
    block.row_floats = plan_.row_floats();
    return block;
  }

  [[nodiscard]] std::string describe() const override {
    const auto& p = plan_.problem;
    return fmt::format(
        "CPU: {} thread{}, FIR {} (blocks of {} channels x {} spectra), FFTW {} x {}-point {} per block, "
        "gulp {} samples",
        threads_, threads_ == 1 ? "" : "s", fir_isa_name(isa_), block_channels_, sb_, sb_ * p.npol, p.nchans,
        plan_.inverse_fft ? "backward" : "forward", gulp_);
  }

  [[nodiscard]] std::size_t host_bytes() const noexcept override {
    std::size_t bytes = raw_.size() * capacity_ * sample_bytes_ +
                        (max_rows_ * plan_.row_floats() + coeffx_.size() + phasex_.size()) * sizeof(float);
    bytes += scratch_.size() * static_cast<std::size_t>(sb_) * static_cast<std::size_t>(plan_.nchans()) *
             static_cast<std::size_t>(plan_.npol()) * sizeof(fftwf_complex);
    return bytes;
  }

  // Benchmarks: `rows` rows over input already in the buffer (random bytes; floats in [−1, 1)).
  double time_rows(std::size_t rows, unsigned stages) {
    const auto t0 = std::chrono::steady_clock::now();
    process(rows, stages);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  void fill_random(std::uint64_t seed) {
    allocate();
    std::mt19937_64 rng(seed);
    for (auto& r : raw_) {
      if (plan_.problem.input == VoltageType::cf32) {
        auto* f = reinterpret_cast<float*>(r.data());
        std::uniform_real_distribution<float> u(-1.0F, 1.0F);
        for (std::size_t i = 0; i < r.size() / sizeof(float); ++i) f[i] = u(rng);
      } else {
        for (auto& b : r) b = static_cast<std::uint8_t>(rng());
      }
    }
    count_ = capacity_;
  }
  [[nodiscard]] std::size_t capacity_samples() const noexcept { return capacity_; }

 private:
  void make_fft_plan(unsigned flags) {
    const auto& p = plan_.problem;
    // Contiguous transforms where the FIR writes one spectrum a polarisation (split_), as FFTW
    // ran the interleaved ones (stride 2) 1.4x slower; else the polarisations interleaved.
    const int pol_stride = split_ ? 1 : p.npol;
    const int pol_dist = split_ ? p.nchans : 1;
    fftwf_iodim dim{p.nchans, pol_stride, pol_stride};
    fftwf_iodim many[2] = {{sb_, p.nchans * p.npol, p.nchans * p.npol}, {p.npol, pol_dist, pol_dist}};
    const int sign = plan_.inverse_fft ? FFTW_BACKWARD : FFTW_FORWARD;
    fftwf_complex* buf = scratch_[0].get();
    {
      const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
      fft_.reset(fftwf_plan_guru_dft(1, &dim, p.npol == 2 ? 2 : 1, many, buf, buf, sign, flags));
    }
    if (!fft_) {
      throw Error(ErrorCode::resource, fmt::format("FFTW could not plan {} {}-point transforms", sb_, p.nchans));
    }
    // Measuring planners scribble over the buffer; the unused tail of a partial block must stay finite.
    std::memset(buf, 0,
                static_cast<std::size_t>(sb_) * static_cast<std::size_t>(p.nchans) * static_cast<std::size_t>(p.npol) *
                    sizeof(fftwf_complex));
  }

  void allocate() {
    if (allocated_) return;
    for (auto& r : raw_) r.resize(capacity_ * sample_bytes_);
    out_.resize(max_rows_ * plan_.row_floats());
    allocated_ = true;
  }

  // New samples [a, b) of every coarse channel (caller's layout) appended to raw_.
  void append_raw(const std::uint8_t* src, std::size_t stride, std::size_t a, std::size_t b) {
    if (b <= a) return;
    for (std::size_t f = 0; f < raw_.size(); ++f) {
      std::memcpy(raw_[f].data() + count_ * sample_bytes_, src + (f * stride + a) * sample_bytes_,
                  (b - a) * sample_bytes_);
    }
    count_ += b - a;
  }

  void process(std::size_t rows, unsigned stages = kAll) {
    const auto& p = plan_.problem;
    const std::size_t units_per_coarse =
        (rows + static_cast<std::size_t>(rows_per_unit_) - 1) / static_cast<std::size_t>(rows_per_unit_);
    const auto units = static_cast<std::ptrdiff_t>(units_per_coarse * static_cast<std::size_t>(p.ncoarse));
#pragma omp parallel for schedule(dynamic) num_threads(threads_)
    for (std::ptrdiff_t u = 0; u < units; ++u) {
      const auto f = static_cast<std::size_t>(u) / units_per_coarse;
      const std::size_t r0 =
          (static_cast<std::size_t>(u) % units_per_coarse) * static_cast<std::size_t>(rows_per_unit_);
      const std::size_t r1 = std::min(rows, r0 + static_cast<std::size_t>(rows_per_unit_));
      process_unit(static_cast<int>(f), r0, r1, scratch_[static_cast<std::size_t>(omp_get_thread_num())].get(), stages);
    }
  }

  // Rows [r0, r1) of coarse channel f, in blocks of at most sb_ filtered spectra.
  void process_unit(int f, std::size_t r0, std::size_t r1, fftwf_complex* scratch, unsigned stages) {
    const auto& p = plan_.problem;
    const std::size_t c = static_cast<std::size_t>(p.nchans);
    const std::size_t pol = static_cast<std::size_t>(p.npol);
    const std::size_t spr = static_cast<std::size_t>(plan_.spectra_per_row());
    const std::size_t row_floats = plan_.row_floats();
    const int f_out = p.descending ? p.ncoarse - 1 - f : f;
    const std::size_t chan0 = static_cast<std::size_t>(f_out) * c;
    auto* work = reinterpret_cast<float*>(scratch);
    if (!plan_.complex_output()) {
      for (std::size_t r = r0; r < r1; ++r) {
        for (int i = 0; i < plan_.nifs(); ++i) {
          std::fill_n(out_.data() + r * row_floats + static_cast<std::size_t>(i) * plan_.out_channels() + chan0, c,
                      0.0F);
        }
      }
    }
    for (std::size_t s0 = r0 * spr; s0 < r1 * spr; s0 += static_cast<std::size_t>(sb_)) {
      const std::size_t s1 = std::min(r1 * spr, s0 + static_cast<std::size_t>(sb_));
      FirBlock b;
      if (new_input_ != nullptr && s0 * c >= history_) {  // wholly in the caller's buffer
        b.in = new_input_ + (static_cast<std::size_t>(f) * new_stride_ + s0 * c - history_) * sample_bytes_;
      } else {
        b.in = raw_[static_cast<std::size_t>(f)].data() + s0 * c * sample_bytes_;
      }
      b.coeffx = coeffx_.data();
      b.coeff_stride = coeff_stride_;
      b.isa = isa_;
      b.phase = plan_.phase.data();
      b.phasex = phasex_.data();
      b.out = work;
      b.nchans = p.nchans;
      b.ntaps = p.ntaps;
      b.npol = p.npol;
      b.nspectra = static_cast<int>(s1 - s0);
      b.block_channels = block_channels_;
      b.split_polarisations = split_;
      if ((stages & kFir) != 0) fir_block(p.input, b);
      if ((stages & kFft) != 0) fftwf_execute_dft(fft_.get(), scratch, scratch);
      if ((stages & kOut) == 0) continue;
      for (std::size_t s = s0; s < s1; ++s) {
        const float* x = work + (s - s0) * c * pol * 2;  // [C][P][2], or with split_ [P][C][2]
        float* row = out_.data() + s * row_floats + chan0 * pol * 2;
        if (plan_.complex_output()) {
          if (split_) {
            stream_interleave(row, x, x + 2 * c, c);
          } else {
            stream_copy(row, x, c * pol * 2);
          }
        } else {
          detect(x, out_.data() + (s / spr) * row_floats + chan0);
        }
      }
    }
    _mm_sfence();  // the non-temporal stores of stream_copy/interleave, before another thread reads the rows
  }

  // Adds the detected products of one spectrum ([C][P][2], or with split_ [P][C][2]) to a row:
  // IF i at dst[i·F·C + j].
  void detect(const float* spec, float* dst) const {
    const auto& p = plan_.problem;
    const std::size_t c = static_cast<std::size_t>(p.nchans);
    const std::size_t stride = plan_.out_channels();
    if (p.npol == 1) {
      for (std::size_t j = 0; j < c; ++j) dst[j] += spec[2 * j] * spec[2 * j] + spec[2 * j + 1] * spec[2 * j + 1];
      return;
    }
    const float* y = split_ ? spec + 2 * c : spec + 2;
    const std::size_t step = split_ ? 2 : 4;  // floats from one channel to the next
    for (std::size_t j = 0; j < c; ++j) {
      const float xr = spec[step * j];
      const float xi = spec[step * j + 1];
      const float yr = y[step * j];
      const float yi = y[step * j + 1];
      const float xx = xr * xr + xi * xi;
      const float yy = yr * yr + yi * yi;
      switch (p.detection) {
        case Detection::I:
          dst[j] += xx + yy;
          break;
        case Detection::AA:
          dst[j] += xx;
          break;
        case Detection::BB:
          dst[j] += yy;
          break;
        case Detection::IQUV:
          dst[j] += xx + yy;
          dst[stride + j] += xx - yy;
          dst[2 * stride + j] += 2.0F * (xr * yr + xi * yi);
          dst[3 * stride + j] += 2.0F * (xr * yi - xi * yr);
          break;
      }
    }
  }

  ChanneliserPlan plan_;
  int threads_ = 1;
  int sb_ = 1;
  int rows_per_unit_ = 1;
  int block_channels_ = 256;
  std::size_t sample_bytes_ = 0;
  std::size_t history_max_ = 0;
  std::size_t gulp_ = 0;
  std::size_t capacity_ = 0;
  std::size_t count_ = 0;  // samples per coarse channel in raw_
  // During push: the caller's new samples, their stride and the samples of history before them.
  const std::uint8_t* new_input_ = nullptr;
  std::size_t new_stride_ = 0;
  std::size_t history_ = 0;
  std::size_t max_rows_ = 0;
  std::uint64_t rows_done_ = 0;
  bool allocated_ = false;  // raw_'s rows and out_ made (at the first push)
  std::vector<std::vector<std::uint8_t>> raw_;
  std::vector<float> coeffx_;
  std::size_t coeff_stride_ = 0;  // floats between the taps' rows of coeffx_
  FirIsa isa_ = FirIsa::baseline;
  bool split_ = false;         // two polarisations written apart by the FIR, transformed contiguously
  std::vector<float> phasex_;  // the phase repeated over (P, re/im): [re, im][C·P·2]
  std::vector<float> out_;
  std::vector<FftwBuffer> scratch_;
  FftwPlan fft_;
};

}  // namespace

void check_ppf_cpu_config(const std::map<std::string, std::string>& config) {
  for (const auto& [key, value] : config) {
    if (key != "isa") {
      throw Error(ErrorCode::invalid_argument, fmt::format("--cpu-config: unknown key '{}' (known: isa)", key));
    }
    check_cpu_isa_name(value);
  }
}

std::unique_ptr<Channeliser> make_channeliser(const ChanneliserPlan& plan, const ChanneliserOptions& options) {
  return std::make_unique<CpuChanneliser>(plan, options);
}

PpfCpuTiming benchmark_cpu_ppf(const ChanneliserPlan& plan, const ChanneliserOptions& options, std::size_t nspectra,
                               int repeats) {
  const std::size_t spr = static_cast<std::size_t>(plan.spectra_per_row());
  const std::size_t rows = nspectra / spr;
  FASTPSR_EXPECTS(rows > 0, "benchmark of {} spectra gives no output row", nspectra);
  ChanneliserOptions o = options;
  o.gulp_samples = (rows * spr + static_cast<std::size_t>(plan.ntaps())) * static_cast<std::size_t>(plan.nchans());
  CpuChanneliser ch(plan, o);
  ch.fill_random(12345);
  auto median_ms = [&](unsigned stages) {
    ch.time_rows(rows, stages);  // warm-up: pages touched, caches and threads started
    std::vector<double> ms;
    for (int r = 0; r < repeats; ++r) ms.push_back(ch.time_rows(rows, stages));
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  PpfCpuTiming t;
  t.rows = rows;
  t.config = ch.describe();
  t.total_ms = median_ms(kAll);
  t.fir_ms = median_ms(kFir);
  t.fft_ms = median_ms(kFft);
  return t;
}

double measure_host_copy_bandwidth(std::size_t bytes, int repeats, int threads) {
  const int nt = threads > 0 ? threads : thread_count();
  std::vector<std::uint8_t> a(bytes, 1);
  std::vector<std::uint8_t> b(bytes, 0);
  std::vector<double> secs;
  for (int r = 0; r <= repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(nt)
    {
      const std::size_t per = (bytes + static_cast<std::size_t>(omp_get_num_threads()) - 1) /
                              static_cast<std::size_t>(omp_get_num_threads());
      const std::size_t begin = std::min(bytes, per * static_cast<std::size_t>(omp_get_thread_num()));
      const std::size_t end = std::min(bytes, begin + per);
      std::memcpy(b.data() + begin, a.data() + begin, end - begin);
    }
    if (r > 0) secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(secs.begin(), secs.end());
  return 2.0 * static_cast<double>(bytes) / secs[secs.size() / 2];
}

}  // namespace fastpsr::cpu
