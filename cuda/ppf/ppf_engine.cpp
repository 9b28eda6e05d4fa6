// SPDX-License-Identifier: MIT
#include "ppf_engine.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numbers>
#include <vector>

#include "fastpsr/error.hpp"
#include "ppf_cluster_fft.hpp"

namespace fastpsr::cuda::ppf {
namespace {

int config_int(const std::map<std::string, std::string>& kv, const std::string& key, int fallback) {
  const auto it = kv.find(key);
  if (it == kv.end()) return fallback;
  int v = 0;
  const auto& s = it->second;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    throw Error(ErrorCode::invalid_argument, fmt::format("--gpu-config {}={}: not an integer", key, s));
  }
  return v;
}

bool is_one_of(int v, std::initializer_list<int> allowed) {
  return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

int log2_of(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

InType in_type(VoltageType t) {
  switch (t) {
    case VoltageType::ci8:
      return InType::ci8;
    case VoltageType::ci16:
      return InType::ci16;
    case VoltageType::cf32:
      return InType::cf32;
  }
  return InType::ci8;
}

}  // namespace

std::string GpuConfig::describe() const {
  const int fir_spectra = persist_fir_spectra(persist_occ);
  const int fir_channels = persist_fir_channels(persist_occ);
  if (persist && persist_dynamic) {
    return fmt::format(
        "FIR + FFT persistent, dynamic roles ({} blocks, {} an SM, each claiming the next ready FIR item ({} spectra x "
        "{} channels a thread) or FFT item (Stockham radix 16); ring of {} slots of {} spectra)",
        persist_grid, persist_occ, fir_spectra, fir_channels, persist_slots, kSliceSpectra);
  }
  if (persist) {
    return fmt::format(
        "FIR + FFT persistent ({} FIR blocks ({} spectra x {} channels a thread) + {} FFT blocks (Stockham radix 16), "
        "{} blocks an SM, ring of {} slots of {} spectra)",
        persist_fir_blocks(), fir_spectra, fir_channels, persist_grid - persist_fir_blocks(), persist_occ,
        persist_slots, kSliceSpectra);
  }
  if (fir_fft) {
    return fmt::format(
        "FIR + FFT fused (clusters of {} blocks, {}, {} sequences of radix-{} Stockham FFTs, {} spectra per "
        "exchange, {} clusters in flight)",
        kClusterBlocks,
        fir_fft_lean ? "lean: FIR window from a ring of raw spectra, 1024 threads per SM"
                     : "ring: FIR accumulators in registers",
        kClusterSeqs, 1 << kClusterLog2R, fir_fft_batch, fir_fft_clusters);
  }
  const std::string fft = fused_fft ? fmt::format(", FFT + detection fused (Stockham radix {}, {} spectra per block)",
                                                  1 << fft_log2r, segment_spectra)
                                    : std::string(", cuFFT");
  std::string sched;
  if (buffers == 2) sched += ", 2 buffers on 2 streams";
  if (l2_persist) sched += ", buffers persisting in L2";
  if (graph) sched += ", CUDA graph";
  return describe_fir() + fft + sched;
}

std::string GpuConfig::describe_fir() const {
  if (fir == Fir::reg) {
    return fmt::format(
        "FIR register kernel ({} channels x {} spectra per thread{}, taps in registers), chunk {} spectra",
        cache.block_channels, cache.spectra_per_thread,
        cache.channels_per_thread == 2 ? ", 2 adjacent channels a thread" : "", chunk_spectra);
  }
  if (fir == Fir::cache) {
    return fmt::format("FIR cache kernel ({} channels x {} spectra per thread), chunk {} spectra", cache.block_channels,
                       cache.spectra_per_thread, chunk_spectra);
  }
  return fmt::format("FIR shared-memory kernel ({} channels x {} spectra, {} per thread), chunk {} spectra",
                     shared.block_channels, shared.block_rows * shared.spectra_per_thread, shared.spectra_per_thread,
                     chunk_spectra);
}

/// Peak DRAM bandwidth an SM below which fft=persist is the default at T = 8 (see parse_gpu_config).
constexpr double kPersistDefaultBytesPerSm = 30e9;

GpuConfig parse_gpu_config(const std::map<std::string, std::string>& kv, const ChanneliserPlan& plan,
                           const DeviceProperties& props) {
  for (const auto& [k, v] : kv) {
    if (k != "fir" && k != "cb" && k != "sb" && k != "ry" && k != "chunk" && k != "fft" && k != "seg" && k != "radix" &&
        k != "cluster" && k != "pipe" && k != "l2" && k != "graph" && k != "cpt" && k != "persist_fir" &&
        k != "slots" && k != "occ" && k != "sched") {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("unknown --gpu-config key '{}' (the ppf keys: fir, cb, sb, ry, chunk, fft, seg, radix, "
                              "cluster, pipe, l2, graph, cpt, persist_fir, slots, occ, sched)",
                              k));
    }
  }
  GpuConfig cfg;
  const int ntaps = plan.ntaps();
  const int npol = plan.npol();
  const auto fir = kv.find("fir");
  const bool fir_given = fir != kv.end();
  if (fir_given) {
    if (fir->second == "register") {
      cfg.fir = GpuConfig::Fir::reg;
    } else if (fir->second == "cache") {
      cfg.fir = GpuConfig::Fir::cache;
    } else if (fir->second == "shared") {
      cfg.fir = GpuConfig::Fir::shared;
    } else {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("--gpu-config fir={}: not register, cache or shared", fir->second));
    }
  } else {
    // Default: the register kernel where its taps are compiled in, else the shared-memory
    // kernel where its tile fits, else the cache kernel.
    const int sb = config_int(kv, "sb", 8);
    if (fir_register_supports(ntaps, sb)) {
      cfg.fir = GpuConfig::Fir::reg;
    } else {
      FirSharedConfig s;
      s.block_rows = std::max(1, config_int(kv, "sb", 32) / std::max(1, config_int(kv, "ry", 4)));
      s.block_channels = config_int(kv, "cb", 32);
      s.spectra_per_thread = config_int(kv, "ry", 4);
      cfg.fir = fir_shared_bytes(s, ntaps, npol) <= props.shared_per_block_optin ? GpuConfig::Fir::shared
                                                                                 : GpuConfig::Fir::cache;
    }
  }
  if (cfg.fir == GpuConfig::Fir::shared) {
    FASTPSR_EXPECTS(kv.count("cpt") == 0, "--gpu-config cpt=: only for the register kernel (fir=register)");
    FirSharedConfig& s = cfg.shared;
    s.block_channels = config_int(kv, "cb", 32);
    const int sb = config_int(kv, "sb", 32);
    s.spectra_per_thread = config_int(kv, "ry", 4);
    FASTPSR_EXPECTS(s.block_channels >= 32 && s.block_channels % 32 == 0 && s.block_channels <= 1024,
                    "--gpu-config cb={}: the shared kernel needs a multiple of 32 up to 1024", s.block_channels);
    FASTPSR_EXPECTS(is_one_of(s.spectra_per_thread, {1, 2, 4, 8}), "--gpu-config ry={}: not 1, 2, 4 or 8",
                    s.spectra_per_thread);
    FASTPSR_EXPECTS(sb >= s.spectra_per_thread && sb % s.spectra_per_thread == 0,
                    "--gpu-config sb={}: not a multiple of ry={}", sb, s.spectra_per_thread);
    s.block_rows = sb / s.spectra_per_thread;
    FASTPSR_EXPECTS(s.block_channels * s.block_rows <= props.max_threads_per_block,
                    "--gpu-config cb={} sb={} ry={}: {} threads per block, more than the GPU's {}", s.block_channels,
                    sb, s.spectra_per_thread, s.block_channels * s.block_rows, props.max_threads_per_block);
    const std::size_t bytes = fir_shared_bytes(s, ntaps, npol);
    FASTPSR_EXPECTS(bytes <= props.shared_per_block_optin,
                    "--gpu-config fir=shared: the tile needs {} bytes of shared memory, the GPU has {}", bytes,
                    props.shared_per_block_optin);
  } else {
    FirCacheConfig& c = cfg.cache;
    c.block_channels = config_int(kv, "cb", 128);
    // The register kernel at T <= 16: 16 spectra a thread (one polarisation; 8 with two), two
    // channels a thread where the channel count is even and two samples make one load: 64
    // accumulators. H200, C = 4096, T = 16, ci8: its FIR kernel 65 -> 52 us a 4096-spectrum chunk
    // against 8 x 1 (ncu); the PPF 126 -> 145 Gsamp/s with pipe=2 below (docs/PERFORMANCE.md, ppf).
    const bool wide_default = cfg.fir == GpuConfig::Fir::reg && ntaps <= 16;
    const bool cpt_possible = plan.nchans() % 2 == 0 && !(plan.problem.input == VoltageType::cf32 && npol == 2);
    c.spectra_per_thread = config_int(kv, "sb", wide_default && npol == 1 ? 16 : 8);
    FASTPSR_EXPECTS(cfg.fir == GpuConfig::Fir::reg || kv.count("cpt") == 0,
                    "--gpu-config cpt=: only for the register kernel (fir=register)");
    FASTPSR_EXPECTS(c.block_channels >= 1 && c.block_channels <= props.max_threads_per_block,
                    "--gpu-config cb={}: not in 1 ... {}", c.block_channels, props.max_threads_per_block);
    if (cfg.fir == GpuConfig::Fir::reg) {
      FASTPSR_EXPECTS(is_one_of(c.spectra_per_thread, {4, 8, 16}),
                      "--gpu-config sb={}: the register kernel takes 4, 8 or 16", c.spectra_per_thread);
      FASTPSR_EXPECTS(fir_register_supports(ntaps, c.spectra_per_thread),
                      "--gpu-config fir=register: its taps are compiled for T = 4, 8, 16, 32 or 64, not {}", ntaps);
      const bool cpt2_default = wide_default && cpt_possible && c.spectra_per_thread * npol <= 16;
      c.channels_per_thread = config_int(kv, "cpt", cpt2_default ? 2 : 1);
      FASTPSR_EXPECTS(c.channels_per_thread == 1 || c.channels_per_thread == 2, "--gpu-config cpt={}: not 1 or 2",
                      c.channels_per_thread);
      FASTPSR_EXPECTS(c.channels_per_thread == 1 || cpt_possible,
                      "--gpu-config cpt=2: needs an even channel count ({}) and at most 16 bytes for two samples "
                      "(not cf32 with two polarisations)",
                      plan.nchans());
    } else {
      FASTPSR_EXPECTS(is_one_of(c.spectra_per_thread, {1, 2, 4, 8, 16, 32}),
                      "--gpu-config sb={}: the cache kernel takes 1, 2, 4, 8, 16 or 32", c.spectra_per_thread);
    }
  }
  // Default chunk: 2^24 samples over all coarse channels (128 MiB of filtered spectra per
  // polarisation), or a third of the L2 cache where that is more. Measured on an H100 at C = 4096:
  // chunks held in L2 (533 spectra) ran at 68 Gsamp/s, 4096-spectrum chunks at 87 (launch
  // latency and the last wave of each small kernel dominated); the streaming channeliser
  // lowers it to the spectra of one push.
  const std::size_t spectrum_bytes = plan.out_channels() * static_cast<std::size_t>(npol) * sizeof(float2);
  const std::size_t l2_spectra = std::max<std::size_t>(props.l2_bytes, std::size_t{4} << 20) / 3 / spectrum_bytes;
  const std::size_t fill_spectra = (std::size_t{1} << 24) / plan.out_channels();
  const auto chunk_default = static_cast<int>(std::clamp<std::size_t>(std::max(l2_spectra, fill_spectra), 1, 65535));
  // pipe / l2 / graph: how the chunks of the FIR -> FFT path are scheduled (not fft=cluster).
  // Complex output: two buffers on two streams by default (H200, C = 4096, T = 16, ci8: +4-5%);
  // power output keeps one (the fused FFT + detection beside the FIR measured slower there).
  cfg.buffers = config_int(kv, "pipe", plan.complex_output() ? 2 : 1);
  FASTPSR_EXPECTS(cfg.buffers == 1 || cfg.buffers == 2, "--gpu-config pipe={}: not 1 or 2", cfg.buffers);
  const auto l2 = kv.find("l2");
  if (l2 != kv.end()) {
    FASTPSR_EXPECTS(l2->second == "persist" || l2->second == "normal", "--gpu-config l2={}: not persist or normal",
                    l2->second);
    cfg.l2_persist = l2->second == "persist";
  }
  int persisting_l2 = 0;
  if (cfg.l2_persist) {
    FASTPSR_CUDA_TRY(cudaDeviceGetAttribute(&persisting_l2, cudaDevAttrMaxPersistingL2CacheSize, props.ordinal));
    FASTPSR_EXPECTS(persisting_l2 > 0, "--gpu-config l2=persist: this GPU has no persisting L2 cache");
  }
  const int graph = config_int(kv, "graph", 0);
  FASTPSR_EXPECTS(graph == 0 || graph == 1, "--gpu-config graph={}: not 0 or 1", graph);
  cfg.graph = graph == 1;
  // With l2=persist the default chunk fills the persisting part of L2 with the buffers.
  const int chunk_persist = static_cast<int>(std::clamp<std::size_t>(
      static_cast<std::size_t>(persisting_l2) / static_cast<std::size_t>(cfg.buffers) / spectrum_bytes, 1, 65535));
  cfg.chunk_spectra = config_int(kv, "chunk", cfg.l2_persist ? chunk_persist : chunk_default);
  FASTPSR_EXPECTS(cfg.chunk_spectra >= 1 && cfg.chunk_spectra <= 65535, "--gpu-config chunk={}: not in 1 ... 65535",
                  cfg.chunk_spectra);

  // Power output: the fused FFT + detection kernel where C is a power of two in 256 ... 4096
  // and a chunk can hold whole rows.
  const int c = plan.nchans();
  const bool pow2 = (c & (c - 1)) == 0;
  int log2n = 0;
  while ((1 << log2n) < c) ++log2n;
  const int spr = plan.spectra_per_row();
  const bool fused_shape = !plan.complex_output() && pow2 && spr <= 65535 && fft_detect_supports(log2n, 3);
  cfg.fft_log2r = fused_shape ? fft_detect_default_log2r(log2n, plan.nifs() == 4) : 3;
  const bool radix_given = kv.count("radix") != 0;
  if (radix_given) {
    const int radix = config_int(kv, "radix", 8);
    FASTPSR_EXPECTS(radix == 8 || radix == 16, "--gpu-config radix={}: not 8 or 16", radix);
    cfg.fft_log2r = radix == 8 ? 3 : 4;
    FASTPSR_EXPECTS(fused_shape && fft_detect_supports(log2n, cfg.fft_log2r),
                    "--gpu-config radix={}: only for the fused FFT of power output (C a power of two from 256 to "
                    "4096; radix 16 from 1024; C = {})",
                    radix, c);
  }
  const std::size_t fused_smem = fused_shape ? fft_detect_shared_bytes(log2n, cfg.fft_log2r, npol) : 0;
  const bool fused_possible = fused_shape && fused_smem > 0 && fused_smem <= props.shared_per_block_optin;
  const auto fft = kv.find("fft");
  // The persistent kernel is the default where it was measured faster than the chunked path,
  // for 8- and 16-bit input on sm_90: on an H100 (3.35 TB/s peak, 25 GB/s an SM; 2026-11-26:
  // ci8 +10..28%, ci16 +8..21% at T = 4, 8, 16) and on an H200 (4.8 TB/s, 36 GB/s an SM; three
  // runs on 2026-11-26: ci8 +9% / +1..2% at T = 4 / 16, ci16 +9% / +0..2% / +3..4% at T = 4, 8,
  // 16) except ci8 at T = 8 there (chunked 2.4-3.6% faster), hence T = 8 keeps the chunked path
  // where memory is fast for the SMs (30 GB/s an SM or more). Float input keeps the chunked path
  // (H100 -4..+5%; H200 +4..6% at T = 4, 16 but -7% at T = 8). Unless a key of the chunked path
  // is given.
  const bool chunked_key = kv.count("fir") + kv.count("cb") + kv.count("sb") + kv.count("ry") + kv.count("cpt") +
                               kv.count("chunk") + kv.count("pipe") + kv.count("l2") + kv.count("graph") +
                               kv.count("cluster") >
                           0;
  const bool persist_default =
      fft == kv.end() && !chunked_key && plan.complex_output() && persist_supports(c, ntaps, npol, plan.ncoarse()) &&
      props.sm_major == 9 && plan.problem.input != VoltageType::cf32 &&
      (ntaps != 8 || (props.peak_memory_bandwidth > 0.0 &&
                      props.peak_memory_bandwidth < kPersistDefaultBytesPerSm * props.multiprocessors));
  if ((fft != kv.end() && fft->second == "persist") || persist_default) {
    FASTPSR_EXPECTS(plan.complex_output() && persist_supports(c, ntaps, npol, plan.ncoarse()) && props.sm_major >= 7,
                    "--gpu-config fft=persist: needs complex output, C = 4096 (C = {}), T = 4, 8 or 16 (T = {}), one "
                    "polarisation ({}), one coarse channel ({}) and compute capability 7.0 or later",
                    c, ntaps, npol, plan.ncoarse());
    FASTPSR_EXPECTS(kv.count("pipe") + kv.count("l2") + kv.count("graph") + kv.count("cluster") == 0,
                    "--gpu-config pipe=, l2=, graph= and cluster=: not with fft=persist");
    cfg.persist = true;
    // 55% of the blocks on the FIR measured best on an H200 (147.5 Gsamp/s; 50%: 138.8, 60%: 138.6).
    cfg.persist_fir_pct = config_int(kv, "persist_fir", 55);
    FASTPSR_EXPECTS(cfg.persist_fir_pct >= 5 && cfg.persist_fir_pct <= 95,
                    "--gpu-config persist_fir={}: not in 5 ... 95", cfg.persist_fir_pct);
    const auto sched = kv.find("sched");
    FASTPSR_EXPECTS(sched == kv.end() || sched->second == "dynamic" || sched->second == "static",
                    "--gpu-config sched={}: not dynamic or static", sched == kv.end() ? "" : sched->second);
    if (sched != kv.end()) cfg.persist_dynamic = sched->second == "dynamic";
    FASTPSR_EXPECTS(!cfg.persist_dynamic || kv.count("persist_fir") == 0,
                    "--gpu-config persist_fir=: only with sched=static (dynamic blocks take either role)");
    const int slots_given = config_int(kv, "slots", 0);
    FASTPSR_EXPECTS(kv.count("slots") == 0 || (slots_given >= 2 && slots_given <= 256),
                    "--gpu-config slots={}: not in 2 ... 256", slots_given);
    // Four blocks an SM (64 registers, the FIR one channel a thread) measured best on an H200:
    // 135.5 Gsamp/s against 130.5 (three) and 111.5 (two) at C = 4096, T = 16, ci8.
    cfg.persist_occ = config_int(kv, "occ", 4);
    FASTPSR_EXPECTS(cfg.persist_occ >= 2 && cfg.persist_occ <= 4, "--gpu-config occ={}: not 2, 3 or 4",
                    cfg.persist_occ);
    int per_sm = 0;
    FASTPSR_CUDA_TRY(
        persist_blocks_per_sm(in_type(plan.problem.input), ntaps, cfg.persist_occ, cfg.persist_dynamic, &per_sm));
    cfg.persist_grid = per_sm * props.multiprocessors;
    FASTPSR_EXPECTS(cfg.persist_grid >= 2 || persist_default,
                    "--gpu-config fft=persist: the GPU holds {} of its blocks at once", cfg.persist_grid);
    // Default ring: the slices all FIR blocks work on at once (persist_groups items a slice) plus
    // those all FFT blocks read (kSliceSpectra a slice), and half as much again, so that neither
    // role waits for a free slot while the other is busy (measured: 8 slots of 32 spectra ran at
    // half the speed of 16 on an H100 with 132 FIR blocks, which work on 17 slices at once).
    const int fir_blocks = cfg.persist_fir_blocks();
    const int fft_blocks = std::max(1, cfg.persist_grid - fir_blocks);
    const int in_flight = (fir_blocks + persist_groups(cfg.persist_occ) - 1) / persist_groups(cfg.persist_occ) +
                          (fft_blocks + kSliceSpectra - 1) / kSliceSpectra;
    cfg.persist_slots = slots_given > 0 ? slots_given : std::min(256, in_flight * 3 / 2 + 1);
    if (cfg.persist_grid >= 2) return cfg;
    cfg.persist = false;  // the default, on a GPU that cannot hold the grid: the chunked path
  }
  FASTPSR_EXPECTS(kv.count("persist_fir") + kv.count("slots") + kv.count("occ") + kv.count("sched") == 0,
                  "--gpu-config persist_fir=, slots=, occ= and sched=: only with fft=persist");
  if (fft != kv.end() && fft->second == "cluster") {
    FASTPSR_EXPECTS(kv.count("pipe") + kv.count("l2") + kv.count("graph") == 0,
                    "--gpu-config pipe=, l2= and graph=: not with fft=cluster (one kernel, no chunks)");
    cfg.fir_fft = true;
    const bool sm90 = props.sm_major >= 9;
    const InType type = in_type(plan.problem.input);
    // The ring variant (FIR accumulators in registers, one block per SM) unless cluster=lean asks
    // for the lean one (FIR window from a ring of raw spectra, 1024 threads per SM; ci8, one
    // polarisation), which measured slower on the H200 (docs/PERFORMANCE.md, ppf).
    const auto variant = kv.find("cluster");
    FASTPSR_EXPECTS(variant == kv.end() || variant->second == "lean" || variant->second == "ring",
                    "--gpu-config cluster={}: not lean or ring", variant == kv.end() ? "" : variant->second);
    const bool lean_exists = fir_fft_supports(c, ntaps) && fir_fft_lean_exists(c, ntaps, npol, type);
    FASTPSR_EXPECTS(variant == kv.end() || variant->second == "ring" || lean_exists,
                    "--gpu-config cluster=lean: only for one polarisation of ci8 (npol = {}, {})", npol,
                    to_string(plan.problem.input));
    cfg.fir_fft_lean = variant != kv.end() && variant->second == "lean";
    const std::size_t smem =
        fir_fft_supports(c, ntaps) ? fir_fft_shared_bytes(c, ntaps, npol, type, cfg.fir_fft_lean) : 0;
    FASTPSR_EXPECTS(
        plan.complex_output() && fir_fft_supports(c, ntaps) && sm90 && smem > 0 && smem <= props.shared_per_block_optin,
        "--gpu-config fft=cluster: needs complex output, C = 1024, 2048 or 4096 (C = {}), T = 4, 8 or 16 "
        "(T = {}), a GPU of compute capability 9.0 or later ({}.{}) and {} bytes of shared memory per "
        "block ({} here)",
        c, ntaps, props.sm_major, props.sm_minor, smem, props.shared_per_block_optin);
    FASTPSR_CUDA_TRY(fir_fft_prepare(c, ntaps, npol, type, cfg.fir_fft_lean, &cfg.fir_fft_clusters));
    cfg.fir_fft_batch = cluster_batch(npol);
    FASTPSR_EXPECTS(cfg.fir_fft_clusters > 0, "--gpu-config fft=cluster: the GPU cannot run a cluster of {} blocks",
                    kClusterBlocks);
    return cfg;
  }
  const auto variant = kv.find("cluster");
  FASTPSR_EXPECTS(variant == kv.end(), "--gpu-config cluster={}: only with fft=cluster", variant->second);
  if (fft != kv.end()) {
    FASTPSR_EXPECTS(fft->second == "fused" || fft->second == "cufft",
                    "--gpu-config fft={}: not fused, cufft or cluster", fft->second);
    cfg.fused_fft = fft->second == "fused";
    FASTPSR_EXPECTS(!cfg.fused_fft || fused_shape,
                    "--gpu-config fft=fused: needs power output, C a power of two from 256 to 4096 (C = {}) and "
                    "--nint <= 65535",
                    c);
    FASTPSR_EXPECTS(!cfg.fused_fft || fused_possible,
                    "--gpu-config fft=fused: needs {} bytes of shared memory per block ({} here)", fused_smem,
                    props.shared_per_block_optin);
  } else {
    // The default for power output wherever it exists: on an H100 at C = 4096 it ran at 1.5-1.7x
    // the speed of cuFFT in place + the detection kernel (docs/PERFORMANCE.md, ppf).
    cfg.fused_fft = fused_possible;
  }
  FASTPSR_EXPECTS(!radix_given || cfg.fused_fft, "--gpu-config radix=: only for the fused FFT, not with fft={}",
                  fft == kv.end() ? std::string("cufft") : fft->second);

  // Power output: whole rows per chunk, so that a row's spectra are summed in one kernel in
  // order and the bits do not depend on where a push starts (a chunk boundary inside a row
  // would split its sum at a place that moves with the push).
  if (!plan.complex_output() && spr <= 65535) {
    cfg.chunk_spectra = std::max(spr, cfg.chunk_spectra - cfg.chunk_spectra % spr);
  }
  if (cfg.fused_fft) {
    // Default: 16 spectra per block (fewer partial sums), halved while a chunk would have fewer
    // than 1.5 blocks per SM (one wave of them leaves SMs idle). On an H100 at C = 4096, 64
    // spectra per row, 4096-spectrum chunks: 16 per block ran at 109 Gsamp/s, 7 at 102, a whole
    // row (64 blocks) at 78. It depends on the GPU's SM count, so sums may round differently on
    // another model.
    const std::size_t rows = static_cast<std::size_t>(cfg.chunk_spectra / spr);
    const auto blocks = [&](int seg) {
      return rows * static_cast<std::size_t>(plan.ncoarse()) * static_cast<std::size_t>((spr + seg - 1) / seg);
    };
    int seg_default = std::min(16, spr);
    while (seg_default > 1 && 2 * blocks(seg_default) < 3 * static_cast<std::size_t>(props.multiprocessors)) {
      seg_default /= 2;
    }
    cfg.segment_spectra = config_int(kv, "seg", seg_default);
    FASTPSR_EXPECTS(cfg.segment_spectra >= 1, "--gpu-config seg={}: not >= 1", cfg.segment_spectra);
    cfg.segment_spectra = std::min(cfg.segment_spectra, spr);  // a segment is at most a row
  }
  return cfg;
}

PpfEngine::PpfEngine(const ChanneliserPlan& plan, const GpuConfig& cfg, cudaStream_t stream)
    : plan_(plan), cfg_(cfg), stream_(stream) {
  const std::size_t c = static_cast<std::size_t>(plan_.nchans());
  const std::size_t pol = static_cast<std::size_t>(plan_.npol());
  const std::size_t chunk = static_cast<std::size_t>(cfg_.chunk_spectra);
  const std::size_t f = static_cast<std::size_t>(plan_.ncoarse());
  coeff_ = DeviceBuffer<float>(plan_.coeffs.size());
  copy_to_device_now(coeff_.get(), plan_.coeffs.data(), coeff_.bytes());
  phase_ = DeviceBuffer<float2>(plan_.phase.size() / 2);  // (re, im) pairs
  copy_to_device_now(phase_.get(), plan_.phase.data(), phase_.bytes());
  if (cfg_.fused_fft || cfg_.fir_fft || cfg_.persist) {
    // The Stockham FFT of the fused kernel takes exp(+2πi·t/C); the cluster kernel too, followed
    // by exp(+2πi·t/M) for its M = C/16-point transforms.
    const std::size_t m = cfg_.fir_fft ? c / kClusterSeqs : 0;
    std::vector<float> tw(2 * (c + m));
    const auto fill = [&](std::size_t at, std::size_t n) {
      for (std::size_t t = 0; t < n; ++t) {
        const double angle = 2.0 * std::numbers::pi * static_cast<double>(t) / static_cast<double>(n);
        tw[2 * (at + t)] = static_cast<float>(std::cos(angle));
        tw[2 * (at + t) + 1] = static_cast<float>(std::sin(angle));
      }
    };
    fill(0, c);
    if (m > 0) fill(c, m);
    twiddle_ = DeviceBuffer<float2>(c + m);
    copy_to_device_now(twiddle_.get(), tw.data(), twiddle_.bytes());
  }
  if (cfg_.fir_fft) return;  // no intermediate buffer, no cuFFT plan
  if (cfg_.persist) {        // the ring instead of the chunk buffers, no cuFFT plan
    ring_ = DeviceBuffer<float2>(static_cast<std::size_t>(cfg_.persist_slots) * kSliceSpectra * c);
    // filled[slots], consumed[slots], then the dynamic schedule's counters a line apart.
    counters_ = DeviceBuffer<unsigned>(2 * static_cast<std::size_t>(cfg_.persist_slots) + 3 * kPersistNextStride);
    return;
  }
  filt_each_ = f * chunk * c * pol;
  filt_ = DeviceBuffer<float2>(filt_each_ * static_cast<std::size_t>(cfg_.buffers));
  // A partial chunk transforms stale spectra too; they must be finite from the start.
  zero_device_now(filt_.get(), filt_.bytes());
  if (cfg_.buffers == 2) {
    second_.emplace();
    for (int b = 0; b < 2; ++b) {
      fir_done_.emplace_back();
      fft_done_.emplace_back();
    }
    fork_.emplace();
    join_.emplace();
  }
  if (cfg_.l2_persist) {
    int dev = 0;
    int max_persist = 0;
    int max_window = 0;
    FASTPSR_CUDA_TRY(cudaGetDevice(&dev));
    FASTPSR_CUDA_TRY(cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, dev));
    FASTPSR_CUDA_TRY(cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, dev));
    FASTPSR_CUDA_TRY(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize,
                                        std::min(filt_.bytes(), static_cast<std::size_t>(max_persist))));
    l2_window_bytes_ = std::min(filt_.bytes(), static_cast<std::size_t>(max_window));
    set_l2_window(stream_, true);
    if (second_) set_l2_window(second_->get(), true);
  }
  if (cfg_.fused_fft) {
    const int log2n = log2_of(plan_.nchans());
    const std::size_t rows = chunk / static_cast<std::size_t>(plan_.spectra_per_row());
    const std::size_t segs = segments_per_row();
    if (segs > 1) partial_ = DeviceBuffer<float>(rows * segs * plan_.row_floats());
    FASTPSR_CUDA_TRY(fft_detect_prepare(log2n, cfg_.fft_log2r, plan_.npol(), plan_.nifs() == 4));
  } else if (c > 1) {
    const int n = plan_.nchans();
    const int p = plan_.npol();
    if (plan_.complex_output()) {  // unit-stride input plane into the interleaved rows
      fft_.make(n, 1, n, p, static_cast<int>(f) * n * p, cfg_.chunk_spectra, fft_stream());
    } else {
      fft_.make(n, 1, n, 1, n, static_cast<int>(f) * cfg_.chunk_spectra, fft_stream());
    }
  }
  if (cfg_.fir == GpuConfig::Fir::shared) {
    FASTPSR_CUDA_TRY(fir_shared_prepare(in_type(plan_.problem.input), plan_.npol(), cfg_.shared.spectra_per_thread,
                                        fir_shared_bytes(cfg_.shared, plan_.ntaps(), plan_.npol())));
  }
}

PpfEngine::~PpfEngine() {
  for (const auto& g : graphs_) (void)cudaGraphExecDestroy(g.second);
  if (cfg_.l2_persist) {
    // The persisting lines and the limit are the context's: hand them back for other work.
    (void)cudaStreamSynchronize(stream_);
    if (second_) (void)cudaStreamSynchronize(second_->get());
    cudaStreamAttrValue v{};
    v.accessPolicyWindow.num_bytes = 0;
    (void)cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &v);
    (void)cudaCtxResetPersistingL2Cache();
    (void)cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
  }
}

void PpfEngine::set_l2_window(cudaStream_t s, bool on) const {
  std::size_t limit = 0;
  FASTPSR_CUDA_TRY(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  cudaStreamAttrValue v{};
  v.accessPolicyWindow.base_ptr = on ? static_cast<void*>(filt_.get()) : nullptr;
  v.accessPolicyWindow.num_bytes = on ? l2_window_bytes_ : 0;
  v.accessPolicyWindow.hitRatio =
      on && l2_window_bytes_ > 0
          ? static_cast<float>(std::min(1.0, static_cast<double>(limit) / static_cast<double>(l2_window_bytes_)))
          : 0.0F;
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  FASTPSR_CUDA_TRY(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
}

std::size_t PpfEngine::out_rows_capacity(std::size_t rows) const noexcept {
  if (!plan_.complex_output() || cfg_.fir_fft || cfg_.persist) return rows;
  const auto chunk = static_cast<std::size_t>(cfg_.chunk_spectra);
  return (rows + chunk - 1) / chunk * chunk;
}

std::size_t PpfEngine::device_bytes() const noexcept {
  return coeff_.bytes() + phase_.bytes() + filt_.bytes() + twiddle_.bytes() + partial_.bytes() + fft_.work_bytes() +
         ring_.bytes() + counters_.bytes();
}

std::size_t PpfEngine::segments_per_row() const noexcept {
  const auto spr = static_cast<std::size_t>(plan_.spectra_per_row());
  const auto seg = static_cast<std::size_t>(cfg_.segment_spectra);
  return (spr + seg - 1) / seg;
}

void PpfEngine::fused_chunk(std::size_t s0, std::size_t n, const float2* filt, float* out, unsigned stages) const {
  const auto& p = plan_.problem;
  const std::size_t c = static_cast<std::size_t>(p.nchans);
  const std::size_t chunk = static_cast<std::size_t>(cfg_.chunk_spectra);
  const std::size_t spr = static_cast<std::size_t>(plan_.spectra_per_row());
  FftDetectArgs a;
  a.spec = filt;
  a.spec_coarse_stride = chunk * c;
  a.spec_pol_stride = static_cast<std::size_t>(p.ncoarse) * chunk * c;
  a.twiddle = twiddle_.get();
  a.log2n = log2_of(p.nchans);
  a.log2r = cfg_.fft_log2r;
  a.ncoarse = p.ncoarse;
  a.descending = p.descending;
  a.inverse = plan_.inverse_fft;
  a.spectra_per_row = plan_.spectra_per_row();
  a.segment_spectra = cfg_.segment_spectra;
  a.segments_per_row = static_cast<int>(segments_per_row());
  a.detection = static_cast<int>(p.detection);
  a.out = out + (s0 / spr) * plan_.row_floats();
  a.partial = partial_.get();
  a.row_floats = plan_.row_floats();
  a.if_stride = plan_.out_channels();
  const int rows = static_cast<int>(n / spr);
  if ((stages & kStageFft) != 0) FASTPSR_CUDA_TRY(launch_fft_detect(a, p.npol, rows, fft_stream()));
  if ((stages & kStageDetect) != 0) FASTPSR_CUDA_TRY(launch_sum_segments(a, plan_.nifs(), rows, fft_stream()));
}

void PpfEngine::fft_chunk(std::size_t s0, const float2* filt_in, float2* out) const {
  const auto& p = plan_.problem;
  const std::size_t c = static_cast<std::size_t>(p.nchans);
  const std::size_t pol = static_cast<std::size_t>(p.npol);
  const std::size_t f_count = static_cast<std::size_t>(p.ncoarse);
  const std::size_t chunk = static_cast<std::size_t>(cfg_.chunk_spectra);
  // cuFFT takes non-const pointers; in place for power output, read-only for complex output.
  auto* filt = reinterpret_cast<cufftComplex*>(const_cast<float2*>(filt_in));
  const std::size_t pol_stride = f_count * chunk * c;
  const int dir = plan_.inverse_fft ? CUFFT_INVERSE : CUFFT_FORWARD;
  if (!plan_.complex_output()) {
    if (c == 1) return;  // a 1-point DFT is the identity
    for (std::size_t q = 0; q < pol; ++q) {
      cufftComplex* plane = filt + q * pol_stride;
      FASTPSR_CUFFT_TRY(cufftExecC2C(fft_.get(), plane, plane, dir));
    }
    return;
  }
  for (std::size_t f = 0; f < f_count; ++f) {
    const std::size_t f_out = p.descending ? f_count - 1 - f : f;
    auto* dst = reinterpret_cast<cufftComplex*>(out) + s0 * f_count * c * pol + f_out * c * pol;
    for (std::size_t q = 0; q < pol; ++q) {
      cufftComplex* src = filt + q * pol_stride + f * chunk * c;
      if (c == 1) {  // a 1-point DFT is the identity: place the values
        FASTPSR_CUDA_TRY(cudaMemcpy2DAsync(dst + q, f_count * pol * sizeof(cufftComplex), src, sizeof(cufftComplex),
                                           sizeof(cufftComplex), chunk, cudaMemcpyDeviceToDevice, fft_stream()));
      } else {
        FASTPSR_CUFFT_TRY(cufftExecC2C(fft_.get(), src, dst + q, dir));
      }
    }
  }
}

void PpfEngine::fir_fft_all(const void* in, std::size_t in_coarse_stride, std::size_t nspectra, void* out) const {
  const auto& p = plan_.problem;
  FirFftArgs a;
  a.in = in;
  a.in_coarse_stride = in_coarse_stride;
  a.coeff = coeff_.get();
  a.phase = phase_.get();
  a.twiddle = twiddle_.get();
  a.out = static_cast<float2*>(out);
  a.row_complex = plan_.out_channels() * static_cast<std::size_t>(p.npol);
  a.nchans = p.nchans;
  a.ntaps = p.ntaps;
  a.npol = p.npol;
  a.ncoarse = p.ncoarse;
  a.nspectra = static_cast<int>(nspectra);
  a.descending = p.descending;
  a.inverse = plan_.inverse_fft;
  a.type = in_type(p.input);
  a.lean = cfg_.fir_fft_lean;
  // One wave of clusters, each over an equal range of spectra (every cluster first runs T − 1
  // spectra of FIR history); at least 2 batches per cluster so that short pushes use few.
  const std::size_t per_coarse_wanted =
      std::max<std::size_t>(1, static_cast<std::size_t>(cfg_.fir_fft_clusters) / static_cast<std::size_t>(p.ncoarse));
  const std::size_t min_spectra = 2 * static_cast<std::size_t>(cfg_.fir_fft_batch);
  const std::size_t per_coarse = std::clamp<std::size_t>(nspectra / min_spectra, 1, per_coarse_wanted);
  const std::size_t spc = (nspectra + per_coarse - 1) / per_coarse;
  a.spectra_per_cluster = static_cast<int>(spc);
  a.clusters_per_coarse = static_cast<int>((nspectra + spc - 1) / spc);
  FASTPSR_CUDA_TRY(launch_fir_fft(a, stream_));
}

FirArgs PpfEngine::fir_args(const void* in) const {
  const auto& p = plan_.problem;
  FirArgs a;
  a.in = in;
  a.coeff = coeff_.get();
  a.phase = phase_.get();
  a.nchans = p.nchans;
  a.ntaps = p.ntaps;
  a.ncoarse = p.ncoarse;
  a.npol = p.npol;
  a.type = in_type(p.input);
  return a;
}

void PpfEngine::persist_all(const void* in, std::size_t nspectra, void* out) const {
  const auto& p = plan_.problem;
  PersistArgs a;
  a.fir = fir_args(in);  // one polarisation and coarse channel (persist_supports)
  a.twiddle = twiddle_.get();
  a.ring = ring_.get();
  a.filled = counters_.get();
  a.consumed = counters_.get() + cfg_.persist_slots;
  a.out = static_cast<float2*>(out);
  a.nspectra = static_cast<long long>(nspectra);
  a.nslots = cfg_.persist_slots;
  // The first line boundary at least a line past the slot counters (the buffer starts line-aligned).
  a.next = counters_.get() +
           ((2 * cfg_.persist_slots + 2 * kPersistNextStride - 1) / kPersistNextStride) * kPersistNextStride;
  a.dynamic = cfg_.persist_dynamic;
  a.fir_blocks = a.dynamic ? 0 : cfg_.persist_fir_blocks();
  a.fft_blocks = a.dynamic ? cfg_.persist_grid : std::max(1, cfg_.persist_grid - a.fir_blocks);
  // The item counters are 32-bit (a push is far below 2^31 spectra).
  FASTPSR_EXPECTS(nspectra < (std::size_t{1} << 31), "fft=persist: {} spectra in one push (internal)", nspectra);
  a.inverse = plan_.inverse_fft;
  a.blocks_per_sm = cfg_.persist_occ;
  // The FIR role loads two samples and two taps at once.
  const std::size_t wide = 2 * plan_.sample_bytes();
  FASTPSR_EXPECTS(reinterpret_cast<std::uintptr_t>(in) % wide == 0,
                  "fft=persist: input not aligned for two-sample loads (internal)");
  FASTPSR_CUDA_TRY(cudaMemsetAsync(counters_.get(), 0, counters_.bytes(), stream_));
  const cudaError_t launched = launch_persist(a, in_type(p.input), p.ntaps, stream_);
  if (launched == cudaErrorCooperativeLaunchTooLarge) {
    throw Error(ErrorCode::resource,
                "ppf GPU: the persistent FIR + FFT kernel needs every one of its blocks resident at once and this GPU "
                "cannot hold them now (shared with other work, or limited by MPS); run with --gpu-config fft=cufft");
  }
  FASTPSR_CUDA_TRY(launched);
}

void PpfEngine::run(const void* in, std::size_t in_coarse_stride, std::size_t rows, void* out, unsigned stages) {
  if (cfg_.persist) {  // one kernel over every row; it times as the FIR stage
    if ((stages & kStageFir) != 0) persist_all(in, rows, out);
    return;
  }
  if (cfg_.fir_fft) {  // one kernel over every row; it times as the FIR stage
    FASTPSR_EXPECTS(rows <= 0x7fffffffU, "{} rows in one push: more than the fused kernel takes", rows);
    if ((stages & kStageFir) != 0) fir_fft_all(in, in_coarse_stride, rows, out);
    return;
  }
  if (!cfg_.graph) {
    run_chunks(in, in_coarse_stride, rows, out, stages);
    return;
  }
  // graph=1: a push is run directly the first time its arguments are seen (which also loads every
  // kernel, cuFFT's included, outside a capture), captured the second time, and replayed after.
  constexpr std::size_t kKept = 4;
  const PushKey key = std::make_tuple(in, in_coarse_stride, rows, out, stages);
  for (const auto& [k, exec] : graphs_) {
    if (k == key) {
      FASTPSR_CUDA_TRY(cudaGraphLaunch(exec, stream_));
      return;
    }
  }
  if (std::find(seen_.begin(), seen_.end(), key) == seen_.end()) {
    if (seen_.size() == kKept) seen_.erase(seen_.begin());
    seen_.push_back(key);
    run_chunks(in, in_coarse_stride, rows, out, stages);
    return;
  }
  FASTPSR_CUDA_TRY(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  cudaGraph_t graph = nullptr;
  try {
    run_chunks(in, in_coarse_stride, rows, out, stages);
  } catch (...) {
    (void)cudaStreamEndCapture(stream_, &graph);
    if (graph != nullptr) (void)cudaGraphDestroy(graph);
    throw;
  }
  FASTPSR_CUDA_TRY(cudaStreamEndCapture(stream_, &graph));
  cudaGraphExec_t exec = nullptr;
  const cudaError_t made = cudaGraphInstantiate(&exec, graph, 0);
  (void)cudaGraphDestroy(graph);
  FASTPSR_CUDA_TRY(made);
  if (graphs_.size() == kKept) {
    (void)cudaGraphExecDestroy(graphs_.front().second);
    graphs_.erase(graphs_.begin());
  }
  graphs_.emplace_back(key, exec);
  FASTPSR_CUDA_TRY(cudaGraphLaunch(exec, stream_));
}

void PpfEngine::run_chunks(const void* in, std::size_t in_coarse_stride, std::size_t rows, void* out, unsigned stages) {
  const std::size_t chunk = static_cast<std::size_t>(cfg_.chunk_spectra);
  const std::size_t total = rows * static_cast<std::size_t>(plan_.spectra_per_row());
  const bool detect = !plan_.complex_output() && !cfg_.fused_fft && (stages & kStageDetect) != 0;
  if (detect) FASTPSR_CUDA_TRY(cudaMemsetAsync(out, 0, rows * plan_.row_floats() * sizeof(float), stream_));
  const bool two = cfg_.buffers == 2;
  if (two) {  // the second stream starts after everything before this push (and the memset)
    fork_->record(stream_);
    second_->wait(fork_->get());
  }
  std::size_t k = 0;
  for (std::size_t s0 = 0; s0 < total; s0 += chunk, ++k) {
    const std::size_t n = std::min(chunk, total - s0);
    const int b = two ? static_cast<int>(k % 2) : 0;
    float2* filt = filt_buffer(b);
    // The FIR of chunk k overwrites the buffer the FFT of chunk k - 2 read.
    if (two && k >= 2) FASTPSR_CUDA_TRY(cudaStreamWaitEvent(stream_, fft_done_[b].get(), 0));
    if ((stages & kStageFir) != 0) fir_chunk(in, in_coarse_stride, s0, n, filt);
    if (two) {
      fir_done_[b].record(stream_);
      second_->wait(fir_done_[b].get());
    }
    after_fir(s0, n, filt, out, stages);
    if (two) fft_done_[b].record(second_->get());
  }
  if (two) {
    join_->record(second_->get());
    FASTPSR_CUDA_TRY(cudaStreamWaitEvent(stream_, join_->get(), 0));
  }
}

void PpfEngine::fir_chunk(const void* in, std::size_t in_coarse_stride, std::size_t s0, std::size_t n,
                          float2* filt) const {
  const auto& p = plan_.problem;
  const std::size_t c = static_cast<std::size_t>(p.nchans);
  const std::size_t chunk = static_cast<std::size_t>(cfg_.chunk_spectra);
  FirArgs a = fir_args(static_cast<const char*>(in) + s0 * c * plan_.sample_bytes());
  a.in_coarse_stride = in_coarse_stride;
  a.out = filt;
  a.out_coarse_stride = chunk * c;
  a.out_pol_stride = static_cast<std::size_t>(p.ncoarse) * chunk * c;
  a.nspectra = static_cast<int>(n);
  if (cfg_.fir == GpuConfig::Fir::reg) {
    FASTPSR_CUDA_TRY(launch_fir_register(a, cfg_.cache, stream_));
  } else if (cfg_.fir == GpuConfig::Fir::cache) {
    FASTPSR_CUDA_TRY(launch_fir_cache(a, cfg_.cache, stream_));
  } else {
    FASTPSR_CUDA_TRY(launch_fir_shared(a, cfg_.shared, stream_));
  }
}

// The FFT (and detection) of one chunk, on fft_stream().
void PpfEngine::after_fir(std::size_t s0, std::size_t n, const float2* filt, void* out, unsigned stages) const {
  const auto& p = plan_.problem;
  if (cfg_.fused_fft) {
    fused_chunk(s0, n, filt, static_cast<float*>(out), stages);
    return;
  }
  if ((stages & kStageFft) != 0) fft_chunk(s0, filt, static_cast<float2*>(out));
  if (plan_.complex_output() || (stages & kStageDetect) == 0) return;
  const std::size_t c = static_cast<std::size_t>(p.nchans);
  const std::size_t chunk = static_cast<std::size_t>(cfg_.chunk_spectra);
  DetectArgs d;
  d.spec = filt;
  d.spec_coarse_stride = chunk * c;
  d.spec_pol_stride = static_cast<std::size_t>(p.ncoarse) * chunk * c;
  d.nchans = p.nchans;
  d.npol = p.npol;
  d.ncoarse = p.ncoarse;
  d.descending = p.descending;
  d.g0 = static_cast<long long>(s0);
  d.n = static_cast<int>(n);
  d.spectra_per_row = plan_.spectra_per_row();
  d.detection = static_cast<int>(p.detection);
  d.out = static_cast<float*>(out);
  d.row_floats = plan_.row_floats();
  d.if_stride = plan_.out_channels();
  FASTPSR_CUDA_TRY(launch_detect(d, fft_stream()));
}

}  // namespace fastpsr::cuda::ppf
