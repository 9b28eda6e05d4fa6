// SPDX-License-Identifier: MIT
#pragma once
/// Which format a file is in, from its first bytes and its name (formats.md; docs/formats-fastpsr.md
/// gives the rules and their order).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "fastpsr/byte_stream.hpp"

namespace fastpsr {

enum class FileFormat {
  sigproc_filterbank,  ///< SIGPROC header (HEADER_START) with data_type other than 2
  sigproc_timeseries,  ///< SIGPROC header with data_type 2 (.tim, and tim-stream records)
  presto_dat,          ///< headerless float32 named *.dat, described by the .inf beside it
  presto_sdat,         ///< headerless int16 named *.sdat, described by the .inf beside it
  presto_fft,          ///< headerless complex64 named *.fft (PRESTO realfft output)
  presto_inf,          ///< PRESTO .inf text
  presto_sub,          ///< headerless int16 named *.sub<NN>: one PRESTO subband, described by <root>.sub.inf
  psrfits,             ///< FITS ("SIMPLE  =") whose primary header says FITSTYPE = 'PSRFITS'
  dada,                ///< PSRDADA ASCII header (HDR_VERSION / HDR_SIZE lines)
  guppi_raw,           ///< GUPPI / Breakthrough Listen RAW: 80-character cards with BLOCSIZE
  presto_mask,         ///< PRESTO rfifind .mask (binary, no magic): told by its name
  unknown,
};

/// A short name for messages and `header --json` ("SIGPROC filterbank", "PSRFITS", ...).
std::string_view format_name(FileFormat f);

/// How many leading bytes detect_format wants: enough for a SIGPROC header with a frequency
/// table of several thousand channels, and for a FITS or GUPPI header of 48 blocks.
inline constexpr std::size_t kDetectBytes = std::size_t{1} << 17;

/// Decides the format from up to kDetectBytes first bytes and the file name (which may be a
/// path, or "<stdin>"). Contents win over names: a SIGPROC, FITS, GUPPI or DADA header is
/// recognised whatever the file is called; headerless PRESTO files (.dat, .sdat, .fft) are
/// recognised by their suffix only, and the .inf they need is the readers' business (they name
/// the path they expected). Never throws.
FileFormat detect_format(std::span<const std::uint8_t> first_bytes, std::string_view file_name);

/// Peeks at `src` (consuming nothing) and detects its format. Throws Error(format) naming the
/// source for an empty input or an unknown format.
FileFormat detect_format(ByteSource& src);

/// True when the bytes start with an 80-character header card (an upper-case keyword padded to
/// 8, '=' in column 9), as FITS and GUPPI RAW headers do: a file that does but is not detected
/// as either is most likely one cut short inside its header.
bool starts_with_header_card(std::span<const std::uint8_t> first_bytes);

}  // namespace fastpsr
