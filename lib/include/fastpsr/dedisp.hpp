// SPDX-License-Identifier: MIT
#pragma once
/// Incoherent (direct) dedispersion: the delay models, the plan, and the streaming executor
/// interface that the CPU and CUDA backends implement (design.md: plan / execute).
///
/// Definition (both backends, all nbits): with x the input in file channel order and D the
/// range's downsampling factor, x_D[t][c] = sum_{k<D} x[t*D + k][c] and
///   out[i][t] = sum over kept channels c of x_D[t + delay[i][c]][c].
/// Integer input (nbits <= 16) is summed exactly in integers and converted to float32 once,
/// so every backend gives bit-identical output, equal to a double-precision reference
/// rounded to float32. Float input (nbits 32): |out - ref| <= 1e-6 * sum of |terms| (the CPU
/// backend sums in double, so its output is the reference rounded once, but for ties).
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastpsr/sigproc.hpp"

namespace fastpsr {

/// Delay conventions (formats.md §9).
///  - presto: K = 1/2.41e-4 s MHz^2 pc^-1 cm^3, reference = centre of the highest channel,
///    channel frequencies as PRESTO derives them (lowest channel + i * |foff|), delays rounded
///    half away from zero (NEAREST_LONG) in units of the output sample time.
///  - sigproc: K = 4148.741601, reference = fch1 (channel 0), frequencies fch1 + c * foff
///    formed as SIGPROC's dmshift() does (fch1, then foff added once per channel), delays
///    truncated toward zero.
enum class DelayModel { presto, sigproc };

/// Parses "presto" or "sigproc" (Error(invalid_argument) otherwise).
DelayModel parse_delay_model(std::string_view text);
std::string_view to_string(DelayModel m);
/// K_DM of the model, s MHz^2 pc^-1 cm^3.
double dm_constant(DelayModel m);
/// Dispersion delay (s) of f relative to f_ref (both MHz) at `dm`, with the model's own
/// expression and order of operations (so rounding matches the code it emulates).
double dm_delay_s(DelayModel m, double dm, double f_mhz, double f_ref_mhz);

/// What the dedisperser needs to know of the input data.
struct DedispInput {
  int nchans = 0;
  std::vector<double> chan_freq_mhz;  ///< centre of each channel, file order
  double fch1_mhz = 0.0;              ///< header values, kept for the presto frequency rule
  double foff_mhz = 0.0;
  double tsamp_s = 0.0;
  int nbits = 8;
  bool is_signed = false;
  /// From a SIGPROC header, whose errors name `name` (the file): nifs must be 1
  /// (Error(unsupported)); the channels need a positive fch1 and, with more than one, a non-zero
  /// foff or a frequency table (Error(format): a missing foff puts every channel at fch1 and makes
  /// every DM trial the same series).
  static DedispInput from_header(const SigprocHeader& h, const std::string& name = {});
  /// Packed bytes of one input sample.
  [[nodiscard]] std::size_t bytes_per_sample() const {
    return static_cast<std::size_t>(nchans) * static_cast<std::size_t>(nbits) / 8;
  }
};

/// One group of DM trials sharing a time resolution.
struct DedispProblem {
  DedispInput input;
  std::vector<double> dms;  ///< trial DMs, pc cm^-3 (>= 0)
  int downsample = 1;       ///< input samples summed per output sample
  DelayModel model = DelayModel::presto;
  std::vector<std::uint8_t> keep;  ///< per channel: 1 use, 0 killed; empty = all used
  /// presto model only: round delays as prepsubband -nsub N does (two stages: within each
  /// subband at the mean DM of `dms`, then per subband at each DM). 0 (or nchans) = per channel,
  /// as prepdata. N must divide nchans; with N < nchans downsample must be 1. Only the delay
  /// table changes: backends need not know.
  int presto_nsub = 0;
  /// The frequency (MHz) the delays are referenced to; unset: the model's (presto: the highest
  /// channel, sigproc: channel 0). No kept channel may lie above it.
  std::optional<double> ref_freq_mhz;
};

struct DedispPlan {
  DedispProblem problem;
  double ref_freq_mhz = 0.0;               ///< the output is referenced to this frequency
  std::vector<std::int32_t> delays;        ///< [dm * nchans + chan], output samples, >= 0
  std::vector<std::int32_t> dm_max_delay;  ///< per DM: max over kept channels
  std::int32_t max_delay = 0;              ///< over all DMs: output samples of history needed
  std::int32_t min_dm_max_delay = 0;       ///< min over DMs of dm_max_delay

  [[nodiscard]] std::size_t ndms() const noexcept { return problem.dms.size(); }
  [[nodiscard]] int nchans() const noexcept { return problem.input.nchans; }
  [[nodiscard]] int downsample() const noexcept { return problem.downsample; }
  [[nodiscard]] double out_tsamp_s() const noexcept { return problem.input.tsamp_s * problem.downsample; }
  [[nodiscard]] bool channel_kept(int c) const noexcept {
    return problem.keep.empty() || problem.keep[static_cast<std::size_t>(c)] != 0;
  }
  /// Output samples of DM i with complete data, for `nin` input samples.
  [[nodiscard]] std::uint64_t valid_samples(std::size_t i, std::uint64_t nin) const noexcept {
    const std::uint64_t nds = nin / static_cast<std::uint64_t>(problem.downsample);
    const auto d = static_cast<std::uint64_t>(dm_max_delay[i]);
    return nds > d ? nds - d : 0;
  }
};

/// The channel frequencies (file order) whose delays the model computes: PRESTO derives a
/// regular falling band from its lowest channel upwards, SIGPROC walks it from fch1 by repeated
/// addition; otherwise the input's own. They differ from fch1 + c * foff in the last bits.
std::vector<double> model_channel_frequencies(const DedispInput& in, DelayModel model);

/// PRESTO's centre of the highest channel of subband j (lowest subband first) of nsub, as its
/// subband_delays() computes it from the band's lowest channel (either band order).
double presto_subband_top_mhz(const DedispInput& in, int nsub, int j);

/// Computes the delay table; throws Error(invalid_argument) for an empty or negative DM list,
/// downsample < 1, a mask of the wrong length, or no channel kept.
DedispPlan make_dedisp_plan(const DedispProblem& problem);

/// A block of DM-time output in host memory: ndms rows of `nsamples` floats, `stride` floats
/// apart; column 0 is output sample `first`.
struct DedispBlock {
  std::uint64_t first = 0;
  std::size_t nsamples = 0;
  const float* data = nullptr;
  std::size_t stride = 0;
  [[nodiscard]] bool empty() const noexcept { return nsamples == 0; }
};

struct DedispOptions {
  std::size_t gulp_samples = 0;  ///< new input samples per push; 0 = backend default
  /// The input's length in samples where known (0: not known). The backends' default gulps are
  /// no longer than it (an explicit gulp_samples is taken as given).
  std::uint64_t input_samples = 0;
  std::map<std::string, std::string> gpu_config;  ///< --gpu-config key=value (CUDA backend)
  /// CUDA backend: put the tuning database's entry (fastpsr/tuning.hpp) under gpu_config's keys.
  /// Tools turn it on (off with --no-tuning); off by default so tests and benchmarks run as told.
  bool use_tuning = false;
  /// --cpu-config key=value (CPU backend): isa=avx512|avx2|generic, dm_block=1|4|8|16, dm_tile, time_tile,
  /// chan_block, subbands=auto|on|off (exact two-stage sum where the delays split), sub_chunk,
  /// sub_block.
  std::map<std::string, std::string> cpu_config;
  int threads = 0;  ///< CPU threads; 0 = OpenMP default
};

/// A streaming dedisperser. push() takes new input samples; the backend keeps the history it
/// needs, so output is identical to a whole-file run for any gulp size.
class Dedisperser {
 public:
  virtual ~Dedisperser() = default;
  [[nodiscard]] virtual const DedispPlan& plan() const noexcept = 0;
  /// Most input samples one push() accepts (a multiple of the downsampling factor).
  [[nodiscard]] virtual std::size_t gulp_samples() const noexcept = 0;
  /// Feeds n <= gulp_samples() new packed input samples (host memory). n must be a multiple of
  /// the downsampling factor D, except in the last push before flush(): there a trailing
  /// incomplete group of fewer than D samples is ignored (the output has nin / D samples).
  /// Returns the next block of complete output: possibly empty, and on pipelining backends
  /// possibly the block of an earlier push. Blocks come in order without gaps. The block stays
  /// valid until the next call.
  virtual DedispBlock push(const std::uint8_t* packed, std::size_t n) = 0;
  /// After the last push, call until it returns an empty block. The input is taken as followed
  /// by zeros up to the end of the output that any DM still needs, so blocks reach output
  /// sample nin/D - min_dm_max_delay; DM i's samples from valid_samples(i, nin) on hold partial
  /// sums and are to be dropped by the caller.
  virtual DedispBlock flush() = 0;
  /// Kernel configuration and buffer sizes, for -v.
  [[nodiscard]] virtual std::string describe() const = 0;
  [[nodiscard]] virtual std::size_t host_bytes() const noexcept = 0;
  [[nodiscard]] virtual std::size_t device_bytes() const noexcept { return 0; }
};

}  // namespace fastpsr
