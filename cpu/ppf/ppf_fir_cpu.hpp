// SPDX-License-Identifier: MIT
#pragma once
/// The CPU FIR of the PPF over one block of filtered spectra of one coarse channel, blocked
/// over channels (the paper's C_B) and spectra (S_B), vectorised over the contiguous
/// (channel, polarisation, re/im) axis; the int8/int16 samples are converted inside the loop.
#include <cstddef>
#include <string>

#include "fastpsr/ppf.hpp"

namespace fastpsr::cpu {

/// The FIR's SIMD variants: register tiles of 32 floats (AVX-512) or 16 (AVX2), both with FMA;
/// baseline SSE2 without tiles or FMA. avx512 and avx2 give the same bits; generic rounds twice
/// a tap (no FMA).
enum class FirIsa { baseline, avx2, avx512 };

struct FirBlock {
  const void* in = nullptr;  ///< raw samples from raw spectrum s0 on: [(S + T − 1)·C][P][2]
  /// Coefficients repeated over (P, re/im): [T][coeff_stride], the first C·P·2 floats of each
  /// tap's row used; the padding keeps the taps' rows from sharing an L1 set (C·P·2 floats
  /// apart, the rows of a power-of-two C would all map to one set and evict each other).
  const float* coeffx = nullptr;
  std::size_t coeff_stride = 0;
  const float* phase = nullptr;  ///< exp(2πi·m·c/C): [C][2]
  /// The phase's real and imaginary parts repeated over (P, re/im): [2][C·P·2] (the AVX2 tiles
  /// rotate their accumulators in registers with it)
  const float* phasex = nullptr;
  float* out = nullptr;  ///< filtered spectra × phase: [S][C][P][2], or [S][P][C][2] (below)
  /// Two polarisations: write each spectrum's polarisations one after the other ([P][C][2]), so
  /// that the FFT runs on contiguous data (FFTW ran the interleaved ones 1.4x slower).
  bool split_polarisations = false;
  int nchans = 0;
  int ntaps = 0;
  int npol = 1;
  int nspectra = 0;               ///< S
  int block_channels = 256;       ///< C_B
  FirIsa isa = FirIsa::baseline;  ///< must be one this CPU runs (fir_isa_supported)
};

/// Computes out[s][c][p] = phase[c] · Σ_t coeffx[t][c][p] · in[(s + t)·C + c][p] for s < S,
/// with the SIMD variant b.isa.
void fir_block(VoltageType type, const FirBlock& b);
/// The widest variant this CPU runs.
FirIsa best_fir_isa();
bool fir_isa_supported(FirIsa isa);
/// "avx512", "avx2" or "generic" (the names of --cpu-config isa=, as dedisp's), and back
/// (a name check_cpu_isa accepts).
const char* fir_isa_name(FirIsa isa);
FirIsa fir_isa_named(const std::string& name);

}  // namespace fastpsr::cpu
