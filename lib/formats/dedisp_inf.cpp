// SPDX-License-Identifier: MIT
#include "fastpsr/dedisp_inf.hpp"

#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace fastpsr {
namespace {

std::string login_name() {
  if (const passwd* pw = ::getpwuid(::geteuid()); pw != nullptr && pw->pw_name != nullptr) return pw->pw_name;
  return "Unknown";
}

}  // namespace

std::string presto_date_string(double mjd) {
  // Civil date of the day number (MJD 0 = 1858-11-17), H. Hinnant's days-to-civil algorithm.
  const double day = std::floor(mjd);
  const double fracday = mjd - day;
  const long z = static_cast<long>(day) + 678881L;  // MJD -> days since 0000-03-01 (proleptic Gregorian)
  const long era = (z >= 0 ? z : z - 146096) / 146097;
  const long doe = z - era * 146097;
  const long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const long mp = (5 * doy + 2) / 153;
  const long d = doy - (153 * mp + 2) / 5 + 1;
  const long m = mp < 10 ? mp + 3 : mp - 9;
  const long y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const double dh = fracday * 24.0;
  const int hour = static_cast<int>(dh);
  const double dm = (dh - hour) * 60.0;
  const int min = static_cast<int>(dm);
  const double sec = (dm - min) * 60.0;
  char buf[160];
  if (sec < 10.0) {
    std::snprintf(buf, sizeof buf, "%4ld-%02ld-%02ldT%02d:%02d:0%.6g", y, m, d, hour, min, sec);
  } else {
    std::snprintf(buf, sizeof buf, "%4ld-%02ld-%02ldT%02d:%02d:%.6g", y, m, d, hour, min, sec);
  }
  return buf;
}

PrestoInf make_series_inf(const SigprocHeader& fb, const SeriesInfo& s) {
  PrestoInf inf;
  inf.name = s.name;
  inf.telescope = presto_telescope_name(fb.telescope_id);
  inf.instrument = sigproc_machine_name(fb.machine_id);
  inf.object = fb.source_name;
  inf.ra = sigproc_angle_to_string(fb.src_raj, true, 4);
  inf.dec = sigproc_angle_to_string(fb.src_dej, false, 4);
  inf.observer = "unset";
  // The epoch of the first output sample: tstart plus the skipped input, in (day, fraction)
  // so that the sub-microsecond part survives.
  inf.mjd_i = static_cast<int>(std::floor(fb.tstart));
  inf.mjd_f = fb.tstart - inf.mjd_i + static_cast<double>(s.start_sample) * fb.tsamp / 86400.0;
  while (inf.mjd_f >= 1.0) {
    inf.mjd_f -= 1.0;
    ++inf.mjd_i;
  }
  inf.bary = fb.barycentric;
  inf.N = static_cast<double>(s.nsamples);
  inf.dt = s.dt_s;
  inf.band = "Radio";
  const double wid = std::fabs(fb.foff);
  const double lo = fb.foff < 0 ? fb.fch1 - (fb.nchans - 1) * wid : fb.fch1;
  const double bw = fb.nchans * wid;
  inf.freq = lo;
  inf.freqband = bw;
  inf.num_chan = fb.nchans;
  inf.chan_wid = wid;
  inf.fov = presto_beam_fwhm_arcsec(fb.telescope_id, lo - 0.5 * wid + 0.5 * bw);
  inf.dm = s.dm;
  inf.analyzer = login_name();
  inf.notes = fmt::format("Project ID unset, Date: {}.\n    2 polns were summed.  Samples have {} bits.\n",
                          presto_date_string(fb.tstart), fb.nbits);
  if (!s.note.empty()) inf.notes += "    " + s.note + "\n";
  return inf;
}

}  // namespace fastpsr
