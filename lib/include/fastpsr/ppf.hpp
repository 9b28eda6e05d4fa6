// SPDX-License-Identifier: MIT
#pragma once
/// Polyphase filterbank (PPF) channeliser: the problem, the plan, and the streaming interface
/// that the CPU and CUDA backends implement (Adámek, Novotný & Armour, "A polyphase filter for
/// many-core architectures"; design.md: problem / plan / execute).
///
/// Definition (both backends). The input holds F coarse channels, each a stream of complex
/// samples x[n] per polarisation p < P. Raw spectrum r of a stream is x[r·C + c], c < C. The
/// FIR (the paper's Algorithm 1) makes filtered spectra
///     y_s[c] = Σ_{t<T} coeff[t·C + c] · x[(s + t)·C + c],        s = 0, 1, ...
/// and the DFT turns each into channels X_s[k] = Σ_{c<C} y_s[c]·exp(−2πi·k·c/C) (unnormalised).
/// Fine channel j (< C) of a coarse channel holds bin k(j), with h = ⌊C/2⌋:
///     ascending order:  k(j) = (j − h) mod C            (fftshift: lowest baseband frequency first)
///     descending order: k(j) = (C − 1 − j − h) mod C    (highest first)
/// so its baseband frequency is (j − h)/C resp. (C − 1 − j − h)/C of the sample rate. In
/// descending order the coarse channels are reversed as well, so output channel o = f_out·C + j
/// runs monotonically over the whole band. Both orders come straight out of the FFT: the
/// filtered spectrum is multiplied by exp(2πi·m·c/C) (m = h ascending, h + 1 descending) and
/// transformed forward (ascending) or backward (descending), so no reordering pass exists.
///
/// Outputs (float32, host memory, row-major):
///  - complex: one row per filtered spectrum s: [F·C channels][P][re, im];
///  - power:   one row per integration i, the sum of |.|² products over filtered spectra
///    i·nint ... i·nint + nint − 1: [nifs][F·C channels], with X = pol 0, Y = pol 1:
///      I = |X|² + |Y|² (|X|² for one polarisation), AA = |X|², BB = |Y|²,
///      IQUV: I, Q = |X|² − |Y|², U = 2·Re(X*·Y), V = 2·Im(X*·Y)  (PSRFITS CR/CI: U = 2CR, V = 2CI).
/// Accuracy: float32 arithmetic, relative error ≤ 1e-5 against a double-precision reference
/// (max |error| over a block ≤ 1e-5 · max |reference|), for every input type, C and T.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fastpsr/fftw_effort.hpp"
#include "fastpsr/ppf_window.hpp"

namespace fastpsr {

/// Complex input samples, (re, im) interleaved: two's-complement int8 or int16 (LE), or float32.
enum class VoltageType { ci8, ci16, cf32 };
/// Parses "ci8", "ci16" or "cf32"; Error(invalid_argument) naming the choices otherwise.
VoltageType parse_voltage_type(std::string_view text);
std::string_view to_string(VoltageType t);
/// Bytes of one real component (1, 2 or 4).
std::size_t component_bytes(VoltageType t);

enum class PpfOutput { complex, power };
enum class Detection { I, AA, BB, IQUV };
/// Parses "I", "AA", "BB" or "IQUV" (case-insensitive).
Detection parse_detection(std::string_view text);
std::string_view to_string(Detection d);
/// IFs of a detection: 4 for IQUV, else 1.
int detection_nifs(Detection d);

/// What to channelise. A plain description: no memory, no device.
struct ChanneliserProblem {
  int nchans = 0;   ///< C: fine channels per coarse channel (FFT length), >= 1
  int ntaps = 1;    ///< T: FIR taps per channel, >= 1
  int ncoarse = 1;  ///< F: coarse channels, each channelised on its own
  int npol = 1;     ///< P: polarisations, 1 or 2
  VoltageType input = VoltageType::ci8;
  PpfOutput output = PpfOutput::power;
  Detection detection = Detection::I;  ///< power output only
  int nint = 1;                        ///< filtered spectra summed per power row, >= 1
  bool descending = false;             ///< output order (see above)
  /// C·T coefficients in Algorithm 1 order [t·C + c]; empty: designed from window and fwidth.
  std::vector<float> coeffs;
  WindowSpec window;
  double fwidth = 1.0;  ///< passband-width factor of the designed filter (ppf_window.hpp)
};

/// A validated problem with everything derived from it; cheap to copy, no memory of the data.
struct ChanneliserPlan {
  ChanneliserProblem problem;
  std::vector<float> coeffs;  ///< C·T, Algorithm 1 order (designed or given)
  std::vector<float> phase;   ///< 2·C floats: exp(2πi·m·c/C) as (re, im), see above
  bool inverse_fft = false;   ///< transform with exp(+2πi·k·c/C) (descending order)

  [[nodiscard]] int nchans() const noexcept { return problem.nchans; }
  [[nodiscard]] int ntaps() const noexcept { return problem.ntaps; }
  [[nodiscard]] int npol() const noexcept { return problem.npol; }
  [[nodiscard]] int ncoarse() const noexcept { return problem.ncoarse; }
  [[nodiscard]] bool complex_output() const noexcept { return problem.output == PpfOutput::complex; }
  /// Filtered spectra per output row: nint for power, 1 for complex output.
  [[nodiscard]] int spectra_per_row() const noexcept { return complex_output() ? 1 : problem.nint; }
  [[nodiscard]] int nifs() const noexcept { return complex_output() ? 1 : detection_nifs(problem.detection); }
  /// Output channels over all coarse channels (F·C).
  [[nodiscard]] std::size_t out_channels() const noexcept {
    return static_cast<std::size_t>(problem.ncoarse) * static_cast<std::size_t>(problem.nchans);
  }
  /// Floats in one output row.
  [[nodiscard]] std::size_t row_floats() const noexcept {
    return complex_output() ? out_channels() * static_cast<std::size_t>(problem.npol) * 2
                            : out_channels() * static_cast<std::size_t>(nifs());
  }
  /// Bytes of one input time sample of one coarse channel (all polarisations, re and im).
  [[nodiscard]] std::size_t sample_bytes() const noexcept {
    return static_cast<std::size_t>(problem.npol) * 2 * component_bytes(problem.input);
  }
  /// Output rows that `nsamples` input samples per coarse channel give in a whole-file run.
  [[nodiscard]] std::uint64_t rows_for_samples(std::uint64_t nsamples) const noexcept;
  /// Output channel o = f_out·C + j: the coarse channel it comes from and its FFT bin k(j).
  [[nodiscard]] int coarse_of(std::size_t o) const noexcept;
  [[nodiscard]] int bin_of(std::size_t o) const noexcept;
};

/// Validates the problem (Error(invalid_argument) naming the value: C, T, P, F, nint, coeff count,
/// IQUV/BB with one polarisation, fwidth) and designs the coefficients when none are given.
ChanneliserPlan make_channeliser_plan(const ChanneliserProblem& problem);

/// A block of output rows in host memory: `nrows` rows of `row_floats` floats; row 0 is output
/// row `first` of the whole run.
struct ChanneliserBlock {
  std::uint64_t first = 0;
  std::size_t nrows = 0;
  const float* data = nullptr;
  std::size_t row_floats = 0;
  [[nodiscard]] bool empty() const noexcept { return nrows == 0; }
};

struct ChanneliserOptions {
  std::size_t gulp_samples = 0;                   ///< new samples per coarse channel per push; 0 = default
  std::map<std::string, std::string> gpu_config;  ///< --gpu-config key=value (CUDA backend)
  /// --cpu-config key=value (CPU backend): isa=avx512|avx2|generic, the FIR's SIMD variant
  std::map<std::string, std::string> cpu_config;
  bool use_tuning = false;  ///< CUDA backend: the tuning database under gpu_config (as DedispOptions)
  int threads = 0;          ///< CPU threads; 0 = OpenMP default
  using FftwEffort = fastpsr::FftwEffort;
  FftwEffort fftw_effort = FftwEffort::estimate;  ///< CPU planner
};

/// A streaming channeliser. It keeps every input sample not yet consumed (the T − 1 raw spectra
/// of FIR history, a partial raw spectrum, the spectra of an unfinished integration), so the
/// output is identical, bit for bit, for any split of the input into pushes.
class Channeliser {
 public:
  virtual ~Channeliser() = default;
  [[nodiscard]] virtual const ChanneliserPlan& plan() const noexcept = 0;
  /// Most new samples (per coarse channel) one push() accepts.
  [[nodiscard]] virtual std::size_t gulp_samples() const noexcept = 0;
  /// Feeds n <= gulp_samples() new time samples of every coarse channel, host memory, layout
  /// [F][n][P][re, im] of plan().problem.input; coarse channel f starts at sample f·stride
  /// (stride 0 means n). Returns the next block of complete output rows: possibly empty, and on
  /// pipelining backends possibly rows of an earlier push. Blocks come in order without gaps;
  /// a block stays valid until the next call. `in` is read only until push returns.
  virtual ChanneliserBlock push(const void* in, std::size_t n, std::size_t stride = 0) = 0;
  /// `count` buffers of `bytes` each, owned by the channeliser until it is destroyed, that push()
  /// reads fastest: a GPU backend gives page-locked memory it uploads from without first copying
  /// it into its own (the ppf tool reads the input straight into them). Empty where ordinary
  /// memory is as good (the CPU backend).
  [[nodiscard]] virtual std::vector<std::uint8_t*> input_buffers(std::size_t count, std::size_t bytes) {
    (void)count;
    (void)bytes;
    return {};
  }
  /// After the last push, call until it returns an empty block. Samples that do not complete a
  /// row (a partial spectrum, an unfinished integration) give no output.
  virtual ChanneliserBlock flush() = 0;
  /// Backend, kernel configuration and buffer sizes, for -v.
  [[nodiscard]] virtual std::string describe() const = 0;
  [[nodiscard]] virtual std::size_t host_bytes() const noexcept = 0;
  [[nodiscard]] virtual std::size_t device_bytes() const noexcept { return 0; }
};

}  // namespace fastpsr
