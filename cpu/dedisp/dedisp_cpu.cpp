// SPDX-License-Identifier: MIT
// The CPU dedisperser: packed input -> channel-major rows (dedisp_rows) -> worker threads (a
// WorkerTeam, dynamic scheduling) over (DM tile x time tile) tasks, each running the
// register-blocked SIMD kernel (dedisp_kernels).
// Where the delays split into subband and within-subband parts (prepsubband -nsub rounding),
// the rows are subband rows made by an exact integer first stage (dedisp_subbands) instead.
#include "fastpsr/cpu/dedisp_cpu.hpp"

#include <omp.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>

#include "dedisp_kernels.hpp"
#include "dedisp_rows.hpp"
#include "dedisp_subbands.hpp"
#include "fastpsr/cpu/cpu_features.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/worker_team.hpp"

namespace fastpsr::cpu {
namespace {

using namespace dedisp_detail;

// Buffers the default gulp aims at: output (ndms rows of gulp floats) and new input rows.
constexpr std::size_t kDefaultOutputBytes = std::size_t{64} << 20;
constexpr std::size_t kDefaultRowBytes = std::size_t{32} << 20;
// The default gulp is at least kGulpFloor samples (a push's fixed costs amortised), unless the
// new rows or the output block would then pass these, where it shrinks to fit them, down to
// kMinGulp: 4,194,304 channels took 32 GiB of rows at 4096 samples (QA pass 20).
constexpr std::size_t kGulpFloor = 4096;
constexpr std::size_t kMinGulp = 64;
constexpr std::size_t kFloorRowBytes = std::size_t{256} << 20;
constexpr std::size_t kFloorOutputBytes = std::size_t{512} << 20;
// Rows shorter than this hold no padding of their own (see the constructor).
constexpr std::size_t kPaddedRowBytes = 4096;

std::size_t parse_size(const std::string& key, const std::string& value) {
  std::size_t v = 0;
  const auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || p != value.data() + value.size() || v == 0) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("--cpu-config {}={}: expected a positive integer", key, value));
  }
  return v;
}

std::string best_isa() {
  const auto& f = cpu_features();
  if (f.avx512f && f.avx512bw) return "avx512";
  if (f.avx2) return "avx2";
  return "generic";
}

bool isa_supported(const std::string& isa) {
  const auto& f = cpu_features();
  if (isa == "avx512") return f.avx512f && f.avx512bw;
  if (isa == "avx2") return f.avx2;
  return isa == "generic";
}

// --cpu-config with the defaults of what it does not give; its keys and values checked, but not
// what this CPU runs.
struct CpuConfig {
  std::string isa;           // empty: the best this CPU runs
  std::size_t dm_block = 0;  // 0: from the DM count
  std::size_t dm_tile = 32;
  std::size_t time_tile = 0;  // 0: chosen from the delays (choose_kernel)
  std::size_t chan_block = 64;
  std::string subbands = "auto";  // two-stage path: auto, on (whenever the input is integer), off
  std::size_t sub_chunk = 0;      // stage-1 samples per staging block; 0: from the cache size
  std::size_t sub_block = 0;      // stage-1 kept channels staged at once, whole subbands; 0: within 16 MiB
};

CpuConfig parse_cpu_config(const std::map<std::string, std::string>& config) {
  CpuConfig c;
  for (const auto& [key, value] : config) {
    if (key == "isa") {
      check_cpu_isa_name(value);
      c.isa = value;
    } else if (key == "dm_block") {
      c.dm_block = parse_size(key, value);
    } else if (key == "dm_tile") {
      c.dm_tile = parse_size(key, value);
    } else if (key == "time_tile") {
      c.time_tile = parse_size(key, value);
    } else if (key == "chan_block") {
      c.chan_block = parse_size(key, value);
    } else if (key == "subbands") {
      if (value != "auto" && value != "on" && value != "off") {
        throw Error(ErrorCode::invalid_argument,
                    fmt::format("--cpu-config subbands={}: expected auto, on or off", value));
      }
      c.subbands = value;
    } else if (key == "sub_chunk") {
      c.sub_chunk = parse_size(key, value);
    } else if (key == "sub_block") {
      c.sub_block = parse_size(key, value);
    } else {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("--cpu-config: unknown key '{}' (known: isa, dm_block, dm_tile, time_tile, chan_block, "
                              "subbands, sub_chunk, sub_block)",
                              key));
    }
  }
  return c;
}

std::string_view row_type_name(RowType t) {
  switch (t) {
    case RowType::u16_total_u32:
      return "uint16 lanes, uint32 totals";
    case RowType::u16_total_u64:
      return "uint16 lanes, uint64 totals";
    case RowType::u32_total_u64:
      return "uint32 lanes, uint64 totals";
    case RowType::f32_total_f64:
      return "float32 rows, float64 sums";
  }
  return "?";
}

class CpuDedisperser final : public Dedisperser {
 public:
  CpuDedisperser(const DedispPlan& plan, const DedispOptions& options);

  [[nodiscard]] const DedispPlan& plan() const noexcept override { return plan_; }
  [[nodiscard]] std::size_t gulp_samples() const noexcept override { return gulp_ds_ * D_; }
  DedispBlock push(const std::uint8_t* packed, std::size_t n) override;
  DedispBlock flush() override;
  [[nodiscard]] std::string describe() const override;
  // What the dedisperser holds once it runs: rows, offsets, output block, its copy of the plan
  // (the delay table: 4 B per DM and channel; the channel frequencies and kept channels: 13 B a
  // channel, which only millions of channels make count) and the two-stage path's buffers. The
  // rows and the output block are made at the first push, so a caller can check this before any
  // large allocation.
  [[nodiscard]] std::size_t host_bytes() const noexcept override {
    return rows_words_ * sizeof(std::uint32_t) + offsets_.size() * sizeof(std::uint32_t) +
           ndms_ * out_stride_ * sizeof(float) + plan_.delays.size() * sizeof(std::int32_t) +
           plan_.problem.input.chan_freq_mhz.size() * sizeof(double) + plan_.problem.keep.size() +
           kept_.size() * sizeof(int) + (stage1_ ? stage1_->host_bytes(nthreads()) : 0);
  }

 private:
  void parse_config(const DedispOptions& options);
  void choose_path();
  void choose_row_type(std::uint64_t max_row_value);
  void choose_kernel();
  DedispBlock emit(std::uint64_t out_end);
  void allocate();
  void make_room(std::size_t n_ds);
  [[nodiscard]] RowsTarget rows_target() {
    return RowsTarget{rows_.data(), row_len_, elem_bytes_, type_ == RowType::f32_total_f64};
  }
  [[nodiscard]] int nthreads() const noexcept { return threads_ > 0 ? threads_ : omp_get_max_threads(); }

  DedispPlan plan_;
  std::vector<int> kept_;
  std::size_t nk_ = 0;
  std::size_t nrows_ = 0;  // rows the kernel sums: kept channels, or subbands in the two-stage path
  std::size_t D_ = 1;
  std::size_t ndms_ = 0;
  std::size_t hist_ = 0;     // max delay, downsampled samples
  std::size_t gulp_ds_ = 0;  // downsampled samples per push
  std::size_t span_ = 0;     // row samples beyond the history: compaction happens once per span
  std::size_t row_len_ = 0;
  RowType type_ = RowType::u16_total_u32;
  std::size_t elem_bytes_ = 2;
  std::size_t group_ = 0;
  std::int64_t bias_ = 0;
  std::string isa_;
  KernelVariant kernel_;
  CpuConfig cfg_;  // --cpu-config or its defaults; dm_tile and time_tile resolved by choose_kernel
  std::unique_ptr<SubbandStage> stage1_;
  int threads_ = 0;
  std::unique_ptr<WorkerTeam> team_;

  std::size_t rows_words_ = 0;          // rows_'s size once allocated
  std::vector<std::uint32_t> rows_;     // nrows_ * row_len_ elements of elem_bytes_, then the padding (4-byte words)
  std::vector<std::uint32_t> offsets_;  // padded ndms x nk
  std::vector<float> out_;              // ndms x out_stride_
  std::size_t out_stride_ = 0;

  std::uint64_t base_ = 0;      // absolute downsampled index at row position 0
  std::uint64_t fill_ = 0;      // one past the last downsampled sample in the rows
  std::uint64_t out_next_ = 0;  // next output sample to hand out
  std::uint64_t nin_ = 0;       // input samples pushed
  bool flushing_ = false;
  std::uint64_t out_final_ = 0;
};

CpuDedisperser::CpuDedisperser(const DedispPlan& plan, const DedispOptions& options) : plan_(plan) {
  const auto& in = plan_.problem.input;
  FASTPSR_EXPECTS(in.nbits == 1 || in.nbits == 2 || in.nbits == 4 || in.nbits == 8 || in.nbits == 16 || in.nbits == 32,
                  "the CPU dedisperser reads nbits 1, 2, 4, 8, 16 or 32, not {}", in.nbits);
  for (int c = 0; c < in.nchans; ++c) {
    if (plan_.channel_kept(c)) kept_.push_back(c);
  }
  nk_ = kept_.size();
  D_ = static_cast<std::size_t>(plan_.downsample());
  ndms_ = plan_.ndms();
  parse_config(options);
  team_ = std::make_unique<WorkerTeam>(static_cast<std::size_t>(nthreads()));
  choose_path();  // sets nrows_, hist_, the row type and the stage-1 state
  choose_kernel();

  if (options.gulp_samples > 0) {
    gulp_ds_ = std::max<std::size_t>(1, options.gulp_samples / D_);
  } else {
    // Bounded by the output block (ndms rows) and by the new channel data as rows, counting
    // every channel of the input, the killed ones too (also in the two-stage path: the caller's
    // input buffers hold every channel and they and first-touch page faults grow with the gulp,
    // for no gain once a push's fixed costs are amortised; sized by the kept channels, killing
    // most of a band multiplied the read-ahead by nchans / kept: QA pass 15). No longer than an
    // input of known length.
    const std::size_t out_bytes = sizeof(float) * ndms_;
    const auto nchans = static_cast<std::size_t>(std::max(in.nchans, 1));
    const std::size_t row_bytes = std::max(nchans, nk_) * elem_bytes_;
    const std::size_t by_output = kDefaultOutputBytes / out_bytes;
    const std::size_t by_rows = kDefaultRowBytes / row_bytes;
    const std::size_t floor =
        std::clamp(std::min(kFloorOutputBytes / out_bytes, kFloorRowBytes / row_bytes), kMinGulp, kGulpFloor);
    gulp_ds_ = std::clamp<std::size_t>(std::min(by_output, by_rows), floor, 1u << 18);
    if (options.input_samples > 0) {
      gulp_ds_ = std::min<std::size_t>(gulp_ds_, static_cast<std::size_t>((options.input_samples + D_ - 1) / D_));
    }
  }
  // Rows hold the history plus `span_` samples; consumed samples are dropped (a memmove of the
  // history) only when the next gulp does not fit, so at most one sample moves per new sample.
  // Padding past the data: the last kernel step reads up to a step beyond, its prefetches two
  // more. Past a row's own data that is the next row, whose values reach only output samples
  // that are not stored (as the stale samples past the data do), so only the last row needs
  // the padding, after it. Rows of a page or more keep theirs each (and the strides the
  // kernels were tuned with); without this, 4,194,304 channels of 3 samples took 6.2 GiB of
  // rows, 256 times the data (QA pass 20).
  span_ = std::max(gulp_ds_, hist_);
  const std::size_t own_pad = (hist_ + span_) * elem_bytes_ >= kPaddedRowBytes ? 3 * kMaxStepSamples : 0;
  row_len_ = hist_ + span_ + own_pad;
  const std::size_t B = kernel_.dm_block;
  const std::size_t padded_dms = (ndms_ + B - 1) / B * B;
  if (static_cast<double>(nrows_) * static_cast<double>(row_len_) >= 4294967295.0) {
    throw Error(ErrorCode::resource,
                fmt::format("the CPU dedisperser needs {} rows x {} samples of history and gulp, more than its "
                            "32-bit row offsets address; use a smaller gulp or fewer DMs per range",
                            nrows_, row_len_));
  }
  rows_words_ = ((nrows_ * row_len_ + 3 * kMaxStepSamples) * elem_bytes_ + 3) / 4;
  offsets_.resize(padded_dms * nrows_);
  for (std::size_t i = 0; i < padded_dms; ++i) {
    const std::size_t src = std::min(i, ndms_ - 1);  // padding DMs repeat the last one
    const std::size_t block = i / B;
    const std::size_t d = i % B;
    for (std::size_t k = 0; k < nrows_; ++k) {
      const auto delay =
          stage1_ ? stage1_->split().dm_delay[src * nrows_ + k]
                  : plan_.delays[src * static_cast<std::size_t>(in.nchans) + static_cast<std::size_t>(kept_[k])];
      offsets_[(block * nrows_ + k) * B + d] =
          static_cast<std::uint32_t>(k * row_len_ + static_cast<std::size_t>(delay));
    }
  }
  out_stride_ = (gulp_ds_ + 15) / 16 * 16;
}

// The rows (zeros: the kernel's last steps read the padding past the data) and the output block.
void CpuDedisperser::allocate() {
  if (!rows_.empty()) return;
  rows_.assign(rows_words_, 0u);
  out_.assign(ndms_ * out_stride_, 0.0f);
}

// The two-stage path where it saves adds (auto) or wherever the input is integer (on): subband
// rows need fewer adds per sample (nk once, then nsub per DM instead of nk per DM).
void CpuDedisperser::choose_path() {
  const auto& in = plan_.problem.input;
  const std::uint64_t max_ds = in.nbits == 32 ? 0 : ((std::uint64_t{1} << in.nbits) - 1) * D_;
  nrows_ = nk_;
  hist_ = static_cast<std::size_t>(plan_.max_delay);
  if (in.nbits == 32 || cfg_.subbands == "off" || max_ds > 0xFFFFFFFFu) {
    choose_row_type(max_ds);
    return;
  }
  // Subbands as wide as uint16 rows allow, else as uint32 rows allow.
  const std::uint64_t fit16 = 0xFFFFu / max_ds;
  const std::uint64_t max_channels = fit16 >= 2 ? fit16 : 0xFFFFFFFFu / max_ds;
  SubbandSplit split = find_subband_split(plan_, kept_, static_cast<std::size_t>(max_channels));
  const std::size_t nsub = split.nsub();
  const double direct_adds = static_cast<double>(ndms_) * static_cast<double>(nk_);
  const double two_stage_adds = static_cast<double>(nk_) + static_cast<double>(ndms_) * static_cast<double>(nsub);
  if (cfg_.subbands == "auto" && 2.0 * two_stage_adds > direct_adds) {
    choose_row_type(max_ds);
    return;
  }
  std::size_t widest = 0;
  for (std::size_t g = 0; g < nsub; ++g) widest = std::max(widest, split.first[g + 1] - split.first[g]);
  nrows_ = nsub;
  hist_ = static_cast<std::size_t>(split.max_dm_delay);
  choose_row_type(max_ds * widest);
  InputFormat fmt_in;
  fmt_in.nbits = in.nbits;
  fmt_in.is_signed = in.is_signed;
  fmt_in.bytes_per_sample = in.bytes_per_sample();
  fmt_in.downsample = D_;
  fmt_in.kept = &kept_;
  stage1_ = std::make_unique<SubbandStage>(fmt_in, std::move(split), elem_bytes_, isa_, cfg_.sub_chunk, cfg_.sub_block);
}

// Row elements and lane groups for rows of at most `max_row_value` (0 for float input);
// totals wide enough for the sum over all kept channels.
void CpuDedisperser::choose_row_type(std::uint64_t max_row_value) {
  const auto& in = plan_.problem.input;
  if (in.nbits == 32) {
    type_ = RowType::f32_total_f64;
    elem_bytes_ = 4;
    group_ = nrows_;
    return;
  }
  const std::uint64_t maxval = (std::uint64_t{1} << in.nbits) - 1;  // signed 8-bit is offset to 0..255
  const std::uint64_t max_total = maxval * D_ * nk_;
  if (max_row_value <= 0xFFFFu) {
    elem_bytes_ = 2;
    group_ = static_cast<std::size_t>(0xFFFFu / max_row_value);
    type_ = max_total <= 0xFFFFFFFFu ? RowType::u16_total_u32 : RowType::u16_total_u64;
  } else if (max_row_value <= 0xFFFFFFFFu) {
    elem_bytes_ = 4;
    group_ = static_cast<std::size_t>(0xFFFFFFFFu / max_row_value);
    type_ = RowType::u32_total_u64;
  } else {
    throw Error(ErrorCode::unsupported,
                fmt::format("downsampling by {} sums {}-bit samples beyond 32 bits", D_, in.nbits));
  }
  if (in.is_signed && in.nbits == 8) bias_ = static_cast<std::int64_t>(128 * D_ * nk_);
}

void CpuDedisperser::parse_config(const DedispOptions& options) {
  cfg_ = parse_cpu_config(options.cpu_config);
  if (!cfg_.isa.empty()) check_cpu_isa(cfg_.isa, isa_supported);
  isa_ = cfg_.isa.empty() ? best_isa() : cfg_.isa;
  threads_ = options.threads;
}

void CpuDedisperser::choose_kernel() {
  std::size_t dm_block = cfg_.dm_block;
  if (dm_block == 0) {
    // Few DMs: the smallest register block that holds them all, so that no padding DMs are computed.
    const std::size_t full = kernel_for(type_, isa_).dm_block;
    for (std::size_t b : {std::size_t{1}, std::size_t{4}, std::size_t{8}}) {
      if (ndms_ <= b && b < full) {
        dm_block = b;
        break;
      }
    }
  }
  kernel_ = kernel_for(type_, isa_, dm_block);
  // Long delays (few channels, low frequencies) leave little reuse between the DMs of a tile
  // unless the time tile is long too; short ones keep the task's totals small.
  if (cfg_.time_tile == 0) cfg_.time_tile = hist_ > 16384 ? 8192 : 2048;
  cfg_.dm_tile = (cfg_.dm_tile + kernel_.dm_block - 1) / kernel_.dm_block * kernel_.dm_block;
  cfg_.time_tile = std::max(kernel_.step_samples, cfg_.time_tile / kernel_.step_samples * kernel_.step_samples);
}

DedispBlock CpuDedisperser::push(const std::uint8_t* packed, std::size_t n) {
  FASTPSR_EXPECTS(!flushing_, "push() after flush()");
  FASTPSR_EXPECTS(n <= gulp_samples(), "push of {} samples exceeds the gulp of {}", n, gulp_samples());
  FASTPSR_EXPECTS(nin_ % D_ == 0, "push after a push of {} samples, not a multiple of the downsampling {}", nin_, D_);
  allocate();
  nin_ += n;
  const std::size_t n_ds = n / D_;
  if (stage1_) {
    const std::size_t m = stage1_->completes(n_ds);
    make_room(m);
    stage1_->append(packed, n_ds, rows_target(), static_cast<std::size_t>(fill_ - base_), *team_);
    fill_ += m;
  } else {
    make_room(n_ds);
    InputFormat fmt_in;
    fmt_in.nbits = plan_.problem.input.nbits;
    fmt_in.is_signed = plan_.problem.input.is_signed;
    fmt_in.bytes_per_sample = plan_.problem.input.bytes_per_sample();
    fmt_in.downsample = D_;
    fmt_in.kept = &kept_;
    append_rows(fmt_in, packed, n_ds, rows_target(), static_cast<std::size_t>(fill_ - base_), team_.get());
    fill_ += n_ds;
  }
  if (fill_ < hist_ + out_next_ + 1) return DedispBlock{out_next_, 0, out_.data(), out_stride_};
  return emit(fill_ - hist_);
}

DedispBlock CpuDedisperser::flush() {
  allocate();
  if (!flushing_) {
    flushing_ = true;
    const std::uint64_t nds = nin_ / D_;
    const auto min_delay = static_cast<std::uint64_t>(plan_.min_dm_max_delay);
    out_final_ = nds > min_delay ? nds - min_delay : 0;
  }
  if (out_next_ >= out_final_) return DedispBlock{out_next_, 0, out_.data(), out_stride_};
  // The input is taken as followed by zeros: append them, a gulp at a time, until the next
  // block of outputs is complete (their last sample needs fill_ > out_next_ + hist_).
  const std::uint64_t need_fill = out_final_ + hist_;
  // Rows hold signed 8-bit input offset by 128 per summed sample, so a zero is 128 * D there.
  const std::size_t zero = bias_ != 0 ? 128 * D_ : 0;
  do {
    if (stage1_) {
      // Zero input samples through stage 1 until the subband rows reach need_fill.
      const std::uint64_t want = need_fill + stage1_->split().max_chan_delay - stage1_->channel_samples();
      const auto nzero = static_cast<std::size_t>(std::min<std::uint64_t>(want, gulp_ds_));
      const std::size_t m = stage1_->completes(nzero);
      make_room(m);
      stage1_->append(nullptr, nzero, rows_target(), static_cast<std::size_t>(fill_ - base_), *team_);
      fill_ += m;
      continue;
    }
    const auto nzero = static_cast<std::size_t>(std::min<std::uint64_t>(need_fill - fill_, gulp_ds_));
    make_room(nzero);
    const auto pos = static_cast<std::size_t>(fill_ - base_);
    for (std::size_t k = 0; k < nrows_; ++k) {
      auto* row = reinterpret_cast<std::uint8_t*>(rows_.data()) + (k * row_len_ + pos) * elem_bytes_;
      if (zero == 0) {
        std::memset(row, 0, nzero * elem_bytes_);
      } else if (elem_bytes_ == 2) {
        std::fill_n(reinterpret_cast<std::uint16_t*>(row), nzero, static_cast<std::uint16_t>(zero));
      } else {
        std::fill_n(reinterpret_cast<std::uint32_t*>(row), nzero, static_cast<std::uint32_t>(zero));
      }
    }
    fill_ += nzero;
  } while (fill_ <= out_next_ + hist_);
  return emit(std::min<std::uint64_t>(fill_ - hist_, out_final_));
}

DedispBlock CpuDedisperser::emit(std::uint64_t out_end) {
  const std::uint64_t first = out_next_;
  const auto nt = static_cast<std::size_t>(out_end - first);
  FASTPSR_ASSERT(nt <= out_stride_);
  const auto t0 = static_cast<std::size_t>(first - base_);
  const std::size_t n_dm_tiles = (ndms_ + cfg_.dm_tile - 1) / cfg_.dm_tile;
  const std::size_t n_t_tiles = (nt + cfg_.time_tile - 1) / cfg_.time_tile;
  const std::size_t padded_dms = offsets_.size() / std::max<std::size_t>(nrows_, 1);
  team_->run_dynamic(n_dm_tiles * n_t_tiles, [&](std::size_t task, std::size_t) {
    const std::size_t dt = task % n_dm_tiles;
    const std::size_t tt = task / n_dm_tiles;
    KernelArgs a;
    a.rows = rows_.data();
    a.offsets = offsets_.data();
    a.nk = nrows_;
    a.group = group_;
    a.chan_block = cfg_.chan_block;
    a.dm_begin = dt * cfg_.dm_tile;
    a.dm_end = std::min(padded_dms, a.dm_begin + cfg_.dm_tile);
    a.ndms = ndms_;
    a.t_begin = t0 + tt * cfg_.time_tile;
    a.t_end = std::min(t0 + nt, a.t_begin + cfg_.time_tile);
    a.out = out_.data();
    a.out_stride = out_stride_;
    a.out_col = tt * cfg_.time_tile;
    a.bias = bias_;
    kernel_.fn(a);
  });
  out_next_ = out_end;
  return DedispBlock{first, nt, out_.data(), out_stride_};
}

// Before appending n_ds samples: if they do not fit, drop what no later output reads (the
// samples before out_next_) by moving the rest to the front of each row.
void CpuDedisperser::make_room(std::size_t n_ds) {
  FASTPSR_ASSERT(n_ds <= gulp_ds_);
  if (fill_ - base_ + n_ds <= hist_ + span_) return;
  const auto drop = static_cast<std::size_t>(out_next_ - base_);
  const auto keep = static_cast<std::size_t>(fill_ - out_next_);
  FASTPSR_ASSERT(keep + n_ds <= hist_ + span_);
  auto* bytes = reinterpret_cast<std::uint8_t*>(rows_.data());
  team_->run_dynamic(nrows_, [&](std::size_t k, std::size_t) {
    std::uint8_t* row = bytes + k * row_len_ * elem_bytes_;
    std::memmove(row, row + drop * elem_bytes_, keep * elem_bytes_);
  });
  base_ = out_next_;
}

std::string CpuDedisperser::describe() const {
  std::string path = "direct sum over the channels";
  if (stage1_) {
    const auto& sp = stage1_->split();
    std::size_t widest = 0;
    for (std::size_t g = 0; g < sp.nsub(); ++g) widest = std::max(widest, sp.first[g + 1] - sp.first[g]);
    path = fmt::format(
        "two stages: {} channels into {} subbands of up to {} channels (delays within them up to {} samples, "
        "unpacked and summed {} samples at a time{}), then the subbands per DM",
        nk_, sp.nsub(), widest, sp.max_chan_delay, stage1_->chunk(),
        stage1_->blocks() > 1 ? fmt::format(", in {} blocks of subbands", stage1_->blocks()) : std::string());
  }
  return fmt::format(
      "cpu kernel: {}; isa {} ({}), {}, {} rows per lane group, {} DMs x {} samples per register block; "
      "tiles {} DMs x {} samples x {} rows; gulp {} samples ({} after downsampling by {}), history {} samples; "
      "threads {}; host memory {:.1f} MiB",
      path, isa_, describe_cpu_features(), row_type_name(type_), std::min(group_, nrows_), kernel_.dm_block,
      kernel_.step_samples, cfg_.dm_tile, cfg_.time_tile, std::min({cfg_.chan_block, group_, nrows_}), gulp_samples(),
      gulp_ds_, D_, hist_, nthreads(), static_cast<double>(host_bytes()) / (1024.0 * 1024.0));
}

}  // namespace

void check_dedisp_cpu_config(const std::map<std::string, std::string>& config) { (void)parse_cpu_config(config); }

std::unique_ptr<Dedisperser> make_dedisperser(const DedispPlan& plan, const DedispOptions& options) {
  return std::make_unique<CpuDedisperser>(plan, options);
}

}  // namespace fastpsr::cpu
