// SPDX-License-Identifier: MIT
#pragma once
/// One dedispersed time series, whatever file it came from: a SIGPROC .tim (any nbits), a PRESTO
/// .dat/.sdat with its .inf, or a record of a tim-stream (tim_stream.hpp). The tools that search
/// time series read them through read_timeseries and describe their output with make_inf_for.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fastpsr/presto_inf.hpp"
#include "fastpsr/sample_gap.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr {

struct PsrfitsInfo;

enum class TimeSeriesOrigin { sigproc_tim, presto_dat, presto_sdat, tim_stream };

struct TimeSeries {
  std::vector<float> samples;      ///< host memory, one value per time bin
  double tsamp_s = 0.0;            ///< bin width, s
  double dm = 0.0;                 ///< DM the series was dedispersed at, pc cm^-3
  std::int64_t epoch_mjd_int = 0;  ///< MJD of the first sample: integer day ...
  double epoch_mjd_frac = 0.0;     ///< ... and fraction of the day, in [0, 1)
  /// Frequency the sample times refer to, MHz: SIGPROC's fch1, PRESTO's highest channel centre;
  /// 0 means infinite frequency (a barycentred PRESTO series, formats.md §3.4).
  double ref_freq_mhz = 0.0;
  std::string source_name;
  std::string telescope;                 ///< as PRESTO spells it (presto_telescope_name for SIGPROC input)
  std::optional<PrestoInf> inf;          ///< the .inf, for PRESTO input
  std::optional<SigprocHeader> sigproc;  ///< the header, for .tim and tim-stream input
  TimeSeriesOrigin origin = TimeSeriesOrigin::sigproc_tim;
  std::string path;  ///< where it was read from, for messages

  [[nodiscard]] std::uint64_t nsamples() const noexcept { return samples.size(); }
  [[nodiscard]] double duration_s() const noexcept { return static_cast<double>(samples.size()) * tsamp_s; }
  /// The epoch as one number (about 1 us resolution at MJD 60000; keep the parts where it matters).
  [[nodiscard]] double epoch_mjd() const noexcept { return static_cast<double>(epoch_mjd_int) + epoch_mjd_frac; }
};

/// PRESTO's rule for the .inf of a data file: the root (suffix .dat/.sdat/.fft/.inf removed) +
/// ".inf". "dir/x_DM1.00.dat" -> "dir/x_DM1.00.inf".
std::string inf_path_for(const std::string& data_path);

/// Reads a whole time series. The format comes from detect_format:
///  - SIGPROC time series (.tim, data_type 2, nchans 1, nifs 1, any nbits): every sample.
///  - PRESTO .dat (float32) or .sdat (int16): the .inf at inf_path_for(path) is required (a
///    missing one is an Error(io) naming the expected path). N in the .inf is authoritative: a
///    file shorter than N samples is an Error(format); a longer one is read up to N with a
///    warning (PRESTO's readers take the file length and N from the .inf separately; we keep them
///    consistent).
///  - a tim-stream: its first record.
/// "-" reads stdin (SIGPROC and tim-stream only: a PRESTO file needs its name to find the .inf).
/// Throws Error naming the file for anything else.
TimeSeries read_timeseries(const std::string& path);

/// A TimeSeries from a SIGPROC time-series header and its samples: dm = refdm, reference
/// frequency = fch1, epoch = tstart split into day and fraction.
TimeSeries timeseries_from_sigproc(const SigprocHeader& h, std::vector<float> samples, TimeSeriesOrigin origin,
                                   const std::string& path);

/// What make_inf_for needs beyond the filterbank header.
struct InfRequest {
  std::string name;            ///< "Data file name without suffix", e.g. "out_DM12.30"
  double dm = 0.0;             ///< pc cm^-3
  std::uint64_t nsamples = 0;  ///< N, including padding
  /// Samples that hold data; when fewer than N, the rest is padding and PRESTO's on/off pairs
  /// (0, valid-1), (N-1, N-1) are written. 0 means all N are data.
  std::uint64_t valid_samples = 0;
  /// Stretches of padding inside the data (a gap between input files, rows missing from a
  /// PSRFITS file), in samples of the series: the on/off pairs then list the data between them.
  std::vector<SampleGap> gaps{};
  double tsamp_s = 0.0;  ///< bin width; 0 means the header's tsamp (set it when downsampling)
  /// What the input file says and a SIGPROC header cannot (PSRFITS BACKEND, OBSERVER, PROJID,
  /// DATE-OBS): the instrument, the observer and the notes' first lines ("Project ID ..., Date:
  /// ...\n    2 polns were summed. ..."); empty means what make_inf_for derives from the header.
  std::string instrument{};
  std::string observer{};
  std::string notes{};
  std::string analyzer;  ///< "Data analyzed by"; empty means the login name, as PRESTO does
  /// The input's own .inf (PRESTO subband files, whose .sub.inf describes the original band):
  /// every field but the name, N, dt, on/off pairs, DM and analyzer is taken from it, as
  /// prepsubband carries its input .inf over. Unset: all from the header.
  std::optional<PrestoInf> source_inf{};
};

/// The fields of `request` PRESTO takes from a search-mode PSRFITS file (its spectra_info_to_inf):
/// instrument = BACKEND, observer = OBSERVER, notes "Project ID <PROJID>, Date: <DATE-OBS>." and
/// the polarisations (total intensity: "2 polns were summed"), with the file's sample bits.
void set_inf_fields_from_psrfits(const PsrfitsInfo& info, InfRequest& request);

/// The .inf PRESTO's prepdata/prepsubband (-nobary) would write for a time series made from the
/// filterbank with header `h`: PRESTO's telescope name and beam FWHM, centre of the lowest
/// channel, bandwidth nchans x |foff|, epoch = tstart, notes "Project ID unset, Date: ...".
/// Where PRESTO writes "unset" as the instrument (a bug in its name table) we write the name.
PrestoInf make_inf_for(const SigprocHeader& h, const InfRequest& request);

/// The .inf for a time series already read: its own .inf with name and N replaced, else one made
/// from its SIGPROC header (make_inf_for; a .tim's fch1 is the one channel).
PrestoInf timeseries_to_inf(const TimeSeries& ts, const std::string& name);

/// A SIGPROC .tim header (data_type 2, nchans 1, nbits 32, refdm) describing `ts`: its own header
/// when it has one, else one made from its .inf (fch1 = the reference frequency).
SigprocHeader timeseries_to_tim_header(const TimeSeries& ts);

/// Writes `samples` to root + ".dat" and `inf` to root + ".inf", each atomically.
void write_presto_timeseries(const std::string& root, std::span<const float> samples, const PrestoInf& inf);

}  // namespace fastpsr
