// SPDX-License-Identifier: MIT
#pragma once
/// What ppf writes: the SIGPROC header of a filterbank of detected power, the 8-bit scaling of
/// such a filterbank, and the PSRDADA header of channelised complex voltages.
///
/// Frequencies and times (the filterbank):
///  - channel o of the output is fine channel j of coarse channel f (ppf.hpp); its centre is
///    coarse_centre[f] + b(j)·chan_bw/C, b(j) the baseband bin (ppf.hpp), so the FFT's DC bin
///    sits on the coarse channel's centre;
///  - power output runs from the highest frequency down (foff = −|chan_bw|/C < 0, fch1 the
///    highest channel centre), as SIGPROC and PRESTO expect;
///  - tsamp = C·nint·tsamp_in; tstart is the input's start plus the filter's group delay,
///    (T − 1)·C/2 input samples, so that a pulse keeps its arrival time.
/// Complex output keeps the input's sense: fine channels in ascending baseband order, coarse
/// channels in file order, written as PSRDADA with BW the input's (signed) total bandwidth,
/// ORDER TFP, NBIT 32, NDIM 2: ppf reads its own output back.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fastpsr/dada.hpp"
#include "fastpsr/ppf.hpp"
#include "fastpsr/ppf_input.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr {

/// Centre frequency (MHz) of output channel o.
double ppf_channel_centre_mhz(const VoltageInfo& in, const ChanneliserPlan& plan, std::size_t o);

/// The filterbank header (SIGPROC filterbank key order; nifs = plan.nifs()). Error(invalid_argument)
/// when the plan's order does not give foff < 0 for this input (plan.problem.descending must be
/// chan_bw > 0) or nbits is not 8 or 32.
SigprocHeader make_ppf_filterbank_header(const VoltageInfo& in, const ChanneliserPlan& plan, int nbits,
                                         const std::string& rawdatafile);

/// The PSRDADA header of complex output (needs plan.problem.descending == false).
DadaHeader make_ppf_dada_header(const VoltageInfo& in, const ChanneliserPlan& plan);

/// 8-bit output of power rows: each (IF, channel) is mapped to 128 + 16·(x − mean)/rms, rounded
/// and clipped to 0 ... 255, with mean and rms measured once over the first `calib_rows` rows
/// (all rows when there are fewer) and kept for the whole file, so that streaming gives the same
/// bytes as a whole-file run. A channel with rms 0 maps to 128.
class PowerQuantiser {
 public:
  PowerQuantiser(std::size_t row_floats, std::size_t calib_rows);
  /// Adds n rows; appends to `out` the bytes of every row that can be written now.
  void push(const float* rows, std::size_t n, std::vector<std::uint8_t>& out);
  /// After the last push: calibrates on what was held back if that never happened, and
  /// appends the remaining bytes.
  void finish(std::vector<std::uint8_t>& out);
  [[nodiscard]] bool calibrated() const noexcept { return calibrated_; }
  [[nodiscard]] const std::vector<float>& mean() const noexcept { return mean_; }
  [[nodiscard]] const std::vector<float>& rms() const noexcept { return rms_; }

 private:
  void calibrate();
  void quantise(const float* rows, std::size_t n, std::vector<std::uint8_t>& out) const;
  std::size_t row_floats_;
  std::size_t calib_rows_;
  bool calibrated_ = false;
  std::vector<float> held_;  // rows held back until calibration
  std::vector<float> mean_;
  std::vector<float> rms_;
};

}  // namespace fastpsr
