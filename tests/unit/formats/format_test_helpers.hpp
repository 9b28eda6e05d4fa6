// SPDX-License-Identifier: MIT
#pragma once
// Helpers for the format tests: a source that behaves like a pipe, a small SIGPROC header, and a
// writer of small synthetic search-mode PSRFITS files whose every value the test chooses.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/sigproc.hpp"
#include "fastpsr/spectra_source.hpp"

namespace fastpsr::test {

/// Bytes served like a pipe: no size, no seeking, and reads of at most `chunk` bytes.
std::unique_ptr<ByteSource> pipe_source(std::vector<std::uint8_t> bytes, std::size_t chunk = 7,
                                        std::string name = "<pipe>");

/// A search-mode PSRFITS file: primary HDU, an empty HISTORY table (so the reader must skip an
/// HDU), then SUBINT. `raw` holds the stored integers (float values for nbits 32) in file order
/// [row][sample][pol][chan]; sub-byte values are packed earliest sample in the most significant
/// bits, as PSRFITS says.
struct FakePsrfits {
  int nbits = 8;
  int nchan = 4;
  int npol = 1;
  int nsblk = 8;
  int nrows = 2;
  std::string pol_type = "AA+BB";
  double tbin_s = 1e-3;
  double zero_off = 0.0;
  bool signint = false;
  std::int64_t nstot = 0;         ///< written when > 0
  double tzero16 = 0.0;           ///< TZERO of a 16-bit DATA column (32768 for unsigned)
  std::vector<double> freqs_mhz;  ///< nchan
  bool freqs_as_float = false;    ///< DAT_FREQ as E instead of D
  std::vector<float> wts;         ///< nchan (empty: column left out)
  std::vector<float> offs;        ///< nchan * npol, [pol][chan] (empty: left out)
  std::vector<float> scl;         ///< nchan * npol
  std::vector<double> raw;
  std::int64_t stt_imjd = 60000;
  double stt_smjd_s = 100.0;
  double stt_offs_s = 0.25;
  bool offs_sub_set = true;  ///< OFFS_SUB = (row + 1/2) x row length; else 0
  /// Where each row lies in the observation, in rows, for OFFS_SUB (empty: 0, 1, 2, ...; a
  /// step of more than one is a row missing).
  std::vector<double> row_index;
  std::string obs_mode = "SEARCH";

  [[nodiscard]] std::vector<std::uint8_t> encode() const;
};

/// Every sample `s` hands out, read `piece` samples at a time (nchans values each).
std::vector<float> read_all_float(SpectraSource& s, std::size_t piece);
/// The same bits, value for value.
bool same_bits(const std::vector<float>& a, const std::vector<float>& b);
/// Checks (doctest) that f throws fastpsr::Error saying `fragment` about the file `path`.
void check_error(const std::function<void()>& f, const std::string& fragment, const std::string& path);

/// A small SIGPROC filterbank header: 8 channels of 8 bits from 1400 MHz down by 1 MHz, 1 ms.
inline SigprocHeader small_fil_header() {
  SigprocHeader h;
  h.nchans = 8;
  h.nbits = 8;
  h.tsamp = 1e-3;
  h.fch1 = 1400;
  h.foff = -1;
  h.keys = sigproc_filterbank_keys(h);
  return h;
}

/// One 80-character GUPPI RAW (FITS-style) header card: KEYWORD padded to 8, "= ", the value.
inline std::string guppi_card(const std::string& key, const std::string& value) {
  std::string c = key;
  c.resize(8, ' ');
  c += "= " + value;
  c.resize(80, ' ');
  return c;
}

}  // namespace fastpsr::test
