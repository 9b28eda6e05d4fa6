// SPDX-License-Identifier: MIT
#include "print.hpp"

#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>

#include "fastpsr/error.hpp"
#include "fastpsr/mjd.hpp"

namespace fastpsr::app {
namespace {

std::string line(std::string_view label, std::string_view value) { return fmt::format("{:<33}: {}\n", label, value); }

std::string data_category(int data_type) {
  switch (data_type) {
    case 0:
      return "raw data";
    case 1:
      return "filterbank";
    case 2:
      return "time series";
    case 3:
      return "pulse profiles";
    case 4:
      return "amplitude spectrum";
    case 5:
      return "complex spectrum";
    case 6:
      return "dedispersed subbands";
    default:
      return "unknown!";
  }
}

std::string frame(const SigprocHeader& h) {
  if (h.pulsarcentric != 0) return "pulsarcentric";
  if (h.barycentric != 0) return "barycentric";
  return "topocentric";
}

// SIGPROC prints angles as hh:mm:ss.s with one decimal; the declination with an explicit sign.
std::string ra_text(double src_raj) { return sigproc_angle_to_string(src_raj, true, 1); }
std::string dec_text(double src_dej) {
  return std::string(src_dej > 0.0 ? "+" : "-") + sigproc_angle_to_string(std::fabs(src_dej), false, 1);
}

double tobs_s(const FileDescription& d) { return static_cast<double>(d.nsamples.value_or(0)) * d.header.tsamp; }

// Sky angles in degrees, as SIGPROC's -ra_deg / -dec_deg compute them from the packed values.
double ra_degrees(double packed) {
  const double a = std::fabs(packed);
  const double h = std::floor(a / 10000.0);
  const double m = std::floor((a - h * 10000.0) / 100.0);
  return h * 15.0 + m / 4.0 + (a - h * 10000.0 - m * 100.0) / 240.0;
}
double dec_degrees_abs(double packed) {
  const double a = std::fabs(packed);
  const double d = std::floor(a / 10000.0);
  const double m = std::floor((a - d * 10000.0) / 100.0);
  return d + m / 60.0 + (a - d * 10000.0 - m * 100.0) / 3600.0;
}

using ValueFn = std::function<std::string(const FileDescription&)>;

const std::map<std::string, ValueFn, std::less<>>& value_table() {
  static const std::map<std::string, ValueFn, std::less<>> table = [] {
    std::map<std::string, ValueFn, std::less<>> t;
    auto h = [](const FileDescription& d) -> const SigprocHeader& { return d.header; };
    t["telescope"] = [](const FileDescription& d) { return d.telescope; };
    t["machine"] = [](const FileDescription& d) { return d.machine; };
    t["source_name"] = [h](const FileDescription& d) { return h(d).source_name; };
    t["rawdatafile"] = [h](const FileDescription& d) { return h(d).rawdatafile; };
    t["format"] = [](const FileDescription& d) { return std::string(format_name(d.format)); };
    t["datatype"] = [h](const FileDescription& d) { return data_category(h(d).data_type); };
    t["frame"] = [h](const FileDescription& d) { return frame(h(d)); };
    t["barycentric"] = [h](const FileDescription& d) { return fmt::format("{}", h(d).barycentric); };
    t["pulsarcentric"] = [h](const FileDescription& d) { return fmt::format("{}", h(d).pulsarcentric); };
    t["data_type"] = [h](const FileDescription& d) { return fmt::format("{}", h(d).data_type); };
    t["telescope_id"] = [h](const FileDescription& d) { return fmt::format("{}", h(d).telescope_id); };
    t["machine_id"] = [h](const FileDescription& d) { return fmt::format("{}", h(d).machine_id); };
    t["headersize"] = [](const FileDescription& d) { return fmt::format("{}", d.header_bytes); };
    t["datasize"] = [](const FileDescription& d) { return fmt::format("{}", d.data_bytes.value_or(0)); };
    t["nsamples"] = [](const FileDescription& d) { return fmt::format("{}", d.nsamples.value_or(0)); };
    t["tobs"] = [](const FileDescription& d) { return fmt::format("{:f}", tobs_s(d)); };
    t["az_start"] = [h](const FileDescription& d) { return fmt::format("{:f}", h(d).az_start); };
    t["za_start"] = [h](const FileDescription& d) { return fmt::format("{:f}", h(d).za_start); };
    t["fch1"] = [h](const FileDescription& d) { return fmt::format("{:.3f}", h(d).fch1); };
    t["bandwidth"] = [h](const FileDescription& d) {
      return fmt::format("{:.3f}", std::fabs(h(d).foff) * h(d).nchans);
    };
    t["fmid"] = [h](const FileDescription& d) {
      return fmt::format("{:.3f}", h(d).fch1 + h(d).foff * h(d).nchans / 2);
    };
    t["foff"] = [h](const FileDescription& d) { return fmt::format("{:f}", h(d).foff); };
    t["refdm"] = [h](const FileDescription& d) { return fmt::format("{:f}", h(d).refdm); };
    t["dm"] = t["refdm"];
    t["nchans"] = [h](const FileDescription& d) { return fmt::format("{}", h(d).nchans); };
    t["tstart"] = [h](const FileDescription& d) { return fmt::format("{:.12f}", h(d).tstart); };
    t["frequencies"] = [h](const FileDescription& d) {
      std::string s;
      for (int c = 0; c < h(d).nchans; ++c) {
        if (c > 0) s += '\n';
        s += fmt::format("{:f}", h(d).channel_freq_mhz(c));
      }
      return s;
    };
    t["mjd"] = [h](const FileDescription& d) { return fmt::format("{:.0f}", std::floor(h(d).tstart)); };
    t["date"] = [h](const FileDescription& d) { return sigproc_date_string(h(d).tstart); };
    t["utstart"] = [h](const FileDescription& d) { return sigproc_utstart_string(h(d).tstart); };
    t["tsamp"] = [h](const FileDescription& d) { return fmt::format("{:.5f}", h(d).tsamp * 1.0e6); };
    t["nbits"] = [h](const FileDescription& d) { return fmt::format("{}", h(d).nbits); };
    t["ibeam"] = [h](const FileDescription& d) { return fmt::format("{}", h(d).has("ibeam") ? h(d).ibeam : 0); };
    t["nbeams"] = [h](const FileDescription& d) { return fmt::format("{}", h(d).has("nbeams") ? h(d).nbeams : 0); };
    t["nbeam"] = t["nbeams"];
    t["nifs"] = [h](const FileDescription& d) { return fmt::format("{}", h(d).nifs); };
    t["src_raj"] = [h](const FileDescription& d) { return ra_text(h(d).src_raj); };
    t["src_dej"] = [h](const FileDescription& d) { return dec_text(h(d).src_dej); };
    t["ra_deg"] = [h](const FileDescription& d) { return fmt::format("{:f}", ra_degrees(h(d).src_raj)); };
    t["dec_deg"] = [h](const FileDescription& d) {
      return fmt::format("{}{:f}", h(d).src_dej > 0.0 ? '+' : '-', dec_degrees_abs(h(d).src_dej));
    };
    return t;
  }();
  return table;
}

}  // namespace

void print_listing(ByteSink& out, const FileDescription& d) {
  const SigprocHeader& h = d.header;
  std::string s;
  s += line("Data file", d.shown_name);
  s += line("Header size (bytes)", fmt::format("{}", d.header_bytes));
  const std::uint64_t data_bytes = d.data_bytes.value_or(0);
  if (data_bytes != 0) s += line("Data size (bytes)", fmt::format("{}", data_bytes));
  s += line("Data type", fmt::format("{} ({})", data_category(h.data_type), frame(h)));
  s += line("Telescope", d.telescope);
  s += line("Datataking Machine", d.machine);
  if (!h.source_name.empty()) s += line("Source Name", h.source_name);
  if (h.src_raj != 0.0) s += line("Source RA (J2000)", ra_text(h.src_raj));
  if (h.src_dej != 0.0) s += line("Source DEC (J2000)", dec_text(h.src_dej));
  if (h.az_start != 0.0 && h.az_start != -1.0) s += line("Start AZ (deg)", fmt::format("{:f}", h.az_start));
  if (h.za_start != 0.0 && h.za_start != -1.0) s += line("Start ZA (deg)", fmt::format("{:f}", h.za_start));
  switch (h.data_type) {
    case 0:
    case 1:
      if (!h.frequency_table.empty()) {
        s += line("Highest frequency channel (MHz)", fmt::format("{:f}", h.frequency_table.front()));
        s += line("Lowest frequency channel  (MHz)", fmt::format("{:f}", h.frequency_table.back()));
      } else {
        s += line("Frequency of channel 1 (MHz)", fmt::format("{:f}", h.fch1));
        s += line("Channel bandwidth      (MHz)", fmt::format("{:f}", h.foff));
        s += line("Number of channels", fmt::format("{}", h.nchans));
        s += line("Number of beams", fmt::format("{}", h.has("nbeams") ? h.nbeams : 0));
        s += line("Beam number", fmt::format("{}", h.has("ibeam") ? h.ibeam : 0));
      }
      break;
    case 2:
      s += line("Reference DM (pc/cc)", fmt::format("{:f}", h.refdm));
      s += line("Reference frequency    (MHz)", fmt::format("{:f}", h.fch1));
      break;
    case 3:
      if (h.refdm > 0.0) s += line("Reference DM (pc/cc)", fmt::format("{:f}", h.refdm));
      s += line("Frequency of channel 1 (MHz)", fmt::format("{:f}", h.fch1));
      s += line("Channel bandwidth      (MHz)", fmt::format("{:f}", h.foff));
      s += line("Number of channels", fmt::format("{}", h.nchans));
      s += line("Number of phase bins", fmt::format("{}", h.nbins));
      s += line("Folding period  (s)", fmt::format("{:.12f}", h.period));
      break;
    case 6:
      s += line("Reference DM (pc/cc)", fmt::format("{:f}", h.refdm));
      s += line("Frequency of channel 1 (MHz)", fmt::format("{:f}", h.fch1));
      s += line("Channel bandwidth      (MHz)", fmt::format("{:f}", h.foff));
      s += line("Number of channels", fmt::format("{}", h.nchans));
      break;
    default:
      break;
  }
  // SIGPROC's default build prints its own signedness (OSIGN = +1) beside the file's.
  if (h.has("signed") && h.signed_flag > 0) {
    s += line("Signedness of 8-bit numbers", fmt::format("UNSIGNED ({},1)", h.signed_flag));
  }
  if (h.has("signed") && h.signed_flag < 0) {
    s += line("Signedness of 8-bit numbers", fmt::format("SIGNED ({},1)", h.signed_flag));
  }
  s += line("Time stamp of first sample (MJD)", fmt::format("{:.12f}", h.tstart));
  s += line("Gregorian date (YYYY/MM/DD)", sigproc_date_string(h.tstart));
  if (h.data_type != 3) s += line("Sample time (us)", fmt::format("{:.5f}", h.tsamp * 1.0e6));
  // SIGPROC prints the sample count only when it saw data; a PRESTO .inf always has one.
  if ((data_bytes != 0 || d.format == FileFormat::presto_inf) && h.data_type != 3) {
    s += line("Number of samples", fmt::format("{}", d.nsamples.value_or(0)));
    double tobs = tobs_s(d);
    std::string unit = "(seconds)   ";
    if (tobs > 60.0) {
      tobs /= 60.0;
      unit = "(minutes)   ";
      if (tobs > 60.0) {
        tobs /= 60.0;
        unit = "(hours)     ";
        if (tobs > 24.0) {
          tobs /= 24.0;
          unit = "(days)      ";
        }
      }
    }
    s += fmt::format("Observation length {}  : {:.1f}\n", unit, tobs);
  }
  if (d.format != FileFormat::presto_mask) s += line("Number of bits per sample", fmt::format("{}", h.nbits));
  s += line("Number of IFs", fmt::format("{}", h.nifs));
  for (const auto& [label, value] : d.extra_lines) s += line(label, value);
  out.write(s.data(), s.size());
}

const std::vector<std::string>& value_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& [k, fn] : value_table()) v.push_back(k);
    return v;
  }();
  return names;
}

std::string value_description(std::string_view name) {
  static const std::map<std::string, std::string, std::less<>> text = {
      {"az_start", "azimuth at the start, degrees"},
      {"bandwidth", "|foff| x nchans, MHz"},
      {"barycentric", "1 if barycentric"},
      {"data_type", "SIGPROC data type code"},
      {"datasize", "data bytes"},
      {"datatype", "data type name"},
      {"date", "start date YYYY/MM/DD"},
      {"dec_deg", "declination, degrees"},
      {"dm", "same as -refdm"},
      {"fch1", "centre of channel 1, MHz"},
      {"fmid", "fch1 + foff x nchans / 2, MHz"},
      {"foff", "channel width, MHz"},
      {"format", "the file's format"},
      {"frame", "topocentric, barycentric or pulsarcentric"},
      {"frequencies", "every channel's centre, MHz, one per line"},
      {"headersize", "header bytes"},
      {"ibeam", "beam number"},
      {"machine", "backend name"},
      {"machine_id", "SIGPROC machine code"},
      {"mjd", "integer MJD of the start"},
      {"nbeam", "same as -nbeams"},
      {"nbeams", "number of beams"},
      {"nbits", "bits per sample"},
      {"nchans", "number of channels"},
      {"nifs", "number of IFs"},
      {"nsamples", "number of samples"},
      {"pulsarcentric", "1 if pulsarcentric"},
      {"ra_deg", "right ascension, degrees"},
      {"rawdatafile", "original data file"},
      {"refdm", "reference DM, pc/cc"},
      {"source_name", "source name"},
      {"src_dej", "declination +dd:mm:ss.s"},
      {"src_raj", "right ascension hh:mm:ss.s"},
      {"telescope", "telescope name"},
      {"telescope_id", "SIGPROC telescope code"},
      {"tobs", "observation length, s"},
      {"tsamp", "sample time, microseconds"},
      {"tstart", "MJD of the first sample"},
      {"utstart", "UT of the start hh:mm:ss"},
      {"za_start", "zenith angle at the start, degrees"},
  };
  const auto it = text.find(name);
  return it == text.end() ? std::string(name) : it->second;
}

std::string value_text(const FileDescription& d, std::string_view name) {
  const auto it = value_table().find(name);
  if (it == value_table().end()) throw Error(ErrorCode::invalid_argument, fmt::format("no value called '{}'", name));
  return it->second(d) + "\n";
}

nlohmann::ordered_json to_json(const FileDescription& d) {
  const SigprocHeader& h = d.header;
  nlohmann::ordered_json j;
  j["file"] = d.path;
  j["format"] = format_name(d.format);
  j["header_size"] = d.header_bytes;
  j["data_size"] = d.data_bytes ? nlohmann::ordered_json(*d.data_bytes) : nlohmann::ordered_json(nullptr);
  j["nsamples"] = d.nsamples ? nlohmann::ordered_json(*d.nsamples) : nlohmann::ordered_json(nullptr);
  j["tobs"] = tobs_s(d);
  j["telescope"] = d.telescope;
  j["machine"] = d.machine;
  j["data_category"] = data_category(h.data_type);
  j["frame"] = frame(h);
  j["date"] = sigproc_date_string(h.tstart);
  // Every header keyword present, under its SIGPROC name and in SIGPROC units.
  nlohmann::ordered_json keys = nlohmann::ordered_json::object();
  for (const auto& k : h.keys) {
    if (k == "FREQUENCY_START") {
      keys["frequency_table"] = h.frequency_table;
      continue;
    }
    switch (sigproc_key_type(k)) {
      case SigprocKeyType::str:
        keys[k] = k == "source_name" ? h.source_name : h.rawdatafile;
        break;
      case SigprocKeyType::i8:
        keys[k] = h.signed_flag;
        break;
      case SigprocKeyType::i64:
        keys[k] = h.npuls;
        break;
      case SigprocKeyType::i32:
        keys[k] = std::stoll(sigproc_value_string(h, k));
        break;
      case SigprocKeyType::f64:
        keys[k] = std::strtod(sigproc_value_string(h, k).c_str(), nullptr);
        break;
      case SigprocKeyType::marker:
        break;
    }
  }
  j["header"] = keys;
  if (!d.details.empty()) j["details"] = d.details;
  return j;
}

}  // namespace fastpsr::app
