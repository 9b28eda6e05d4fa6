// SPDX-License-Identifier: MIT
#pragma once
/// PRESTO .fft files (formats.md §4): N/2 complex float32 values of the forward real FFT of N
/// samples, unnormalised, with bin 0 packed as (DC sum, Nyquist term). Headerless, native (LE).
#include <complex>
#include <span>
#include <string>
#include <vector>

namespace fastpsr {

/// The forward real FFT of `x` (even length >= 2) in PRESTO's packed layout: out[0] =
/// (sum x_n, sum (-1)^n x_n), out[k] = sum x_n exp(-2 pi i nk/N) for k = 1 .. N/2-1. FFTW,
/// float32. Throws Error(invalid_argument) for an odd or too short length.
std::vector<std::complex<float>> presto_realfft(std::span<const float> x);

/// Reads a .fft file whole; throws Error(format) naming the path when its size is not a
/// multiple of 8 bytes, it is empty, or it is not a regular file (a device or FIFO, whose size
/// is unknown: memory is bounded by the file's size).
std::vector<std::complex<float>> read_presto_fft(const std::string& path);
/// Writes a .fft file (temporary name + rename).
void write_presto_fft(const std::string& path, std::span<const std::complex<float>> bins);

}  // namespace fastpsr
