// SPDX-License-Identifier: MIT
#include "describe.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "describe_mask.hpp"
#include "fastpsr/dada.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/guppi.hpp"
#include "fastpsr/mjd.hpp"
#include "fastpsr/ppf.hpp"
#include "fastpsr/ppf_input.hpp"
#include "fastpsr/presto_inf.hpp"
#include "fastpsr/presto_subbands.hpp"
#include "fastpsr/psrfits.hpp"
#include "fastpsr/timeseries.hpp"

namespace fastpsr::app {
namespace {

// Bytes from offset `from` to the end: from the size of a file, by reading to the end of a pipe.
std::uint64_t data_bytes_after(ByteSource& src, std::uint64_t from) {
  if (const auto size = src.size()) return *size >= from ? *size - from : 0;
  return src.skip(std::numeric_limits<std::uint64_t>::max());
}

// After the first record of a time series with `nsamples`: when another SIGPROC header follows,
// the file is a tim-stream (docs/formats-fastpsr.md). Counts its records without keeping them.
bool describe_tim_stream(FileDescription& d, ByteSource& src) {
  const SigprocHeader& first = d.header;
  if (!first.is_time_series() || !first.has("nsamples") || first.nsamples < 0) return false;
  const std::uint64_t record = static_cast<std::uint64_t>(first.nsamples) * first.bytes_per_sample();
  if (src.skip(record) != record || !looks_like_sigproc(src.peek(16))) return false;
  std::uint64_t records = 1;
  std::uint64_t samples = static_cast<std::uint64_t>(first.nsamples);
  double dm_lo = first.refdm;
  double dm_hi = first.refdm;
  while (!src.peek(1).empty()) {
    const std::string what = fmt::format("record {}: ", records);
    SigprocHeader h;
    try {
      h = read_sigproc_header(src);
    } catch (const Error& e) {
      throw Error(e.code(), what + e.what(), src.name());
    }
    if (!h.is_time_series() || !h.has("nsamples") || h.nsamples < 0) {
      throw Error(ErrorCode::format, what + "not a time-series record with nsamples", src.name());
    }
    const std::uint64_t bytes = static_cast<std::uint64_t>(h.nsamples) * h.bytes_per_sample();
    if (src.skip(bytes) != bytes) {
      throw Error(ErrorCode::format, what + "truncated: the data end before the samples its header announces",
                  src.name());
    }
    ++records;
    samples += static_cast<std::uint64_t>(h.nsamples);
    dm_lo = std::min(dm_lo, h.refdm);
    dm_hi = std::max(dm_hi, h.refdm);
  }
  d.data_bytes = record;
  d.nsamples = static_cast<std::uint64_t>(first.nsamples);
  d.extra_lines.emplace_back("tim-stream records", fmt::format("{} (the first is shown)", records));
  d.extra_lines.emplace_back("tim-stream samples", fmt::format("{}", samples));
  d.extra_lines.emplace_back("tim-stream DMs (pc/cc)", fmt::format("{:f} to {:f}", dm_lo, dm_hi));
  d.details = {{"tim_stream_records", records}, {"tim_stream_samples", samples}, {"dm_min", dm_lo}, {"dm_max", dm_hi}};
  return true;
}

void describe_sigproc(FileDescription& d, ByteSource& src) {
  d.header = read_sigproc_header(src);
  d.telescope = sigproc_telescope_name(d.header.telescope_id);
  d.machine = sigproc_machine_name(d.header.machine_id);
  d.header_bytes = d.header.header_bytes;
  const std::uint64_t start = src.position();
  if (describe_tim_stream(d, src)) return;
  // Not a stream: count the data from where the look-ahead stopped.
  const std::uint64_t looked = src.position() - start;
  d.data_bytes = looked + data_bytes_after(src, src.position());
  // The same checks as the data readers: no trailing partial sample, not shorter than nsamples.
  d.nsamples = sigproc_nsamples_from_size(d.header, d.header_bytes + *d.data_bytes, src.name());
}

double packed_or_zero(const std::string& text, bool is_ra) {
  try {
    return text.empty() || text == "Unknown" ? 0.0 : sigproc_angle_from_string(text, is_ra);
  } catch (const Error&) {
    return 0.0;
  }
}

// What a PRESTO .inf says in SIGPROC's terms, for a one-channel series of `nbits` at `fch1`:
// source, position, epoch, sample time, the DM as refdm; telescope and instrument to print.
void set_header_from_inf(FileDescription& d, const PrestoInf& inf, int data_type, int nbits, double fch1) {
  SigprocHeader& h = d.header;
  h.keys = {"source_name", "src_raj", "src_dej", "data_type", "refdm", "fch1",
            "nchans",      "nbits",   "tstart",  "tsamp",     "nifs"};
  h.source_name = inf.object;
  h.src_raj = packed_or_zero(inf.ra, true);
  h.src_dej = packed_or_zero(inf.dec, false);
  h.data_type = data_type;
  h.refdm = inf.dm;
  h.fch1 = fch1;
  h.nchans = 1;
  h.nbits = nbits;
  h.tstart = inf.mjd_i + inf.mjd_f;
  h.tsamp = inf.dt;
  h.nifs = 1;
  d.telescope = inf.telescope;
  d.machine = inf.instrument;
}

void describe_presto(FileDescription& d, const std::string& path) {
  if (path == "-")
    throw Error(ErrorCode::unsupported, "a PRESTO file cannot be read from stdin: its .inf is found by name",
                "<stdin>");
  const std::string inf_path = d.format == FileFormat::presto_inf ? path : inf_path_for(path);
  if (!std::filesystem::exists(inf_path)) {
    throw Error(ErrorCode::io, fmt::format("missing .inf: expected '{}' beside it", inf_path), path);
  }
  const PrestoInf inf = read_inf(inf_path);
  std::string data_path = path;
  if (d.format == FileFormat::presto_inf) {
    data_path.clear();
    const std::string root = presto_root(path);
    for (const char* suffix : {".dat", ".sdat"}) {
      if (std::filesystem::exists(root + suffix)) {
        data_path = root + suffix;
        break;
      }
    }
  }
  const bool shorts = data_path.ends_with(".sdat");
  const bool fft = d.format == FileFormat::presto_fft;
  set_header_from_inf(d, inf, fft ? 5 : 2, shorts ? 16 : 32,
                      inf.freq + (inf.num_chan > 0 ? inf.num_chan - 1 : 0) * inf.chan_wid);
  SigprocHeader& h = d.header;
  h.barycentric = inf.bary;
  if (inf.bary != 0) h.add_key("barycentric");
  d.nsamples = static_cast<std::uint64_t>(inf.N);
  if (!data_path.empty()) {
    const auto size = std::filesystem::file_size(data_path);
    d.data_bytes = size;
    const std::uint64_t in_file = fft ? size / 8 * 2 : size / (shorts ? 2 : 4);
    if (in_file != *d.nsamples) {
      d.extra_lines.emplace_back("Samples in the data file",
                                 fmt::format("{} (the .inf says {})", in_file, *d.nsamples));
    }
  }
  auto extra = [&](std::string label, std::string value) {
    d.extra_lines.emplace_back(std::move(label), std::move(value));
  };
  extra("Information file", inf_path);
  if (!data_path.empty() && d.format == FileFormat::presto_inf) extra("Time series file", data_path);
  extra("Data observed by", inf.observer);
  extra("Barycentered", inf.bary != 0 ? "yes" : "no");
  for (std::size_t i = 0; i < inf.onoff.size() && inf.breaks(); ++i) {
    extra(fmt::format("On/Off bin pair {}", i + 1),
          fmt::format("{:.0f}, {:.0f}", inf.onoff[i].first, inf.onoff[i].second));
  }
  extra("Type of observation", inf.band);
  extra("Beam diameter (arcsec)", fmt::format("{:.0f}", inf.fov));
  extra("Central freq of low channel (MHz)", fmt::format("{:.12g}", inf.freq));
  extra("Total bandwidth (MHz)", fmt::format("{:.12g}", inf.freqband));
  extra("Number of raw channels", fmt::format("{}", inf.num_chan));
  extra("Raw channel bandwidth (MHz)", fmt::format("{:.12g}", inf.chan_wid));
  extra("Data analyzed by", inf.analyzer);
  std::string notes = inf.notes;
  while (!notes.empty() && (notes.back() == '\n' || notes.back() == ' ')) notes.pop_back();
  for (std::size_t p; (p = notes.find("\n    ")) != std::string::npos;) notes.replace(p, 5, " / ");
  if (!notes.empty()) extra("Notes", notes);
  d.details = {{"inf_file", inf_path},
               {"data_file", data_path},
               {"name", inf.name},
               {"telescope", inf.telescope},
               {"instrument", inf.instrument},
               {"object", inf.object},
               {"ra", inf.ra},
               {"dec", inf.dec},
               {"observer", inf.observer},
               {"mjd_i", inf.mjd_i},
               {"mjd_f", inf.mjd_f},
               {"bary", inf.bary},
               {"N", inf.N},
               {"dt", inf.dt},
               {"onoff", inf.onoff},
               {"band", inf.band},
               {"fov", inf.fov},
               {"dm", inf.dm},
               {"freq", inf.freq},
               {"freqband", inf.freqband},
               {"num_chan", inf.num_chan},
               {"chan_wid", inf.chan_wid},
               {"analyzer", inf.analyzer},
               {"notes", inf.notes}};
}

// One file of a PRESTO subband set (prepsubband -sub): the int16 series of subband j, described
// by the set's .sub.inf, whose band is the original channels'. Told as a one-channel series at
// the subband's highest channel, where prepsubband references it, the refdm its DM; the set is
// the numbered files beside it.
void describe_presto_sub(FileDescription& d, const std::string& path) {
  if (path == "-") {
    throw Error(ErrorCode::unsupported,
                "a PRESTO subband file cannot be read from stdin: its .sub.inf is found by name", "<stdin>");
  }
  const std::string root = presto_subband_inf_root(path);
  const std::string inf_path = root + ".inf";
  if (!std::filesystem::exists(inf_path)) {
    throw Error(ErrorCode::io, fmt::format("missing .sub.inf: expected '{}' beside it", inf_path), path);
  }
  const PrestoInf inf = read_inf(inf_path);
  const std::string digits = path.substr(root.size());
  if (digits.size() > 6) throw Error(ErrorCode::format, "subband number too long", path);
  const int index = std::stoi(digits);
  int nsub = 0;  // the numbered files of the set beside it
  const std::filesystem::path file(path);
  const std::string stem = std::filesystem::path(root).filename().string();
  for (const auto& e : std::filesystem::directory_iterator(file.has_parent_path() ? file.parent_path() : ".")) {
    const std::string name = e.path().filename().string();
    if (name.starts_with(stem) && is_presto_subband_name(name) && presto_subband_inf_root(name) == stem) ++nsub;
  }
  const bool regular = nsub > 0 && inf.num_chan % nsub == 0 && index < nsub;
  const int cps = regular ? inf.num_chan / nsub : 0;
  set_header_from_inf(d, inf, 2, 16, regular ? inf.freq + (index + 1) * cps * inf.chan_wid - inf.chan_wid : 0.0);
  const auto size = std::filesystem::file_size(path);
  d.data_bytes = size;
  d.nsamples = size / 2;
  auto extra = [&](std::string label, std::string value) {
    d.extra_lines.emplace_back(std::move(label), std::move(value));
  };
  extra("Information file", inf_path);
  extra("Subband",
        regular ? fmt::format("{} of {} (channels {} to {} of {}, lowest first; fch1 is its highest)", index, nsub,
                              index * cps, index * cps + cps - 1, inf.num_chan)
                : fmt::format("{}; the set beside it has {} files, which do not split the .sub.inf's {} channels",
                              index, nsub, inf.num_chan));
  if (static_cast<double>(*d.nsamples) != inf.N) {
    extra("Samples in the .sub.inf", fmt::format("{:.0f} (the file holds {})", inf.N, *d.nsamples));
  }
  extra("Central freq of low channel (MHz)", fmt::format("{:.12g}", inf.freq));
  extra("Number of raw channels", fmt::format("{}", inf.num_chan));
  extra("Raw channel bandwidth (MHz)", fmt::format("{:.12g}", inf.chan_wid));
  d.details = {{"inf_file", inf_path}, {"subband", index},         {"subbands", nsub},         {"dm", inf.dm},
               {"freq", inf.freq},     {"num_chan", inf.num_chan}, {"chan_wid", inf.chan_wid}, {"N", inf.N}};
}

void describe_psrfits(FileDescription& d, std::unique_ptr<ByteSource> src) {
  PsrfitsReader reader(std::move(src));
  const PsrfitsInfo& f = reader.info();
  d.header = reader.header();
  d.telescope = f.telescope;
  d.machine = f.backend;
  d.header_bytes = f.table_offset;
  d.data_bytes = static_cast<std::uint64_t>(f.nrows) * f.row_bytes;
  d.nsamples = reader.nsamples();
  auto extra = [&](std::string label, std::string value) {
    d.extra_lines.emplace_back(std::move(label), std::move(value));
  };
  extra("Frontend", f.frontend);
  extra("Project ID", f.project);
  extra("Observer", f.observer);
  extra("Date of observation", f.date_obs);
  extra("Start (STT_IMJD/SMJD/OFFS)", fmt::format("{} {} {:.12g}", f.stt_imjd, f.stt_smjd_s, f.stt_offs_s));
  extra("Polarisations", fmt::format("{}, {} ({})", f.npol, f.pol_type.empty() ? "?" : f.pol_type,
                                     f.intensity_from == "AA+BB" ? "AA+BB summed" : "the first one used"));
  extra("Rows x samples per row", fmt::format("{} x {}", f.nrows, f.nsblk));
  if (f.missing_samples > 0) {
    extra("Rows missing (by OFFS_SUB)", fmt::format("{} samples ({:g} rows), read as zeros", f.missing_samples,
                                                    static_cast<double>(f.missing_samples) / f.nsblk));
  }
  extra("Zero offset", fmt::format("{:g}", f.zero_off));
  extra("Signed integers", f.signed_ints ? "yes" : "no");
  extra("Band flipped on reading", f.band_flipped ? "yes (DAT_FREQ increases)" : "no");
  extra("Channel DM (on-line)", fmt::format("{:g}", f.chan_dm));
  d.details = {{"telescope", f.telescope},
               {"frontend", f.frontend},
               {"backend", f.backend},
               {"observer", f.observer},
               {"project", f.project},
               {"source", f.source},
               {"ra", f.ra},
               {"dec", f.dec},
               {"obs_mode", f.obs_mode},
               {"date_obs", f.date_obs},
               {"fd_poln", f.fd_poln},
               {"obsfreq", f.obsfreq_mhz},
               {"obsbw", f.obsbw_mhz},
               {"chan_dm", f.chan_dm},
               {"stt_imjd", f.stt_imjd},
               {"stt_smjd", f.stt_smjd_s},
               {"stt_offs", f.stt_offs_s},
               {"nbits", f.nbits},
               {"nchan", f.nchan},
               {"npol", f.npol},
               {"pol_type", f.pol_type},
               {"nsblk", f.nsblk},
               {"nrows", f.nrows},
               {"nstot", f.nstot},
               {"tbin", f.tbin_s},
               {"zero_off", f.zero_off},
               {"signint", f.signed_ints},
               {"chan_bw", f.chan_bw_mhz},
               {"band_flipped", f.band_flipped},
               {"first_row_offset_s", f.first_row_offset_s},
               {"intensity_from", f.intensity_from},
               {"missing_samples", f.missing_samples}};
}

// UTC_START "YYYY-MM-DD-hh:mm:ss" as an MJD.
std::optional<double> dada_utc_to_mjd(const std::string& s) {
  int y = 0, mo = 0, dd = 0, hh = 0, mm = 0;
  double ss = 0.0;
  if (std::sscanf(s.c_str(), "%d-%d-%d-%d:%d:%lf", &y, &mo, &dd, &hh, &mm, &ss) != 6 || mo < 1 || mo > 12 || dd < 1 ||
      dd > 31 || y < 1800 || y > 3000) {
    return std::nullopt;
  }
  return static_cast<double>(mjd_of_calendar_date(y, mo, dd)) + (hh * 3600.0 + mm * 60.0 + ss) / 86400.0;
}

void describe_dada(FileDescription& d, ByteSource& src) {
  const DadaHeader dh = read_dada_header(src);
  const std::string& name = src.name();
  SigprocHeader& h = d.header;
  h.keys = {"source_name", "data_type", "fch1", "foff", "nchans", "nbits", "tstart", "tsamp", "nifs"};
  h.source_name = dh.get("SOURCE").value_or("");
  h.data_type = 0;
  h.nchans = static_cast<std::int32_t>(dh.get_int_or("NCHAN", 1, name));
  h.nbits = static_cast<std::int32_t>(dh.get_int_or("NBIT", 8, name));
  h.nifs = static_cast<std::int32_t>(dh.get_int_or("NPOL", 1, name));
  const long long ndim = dh.get_int_or("NDIM", 1, name);
  h.tsamp = dh.get_double_or("TSAMP", 0.0, name) * 1e-6;
  const double freq = dh.get_double_or("FREQ", 0.0, name);
  const double bw = dh.get_double_or("BW", 0.0, name);
  if (h.nchans <= 0 || h.nifs <= 0 || h.nbits <= 0 || ndim <= 0 || ndim > 4) {
    throw Error(
        ErrorCode::format,
        fmt::format("DADA NCHAN {} NPOL {} NBIT {} NDIM {}: each must be positive", h.nchans, h.nifs, h.nbits, ndim),
        name);
  }
  h.foff = bw / h.nchans;
  h.fch1 = freq - bw / 2 + h.foff / 2;
  const std::uint64_t bytes_per_sample = static_cast<std::uint64_t>(h.nchans) * static_cast<std::uint64_t>(h.nifs) *
                                         static_cast<std::uint64_t>(ndim) * static_cast<std::uint64_t>(h.nbits) / 8;
  double tstart = 0.0;
  if (const auto mjd = dh.get("MJD_START")) {
    tstart = std::strtod(mjd->c_str(), nullptr);
  } else if (const auto utc = dh.get("UTC_START")) {
    tstart = dada_utc_to_mjd(*utc).value_or(0.0);
  }
  const long long obs_offset = dh.get_int_or("OBS_OFFSET", 0, name);
  if (bytes_per_sample > 0 && obs_offset > 0) {
    tstart += static_cast<double>(static_cast<std::uint64_t>(obs_offset) / bytes_per_sample) * h.tsamp / 86400.0;
  }
  h.tstart = tstart;
  d.telescope = dh.get("TELESCOPE").value_or("?");
  d.machine = dh.get("INSTRUMENT").value_or("?");
  d.header_bytes = dh.hdr_size;
  d.data_bytes = data_bytes_after(src, d.header_bytes);
  if (bytes_per_sample > 0) d.nsamples = *d.data_bytes / bytes_per_sample;
  d.extra_lines.emplace_back("Components per sample (NDIM)",
                             fmt::format("{} ({})", ndim, ndim == 2 ? "complex" : "real"));
  for (const char* key : {"ORDER", "UTC_START", "OBS_OFFSET", "RECEIVER", "MODE"}) {
    if (const auto v = dh.get(key)) d.extra_lines.emplace_back(key, *v);
  }
  d.details = nlohmann::ordered_json::object();
  for (const auto& [k, v] : dh.entries) d.details[k] = v;
}

// GUPPI RAW voltages (QA pass 21: header refused them, the first thing one runs on a file). The
// numbers are those ppf reads (its VoltageReader: coarse channels, sample time, start with
// PKTIDX), the first block's cards for --json and the lines SIGPROC has no place for. Samples
// are counted from the file size when its blocks are all the size of the first, as ppf reads them
// (the OVERLAP samples of each block dropped); a pipe or uneven blocks leave them unknown.
void describe_guppi(FileDescription& d, std::unique_ptr<ByteSource> src) {
  constexpr std::size_t kFirstHeaderBytes = std::size_t{1} << 16;  // cards of the first block, at most
  const std::span<const std::uint8_t> ahead = src->peek(kFirstHeaderBytes);
  auto cards_src = memory_source(std::vector<std::uint8_t>(ahead.begin(), ahead.end()), src->name());
  const std::optional<GuppiHeader> first = read_guppi_header(*cards_src);
  if (!first) throw Error(ErrorCode::format, "GUPPI RAW: no block header", src->name());
  const std::optional<std::uint64_t> size = src->size();
  const std::string name = src->name();
  const auto reader = open_voltage_reader(std::move(src), std::nullopt);
  const VoltageInfo& v = reader->info();
  SigprocHeader& h = d.header;
  h.keys = {"source_name", "data_type", "fch1", "foff", "nchans", "nbits", "tstart", "tsamp", "nifs"};
  h.source_name = v.source_name;
  h.data_type = 0;
  h.nchans = v.ncoarse;
  h.nbits = static_cast<std::int32_t>(8 * component_bytes(v.type));
  h.nifs = v.npol;
  h.tsamp = v.tsamp_s;
  h.foff = v.chan_bw_mhz;
  h.fch1 = v.coarse_centre_mhz.empty() ? 0.0 : v.coarse_centre_mhz.front();
  h.tstart = v.tstart_mjd;
  h.src_raj = v.src_raj;
  h.src_dej = v.src_dej;
  if (v.src_raj != 0.0 || v.src_dej != 0.0) {
    h.add_key("src_raj");
    h.add_key("src_dej");
  }
  d.telescope = v.telescope.empty() ? "?" : v.telescope;
  d.machine = first->get("BACKEND").value_or("?");
  d.header_bytes = first->header_bytes;
  const long long blocsize = first->get_int_or("BLOCSIZE", 0, name);
  const long long overlap = first->get_int_or("OVERLAP", 0, name);
  const std::uint64_t block_bytes = first->header_bytes + static_cast<std::uint64_t>(std::max(blocsize, 0LL));
  const std::uint64_t sample_bytes = v.time_sample_bytes();
  auto extra = [&](std::string label, std::string value) {
    d.extra_lines.emplace_back(std::move(label), std::move(value));
  };
  extra("Voltages", fmt::format("complex {}, {} coarse channel{} x {} polarisation{}", to_string(v.type), v.ncoarse,
                                v.ncoarse == 1 ? "" : "s", v.npol, v.npol == 1 ? "" : "s"));
  if (blocsize > 0 && sample_bytes > 0 && size && *size % block_bytes == 0 &&
      static_cast<std::uint64_t>(blocsize) % sample_bytes == 0) {
    const std::uint64_t blocks = *size / block_bytes;
    const std::uint64_t per_block = static_cast<std::uint64_t>(blocsize) / sample_bytes;
    const std::uint64_t fresh = per_block > static_cast<std::uint64_t>(overlap) ? per_block - overlap : 0;
    d.data_bytes = blocks * static_cast<std::uint64_t>(blocsize);
    d.nsamples = blocks * fresh;
    extra("Blocks", fmt::format("{} of {} + {} bytes; {} samples each, {} new (OVERLAP {})", blocks,
                                first->header_bytes, blocsize, per_block, fresh, overlap));
  } else {
    extra("Blocks", fmt::format("BLOCSIZE {}, OVERLAP {}; samples unknown (a pipe, or blocks of other sizes)", blocsize,
                                overlap));
  }
  for (const char* key : {"FRONTEND", "OBS_MODE", "PKTIDX", "CHAN_DM"}) {
    if (const auto value = first->get(key)) extra(key, *value);
  }
  d.details = nlohmann::ordered_json::object();
  for (const auto& [k, value] : first->cards) d.details[k] = value;
}

}  // namespace

FileDescription describe_file(const std::string& path) {
  FileDescription d;
  d.path = path;
  d.shown_name = path == "-" ? "stdin" : path;
  auto src = open_source(path);
  d.format = detect_format(*src);
  switch (d.format) {
    case FileFormat::sigproc_filterbank:
    case FileFormat::sigproc_timeseries:
      describe_sigproc(d, *src);
      break;
    case FileFormat::presto_dat:
    case FileFormat::presto_sdat:
    case FileFormat::presto_fft:
    case FileFormat::presto_inf:
      describe_presto(d, path);
      break;
    case FileFormat::presto_sub:
      describe_presto_sub(d, path);
      break;
    case FileFormat::psrfits:
      describe_psrfits(d, std::move(src));
      break;
    case FileFormat::dada:
      describe_dada(d, *src);
      break;
    case FileFormat::guppi_raw:
      describe_guppi(d, std::move(src));
      break;
    case FileFormat::presto_mask:
      describe_presto_mask(d, path);
      break;
    case FileFormat::unknown:
      break;
  }
  return d;
}

}  // namespace fastpsr::app
