// SPDX-License-Identifier: MIT
// The .inf PRESTO writes for a time series made from a SIGPROC filterbank (formats.md §3.4), value
// for value: PRESTO's spectra_info_to_inf after its SIGPROC reader, with -nobary.
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "fastpsr/error.hpp"
#include "fastpsr/mjd.hpp"
#include "fastpsr/psrfits.hpp"
#include "fastpsr/timeseries.hpp"

namespace fastpsr {
namespace {

constexpr double kRadToDeg = 57.29577951308232087679815481410517033240547246656;
constexpr double kSecondsOfTimeToRad = 7.272205216643039903848712e-5;  // ERFA_DS2R
constexpr double kArcsecToRad = 4.848136811095359935899141e-6;         // ERFA_DAS2R

struct Sexagesimal {
  int major = 0;  // hours or degrees, carrying the sign unless it is 0
  int minute = 0;
  double second = 0.0;
};

// PRESTO splits the packed SIGPROC angle with floor, converts it to degrees (through ERFA's
// tf2a/af2a) and back with hours2hms/deg2dms. The round trip can move the last printed digit,
// so it is done the same way here.
Sexagesimal split_packed(double packed) {
  Sexagesimal s;
  const double a = std::fabs(packed);
  s.major = static_cast<int>(std::floor(a / 10000.0));
  s.minute = static_cast<int>(std::floor((a - s.major * 10000.0) / 100.0));
  s.second = a - s.major * 10000.0 - s.minute * 100.0;
  return s;
}

Sexagesimal split_decimal(double value) {
  const int sign = value < 0.0 ? -1 : 1;
  Sexagesimal s;
  s.major = static_cast<int>(std::floor(std::fabs(value)));
  const double minutes = (std::fabs(value) - s.major) * 60.0;
  s.minute = static_cast<int>(std::floor(minutes));
  s.second = (minutes - s.minute) * 60.0;
  s.major *= sign;
  if (s.major == 0) {
    s.minute *= sign;
    s.second *= sign;
  }
  return s;
}

std::string presto_angle_string(const Sexagesimal& s) {
  const bool lead_minus = s.major == 0 && (s.minute < 0 || s.second < 0.0);
  return fmt::format("{}{}:{:02d}:{}", lead_minus ? "-" : "",
                     s.major < 0 ? fmt::format("-{:02d}", -s.major) : fmt::format("{:02d}", s.major),
                     std::abs(s.minute), fmt::format("{:07.4f}", std::fabs(s.second)));
}

bool plausible_angle(double packed) { return std::isfinite(packed) && std::fabs(packed) < 1e7; }

std::string presto_ra_string(double src_raj) {
  if (!plausible_angle(src_raj)) return "Unknown";
  const Sexagesimal p = split_packed(src_raj);
  const double rad = (60.0 * (60.0 * p.major + p.minute) + p.second) * kSecondsOfTimeToRad;
  return presto_angle_string(split_decimal(rad * kRadToDeg / 15.0));
}

std::string presto_dec_string(double src_dej) {
  if (!plausible_angle(src_dej)) return "Unknown";
  const Sexagesimal p = split_packed(src_dej);
  const double sign = src_dej < 0.0 ? -1.0 : 1.0;
  const double rad = sign * (60.0 * (60.0 * p.major + p.minute) + p.second) * kArcsecToRad;
  return presto_angle_string(split_decimal(rad * kRadToDeg));
}

std::string login_name() {
  // Looked up once: getpwuid's result lives in static storage, so concurrent calls (.inf files
  // made by several threads) would race.
  static const std::string name = [] {
    if (const passwd* pw = ::getpwuid(::geteuid()); pw != nullptr && pw->pw_name != nullptr) {
      return std::string(pw->pw_name);
    }
    if (const char* user = std::getenv("USER"); user != nullptr && *user != '\0') return std::string(user);
    return std::string("Unknown");
  }();
  return name;
}

}  // namespace

PrestoInf make_inf_for(const SigprocHeader& h, const InfRequest& r) {
  FASTPSR_EXPECTS(r.nsamples > 0, "a time series needs at least one sample");
  FASTPSR_EXPECTS(r.valid_samples <= r.nsamples, "valid samples ({}) exceed the series length ({})", r.valid_samples,
                  r.nsamples);
  PrestoInf d;
  d.name = r.name;
  d.telescope = presto_telescope_name(h.telescope_id);
  d.instrument = presto_backend_name(h.machine_id);
  d.object = h.source_name;
  d.ra = presto_ra_string(h.src_raj);
  d.dec = presto_dec_string(h.src_dej);
  d.observer = "unset";
  // A tstart that is not a finite MJD an int holds (NaN, inf, 1e30) is unknown: epoch 0, as
  // timeseries_from_sigproc reads it; the cast would be undefined (QA pass 16, P2).
  const double day = std::floor(h.tstart);
  const bool known = std::isfinite(day) && std::fabs(day) < 1e9;
  d.mjd_i = known ? static_cast<int>(day) : 0;
  d.mjd_f = known ? h.tstart - day : 0.0;
  d.bary = 0;
  d.N = static_cast<double>(r.nsamples);
  d.dt = r.tsamp_s > 0.0 ? r.tsamp_s : h.tsamp;
  // PRESTO's on/off pairs: the stretches of data (first, last sample), then (N-1, N-1) where
  // padding ends the series; none when all N samples are data.
  const bool padded_end = r.valid_samples > 0 && r.valid_samples < r.nsamples;
  const std::uint64_t data_end = padded_end ? r.valid_samples : r.nsamples;
  std::uint64_t on = 0;
  for (const SampleGap& g : r.gaps) {
    if (g.count == 0 || g.first >= data_end) continue;
    if (g.first > on) d.onoff.emplace_back(static_cast<double>(on), static_cast<double>(g.first - 1));
    on = std::max(on, g.first + g.count);
  }
  if (on < data_end) d.onoff.emplace_back(static_cast<double>(on), static_cast<double>(data_end - 1));
  if (padded_end) d.onoff.emplace_back(static_cast<double>(r.nsamples) - 1.0, static_cast<double>(r.nsamples) - 1.0);
  if (d.onoff.size() == 1 && d.onoff.front().first == 0.0 &&
      d.onoff.front().second == static_cast<double>(r.nsamples) - 1.0) {
    d.onoff.clear();
  }
  d.band = "Radio";
  // PRESTO assumes foff < 0 (fch1 the highest channel); the lowest centre is right either way.
  // A SIGPROC .tim (nchans 1) carries foff only from some writers: then the bandwidth is
  // nchans x |foff|, the value PRESTO's tim2dat.py takes (it writes nchans x foff, signed). The
  // .tim of SIGPROC dedisperse and of dedisp have no foff (formats.md §2): nothing says how wide
  // the band was, and the bandwidth and channel width are 0. tim2dat.py writes a made-up 100 MHz
  // there ("what else can we do?"); PRESTO's C tools take a channel width of 0 as unknown
  // (prepfold leaves out its smearing figures), where 100 MHz would give wrong ones.
  const double df = std::fabs(h.foff);
  const double lowest = h.foff < 0.0 ? h.fch1 - (h.nchans - 1) * df : h.fch1;
  d.freq = lowest;
  d.chan_wid = df;
  d.freqband = h.nchans * df;
  d.num_chan = h.nchans;
  const double centre = lowest - 0.5 * df + 0.5 * d.freqband;
  d.fov = presto_beam_fwhm_arcsec(h.telescope_id, centre);
  d.dm = r.dm;
  d.analyzer = r.analyzer.empty() ? login_name() : r.analyzer;
  const std::string polns = h.nifs > 1
                                ? fmt::format("{} polns were not summed.  Samples have {} bits.", h.nifs, h.nbits)
                                : fmt::format("2 polns were summed.  Samples have {} bits.", h.nbits);
  d.notes = fmt::format("Project ID unset, Date: {}.\n    {}\n", presto_date_string(h.tstart), polns);
  if (!r.instrument.empty()) d.instrument = r.instrument;
  if (!r.observer.empty()) d.observer = r.observer;
  if (!r.notes.empty()) d.notes = r.notes;
  if (r.source_inf) {
    PrestoInf own = *r.source_inf;
    own.name = d.name;
    own.N = d.N;
    own.dt = d.dt;
    own.onoff = d.onoff;
    own.dm = d.dm;
    own.bary = 0;
    own.analyzer = d.analyzer;
    return own;
  }
  return d;
}

void set_inf_fields_from_psrfits(const PsrfitsInfo& info, InfRequest& request) {
  auto or_unset = [](const std::string& s) { return s.empty() ? std::string("unset") : s; };
  request.instrument = or_unset(info.backend);
  request.observer = or_unset(info.observer);
  // Total intensity (AA+BB summed here, or stored so): PRESTO's "summed" note.
  const bool intensity =
      info.intensity_from == "AA+BB" || info.pol_type == "AA+BB" || info.pol_type == "INTEN" || info.pol_type == "IQUV";
  const std::string polns =
      intensity ? fmt::format("2 polns were summed.  Samples have {} bits.", info.nbits)
                : fmt::format("{} polns were not summed.  Samples have {} bits.", info.npol, info.nbits);
  request.notes =
      fmt::format("Project ID {}, Date: {}.\n    {}\n", or_unset(info.project), or_unset(info.date_obs), polns);
}

}  // namespace fastpsr
