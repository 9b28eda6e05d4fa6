// SPDX-License-Identifier: MIT
#pragma once
/// Search-mode PSRFITS (formats.md §8), read without cfitsio: the primary header and the SUBINT
/// binary table, row by row. Samples come out as float32 total intensity, scaled
/// ((raw - ZERO_OFF) x DAT_SCL + DAT_OFFS) x DAT_WTS, with the band flipped so that channel 0 is
/// the highest frequency (foff < 0), like a SIGPROC filterbank.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/fits.hpp"
#include "fastpsr/if_choice.hpp"
#include "fastpsr/sigproc.hpp"
#include "fastpsr/spectra_source.hpp"

namespace fastpsr {

/// What the file says, in its own terms (the SigprocHeader view is PsrfitsReader::header()).
struct PsrfitsInfo {
  // Primary HDU.
  std::string telescope, frontend, backend, observer, project, source, ra, dec, obs_mode, date_obs, fd_poln;
  double obsfreq_mhz = 0.0, obsbw_mhz = 0.0, chan_dm = 0.0;
  std::int64_t stt_imjd = 0;
  double stt_smjd_s = 0.0, stt_offs_s = 0.0;  ///< whole seconds of the day, and the fraction
  // SUBINT header.
  int nbits = 0, nchan = 0, npol = 0, nsblk = 0;
  std::string pol_type;
  double tbin_s = 0.0, zero_off = 0.0, chan_bw_mhz = 0.0;
  bool signed_ints = false;
  std::int64_t nrows = 0, nstot = 0, nsuboffs = 0;
  std::uint64_t table_offset = 0;  ///< byte offset of the first SUBINT row in the file
  std::uint64_t row_bytes = 0;     ///< NAXIS1 of SUBINT
  /// Seconds from the start time (STT_*) to the first sample of row 0: OFFS_SUB - TSUBINT/2 of
  /// row 0 when OFFS_SUB is set, else NSUBOFFS x NSBLK x TBIN (PRESTO's rule, §8).
  double first_row_offset_s = 0.0;
  std::vector<double> dat_freq_mhz;  ///< channel centres of row 0, in file order
  bool band_flipped = false;         ///< DAT_FREQ increases: channels are reversed on output
  /// Samples of rows missing between row 0 and the last (by OFFS_SUB), read as zeros and
  /// counted in the reader's nsamples; 0 where none are, or where the last row could not be read
  /// ahead (a pipe).
  std::uint64_t missing_samples = 0;
  /// How the polarisations become the intensity read: "AA+BB" (first two summed), "first", or
  /// "polarisation N" (chosen with IfChoice::Mode::one).
  std::string intensity_from;
};

/// Which of a row's DAT_WTS, DAT_SCL and DAT_OFFS the samples take (PRESTO's -noweights,
/// -noscales and -nooffsets turn them off: weights 1, scales 1, offsets 0); ZERO_OFF always.
struct PsrfitsScaling {
  bool weights = true;
  bool scales = true;
  bool offsets = true;
  [[nodiscard]] bool all() const noexcept { return weights && scales && offsets; }
};

class PsrfitsReader final : public SpectraSource {
 public:
  /// Reads the headers and the first row. Throws Error(format|unsupported) naming the source for
  /// a file that is not search-mode PSRFITS or that this reader cannot turn into intensity.
  /// `pols`: total intensity (automatic: AA + BB, or the first of IQUV and of one), AA + BB
  /// (sum), or one polarisation (PRESTO's -if N); a choice the file cannot meet is an Error.
  explicit PsrfitsReader(std::unique_ptr<ByteSource> src, PsrfitsScaling scaling = {}, IfChoice pols = {});
  static std::unique_ptr<PsrfitsReader> open(const std::string& path);

  [[nodiscard]] const PsrfitsInfo& info() const noexcept { return info_; }
  /// nifs 1 (total intensity); nbits is the file's NBITS; tstart from STT_* and the row offset.
  [[nodiscard]] const SigprocHeader& header() const noexcept override { return header_; }
  [[nodiscard]] const std::string& name() const noexcept override { return src_->name(); }
  /// min(NSTOT, rows x NSBLK), or rows x NSBLK without NSTOT.
  [[nodiscard]] std::optional<std::uint64_t> nsamples() const noexcept override { return nsamples_; }
  [[nodiscard]] std::uint64_t position() const noexcept override { return position_; }
  std::size_t read_float(float* dst, std::size_t n) override;
  std::uint64_t skip(std::uint64_t n) override;
  /// Rows missing from the table (by OFFS_SUB), read as zeros: those reached so far.
  [[nodiscard]] std::vector<SampleGap> gaps() const override { return gaps_; }

 private:
  void find_last_row();
  // Hands out up to n samples, take(handed so far, count, values or nullptr for missing rows).
  template <class Take>
  std::uint64_t walk(std::uint64_t n, Take take);
  [[nodiscard]] std::int64_t sample_of_offset(double offs_sub_s) const;
  // Where row `index` (its bytes in `row`) starts, in samples from row 0, by its OFFS_SUB;
  // Error(format) if before the end of the rows before it.
  [[nodiscard]] std::uint64_t row_start(const std::vector<std::uint8_t>& row, std::int64_t index) const;
  void load_row();    // read_row() then decode_row()
  void read_row();    // the next row's bytes into row_
  void decode_row();  // row_ -> values_
  std::unique_ptr<ByteSource> src_;
  PsrfitsScaling scaling_;
  PsrfitsInfo info_;
  SigprocHeader header_;
  std::vector<FitsColumn> columns_;
  const FitsColumn* data_col_ = nullptr;
  const FitsColumn* freq_col_ = nullptr;
  const FitsColumn* wts_col_ = nullptr;
  const FitsColumn* offs_col_ = nullptr;
  const FitsColumn* scl_col_ = nullptr;
  std::uint64_t row_bytes_ = 0;
  std::uint64_t nsamples_ = 0;
  std::uint64_t position_ = 0;
  std::int64_t rows_loaded_ = 0;
  std::vector<std::uint8_t> row_;
  std::vector<float> values_;  // nsblk x nchan, output channel order
  std::size_t row_pos_ = 0;    // samples of values_ handed out
  std::size_t row_valid_ = 0;  // samples of values_ that hold data
  int pol_first_ = 0;          // the polarisations summed: pol_first_ .. pol_first_ + pol_count_ - 1
  int pol_count_ = 1;
  // Rows placed by OFFS_SUB (when row 0 has one): the column, the seconds it counts from, row
  // 0's sample by that count, where the next row should start, the zeros due before the row
  // loaded, whether the length counts the missing rows (the last row was read ahead).
  const FitsColumn* offs_sub_col_ = nullptr;
  double row_origin_s_ = 0.0;
  std::int64_t row0_sample_ = 0;
  std::uint64_t next_row_start_ = 0;
  std::uint64_t pad_left_ = 0;
  bool can_pad_ = false;
  std::vector<SampleGap> gaps_;
};

}  // namespace fastpsr
