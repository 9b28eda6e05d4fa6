// SPDX-License-Identifier: MIT
#pragma once
/// Voltage input for ppf: raw interleaved complex samples, PSRDADA files and GUPPI RAW files,
/// from a file or a pipe, delivered in the channeliser's layout [F][n][P][re, im] (coarse
/// channel slowest), with their metadata. Memory use is bounded by the read size (GUPPI: one
/// block).
///
/// Conventions:
///  - raw: time-major [n][P][re, im], one coarse channel, metadata from the command line;
///  - PSRDADA (formats.md §7.1): NDIM 2 (complex), NBIT 8/16 (two's complement) or 32 (float),
///    NPOL 1 or 2, NCHAN >= 1, TSAMP in µs, FREQ the band centre and BW the total bandwidth in
///    MHz. ORDER gives the axes slowest first; supported: "TFP" (the default, as fake-pulsar
///    writes it) and "TPF" (axes of length 1 may be left out: "T", "TF", "TP"). (re, im) is
///    always innermost. Start time from MJD_START, else UTC_START + OBS_OFFSET (+ PICOSECONDS).
///  - GUPPI RAW (formats.md §7.2): NBITS 8 or 16; NPOL 4 (or 2) means two polarisations, 1 one;
///    OVERLAP samples at the end of each block repeat at the start of the next and are dropped
///    (as baseband does when it reads a file as a stream, so the last block's are dropped too);
///    a forward jump in PKTIDX is filled with zeros (warned), a backward one is an error, and so
///    are gaps that together pass 64 blocks or the file's own length in samples, whichever is
///    more (a corrupt PKTIDX or PKTSIZE). A block is allocated only once the file is known to hold
///    it (a pipe's grows with the bytes that arrive). OBSNCHAN is at most 1000000.
///  - Frequencies, bandwidths, times and epochs must be finite, band centres (OBSFREQ, FREQ)
///    positive.
///  - A negative bandwidth (BW, OBSBW, CHAN_BW) means the coarse channels run from high to low
///    frequency and each one's spectrum is inverted (lower sideband).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/ppf.hpp"

namespace fastpsr {

struct VoltageInfo {
  std::string format;  ///< "raw", "PSRDADA", "GUPPI RAW"
  VoltageType type = VoltageType::ci8;
  int npol = 1;
  int ncoarse = 1;
  double tsamp_s = 0.0;                   ///< complex sample interval of each coarse channel
  double chan_bw_mhz = 0.0;               ///< signed bandwidth of one coarse channel (negative: inverted)
  std::vector<double> coarse_centre_mhz;  ///< centre of each coarse channel, file order
  double tstart_mjd = 0.0;                ///< MJD of the first sample
  bool has_tstart = false;
  std::string source_name;
  std::string telescope;                  ///< name as the file gives it
  double src_raj = 0.0;                   ///< SIGPROC packed hhmmss.s
  double src_dej = 0.0;                   ///< SIGPROC packed ddmmss.s
  std::optional<std::uint64_t> nsamples;  ///< per coarse channel, when known before reading

  /// Bytes of one time sample of all coarse channels.
  [[nodiscard]] std::size_t time_sample_bytes() const noexcept {
    return static_cast<std::size_t>(ncoarse) * static_cast<std::size_t>(npol) * 2 * component_bytes(type);
  }
};

class VoltageReader {
 public:
  virtual ~VoltageReader() = default;
  VoltageReader() = default;
  VoltageReader(const VoltageReader&) = delete;
  VoltageReader& operator=(const VoltageReader&) = delete;
  [[nodiscard]] const VoltageInfo& info() const noexcept { return info_; }
  [[nodiscard]] virtual const std::string& name() const noexcept = 0;
  /// Reads up to n samples per coarse channel into dst, layout [F][n][P][re, im] (coarse channel
  /// f at f·n samples); returns the number read, fewer than n only at the end. Error(format)
  /// naming the file for data that end inside a sample or a block.
  virtual std::size_t read(void* dst, std::size_t n) = 0;
  /// Bytes of the source consumed so far and its size when known (progress).
  [[nodiscard]] virtual std::uint64_t position_bytes() const noexcept = 0;
  [[nodiscard]] virtual std::optional<std::uint64_t> size_bytes() const noexcept = 0;
  /// Bytes the reader holds itself (a GUPPI block's payload), for a run's memory plan.
  [[nodiscard]] virtual std::size_t held_bytes() const noexcept { return 0; }

 protected:
  VoltageInfo info_;
};

/// What the command line says about raw input (no header).
struct RawVoltageOptions {
  VoltageType type = VoltageType::ci8;
  int npol = 1;
  double fcentre_mhz = 0.0;  ///< centre of the band
  double bw_mhz = 0.0;       ///< signed bandwidth; 0: 1e-6/tsamp_s
  double tsamp_s = 0.0;      ///< 0: 1e-6/|bw_mhz|
  std::string source_name;
};

/// Opens voltages from `src`: a PSRDADA or GUPPI RAW header is recognised from the first bytes;
/// anything else is raw and needs `raw` (Error(invalid_argument) otherwise). For raw input
/// Error(invalid_argument) when bandwidth and sample time disagree or both are missing;
/// Error(format) for a file size that is not a whole number of samples; Error(unsupported) for
/// header values ppf cannot read (NDIM 1, NBIT 4, an unknown ORDER, ...).
std::unique_ptr<VoltageReader> open_voltage_reader(std::unique_ptr<ByteSource> src,
                                                   const std::optional<RawVoltageOptions>& raw);

/// MJD of a UTC "YYYY-MM-DD-hh:mm:ss" (PSRDADA UTC_START; 'T' or ' ' also separate date and
/// time); Error(format) naming `source` otherwise.
double mjd_from_utc(const std::string& utc, const std::string& source);

}  // namespace fastpsr
