// SPDX-License-Identifier: MIT
#include "fastpsr/presto_inf.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/escape.hpp"
#include "fastpsr/side_file.hpp"

namespace fastpsr {
namespace {

// Every key line: a space, the label padded so that '=' is at column 40, two spaces, the value.
std::string line(std::string_view label, std::string_view value) {
  return fmt::format(" {:<39}=  {}\n", label, value);
}

std::string or_unknown(const std::string& s) { return s.empty() ? "Unknown" : s; }

std::string_view strip(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

double to_double(std::string_view v, std::string_view label, const std::string& name) {
  const std::string s(strip(v));
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  // The whole value, in decimal: strtod would stop at '15x31' after 15 and read hex, inf and nan.
  const bool decimal = s.find_first_of("xXiInN") == std::string::npos;
  if (s.empty() || end != s.c_str() + s.size() || !decimal) {
    throw Error(ErrorCode::format,
                fmt::format("cannot read a number from '{}' ({})", escape_for_message(s), strip(label)), name);
  }
  return d;
}

// Integer fields (MJD day, flags, channel count): a value outside int is a format error, not a
// conversion with undefined behaviour.
int to_int(std::string_view v, std::string_view label, const std::string& name) {
  const double d = to_double(v, label, name);
  if (!(d >= -2147483648.0 && d <= 2147483647.0)) {
    throw Error(ErrorCode::format,
                fmt::format("'{}' is out of range ({})", escape_for_message(strip(v)), strip(label)), name);
  }
  return static_cast<int>(d);
}

}  // namespace

std::string format_inf(const PrestoInf& d) {
  std::string out;
  out += line("Data file name without suffix", d.name);
  out += line("Telescope used", or_unknown(d.telescope));
  if (!d.artificial()) {
    out += line("Instrument used", or_unknown(d.instrument));
    out += line("Object being observed", or_unknown(d.object));
    out += line("J2000 Right Ascension (hh:mm:ss.ssss)", or_unknown(d.ra));
    out += line("J2000 Declination     (dd:mm:ss.ssss)", or_unknown(d.dec));
    out += line("Data observed by", or_unknown(d.observer));
    const std::string frac = fmt::format("{:.15f}", d.mjd_f);
    out += line("Epoch of observation (MJD)", fmt::format("{}.{}", d.mjd_i, frac.substr(frac.find('.') + 1)));
    out += line("Barycentered?           (1 yes, 0 no)", fmt::format("{}", d.bary));
  }
  out += line("Number of bins in the time series", fmt::format("{:<11.0f}", d.N));
  out += line("Width of each time series bin (sec)", fmt::format("{:.15g}", d.dt));
  out += line("Any breaks in the data? (1 yes, 0 no)", d.breaks() ? "1" : "0");
  if (d.breaks()) {
    for (std::size_t i = 0; i < d.onoff.size(); ++i) {
      out += line(fmt::format("On/Off bin pair #{:3d}", i + 1),
                  fmt::format("{:<11.0f}, {:<11.0f}", d.onoff[i].first, d.onoff[i].second));
    }
  }
  if (!d.artificial()) {
    out += line("Type of observation (EM band)", d.band);
    if (d.band == "Radio") {
      out += line("Beam diameter (arcsec)", fmt::format("{:.0f}", d.fov));
      out += line("Dispersion measure (cm-3 pc)", fmt::format("{:.12g}", d.dm));
      out += line("Central freq of low channel (MHz)", fmt::format("{:.12g}", d.freq));
      out += line("Total bandwidth (MHz)", fmt::format("{:.12g}", d.freqband));
      out += line("Number of channels", fmt::format("{}", d.num_chan));
      out += line("Channel bandwidth (MHz)", fmt::format("{:.12g}", d.chan_wid));
    }
  }
  out += line("Data analyzed by", or_unknown(d.analyzer));
  out += " Any additional notes:\n    " + d.notes + "\n\n";
  return out;
}

PrestoInf parse_inf(std::string_view text, const std::string& name) {
  PrestoInf d;
  d.band.clear();
  bool have_n = false;
  bool have_dt = false;
  bool in_notes = false;
  std::string notes;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t eol = text.find('\n', pos);
    const std::string_view ln = text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? text.size() : eol + 1;
    if (in_notes) {
      notes.append(ln).push_back('\n');
      continue;
    }
    if (ln.starts_with(" Any additional notes")) {
      in_notes = true;
      continue;
    }
    // PRESTO's rule: the value starts after '=' at column 40, else after the last '='.
    const std::size_t eq = (ln.size() > 40 && ln[40] == '=') ? 40 : ln.rfind('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view label = ln.substr(0, eq);
    const std::string value(strip(ln.substr(eq + 1)));
    auto is = [&](std::string_view prefix) { return label.starts_with(prefix); };
    if (is(" Data file name")) {
      d.name = value;
    } else if (is(" Telescope used")) {
      d.telescope = value;
    } else if (is(" Instrument used")) {
      d.instrument = value;
    } else if (is(" Object being observed")) {
      d.object = value;
    } else if (is(" J2000 Right Ascension")) {
      d.ra = value;
    } else if (is(" J2000 Declination")) {
      d.dec = value;
    } else if (is(" Data observed by")) {
      d.observer = value;
    } else if (is(" Epoch of observation")) {
      const auto dot = value.find('.');
      d.mjd_i = to_int(value.substr(0, dot), label, name);
      d.mjd_f = dot == std::string::npos ? 0.0 : to_double("0" + value.substr(dot), label, name);
    } else if (is(" Barycentered?")) {
      d.bary = to_int(value, label, name);
    } else if (is(" Number of bins in the time series")) {
      d.N = to_double(value, label, name);
      have_n = true;
    } else if (is(" Width of each time series bin")) {
      d.dt = to_double(value, label, name);
      have_dt = true;
    } else if (is(" On/Off bin pair")) {
      const auto comma = value.find(',');
      if (comma == std::string::npos) throw Error(ErrorCode::format, "on/off bin pair without a comma", name);
      d.onoff.emplace_back(to_double(value.substr(0, comma), label, name),
                           to_double(value.substr(comma + 1), label, name));
    } else if (is(" Type of observation")) {
      d.band = value;
    } else if (is(" Beam diameter")) {
      d.fov = to_double(value, label, name);
    } else if (is(" Dispersion measure")) {
      d.dm = to_double(value, label, name);
    } else if (is(" Central freq of low channel")) {
      d.freq = to_double(value, label, name);
    } else if (is(" Total bandwidth")) {
      d.freqband = to_double(value, label, name);
    } else if (is(" Number of channels")) {
      d.num_chan = to_int(value, label, name);
    } else if (is(" Channel bandwidth")) {
      d.chan_wid = to_double(value, label, name);
    } else if (is(" Data analyzed by")) {
      d.analyzer = value;
    }
  }
  if (!have_n) throw Error(ErrorCode::format, "no 'Number of bins in the time series' line: not a PRESTO .inf", name);
  if (!have_dt) throw Error(ErrorCode::format, "no 'Width of each time series bin' line: not a PRESTO .inf", name);
  // 2^53: beyond it a double no longer counts bins exactly (and no real series is that long).
  if (!(d.N > 0 && d.N <= 9007199254740992.0) || d.N != std::floor(d.N)) {
    throw Error(ErrorCode::format, fmt::format("number of bins must be a positive whole number, got {}", d.N), name);
  }
  if (!(d.dt > 0 && std::isfinite(d.dt))) {
    throw Error(ErrorCode::format, fmt::format("bin width must be a positive number of seconds, got {}", d.dt), name);
  }
  // Notes: drop the 4-space indent of the first line and the two newlines the writer adds.
  if (notes.starts_with("    ")) notes.erase(0, 4);
  while (notes.size() >= 2 && notes.ends_with("\n\n")) notes.pop_back();
  d.notes = notes;
  if (d.band.empty()) d.band = "Radio";
  return d;
}

PrestoInf read_inf(const std::string& path) {
  const auto bytes = read_side_file(path, "a PRESTO .inf");
  return parse_inf(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
}

void write_inf(const std::string& path, const PrestoInf& inf) {
  const std::string text = format_inf(inf);
  write_all(path, {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

std::string presto_root(const std::string& path) {
  for (const char* suffix : {".dat", ".fft", ".sdat", ".inf"}) {
    if (path.ends_with(suffix)) return path.substr(0, path.size() - std::string_view(suffix).size());
  }
  return path;
}

std::string presto_dm_root(const std::string& root, double dm, int decimals) {
  return fmt::format("{}_DM{:.{}f}", root, dm, decimals);
}

std::string presto_telescope_name(int id) {
  switch (id) {
    case 0: return "Fake";
    case 1: return "Arecibo";
    case 2: return "Ooty";
    case 3: return "Nancay";
    case 4: return "Parkes";
    case 5: return "Jodrell";
    case 6: return "GBT";
    case 7: return "GMRT";
    case 8: return "Effelsberg";
    case 9: return "ATA";
    case 10: return "SRT";
    case 11: return "LOFAR";
    case 12: return "VLA";
    case 20: return "CHIME";
    case 21: return "FAST";
    case 30: return "MWA";
    case 64: return "MeerKAT";
    case 65: return "KAT-7";
    default: return "Unknown";
  }
}

std::string presto_backend_name(int id) {
  switch (id) {
    case 0: return "FAKE";
    case 1: return "PSPM";
    case 2: return "WAPP";
    case 3: return "AOFTM";
    case 4: return "BPP";
    case 5: return "OOTY";
    case 6: return "SCAMP";
    case 7: return "SPIGOT";
    case 11: return "BG/P";
    case 12: return "PDEV";
    case 20: return "CHIME+PSR";
    case 30: return "MWA-VCS";
    case 31: return "MWAX-VCS";
    case 32: return "MWAX-RTB";
    case 64: return "KAT";
    case 65: return "KAT-DC2";
    default: return "Unknown";
  }
}

double presto_beam_fwhm_arcsec(int id, double centre_freq_mhz) {
  // PRESTO's dish sizes (Arecibo: the illuminated 200 m); telescopes without one get its default
  // beam of 1 degree. PRESTO computes the half width in float from a float frequency; doing the
  // same keeps the printed "%.0f" identical.
  double diameter_m = 0.0;
  switch (id) {
    case 1: diameter_m = 200.0; break;
    case 3: diameter_m = 100.0; break;
    case 4: diameter_m = 64.0; break;
    case 5: diameter_m = 76.0; break;
    case 6: diameter_m = 100.0; break;
    case 8: diameter_m = 100.0; break;
    case 20: diameter_m = 20.0; break;
    case 21: diameter_m = 350.0; break;
    default: return 3600.0;
  }
  constexpr double kSpeedOfLight = 299792458.0;
  constexpr double kRadToDeg = 57.29577951308232087679815481410517033240547;
  const auto freq = static_cast<float>(centre_freq_mhz);
  const auto diam = static_cast<float>(diameter_m);
  const auto half_width_arcsec = static_cast<float>(0.5 * 1.2 * kSpeedOfLight / (static_cast<double>(freq) * 1e6) /
                                                    static_cast<double>(diam) * kRadToDeg * 3600.0);
  return 2.0 / 3600.0 * static_cast<double>(half_width_arcsec) * 3600.0;
}

}  // namespace fastpsr
