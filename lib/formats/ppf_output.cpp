// SPDX-License-Identifier: MIT
#include "fastpsr/ppf_output.hpp"

#include <algorithm>
#include <cmath>

#include "fastpsr/error.hpp"

namespace fastpsr {
namespace {

// Baseband bin of fine channel j: (j − ⌊C/2⌋) ascending, (C − 1 − j − ⌊C/2⌋) descending.
int baseband_bin(const ChanneliserPlan& plan, std::size_t o) {
  const int c = plan.nchans();
  const int j = static_cast<int>(o % static_cast<std::size_t>(c));
  return plan.problem.descending ? c - 1 - j - c / 2 : j - c / 2;
}

std::string format_mjd(double mjd) { return fmt::format("{:.15f}", mjd); }

}  // namespace

double ppf_channel_centre_mhz(const VoltageInfo& in, const ChanneliserPlan& plan, std::size_t o) {
  const auto f = static_cast<std::size_t>(plan.coarse_of(o));
  return in.coarse_centre_mhz[f] + baseband_bin(plan, o) * in.chan_bw_mhz / plan.nchans();
}

SigprocHeader make_ppf_filterbank_header(const VoltageInfo& in, const ChanneliserPlan& plan, int nbits,
                                         const std::string& rawdatafile) {
  FASTPSR_EXPECTS(!plan.complex_output(), "a filterbank holds detected power, not complex output");
  FASTPSR_EXPECTS(nbits == 8 || nbits == 32, "--nbits must be 8 or 32, got {}", nbits);
  FASTPSR_EXPECTS(plan.problem.descending == (in.chan_bw_mhz > 0.0),
                  "internal: the channel order must give foff < 0 for this band");
  SigprocHeader h;
  h.rawdatafile = rawdatafile.substr(0, 79);
  h.source_name = in.source_name.substr(0, 79);
  h.machine_id = 0;
  h.telescope_id = std::max(0, sigproc_telescope_id(in.telescope));  // unknown: 0 (Fake)
  h.src_raj = in.src_raj;
  h.src_dej = in.src_dej;
  h.data_type = 1;
  h.fch1 = ppf_channel_centre_mhz(in, plan, 0);
  h.foff = -std::abs(in.chan_bw_mhz) / plan.nchans();
  h.nchans = static_cast<std::int32_t>(plan.out_channels());
  h.nbeams = 1;
  h.ibeam = 0;
  h.nbits = nbits;
  const double group_delay_s = (plan.ntaps() - 1) * static_cast<double>(plan.nchans()) / 2.0 * in.tsamp_s;
  h.tstart = in.tstart_mjd + group_delay_s / 86400.0;
  h.tsamp = static_cast<double>(plan.nchans()) * plan.problem.nint * in.tsamp_s;
  h.nifs = plan.nifs();
  h.keys = sigproc_filterbank_keys(h);
  return h;
}

DadaHeader make_ppf_dada_header(const VoltageInfo& in, const ChanneliserPlan& plan) {
  FASTPSR_EXPECTS(plan.complex_output() && !plan.problem.descending,
                  "internal: PSRDADA output is complex, in ascending baseband order");
  DadaHeader h;
  h.set("HDR_VERSION", "1.0");
  h.set("INSTRUMENT", "fastpsr-ppf");
  if (!in.telescope.empty()) h.set("TELESCOPE", in.telescope);
  if (!in.source_name.empty()) h.set("SOURCE", in.source_name);
  const std::size_t n = plan.out_channels();
  const double centre = 0.5 * (ppf_channel_centre_mhz(in, plan, 0) + ppf_channel_centre_mhz(in, plan, n - 1));
  h.set("FREQ", fmt::format("{:.12g}", centre));
  h.set("BW", fmt::format("{:.12g}", in.chan_bw_mhz * in.ncoarse));
  h.set("NCHAN", std::to_string(n));
  h.set("NPOL", std::to_string(plan.npol()));
  h.set("NDIM", "2");
  h.set("NBIT", "32");
  h.set("ORDER", "TFP");
  h.set("TSAMP", fmt::format("{:.17g}", static_cast<double>(plan.nchans()) * in.tsamp_s * 1e6));
  const double group_delay_s = (plan.ntaps() - 1) * static_cast<double>(plan.nchans()) / 2.0 * in.tsamp_s;
  h.set("MJD_START", format_mjd(in.tstart_mjd + group_delay_s / 86400.0));
  h.set("OBS_OFFSET", "0");
  if (in.src_raj != 0.0 || in.src_dej != 0.0) {
    h.set("RA", sigproc_angle_to_string(in.src_raj, true));
    h.set("DEC", sigproc_angle_to_string(in.src_dej, false));
  }
  h.set("PPF_TAPS", std::to_string(plan.ntaps()));
  h.set("PPF_CHANNELS", std::to_string(plan.nchans()));
  return h;
}

PowerQuantiser::PowerQuantiser(std::size_t row_floats, std::size_t calib_rows)
    : row_floats_(row_floats), calib_rows_(std::max<std::size_t>(calib_rows, 1)) {}

void PowerQuantiser::push(const float* rows, std::size_t n, std::vector<std::uint8_t>& out) {
  if (calibrated_) {
    quantise(rows, n, out);
    return;
  }
  held_.insert(held_.end(), rows, rows + n * row_floats_);
  if (held_.size() / row_floats_ >= calib_rows_) {
    calibrate();
    quantise(held_.data(), held_.size() / row_floats_, out);
    held_.clear();
    held_.shrink_to_fit();
  }
}

void PowerQuantiser::finish(std::vector<std::uint8_t>& out) {
  if (calibrated_) return;
  calibrate();
  quantise(held_.data(), held_.size() / row_floats_, out);
  held_.clear();
}

void PowerQuantiser::calibrate() {
  const std::size_t n = std::min(held_.size() / row_floats_, calib_rows_);
  mean_.assign(row_floats_, 0.0F);
  rms_.assign(row_floats_, 0.0F);
  for (std::size_t i = 0; i < row_floats_; ++i) {
    double sum = 0.0;
    for (std::size_t r = 0; r < n; ++r) sum += static_cast<double>(held_[r * row_floats_ + i]);
    const double mean = n > 0 ? sum / static_cast<double>(n) : 0.0;
    double var = 0.0;
    for (std::size_t r = 0; r < n; ++r) {
      const double d = static_cast<double>(held_[r * row_floats_ + i]) - mean;
      var += d * d;
    }
    mean_[i] = static_cast<float>(mean);
    rms_[i] = n > 0 ? static_cast<float>(std::sqrt(var / static_cast<double>(n))) : 0.0F;
  }
  calibrated_ = true;
}

void PowerQuantiser::quantise(const float* rows, std::size_t n, std::vector<std::uint8_t>& out) const {
  const std::size_t start = out.size();
  out.resize(start + n * row_floats_);
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t i = 0; i < row_floats_; ++i) {
      const float x = rows[r * row_floats_ + i];
      float q = 128.0F;
      if (rms_[i] > 0.0F) q = std::round(128.0F + 16.0F * (x - mean_[i]) / rms_[i]);
      if (!(q >= 0.0F)) q = 0.0F;  // also NaN
      out[start + r * row_floats_ + i] = static_cast<std::uint8_t>(std::min(q, 255.0F));
    }
  }
}

}  // namespace fastpsr
