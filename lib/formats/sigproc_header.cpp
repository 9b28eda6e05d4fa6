// SPDX-License-Identifier: MIT
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "fastpsr/error.hpp"
#include "fastpsr/escape.hpp"
#include "fastpsr/format_detect.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr {
namespace {

// Keyword names are short; SIGPROC and PRESTO reject any string token outside 1-80 bytes.
constexpr std::int32_t kMaxKeyLength = 80;
// String values: SIGPROC allows 80, sigpyproc 4096. We read up to 4096 and write at most 79.
constexpr std::int32_t kMaxValueLength = 4096;
constexpr std::size_t kMaxWrittenString = 79;
constexpr std::size_t kMaxFrequencyTable = 1 << 20;
// One spectrum of more than 2^30 values (4 GiB as float) is no real file; refusing it keeps
// every size computed from the header far from overflow.
constexpr std::uint64_t kMaxValuesPerSample = std::uint64_t{1} << 30;

struct KeyInfo {
  std::string_view name;
  SigprocKeyType type;
};

constexpr std::array kKeys{
    KeyInfo{"telescope_id", SigprocKeyType::i32}, KeyInfo{"machine_id", SigprocKeyType::i32},
    KeyInfo{"data_type", SigprocKeyType::i32},    KeyInfo{"rawdatafile", SigprocKeyType::str},
    KeyInfo{"source_name", SigprocKeyType::str},  KeyInfo{"barycentric", SigprocKeyType::i32},
    KeyInfo{"pulsarcentric", SigprocKeyType::i32}, KeyInfo{"az_start", SigprocKeyType::f64},
    KeyInfo{"za_start", SigprocKeyType::f64},     KeyInfo{"src_raj", SigprocKeyType::f64},
    KeyInfo{"src_dej", SigprocKeyType::f64},      KeyInfo{"tstart", SigprocKeyType::f64},
    KeyInfo{"tsamp", SigprocKeyType::f64},        KeyInfo{"nbits", SigprocKeyType::i32},
    KeyInfo{"nsamples", SigprocKeyType::i32},     KeyInfo{"fch1", SigprocKeyType::f64},
    KeyInfo{"foff", SigprocKeyType::f64},         KeyInfo{"nchans", SigprocKeyType::i32},
    KeyInfo{"nifs", SigprocKeyType::i32},         KeyInfo{"refdm", SigprocKeyType::f64},
    KeyInfo{"period", SigprocKeyType::f64},       KeyInfo{"nbeams", SigprocKeyType::i32},
    KeyInfo{"ibeam", SigprocKeyType::i32},        KeyInfo{"signed", SigprocKeyType::i8},
    KeyInfo{"nbins", SigprocKeyType::i32},        KeyInfo{"npuls", SigprocKeyType::i64},
    KeyInfo{"FREQUENCY_START", SigprocKeyType::marker},
};

const KeyInfo* find_key(std::string_view name) {
  for (const auto& k : kKeys) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

std::int32_t* i32_field(SigprocHeader& h, std::string_view k) {
  if (k == "telescope_id") return &h.telescope_id;
  if (k == "machine_id") return &h.machine_id;
  if (k == "data_type") return &h.data_type;
  if (k == "barycentric") return &h.barycentric;
  if (k == "pulsarcentric") return &h.pulsarcentric;
  if (k == "nbits") return &h.nbits;
  if (k == "nsamples") return &h.nsamples;
  if (k == "nchans") return &h.nchans;
  if (k == "nifs") return &h.nifs;
  if (k == "nbeams") return &h.nbeams;
  if (k == "ibeam") return &h.ibeam;
  if (k == "nbins") return &h.nbins;
  return nullptr;
}

double* f64_field(SigprocHeader& h, std::string_view k) {
  if (k == "az_start") return &h.az_start;
  if (k == "za_start") return &h.za_start;
  if (k == "src_raj") return &h.src_raj;
  if (k == "src_dej") return &h.src_dej;
  if (k == "tstart") return &h.tstart;
  if (k == "tsamp") return &h.tsamp;
  if (k == "fch1") return &h.fch1;
  if (k == "foff") return &h.foff;
  if (k == "refdm") return &h.refdm;
  if (k == "period") return &h.period;
  return nullptr;
}

std::string* str_field(SigprocHeader& h, std::string_view k) {
  if (k == "rawdatafile") return &h.rawdatafile;
  if (k == "source_name") return &h.source_name;
  return nullptr;
}

template <typename T>
T read_value(ByteSource& src, const char* what) {
  T v{};
  src.read_exact(&v, sizeof v, what);
  return v;
}

std::string read_token(ByteSource& src, std::int32_t max_len, const char* what) {
  const std::uint64_t at = src.position();
  const auto len = read_value<std::int32_t>(src, "header");
  if (len < 0 || len > max_len) {
    throw Error(ErrorCode::format,
                fmt::format("absurd string length {} at byte {} of the header ({} expected, 0-{} bytes)",
                            len, at, what, max_len),
                src.name());
  }
  std::string s(static_cast<std::size_t>(len), '\0');
  src.read_exact(s.data(), s.size(), "header");
  return s;
}

template <typename T>
void put(std::vector<std::uint8_t>& out, const T& v) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

void put_string(std::vector<std::uint8_t>& out, std::string_view s) {
  put(out, static_cast<std::int32_t>(s.size()));
  out.insert(out.end(), s.begin(), s.end());
}

}  // namespace

bool SigprocHeader::has(std::string_view key) const {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

void SigprocHeader::add_key(std::string_view key) {
  if (!has(key)) keys.emplace_back(key);
}

void SigprocHeader::remove_key(std::string_view key) {
  keys.erase(std::remove(keys.begin(), keys.end(), key), keys.end());
}

double SigprocHeader::channel_freq_mhz(int c) const {
  if (!frequency_table.empty()) return frequency_table.at(static_cast<std::size_t>(c));
  return fch1 + c * foff;
}

SigprocKeyType sigproc_key_type(std::string_view key) {
  if (const auto* k = find_key(key)) return k->type;
  throw Error(ErrorCode::format, fmt::format("unknown SIGPROC header keyword '{}'", escape_for_message(key)));
}

bool looks_like_sigproc(std::span<const std::uint8_t> b) {
  static constexpr std::uint8_t magic[] = {12, 0, 0, 0, 'H', 'E', 'A', 'D', 'E', 'R', '_', 'S', 'T', 'A', 'R', 'T'};
  return b.size() >= sizeof magic && std::memcmp(b.data(), magic, sizeof magic) == 0;
}

SigprocHeader read_sigproc_header(ByteSource& src) {
  const std::uint64_t start = src.position();
  {
    const auto first = src.peek(16);
    if (first.empty()) throw Error(ErrorCode::format, "empty file: no SIGPROC header", src.name());
    if (!looks_like_sigproc(first)) {
      // Name what it is when we can tell (a PSRFITS search file, raw voltages): a user handed a
      // file of another format needs that more than the missing keyword.
      const FileFormat f = detect_format(src.peek(kDetectBytes), src.name());  // peeks only
      const bool raw = f == FileFormat::dada || f == FileFormat::guppi_raw;
      throw Error(ErrorCode::format,
                  f == FileFormat::unknown
                      ? std::string("not a SIGPROC file: it does not start with HEADER_START")
                      : fmt::format("not a SIGPROC file but {} (it does not start with HEADER_START){}",
                                    format_name(f),
                                    raw ? ": raw voltages are channelised by ppf"
                                        : f == FileFormat::presto_mask ? ": dedisp takes a mask with --mask" : ""),
                  src.name());
    }
  }
  read_token(src, kMaxKeyLength, "HEADER_START");
  SigprocHeader h;
  h.keys.clear();
  bool ended = false;
  while (!ended) {
    const std::uint64_t at = src.position();
    std::int32_t len = 0;
    if (src.read(&len, sizeof len) != sizeof len) {
      throw Error(ErrorCode::format,
                  fmt::format("truncated header: end of file at byte {} before HEADER_END", src.position()),
                  src.name());
    }
    if (len <= 0 || len > kMaxKeyLength) {
      throw Error(ErrorCode::format,
                  fmt::format("absurd keyword length {} at byte {} of the header (1-{} expected)", len, at,
                              kMaxKeyLength),
                  src.name());
    }
    std::string key(static_cast<std::size_t>(len), '\0');
    if (src.read(key.data(), key.size()) != key.size()) {
      throw Error(ErrorCode::format,
                  fmt::format("truncated header: end of file at byte {} before HEADER_END", src.position()),
                  src.name());
    }
    if (key == "HEADER_END") {
      ended = true;
      continue;
    }
    const KeyInfo* info = find_key(key);
    if (info == nullptr) {
      throw Error(ErrorCode::format, fmt::format("unknown header keyword '{}' at byte {}", escape_for_message(key), at),
                  src.name());
    }
    switch (info->type) {
      case SigprocKeyType::i32: *i32_field(h, key) = read_value<std::int32_t>(src, "header"); break;
      case SigprocKeyType::f64: *f64_field(h, key) = read_value<double>(src, "header"); break;
      case SigprocKeyType::str: *str_field(h, key) = read_token(src, kMaxValueLength, key.c_str()); break;
      case SigprocKeyType::i8: h.signed_flag = read_value<std::int8_t>(src, "header"); break;
      case SigprocKeyType::i64: h.npuls = read_value<std::int64_t>(src, "header"); break;
      case SigprocKeyType::marker: {
        h.frequency_table.clear();
        for (;;) {
          const std::string tok = read_token(src, kMaxKeyLength, "fchannel or FREQUENCY_END");
          if (tok == "FREQUENCY_END") break;
          if (tok != "fchannel") {
            throw Error(
                ErrorCode::format,
                fmt::format("unexpected '{}' inside the frequency table of the header", escape_for_message(tok)),
                src.name());
          }
          if (h.frequency_table.size() >= kMaxFrequencyTable) {
            throw Error(ErrorCode::format, "frequency table of the header is absurdly long", src.name());
          }
          h.frequency_table.push_back(read_value<double>(src, "header"));
        }
        break;
      }
    }
    h.add_key(key);  // a repeated key (rawspec's padding trick) keeps its last value
  }
  h.header_bytes = src.position() - start;
  validate_sigproc_header(h, src.name());
  return h;
}

void validate_sigproc_header(const SigprocHeader& h, const std::string& name) {
  auto fail = [&](const std::string& what) { throw Error(ErrorCode::format, what, name); };
  if (!h.has("nbits")) fail("header has no 'nbits'");
  if (!h.has("tsamp")) fail("header has no 'tsamp'");
  if (!h.is_time_series() && !h.has("nchans")) fail("header has no 'nchans'");
  switch (h.nbits) {
    case 1: case 2: case 4: case 8: case 16: case 32: break;
    default: fail(fmt::format("unsupported nbits {} (1, 2, 4, 8, 16 or 32 expected)", h.nbits));
  }
  if (h.nchans <= 0) fail(fmt::format("nchans must be positive, the header says {}", h.nchans));
  if (h.nifs <= 0) fail(fmt::format("nifs must be positive, the header says {}", h.nifs));
  if (!(h.tsamp > 0.0) || !std::isfinite(h.tsamp)) {
    fail(fmt::format("tsamp must be a positive number of seconds, the header says {}", h.tsamp));
  }
  // Checked before the product below, which could otherwise overflow for absurd values.
  const auto values_per_sample = static_cast<std::uint64_t>(h.nchans) * static_cast<std::uint64_t>(h.nifs);
  if (values_per_sample > kMaxValuesPerSample) {
    fail(fmt::format("nchans x nifs = {} x {} is absurd (more than {} values per sample)", h.nchans, h.nifs,
                     kMaxValuesPerSample));
  }
  if ((values_per_sample * static_cast<std::uint64_t>(h.nbits)) % 8 != 0) {
    fail(fmt::format("nchans x nifs x nbits = {} x {} x {} is not a whole number of bytes per sample", h.nchans,
                     h.nifs, h.nbits));
  }
  if (!h.frequency_table.empty() && h.frequency_table.size() != static_cast<std::size_t>(h.nchans)) {
    fail(fmt::format("frequency table has {} entries for {} channels", h.frequency_table.size(), h.nchans));
  }
}

std::string sigproc_value_string(const SigprocHeader& hin, std::string_view key) {
  SigprocHeader h = hin;  // the field accessors take non-const references
  const KeyInfo* info = find_key(key);
  if (info == nullptr || info->type == SigprocKeyType::marker) {
    throw Error(ErrorCode::format,
                fmt::format("no SIGPROC header keyword '{}' with a single value", escape_for_message(key)));
  }
  switch (info->type) {
    case SigprocKeyType::i32: return fmt::format("{}", *i32_field(h, key));
    case SigprocKeyType::f64: return fmt::format("{}", *f64_field(h, key));
    case SigprocKeyType::str: return *str_field(h, key);
    case SigprocKeyType::i8: return fmt::format("{}", static_cast<int>(h.signed_flag));
    case SigprocKeyType::i64: return fmt::format("{}", h.npuls);
    case SigprocKeyType::marker: break;
  }
  return {};
}

void sigproc_set_value(SigprocHeader& h, std::string_view key, std::string_view text) {
  const KeyInfo* info = find_key(key);
  if (info == nullptr) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("unknown SIGPROC header keyword '{}'", escape_for_message(key)));
  }
  auto bad = [&](const char* what) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("'{}' is not {} (for the header keyword {})", escape_for_message(text), what, key));
  };
  auto whole_int = [&](std::int64_t lo, std::int64_t hi) {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || end != text.data() + text.size() || v < lo || v > hi) bad("a whole number in range");
    return v;
  };
  switch (info->type) {
    case SigprocKeyType::i32: *i32_field(h, key) = static_cast<std::int32_t>(whole_int(INT32_MIN, INT32_MAX)); break;
    case SigprocKeyType::i8: h.signed_flag = static_cast<std::int8_t>(whole_int(-128, 127)); break;
    case SigprocKeyType::i64: h.npuls = whole_int(INT64_MIN, INT64_MAX); break;
    case SigprocKeyType::f64: {
      const std::string s(text);
      char* end = nullptr;
      const double v = std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) bad("a finite number");
      *f64_field(h, key) = v;
      break;
    }
    case SigprocKeyType::str:
      if (text.empty() || text.size() > kMaxWrittenString) bad("a string of 1 to 79 characters");
      *str_field(h, key) = std::string(text);
      break;
    case SigprocKeyType::marker:
      throw Error(ErrorCode::invalid_argument, "the frequency table cannot be set from the command line");
  }
  h.add_key(key);
}

std::vector<std::uint8_t> encode_sigproc_header(const SigprocHeader& hin) {
  SigprocHeader h = hin;  // the field accessors take non-const references
  std::vector<std::uint8_t> out;
  out.reserve(512);
  put_string(out, "HEADER_START");
  for (const auto& key : h.keys) {
    const KeyInfo* info = find_key(key);
    if (info == nullptr) throw Error(ErrorCode::internal, fmt::format("cannot write unknown keyword '{}'", key));
    if (info->type == SigprocKeyType::str) {
      const std::string& v = *str_field(h, key);
      if (v.empty()) continue;  // readers reject empty strings
      if (v.size() > kMaxWrittenString) {
        throw Error(ErrorCode::invalid_argument,
                    fmt::format("header value of '{}' is {} characters; SIGPROC readers accept at most {}", key,
                                v.size(), kMaxWrittenString));
      }
      put_string(out, key);
      put_string(out, v);
      continue;
    }
    if (info->type == SigprocKeyType::marker) {
      put_string(out, "FREQUENCY_START");
      for (double f : h.frequency_table) {
        put_string(out, "fchannel");
        put(out, f);
      }
      put_string(out, "FREQUENCY_END");
      continue;
    }
    put_string(out, key);
    switch (info->type) {
      case SigprocKeyType::i32: put(out, *i32_field(h, key)); break;
      case SigprocKeyType::f64: put(out, *f64_field(h, key)); break;
      case SigprocKeyType::i8: put(out, h.signed_flag); break;
      case SigprocKeyType::i64: put(out, h.npuls); break;
      default: break;
    }
  }
  put_string(out, "HEADER_END");
  return out;
}

void write_sigproc_header(ByteSink& sink, const SigprocHeader& h) {
  const auto bytes = encode_sigproc_header(h);
  sink.write(bytes.data(), bytes.size());
}

std::vector<std::string> sigproc_filterbank_keys(const SigprocHeader& h) {
  std::vector<std::string> k{"rawdatafile"};
  if (!h.source_name.empty()) k.emplace_back("source_name");
  for (const char* s : {"machine_id", "telescope_id", "src_raj", "src_dej", "az_start", "za_start", "data_type",
                        "fch1", "foff", "nchans", "nbeams", "ibeam", "nbits", "tstart", "tsamp", "nifs"}) {
    k.emplace_back(s);
  }
  if (h.rawdatafile.empty()) k.erase(k.begin());
  return k;
}

std::vector<std::string> sigproc_dedisperse_keys(const SigprocHeader& h) {
  std::vector<std::string> k;
  if (!h.source_name.empty()) k.emplace_back("source_name");
  for (const char* s : {"telescope_id", "machine_id", "src_raj", "src_dej", "az_start", "za_start"}) k.emplace_back(s);
  if (h.nbits == 8) k.emplace_back("signed");
  for (const char* s : {"data_type", "refdm", "fch1", "barycentric", "nchans", "nbits", "tstart", "tsamp", "nifs"}) {
    k.emplace_back(s);
  }
  return k;
}

std::vector<std::string> sigproc_fake_keys(const SigprocHeader& h) {
  std::vector<std::string> k{"source_name", "machine_id", "telescope_id", "data_type"};
  if (h.nchans == 1) k.emplace_back("refdm");
  for (const char* s : {"fch1", "foff", "nchans", "nbits", "tstart", "tsamp", "nifs"}) k.emplace_back(s);
  return k;
}

std::uint64_t sigproc_nsamples_from_size(const SigprocHeader& h, std::uint64_t file_size, const std::string& name) {
  if (file_size < h.header_bytes) throw Error(ErrorCode::format, "file is shorter than its header", name);
  const std::uint64_t data = file_size - h.header_bytes;
  const std::uint64_t bps = h.bytes_per_sample();
  if (data % bps != 0) {
    log_warning("{}: trailing partial sample: {} data bytes are not a whole number of {}-byte samples (a file "
                "cut short?); its {} whole samples are used and the last {} bytes ignored",
                name, data, bps, data / bps, data % bps);
  }
  const std::uint64_t n = data / bps;
  if (h.has("nsamples") && h.nsamples > 0 && n < static_cast<std::uint64_t>(h.nsamples)) {
    throw Error(ErrorCode::format,
                fmt::format("data are shorter than the header says: {} samples in the file, nsamples = {}", n,
                            h.nsamples),
                name);
  }
  return n;
}

}  // namespace fastpsr
