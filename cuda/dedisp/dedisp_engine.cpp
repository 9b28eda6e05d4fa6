// SPDX-License-Identifier: MIT
#include "dedisp/dedisp_engine.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <thread>

#include "common/setup_timing.hpp"
#include "dedisp/dedisp_subband.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/log.hpp"

namespace fastpsr::cuda {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

std::size_t round_up(std::size_t v, std::size_t m) { return (v + m - 1) / m * m; }

cudaError_t lanes_op(int op, const KernelShape& s, const DedispKernelParams* p, std::size_t shared, cudaStream_t stream,
                     KernelAttributes* a) {
  if (s.subband != 0) return dedisp_subband_op(op, s, p, shared, stream, a);
  if (s.is_float) return dedisp_float_op(op, s, p, shared, stream, a);
  switch (s.lanes) {
    case 4:
      return s.mad_hi ? dedisp_lanes4mad_op(op, s, p, shared, stream, a)
                      : dedisp_lanes4_op(op, s, p, shared, stream, a);
    case 2:
      return dedisp_lanes2_op(op, s, p, shared, stream, a);
    default:
      return dedisp_lanes1_op(op, s, p, shared, stream, a);
  }
}

}  // namespace

std::size_t dedisp_shared_bytes(const KernelShape& s, int row_pitch, int record_ints) {
  return static_cast<std::size_t>(s.stages) *
         (static_cast<std::size_t>(s.chans_per_stage) * static_cast<std::size_t>(row_pitch + record_ints) *
              sizeof(std::uint32_t) +
          16);
}

std::size_t subband_shared_bytes(const KernelShape& s, int units_per_stage, int row_pitch, int record_ints,
                                 int y_pitch) {
  const auto U = static_cast<std::size_t>(units_per_stage);
  const std::size_t stage = U * static_cast<std::size_t>(s.subband) * static_cast<std::size_t>(row_pitch) +
                            U * static_cast<std::size_t>(record_ints);
  return (static_cast<std::size_t>(s.stages) * stage + U * 2 * static_cast<std::size_t>(y_pitch) +
          static_cast<std::size_t>(row_pitch)) *
         sizeof(std::uint32_t);
}

cudaError_t dedisp_kernel_attributes(const KernelShape& s, KernelAttributes* out) {
  return lanes_op(0, s, nullptr, 0, nullptr, out);
}

cudaError_t dedisp_kernel_allow_shared(const KernelShape& s, std::size_t shared_bytes) {
  return lanes_op(1, s, nullptr, shared_bytes, nullptr, nullptr);
}

cudaError_t launch_dedisp_kernel(const KernelShape& s, const DedispKernelParams& p, std::size_t shared_bytes,
                                 cudaStream_t stream) {
  return lanes_op(2, s, &p, shared_bytes, stream, nullptr);
}

DedispEngine::DedispEngine(const DedispPlan& plan, const DedispOptions& options, int device, int slots)
    : plan_(plan), cfg_(parse_gpu_config(options.gpu_config)), device_(device) {
  auto t0 = SetupClock::now();
  const DedispInput& in = plan_.problem.input;
  props_ = device_properties(device);  // throws for a missing GPU
  set_device(device);
  const double props_ms = ms_since(t0);
  if (in.nbits != 1 && in.nbits != 2 && in.nbits != 4 && in.nbits != 8 && in.nbits != 16 && in.nbits != 32) {
    throw Error(ErrorCode::unsupported,
                fmt::format("the CUDA dedisperser reads 1, 2, 4, 8, 16 or 32-bit samples, not {}-bit", in.nbits));
  }
  if (in.is_signed && in.nbits != 8) {
    throw Error(ErrorCode::unsupported, fmt::format("signed samples are supported at 8 bits only, not {}", in.nbits));
  }
  FASTPSR_EXPECTS(static_cast<long long>(in.nchans) * in.nbits % 8 == 0,
                  "{} channels x {} bits is not a whole number of bytes per sample", in.nchans, in.nbits);
  FASTPSR_EXPECTS(plan_.delays.size() == plan_.ndms() * static_cast<std::size_t>(in.nchans),
                  "the plan's delay table has {} entries for {} DMs x {} channels", plan_.delays.size(), plan_.ndms(),
                  in.nchans);
  FASTPSR_EXPECTS(plan_.ndms() <= static_cast<std::size_t>(std::numeric_limits<int>::max()), "too many DMs: {}",
                  plan_.ndms());
  bps_ = in.bytes_per_sample();
  for (int c = 0; c < in.nchans; ++c) {
    if (plan_.channel_kept(c)) kept_.push_back(c);
  }
  FASTPSR_EXPECTS(!kept_.empty(), "every channel is killed");
  if (slots <= 0) slots = cfg_.pipeline;

  resolve_lanes();
  if (props_.sm_major < 9) cfg_.shape.bulk_copy = false;  // bulk (TMA) copies need sm_90
  if (cfg_.shape.subband != 0 && (cfg_.shape.lanes != 4 || cfg_.shape.is_float || cfg_.mad_hi)) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("--gpu-config subband={}: the subband kernel sums 8-bit values four to a word (lanes=4, "
                            "mad_hi=0); this input and configuration use lanes={}{}",
                            cfg_.shape.subband, cfg_.shape.lanes, cfg_.mad_hi ? " with mad_hi=1" : ""));
  }
  t0 = SetupClock::now();
  choose_shape();
  const double shape_ms = ms_since(t0);
  t0 = SetupClock::now();
  const std::size_t requested = cfg_.gulp != 0 ? cfg_.gulp : options.gulp_samples;
  choose_gulp(requested, slots, options.input_samples);
  cfg_.gulp = gulp_ds_ * static_cast<std::size_t>(plan_.downsample());

  d_records_ = DeviceBuffer<std::int32_t>(records_.ints.size());
  copy_to_device_now(d_records_.get(), records_.ints.data(), d_records_.bytes());
  d_kept_ = DeviceBuffer<int>(kept_.size());
  copy_to_device_now(d_kept_.get(), kept_.data(), d_kept_.bytes());
  d_g_ = DeviceBuffer<std::uint32_t>(kept_.size() * static_cast<std::size_t>(g_words_));
  // Zeroed once, so no kernel ever reads memory nothing wrote.
  zero_device_now(d_g_.get(), d_g_.bytes());
  for (auto& h : d_hist_) {
    h = DeviceBuffer<std::uint8_t>(kept_.size() * static_cast<std::size_t>(hist_pitch_) * element_bytes_);
    zero_device_now(h.get(), h.bytes());
  }
  for (int i = 0; i < slots; ++i) {
    in_.emplace_back(gulp_ds_ * static_cast<std::size_t>(plan_.downsample()) * bps_);
    out_.emplace_back(plan_.ndms() * static_cast<std::size_t>(out_pitch_));
  }
  // The device's whole opt-in limit, not shared_bytes_: the attribute belongs to the kernel, which
  // other engines (other plans, other shapes) may launch with more.
  FASTPSR_CUDA_TRY(dedisp_kernel_allow_shared(cfg_.shape, props_.shared_per_block_optin));
  setup_note_ = fmt::format(
      "device properties {:.1f} ms, kernel shape and delay records {:.1f} ms, device buffers "
      "{:.1f} ms",
      props_ms, shape_ms, ms_since(t0));
}

void DedispEngine::resolve_lanes() {
  const DedispInput& in = plan_.problem.input;
  KernelShape& s = cfg_.shape;
  const int req = cfg_.lanes_request;
  if (in.nbits == 32) {
    if (req != 0 && req != 1) {
      throw Error(
          ErrorCode::invalid_argument,
          fmt::format("--gpu-config lanes={}: 32-bit float input is summed one sample per word (lanes=1)", req));
    }
    if (cfg_.mad_hi) throw Error(ErrorCode::invalid_argument, "--gpu-config mad_hi=1 applies to lanes=4 only");
    s.lanes = 1;
    s.is_float = true;
    element_bytes_ = 4;
    if (cfg_.flush_chans == 0) cfg_.flush_chans = 16;
    return;
  }
  const std::uint64_t max_value = tiling::max_prepared_value(in.nbits, plan_.downsample());
  const std::uint64_t nkept = kept_.size();
  if (max_value * nkept > std::numeric_limits<std::uint32_t>::max()) {
    throw Error(ErrorCode::unsupported,
                fmt::format("{} channels of {}-bit samples downsampled by {} can sum past 2^32: the exact 32-bit "
                            "integer sums of the CUDA dedisperser would overflow",
                            nkept, in.nbits, plan_.downsample()));
  }
  const int capacity = tiling::lane_flush_capacity(max_value);
  int lanes = req;
  if (lanes == 0) lanes = max_value <= 255 ? 4 : (capacity >= 8 ? 2 : 1);
  if (lanes == 4 && max_value > 255) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("--gpu-config lanes=4 needs prepared values <= 255; {}-bit input downsampled by {} reaches {}",
                    in.nbits, plan_.downsample(), max_value));
  }
  if (lanes == 2 && max_value > 65535) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("--gpu-config lanes=2 needs prepared values <= 65535; {}-bit input downsampled by {} reaches {}",
                    in.nbits, plan_.downsample(), max_value));
  }
  if (cfg_.mad_hi && lanes != 4) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("--gpu-config mad_hi=1 applies to lanes=4 only, not {}", lanes));
  }
  s.lanes = lanes;
  s.is_float = false;
  s.mad_hi = cfg_.mad_hi;
  element_bytes_ = lanes == 4 ? 1 : (lanes == 2 ? 2 : 4);
  if (lanes == 1) {
    if (cfg_.given.count("flush_chans") != 0) {
      throw Error(ErrorCode::invalid_argument, "--gpu-config flush_chans applies to lanes=4 and lanes=2 only");
    }
    cfg_.flush_chans = 65535;  // 32-bit sums: nothing to flush, channels go in pairs
  } else if (cfg_.flush_chans == 0) {
    cfg_.flush_chans = capacity;
  } else if (cfg_.flush_chans > capacity) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("--gpu-config flush_chans={}: a 16-bit lane holds at most {} channels of values up to {}",
                            cfg_.flush_chans, capacity, max_value));
  }
  if (in.is_signed) signed_offset_ = 128LL * plan_.downsample() * static_cast<std::int64_t>(nkept);
}

void DedispEngine::choose_register_cap(KernelShape& best, int span) const {
  const auto given = [&](const char* k) { return cfg_.given.count(k) != 0; };
  const bool large_tile = best.items_time * best.items_dm > 16;
  if (best.max_regs != 0) {  // given
    if (!large_tile && best.max_regs != 128) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("--gpu-config max_regs={}: the kernel for items_time={} items_dm={} is compiled with "
                              "128 registers only (other caps exist for items_time=4 items_dm=8)",
                              best.max_regs, best.items_time, best.items_dm));
    }
    return;
  }
  best.max_regs = large_tile ? 255 : 128;
  // The 4 x 8 tile takes ~250 registers, so two 128-thread blocks share an SM. Capped at 128
  // (the 32 totals then live in local memory, the 16-bit lane sums stay in registers) four fit
  // where the staging of 16 channels a stage leaves shared memory for four; measured on the H100
  // (8-bit apertif, 2048 DMs, 16 s): 30.6 ms against 35.3 (2026-11-22, branch dedisp-kernel2).
  if (!large_tile || best.lanes != 4 || best.is_float) return;
  KernelShape capped = best;
  if (!given("chans_per_stage")) capped.chans_per_stage = std::min(capped.chans_per_stage, 16);
  const std::size_t shared = dedisp_shared_bytes(capped, tiling::row_pitch_words(capped.tile_words(), span),
                                                 tiling::record_ints(capped.dms_per_block()));
  if (blocks_per_sm_by_shared(shared) < 4) return;
  capped.max_regs = 128;
  best = capped;
}

std::size_t DedispEngine::blocks_per_sm_by_shared(std::size_t shared_bytes) const {
  constexpr std::size_t kReservedPerBlock = 1024;
  return props_.shared_per_sm / (shared_bytes + kReservedPerBlock);
}

void DedispEngine::choose_shape() {
  if (cfg_.shape.subband != 0) {
    if (cfg_.shape.max_regs != 0) {
      throw Error(ErrorCode::invalid_argument, "--gpu-config max_regs applies to the staged kernel (subband=0) only");
    }
    if (cfg_.shape.reuse != 0) {
      throw Error(ErrorCode::invalid_argument, "--gpu-config reuse applies to the staged kernel (subband=0) only");
    }
    choose_subband_shape();
    return;
  }
  KernelShape& s = cfg_.shape;
  const auto given = [&](const char* k) { return cfg_.given.count(k) != 0; };
  // Large delay tables on several threads (a meerkat automatic plan's first range: 42 M delays,
  // 0.42 s for its records on one thread); small ones on this thread.
  const std::size_t delays_read = plan_.ndms() * kept_.size();
  const int table_threads = static_cast<int>(
      std::min<std::size_t>({std::max(1U, std::thread::hardware_concurrency()), 16, delays_read >> 20}));
  const auto shared_for = [&](const KernelShape& sh, int span) {
    return dedisp_shared_bytes(sh, tiling::row_pitch_words(sh.tile_words(), span),
                               tiling::record_ints(sh.dms_per_block()));
  };
  const auto too_many_threads = [&](const KernelShape& sh) { return sh.threads() > props_.max_threads_per_block; };
  if ((given("threads_dm") || given("items_dm")) && too_many_threads(s)) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("--gpu-config threads_time x threads_dm = {} x {}: more than the {} threads a block may have",
                    s.threads_time, s.threads_dm, props_.max_threads_per_block));
  }
  // DMs per block: unless given, the candidate with the least staged data per computed word,
  // (1 + span / tile) / dms, among those whose staging fits in shared memory.
  const bool dms_given = given("threads_dm") || given("items_dm");
  if (s.reuse != 0 && (given("items_time") || given("items_dm")) && !reuse_compiled(s.items_time, s.items_dm)) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("--gpu-config reuse={}: compiled for items_time=4 with items_dm=4 or 8, not items_time={} "
                            "items_dm={}",
                            s.reuse, s.items_time, s.items_dm));
  }
  if (!given("chans_per_stage")) {
    // At least one chunk per stage buffer, so that the copies overlap the adds (lofar, 32 channels
    // on the H100: 82 ms in 2 chunks of 16, 93 ms in 1 chunk of 32).
    const int per_stage = (static_cast<int>(kept_.size()) + s.stages - 1) / s.stages;
    s.chans_per_stage = std::max(1, std::min(s.chans_per_stage, per_stage));
  }
  using ShapeList = std::vector<std::pair<int, int>>;
  const ShapeList fallback{{8, 4}, {4, 4}, {2, 4}, {1, 4}, {1, 2}, {1, 1}};
  ShapeList candidates;
  if (dms_given) {
    candidates.emplace_back(s.threads_dm, s.items_dm);
  } else {
    candidates = {{4, 8}, {4, 4}, {2, 4}, {1, 4}, {1, 2}, {1, 1}};
  }
  // The span of every candidate's DMs per block (the fallback's too), from one read of the delay
  // table on several threads (tiling::max_block_spans); only the chosen candidate's records are built.
  std::vector<int> sizes;
  for (const ShapeList* list : {static_cast<const ShapeList*>(&candidates), &fallback}) {
    for (auto [t, i] : *list) {
      if (list == &fallback && dms_given) break;
      KernelShape trial = s;
      trial.threads_dm = t;
      trial.items_dm = i;
      if (too_many_threads(trial) || std::find(sizes.begin(), sizes.end(), trial.dms_per_block()) != sizes.end()) {
        continue;
      }
      sizes.push_back(trial.dms_per_block());
    }
  }
  std::map<int, int> span_of;
  {
    const std::vector<int> spans =
        tiling::max_block_spans(plan_.delays, plan_.ndms(), plan_.nchans(), kept_, sizes, table_threads);
    for (std::size_t i = 0; i < sizes.size(); ++i) span_of[sizes[i]] = spans[i];
  }
  double best_cost = std::numeric_limits<double>::infinity();
  bool found = false;
  KernelShape best = s;
  int best_span = 0;
  std::size_t smallest_shared = std::numeric_limits<std::size_t>::max();
  const auto select = [&](const KernelShape& base, const ShapeList& list) {
    best_cost = std::numeric_limits<double>::infinity();
    found = false;
    for (auto [t, i] : list) {
      KernelShape trial = base;
      trial.threads_dm = t;
      trial.items_dm = i;
      if (too_many_threads(trial)) continue;
      const int span = span_of.at(trial.dms_per_block());
      if (!given("chans_per_stage")) {
        while (trial.chans_per_stage > 1 && shared_for(trial, span) > props_.shared_per_block_optin)
          trial.chans_per_stage /= 2;
      }
      const std::size_t bytes = shared_for(trial, span);
      smallest_shared = std::min(smallest_shared, bytes);
      if (bytes > props_.shared_per_block_optin) continue;
      const double cost = (1.0 + static_cast<double>(span) / trial.tile_words()) / trial.dms_per_block();
      if (cost < best_cost * 0.999) {
        best_cost = cost;
        best = trial;
        best_span = span;
        found = true;
      }
    }
  };
  select(s, candidates);
  // The shapes the two rules below measured best exist for integer lanes (4 or 2 samples a word)
  // of the 4-word tile with bulk staging.
  const bool integer_lanes_bulk = (s.lanes == 4 || s.lanes == 2) && !s.is_float && s.bulk_copy && s.items_time == 4;
  // Large spans: the staging of the default shape (32 x 4 threads, 4 x 8 items) leaves room for
  // one block an SM.
  if (found && !dms_given && !given("chans_per_stage") && blocks_per_sm_by_shared(shared_for(best, best_span)) < 2) {
    // Integer lanes (4 or 2 a word) with bulk staging: the 4 x 8 tile, 64 x 2 threads (16 DMs a block: about half
    // the span of 32, and the same 128 threads), 8 channels a stage in 128 registers where four
    // blocks fit an SM, in 168 where three do, else 4 channels in 128. The best shapes of
    // `--sweep span` (H200, 2026-11-26; 174 shapes of meerkat, 348 of artemis) and then, 16 s of
    // data: artemis (8 channels fit four blocks) 4.13 ms against 4.99 with the shape below and
    // 4.54 at 168 registers; meerkat (three) 101.5 ms at 168 registers, 110.5 with 4 channels in
    // 128, 202.4 with the shape below. With 16-bit lanes (downsampled ranges, 16-bit input;
    // `--gpu-config lanes=2 --sweep span-lite`, 2 s of data): meerkat 19.7 ms against 46.0,
    // artemis 0.83 against 1.09.
    bool wide = false;
    if (integer_lanes_bulk && !given("threads_time") && !given("max_regs")) {
      KernelShape trial = s;
      trial.threads_time = 64;
      trial.threads_dm = 2;
      trial.items_dm = 8;
      const auto at = span_of.find(trial.dms_per_block());
      for (int chans : {8, 4}) {
        trial.chans_per_stage = std::min(s.chans_per_stage, chans);
        if (at == span_of.end() || too_many_threads(trial)) break;
        const std::size_t blocks = blocks_per_sm_by_shared(shared_for(trial, at->second));
        // Three blocks of 128 threads is also what 168 registers allow: the cap that spills less.
        trial.max_regs = 0;
        if (blocks >= 4) {
          trial.max_regs = 128;
        } else if (chans == 8 && blocks == 3) {
          trial.max_regs = 168;
        }
        if (trial.max_regs != 0) {
          best = trial;
          best_span = at->second;
          wide = true;
          break;
        }
      }
    }
    // Otherwise the previous default (256 threads, 8 x 4 DMs a thread, cp.async staging) keeps
    // more warps resident than one block of the default and was faster on the H100 (artemis 5.05
    // ms against 7.12, meerkat 204 ms against 220, 16 s of data).
    if (!wide) {
      KernelShape prev = s;
      prev.chans_per_stage = std::min(prev.chans_per_stage, 16);
      if (!given("bulk_copy")) prev.bulk_copy = false;
      select(prev, fallback);
    }
  }
  // DM steps far longer than the tile: lofar (32 channels at 139-145 MHz, 5 us samples, DM step
  // 0.25) shifts the lowest channel by ~870 samples a DM, so every candidate with more than one
  // DM a block stages more span than data and the choice above is 32 x 1 threads, 1 DM, 512
  // samples a block. Each DM then reads its own input: 51 GB from DRAM a gulp, 35% L2 hits
  // (Nsight Compute, H100). A long tile, 512 x 1 threads of 4 x 4 items (8192 samples x 4 DMs,
  // 4 channels a stage), makes neighbouring DMs read overlapping rows within a block and across
  // the blocks that run together: 16 s of lofar 82.5 -> 33.4 ms on the H100 (2026-11-27,
  // `bench/dedisp_gpu --setups lofar --gpu-config ...`; 8192 x 2 DMs 36.9, 4096 x 4 40.8, 8192 x 4
  // in 2 channels a stage 44.8); with 16-bit lanes (4096 samples x 4 DMs) 4 s of lofar 38.4 ->
  // 13.2 ms. Measured with bulk staging.
  if (found && best.dms_per_block() == 1 && integer_lanes_bulk && !dms_given && !given("threads_time") &&
      !given("items_time") && !given("chans_per_stage") && !given("max_regs")) {
    KernelShape trial = s;
    trial.threads_time = 512;
    trial.threads_dm = 1;
    trial.items_dm = 4;
    trial.chans_per_stage = std::min(s.chans_per_stage, 4);
    trial.max_regs = 128;  // what choose_register_cap() gives this tile
    const auto at = span_of.find(trial.dms_per_block());
    KernelAttributes attrs{};
    if (at != span_of.end() && !too_many_threads(trial) &&
        shared_for(trial, at->second) <= props_.shared_per_block_optin &&
        dedisp_kernel_attributes(trial, &attrs) == cudaSuccess && attrs.max_threads >= trial.threads()) {
      best = trial;
      best_span = at->second;
    }
  }
  if (found) choose_register_cap(best, best_span);
  if (!found) {
    const double needed_kib = smallest_shared == std::numeric_limits<std::size_t>::max()
                                  ? 0.0
                                  : static_cast<double>(smallest_shared) / 1024.0;
    throw Error(ErrorCode::invalid_argument,
                fmt::format("no kernel shape fits GPU {}: at most {} threads per block and {:.1f} KiB of shared memory "
                            "({:.1f} KiB needed at least): lower chans_per_stage, stages, threads_dm, items_dm or "
                            "threads_time",
                            device_, props_.max_threads_per_block,
                            static_cast<double>(props_.shared_per_block_optin) / 1024.0, needed_kib));
  }
  s = best;
  // Reuse where the chosen tile has it compiled (elsewhere the plain kernel: the same sums); its
  // records carry the reuse flags of each thread's DMs.
  if (s.reuse != 0 && !reuse_compiled(s.items_time, s.items_dm)) s.reuse = 0;
  records_ = tiling::make_block_records(plan_.delays, plan_.ndms(), plan_.nchans(), kept_, s.dms_per_block(),
                                        s.reuse != 0 ? s.items_dm : 0, table_threads);
  FASTPSR_ASSERT(records_.max_span == best_span);
  max_span_ = records_.max_span;
  dm_blocks_ = records_.blocks;
  row_pitch_ = tiling::row_pitch_words(s.tile_words(), max_span_);
  shared_bytes_ = dedisp_shared_bytes(s, row_pitch_, records_.record);
  FASTPSR_CUDA_TRY(dedisp_kernel_attributes(s, &attrs_));
  if (attrs_.max_threads < s.threads()) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("--gpu-config: the kernel for items_time={} items_dm={} uses {} registers per thread, so a "
                    "block may have at most {} threads, not {} x {}",
                    s.items_time, s.items_dm, attrs_.registers, attrs_.max_threads, s.threads_time, s.threads_dm));
  }
}

void DedispEngine::choose_subband_shape() {
  KernelShape& s = cfg_.shape;
  const int G = s.subband;
  const auto given = [&](const char* k) { return cfg_.given.count(k) != 0; };
  if (!subband_compiled(s)) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("--gpu-config subband={}: the subband kernel is compiled for items_time 2 or 4 and items_dm "
                    "4 or 8, not items_time={} items_dm={}",
                    G, s.items_time, s.items_dm));
  }
  if (s.threads() > props_.max_threads_per_block) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("--gpu-config threads_time x threads_dm = {} x {}: more than the {} threads a block may have",
                    s.threads_time, s.threads_dm, props_.max_threads_per_block));
  }
  if (cfg_.flush_chans < G) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("--gpu-config flush_chans={}: the subband kernel adds {} channels at once (subband={})",
                            cfg_.flush_chans, G, G));
  }
  if (given("chans_per_stage") && s.chans_per_stage % G != 0) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("--gpu-config chans_per_stage={}: with subband={} it must be a multiple of {}",
                            s.chans_per_stage, G, G));
  }
  int units_per_stage = std::max(1, s.chans_per_stage / G);
  subband::UnitRecords ur = subband::make_unit_records(plan_.delays, plan_.ndms(), plan_.nchans(), kept_,
                                                       s.dms_per_block(), G, s.tile_words());
  const int row_pitch = tiling::row_pitch_words(s.tile_words(), ur.max_span);
  auto bytes = [&] { return subband_shared_bytes(s, units_per_stage, row_pitch, ur.record, ur.y_pitch); };
  while (!given("chans_per_stage") && units_per_stage > 1 && bytes() > props_.shared_per_block_optin) {
    units_per_stage /= 2;
  }
  if (bytes() > props_.shared_per_block_optin) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("--gpu-config subband={}: {:.1f} KiB of shared memory needed ({} patterns at most per unit, "
                    "{} Y positions), GPU {} allows {:.1f} KiB: lower subband, chans_per_stage, stages, "
                    "threads_dm, items_dm or threads_time",
                    G, static_cast<double>(bytes()) / 1024.0, ur.max_patterns, ur.y_pitch, device_,
                    static_cast<double>(props_.shared_per_block_optin) / 1024.0));
  }
  s.chans_per_stage = units_per_stage * G;
  shared_bytes_ = bytes();
  row_pitch_ = row_pitch;
  units_ = ur.units;
  y_pitch_ = ur.y_pitch;
  dm_entry_ = subband::dm_entry(G, ur.max_patterns);
  mean_patterns_ = ur.mean_patterns;
  max_span_ = ur.max_span;
  dm_blocks_ = ur.blocks;
  records_.ints = std::move(ur.ints);
  records_.record = ur.record;
  records_.max_span = ur.max_span;
  records_.blocks = ur.blocks;
  FASTPSR_CUDA_TRY(dedisp_kernel_attributes(s, &attrs_));
  if (attrs_.max_threads < s.threads()) {
    throw Error(
        ErrorCode::invalid_argument,
        fmt::format("--gpu-config: the subband kernel for items_time={} items_dm={} uses {} registers per "
                    "thread, so a block may have at most {} threads, not {} x {}",
                    s.items_time, s.items_dm, attrs_.registers, attrs_.max_threads, s.threads_time, s.threads_dm));
  }
}

std::size_t DedispEngine::bytes_for(std::size_t gulp_ds, int slots) const {
  const auto D = static_cast<std::size_t>(plan_.downsample());
  const std::size_t nkept = kept_.size();
  const std::size_t pitch = round_up(gulp_ds, 32);
  const auto q = tiling::lane_segment(static_cast<std::int64_t>(gulp_ds), cfg_.shape.lanes);
  const auto g_words = static_cast<std::size_t>(tiling::g_row_words(q, cfg_.shape.tile_words(), plan_.max_delay));
  const std::size_t hist = round_up(static_cast<std::size_t>(std::max(plan_.max_delay, 1)), 32);
  return static_cast<std::size_t>(slots) * (gulp_ds * D * bps_ + plan_.ndms() * pitch * sizeof(float)) +
         nkept * g_words * 4 + 2 * nkept * hist * element_bytes_ + records_.ints.size() * 4 + nkept * sizeof(int);
}

void DedispEngine::choose_gulp(std::size_t requested_in, int slots, std::uint64_t input_samples) {
  const auto D = static_cast<std::size_t>(plan_.downsample());
  const std::size_t ndms = plan_.ndms();
  std::size_t want = requested_in / D;
  if (requested_in != 0 && want == 0) want = 1;
  if (want == 0) {
    // About 32 MiB of output per slot (at most 64 MiB of input), whatever the history: the
    // device keeps the history itself, so short gulps cost no recomputation, while every slot is
    // pinned host memory that takes time to allocate and the first gulp's upload and the last
    // one's download are not overlapped. Measured on an H100 from a file, 16 s
    // (raw/2026-11-22-h100-dedisp-e2e-gulp-sweep.txt): apertif 111 ms at 4096 samples (this
    // rule) against 138 ms at the former 13400 (twice the maximum delay) and 246 ms at 32768;
    // artemis 30 ms against 72. At least 1024 samples while that stays within 256 MiB a slot,
    // so that plans of many thousand DMs still launch long rows.
    want = std::min<std::size_t>({(32 * kMiB) / (4 * ndms), (64 * kMiB) / (bps_ * D), std::size_t{1} << 22});
    want = std::max(want, std::min<std::size_t>(1024, (256 * kMiB) / (4 * ndms)));
    want = std::max<std::size_t>(want, 1);
    // No longer than an input of known length (its pinned and device buffers would only be
    // larger; the output is the same for any gulp).
    if (input_samples > 0) want = std::min<std::size_t>(want, static_cast<std::size_t>((input_samples + D - 1) / D));
  }
  const auto [free_bytes, total_bytes] = memory_info();
  std::size_t budget = free_bytes > 64 * kMiB ? free_bytes - 64 * kMiB : 0;
  if (cfg_.max_device_mb != 0) budget = std::min(budget, cfg_.max_device_mb * kMiB);
  std::size_t gulp = want;
  while (gulp > 1 && bytes_for(gulp, slots) > budget) gulp = std::max<std::size_t>(1, gulp / 2);
  if (bytes_for(gulp, slots) > budget) {
    throw Error(
        ErrorCode::resource,
        fmt::format("dedispersion of {} DMs x {} channels needs {:.1f} MiB of memory on GPU {} even with "
                    "1-sample gulps; {:.1f} MiB {} (of {:.1f} MiB)",
                    ndms, kept_.size(), static_cast<double>(bytes_for(1, slots)) / kMiB, device_,
                    static_cast<double>(budget) / kMiB, cfg_.max_device_mb != 0 ? "allowed by max_device_mb" : "free",
                    static_cast<double>(total_bytes) / kMiB));
  }
  if (gulp < want) {
    shrink_note_ = fmt::format(" (shrunk from {} to fit {:.0f} MiB)", want * D, static_cast<double>(budget) / kMiB);
    log_verbose("GPU dedisperser: gulp of {} input samples shrunk to {} to fit {:.0f} MiB of device memory", want * D,
                gulp * D, static_cast<double>(budget) / kMiB);
  }
  gulp_ds_ = gulp;
  out_pitch_ = static_cast<std::int64_t>(round_up(gulp, 32));
  hist_pitch_ = static_cast<std::int64_t>(round_up(static_cast<std::size_t>(std::max(plan_.max_delay, 1)), 32));
  g_words_ = tiling::g_row_words(tiling::lane_segment(static_cast<std::int64_t>(gulp), cfg_.shape.lanes),
                                 cfg_.shape.tile_words(), plan_.max_delay);
  device_bytes_ = bytes_for(gulp, slots);
}

GulpWork DedispEngine::plan_gulp(std::int64_t n_new, std::int64_t n_zero, int in_slot, int out_slot) const {
  FASTPSR_ASSERT(n_new >= 0 && n_zero >= 0 && n_new + n_zero <= static_cast<std::int64_t>(gulp_ds_));
  GulpWork w;
  w.n_new = n_new;
  w.n_zero = n_zero;
  const std::int64_t max_delay = plan_.max_delay;
  const std::int64_t avail = hist_len_ + n_new + n_zero;
  w.n_out = avail > max_delay ? avail - max_delay : 0;
  w.new_hist_len = std::min(avail, max_delay);
  const KernelShape& s = cfg_.shape;
  const std::int64_t q = w.n_out > 0 ? tiling::lane_segment(w.n_out, s.lanes) : 0;
  const std::int64_t row_words = q > 0 ? tiling::g_row_words(q, s.tile_words(), plan_.max_delay) : 0;
  FASTPSR_ASSERT(row_words <= g_words_);

  PrepParams& p = w.prep;
  p.in = n_new > 0 ? in_[static_cast<std::size_t>(in_slot)].get() : nullptr;
  p.nchans = plan_.nchans();
  p.kept = d_kept_.get();
  p.nkept = static_cast<int>(kept_.size());
  p.downsample = plan_.downsample();
  p.is_signed = plan_.problem.input.is_signed;
  p.hist_in = d_hist_[hist_cur_].get();
  p.hist_out = d_hist_[1 - hist_cur_].get();
  p.hist_pitch = hist_pitch_;
  p.hist_len = hist_len_;
  p.n_new = n_new;
  p.n_zero = n_zero;
  p.keep_from = avail - w.new_hist_len;
  p.zero_value = plan_.problem.input.is_signed ? static_cast<std::uint32_t>(128 * plan_.downsample()) : 0U;
  p.g = d_g_.get();
  p.g_row_words = row_words;
  p.q = q;
  p.cover = tiling::prep_cover(q, row_words, s.lanes, avail);

  DedispKernelParams& k = w.kernel;
  k.g = d_g_.get();
  k.g_row_words = row_words;
  k.records = d_records_.get();
  k.record_ints = records_.record;
  k.out = out_[static_cast<std::size_t>(out_slot)].get();
  k.out_pitch = out_pitch_;
  k.nkept = static_cast<int>(kept_.size());
  k.ndms = static_cast<int>(plan_.ndms());
  k.dm_blocks = dm_blocks_;
  k.q = q;
  k.n_out = w.n_out;
  k.flush_chans = cfg_.flush_chans;
  k.signed_offset = signed_offset_;
  k.row_pitch = row_pitch_;
  k.chans_per_stage = s.chans_per_stage;
  k.stages = s.stages;
  k.bulk_copy = s.bulk_copy && s.subband == 0 ? 1 : 0;
  k.units = units_;
  k.units_per_stage = s.subband != 0 ? s.chans_per_stage / s.subband : 1;
  k.y_pitch = y_pitch_;
  k.dm_entry = dm_entry_;
  return w;
}

void DedispEngine::launch_prep(const GulpWork& w, cudaStream_t stream) const {
  FASTPSR_CUDA_TRY(
      launch_prep_kernel(plan_.problem.input.nbits, cfg_.shape.lanes, cfg_.shape.is_float, w.prep, stream));
}

void DedispEngine::launch_dedisp(const GulpWork& w, cudaStream_t stream) const {
  if (w.n_out > 0) FASTPSR_CUDA_TRY(launch_dedisp_kernel(cfg_.shape, w.kernel, shared_bytes_, stream));
}

void DedispEngine::advance(const GulpWork& w) {
  hist_len_ = w.new_hist_len;
  hist_cur_ = 1 - hist_cur_;
}

std::string DedispEngine::describe() const {
  const KernelShape& s = cfg_.shape;
  const char* mode = s.subband != 0 ? "subband: units of channels summed once per pattern, then per DM; 4 x 8-bit "
                                      "per word, 16-bit lanes"
                     : s.is_float   ? "float32 sums (flushed into double)"
                     : s.lanes == 4 ? (s.mad_hi ? "4 x 8-bit per word, 16-bit lanes, odd bytes by IMAD.HI"
                                                : "4 x 8-bit per word, 16-bit lanes, odd bytes by PRMT")
                     : s.lanes == 2 ? "2 x 16-bit per word, 16-bit lanes"
                                    : "1 x 32-bit integer per word";
  return fmt::format(
      "CUDA dedisperser on GPU {}: {} (sm_{}{}, {} SMs)\n"
      "  kernel: {}; flush every {} channels; block {}x{} threads, {} time x {} DM items per thread -> {} samples "
      "x {} DMs per block; {} channels per stage x {} stages, {:.1f} KiB shared, {} registers{}\n"
      "  data: {} of {} channels kept, {} DMs in {} blocks, max delay {} samples, max span in a block {}{}\n"
      "  streaming: gulp {} input samples{} (downsample {}), {} slots, 3 streams; device memory {:.1f} MiB\n"
      "  gpu-config: {}",
      device_, props_.name, props_.sm_major, props_.sm_minor, props_.multiprocessors, mode,
      s.lanes == 1 && !s.is_float ? 0 : cfg_.flush_chans, s.threads_time, s.threads_dm, s.items_time, s.items_dm,
      s.tile_words() * s.lanes, s.dms_per_block(), s.chans_per_stage, s.stages,
      static_cast<double>(shared_bytes_) / 1024.0, attrs_.registers,
      attrs_.local_bytes ? fmt::format(", {} bytes local (spills)", attrs_.local_bytes) : std::string(), kept_.size(),
      plan_.nchans(), plan_.ndms(), dm_blocks_, plan_.max_delay, max_span_,
      s.subband != 0 ? fmt::format("; {} units, {:.1f} patterns per unit and block on average, Y pitch {}", units_,
                                   mean_patterns_, y_pitch_)
                     : std::string(),
      gulp_ds_ * static_cast<std::size_t>(plan_.downsample()), shrink_note_, plan_.downsample(), in_.size(),
      static_cast<double>(device_bytes_) / static_cast<double>(kMiB), to_gpu_config_string(cfg_));
}

}  // namespace fastpsr::cuda
