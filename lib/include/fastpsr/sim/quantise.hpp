// SPDX-License-Identifier: MIT
#pragma once
/// From simulated values (noise of unit rms plus signals, float) to SIGPROC samples: the value
/// written is round(offset + scale * x), half away from zero, clipped to [0, 2^nbits - 1];
/// 32-bit output stores offset + scale * x as float32. Packing follows SIGPROC (formats.md §1.6:
/// earliest sample in the least-significant bits; 16-bit unsigned little-endian).
///
/// Default scales (offset, scale), so that the noise has a known mean and rms:
///   nbits 32: 0, 1            (float: noise mean 0, rms 1)
///   nbits 16: 32767.5, 2048   (clips at +-16 sigma: room for bright pulses)
///   nbits  8: 127.5, 31.875   (SIGPROC fake's scaling: -4..+4 sigma over 0..255)
///   nbits  4: 7.5, 1.875      (SIGPROC fake's scaling: -4..+4 sigma over 0..15)
///   nbits  2: 1.5, 1/0.9816   (thresholds at 0 and +-0.9816 sigma: the optimal 4-level
///                              quantiser of a Gaussian; SIGPROC's -4..+4 wastes two levels)
///   nbits  1: 0.5, 1          (the sign; SIGPROC's 1-bit output is almost all ones)
/// quantised_noise_moments() gives the exact mean and rms of the written noise.
#include <cstddef>
#include <cstdint>

namespace fastpsr::sim {

struct OutputScale {
  double offset = 0.0;
  double scale = 1.0;
};

/// The default for nbits (1, 2, 4, 8, 16, 32); Error(invalid_argument) otherwise.
OutputScale default_output_scale(int nbits);

/// Quantises and packs n values (n * nbits must be a multiple of 8) into packed_bytes(n, nbits).
void quantise(const float* in, std::size_t n, int nbits, OutputScale scale, std::uint8_t* out);

struct Moments {
  double mean = 0.0;
  double rms = 0.0;
};
/// Mean and rms of the written values for unit-variance Gaussian noise alone (exact sums over
/// the output levels).
Moments quantised_noise_moments(int nbits, OutputScale scale);

/// The factor by which quantisation multiplies the S/N of a weak signal (a small shift of the
/// noise's mean): (d mean_out / d shift) / rms_out for unit-variance noise. 1 for float output,
/// sqrt(2/pi) = 0.798 for the sign, about 0.94 for the optimal 2-bit quantiser, and within 1e-4
/// of 1 for 8 bits.
double quantisation_efficiency(int nbits, OutputScale scale);

}  // namespace fastpsr::sim
