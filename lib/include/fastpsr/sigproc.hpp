// SPDX-License-Identifier: MIT
#pragma once
/// SIGPROC headers (filterbank .fil and time series .tim): every keyword of formats.md §1.2,
/// with the types SIGPROC writes. The reader keeps the order in which keys appeared so that a
/// header can be written back byte for byte.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fastpsr/byte_stream.hpp"

namespace fastpsr {

/// One SIGPROC header. Fields hold SIGPROC's units: MHz, seconds, MJD, packed hhmmss.s angles.
/// `keys` lists the keywords present, in file order; the writer emits exactly those keys.
struct SigprocHeader {
  std::int32_t telescope_id = 0;
  std::int32_t machine_id = 0;
  std::int32_t data_type = 1;  ///< 1 filterbank, 2 time series, 6 dedispersed subbands (§1.7)
  std::string rawdatafile;
  std::string source_name;
  std::int32_t barycentric = 0;
  std::int32_t pulsarcentric = 0;
  double az_start = 0.0;  ///< degrees
  double za_start = 0.0;  ///< degrees
  double src_raj = 0.0;   ///< J2000 right ascension, packed hhmmss.s
  double src_dej = 0.0;   ///< J2000 declination, packed ±ddmmss.s
  double tstart = 0.0;    ///< MJD of the first sample
  double tsamp = 0.0;     ///< sample interval, s
  std::int32_t nbits = 8;
  std::int32_t nsamples = 0;  ///< legacy count; the file size is what counts
  double fch1 = 0.0;          ///< centre frequency of channel 0, MHz
  double foff = 0.0;          ///< channel spacing, MHz (negative: channel 0 is the highest)
  std::int32_t nchans = 1;
  std::int32_t nifs = 1;
  double refdm = 0.0;   ///< reference DM of a time series, pc cm^-3
  double period = 0.0;  ///< folding period, s
  std::int32_t nbeams = 1;
  std::int32_t ibeam = 0;
  std::int8_t signed_flag = 1;  ///< `signed` byte: SIGPROC writes +1 unsigned, -1 signed
  std::int32_t nbins = 0;
  std::int64_t npuls = 0;
  std::vector<double> frequency_table;  ///< FREQUENCY_START/fchannel/FREQUENCY_END, MHz

  std::vector<std::string> keys;  ///< keywords present, in order ("FREQUENCY_START" for the table)
  std::uint64_t header_bytes = 0; ///< set by the reader: offset of the first data byte

  [[nodiscard]] bool has(std::string_view key) const;
  /// Adds key at the end of `keys` unless present (setters for writers).
  void add_key(std::string_view key);
  void remove_key(std::string_view key);

  /// True when 8-bit data are to be read as signed (a `signed` key with a negative value;
  /// formats.md §1.6: SIGPROC's +1 means unsigned).
  [[nodiscard]] bool data_signed() const { return has("signed") && signed_flag < 0 && nbits == 8; }
  /// Bytes of one time sample over all IFs and channels.
  [[nodiscard]] std::uint64_t bytes_per_sample() const {
    return static_cast<std::uint64_t>(nchans) * static_cast<std::uint64_t>(nifs) *
           static_cast<std::uint64_t>(nbits) / 8;
  }
  /// Centre frequency of channel c, MHz (the frequency table when there is one).
  [[nodiscard]] double channel_freq_mhz(int c) const;
  [[nodiscard]] bool is_time_series() const { return data_type == 2; }
};

/// Every keyword the reader understands, with its value type.
enum class SigprocKeyType { i32, f64, str, i8, i64, marker };
/// The type of keyword `key`, or throws Error(format) for an unknown one.
SigprocKeyType sigproc_key_type(std::string_view key);

/// The value of keyword `key` as text: integers in decimal, doubles in the shortest form that
/// reads back exactly, strings as they are. Error(format) for an unknown key or FREQUENCY_START.
std::string sigproc_value_string(const SigprocHeader& h, std::string_view key);
/// Sets keyword `key` from text, parsed as the key's type, and adds it to `keys` if absent.
/// Error(invalid_argument) for an unknown key, FREQUENCY_START, a string outside 1-79
/// characters, or text that is not a whole value of the type (e.g. "12x" for an int).
void sigproc_set_value(SigprocHeader& h, std::string_view key, std::string_view text);

/// Reads a header from the front of `src` and validates it (Error(format) naming the source and
/// the byte offset on any problem). Leaves `src` at the first data byte.
SigprocHeader read_sigproc_header(ByteSource& src);
/// Checks the values a data reader relies on (nbits, nchans, nifs, tsamp, byte alignment).
void validate_sigproc_header(const SigprocHeader& h, const std::string& name);
/// Writes `h.keys` in order between HEADER_START and HEADER_END.
void write_sigproc_header(ByteSink& sink, const SigprocHeader& h);
/// The encoded header as bytes.
std::vector<std::uint8_t> encode_sigproc_header(const SigprocHeader& h);

/// True when bytes start with the SIGPROC magic (int32 12 + "HEADER_START").
bool looks_like_sigproc(std::span<const std::uint8_t> first_bytes);

/// Key orders of the SIGPROC writers (formats.md §1.9), for drop-in output.
/// `filterbank`: SIGPROC filterbank's order (source_name only if non-empty).
std::vector<std::string> sigproc_filterbank_keys(const SigprocHeader& h);
/// SIGPROC `dedisperse` single-band .tim order (§2); `signed` only for 8-bit output.
std::vector<std::string> sigproc_dedisperse_keys(const SigprocHeader& h);
/// SIGPROC `fake` order (§1.9).
std::vector<std::string> sigproc_fake_keys(const SigprocHeader& h);

/// Number of whole samples in the data, from the source size when known. Data that end inside a
/// sample (a file cut short) give their whole samples, with a warning naming the file, as SIGPROC
/// and PRESTO read them. Throws Error(format) when the data are shorter than `nsamples` says.
std::uint64_t sigproc_nsamples_from_size(const SigprocHeader& h, std::uint64_t file_size,
                                         const std::string& name);

/// Packed sky angles (§1.4) to and from "hh:mm:ss.ssss" strings.
std::string sigproc_angle_to_string(double packed, bool is_ra, int decimals = 4);
double sigproc_angle_from_string(std::string_view text, bool is_ra);

/// Names of the telescope and machine codes (SIGPROC spelling where the tables conflict;
/// PRESTO's where PRESTO needs it, see presto_telescope_name).
std::string sigproc_telescope_name(int telescope_id);
std::string sigproc_machine_name(int machine_id);
/// The telescope_id of a telescope name in SIGPROC's or PRESTO's spelling, or a common alias
/// (case-insensitive: "Parkes", "PKS", "GBT", "Arecibo", "MeerKAT", ...); -1 when unknown.
int sigproc_telescope_id(std::string_view name);

}  // namespace fastpsr
