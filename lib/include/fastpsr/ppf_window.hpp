// SPDX-License-Identifier: MIT
#pragma once
/// PPF filter design: the windowed-sinc prototype filter of a polyphase filterbank, designed in
/// double and stored as float32 in the paper's Algorithm 1 order, and its frequency response
/// (scalloping loss, leakage) predicted from the coefficients.
///
/// Prototype, N = C·T taps, n < N:
///     h[n] = w(n) · sinc(fwidth · (n − (N − 1)/2) / C),   sinc(x) = sin(πx)/(πx),
/// normalised so that Σ h = C: a tone at a channel centre then has the amplitude it has in a
/// plain (unnormalised) FFT. coeff[t·C + c] = h[t·C + c]. With fwidth = 1 the passband is one
/// channel wide and adjacent channels cross at −6 dB; fwidth > 1 widens the passband (less
/// scalloping, more overlap between neighbours), fwidth < 1 narrows it (better isolation).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fastpsr {

enum class WindowKind { rect, hann, hamming, blackman, kaiser };

struct WindowSpec {
  WindowKind kind = WindowKind::hann;
  double kaiser_beta = 8.6;  ///< kaiser only
};

/// Parses "rect", "hann", "hamming", "blackman", "kaiser" or "kaiser:BETA" (BETA >= 0);
/// Error(invalid_argument) naming the choices otherwise.
WindowSpec parse_window(std::string_view text);
/// "hann", "kaiser:8.6", ...
std::string to_string(const WindowSpec& w);

/// w(n) of an N-point symmetric window (denominator N − 1; 1 when N = 1), in double.
double window_value(const WindowSpec& w, std::size_t n, std::size_t N);

/// The prototype h[n] in double, Algorithm 1 order. Error(invalid_argument) for C < 1, T < 1,
/// fwidth <= 0.
std::vector<double> design_ppf_prototype(int nchans, int ntaps, const WindowSpec& w, double fwidth);
/// The same rounded to float32.
std::vector<float> design_ppf_coeffs(int nchans, int ntaps, const WindowSpec& w, double fwidth);

/// Amplitude response of a PPF channel to a tone `offset_channels` channel widths from the
/// channel centre, relative to the response at the centre: |Σ h[n]·e^{2πi·δ·n/C}| / |Σ h[n]|.
/// Computed in double from the (float) coefficients actually used.
double ppf_channel_response(const std::vector<float>& coeffs, int nchans, double offset_channels);

/// Figures of merit of a coefficient set, from ppf_channel_response.
struct PpfResponseSummary {
  double scalloping_db = 0.0;  ///< response half-way between two channels (δ = 0.5), dB (<= 0)
  /// Leakage of a tone half-way between two channels into the channels d = 1, 5 and 10 further
  /// away: the response at δ = d + 0.5, dB.
  double leakage_db[3] = {};
};
PpfResponseSummary summarise_ppf_response(const std::vector<float>& coeffs, int nchans);

/// External coefficients (--coeffs): `count` = C·T values in Algorithm 1 order, either raw
/// little-endian float32 (a file of exactly 4·count bytes) or text (numbers separated by
/// white space or commas, '#' comments). Error(format) naming the file for a wrong count, a
/// value that is not a finite number, a zero sum or an absolute sum above 1e12 (outputs past
/// float32's range); Error(io) when it cannot be read. At most ppf_coeffs_max_bytes(count)
/// bytes are read: a larger file, or one that never ends (/dev/zero, a FIFO), is Error(format)
/// naming the file, the sizes expected and the size found.
std::vector<float> read_ppf_coeffs(const std::string& path, std::size_t count);
/// The largest --coeffs file read for `count` coefficients: 64 bytes a value and 1 MiB (text
/// with comments), which is more than the 4·count bytes of raw float32.
std::size_t ppf_coeffs_max_bytes(std::size_t count);

}  // namespace fastpsr
