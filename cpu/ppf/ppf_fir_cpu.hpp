// SPDX-License-Identifier: MIT
#pragma once
/// The CPU FIR of the PPF over one block of filtered spectra of one coarse channel, blocked
/// over channels (the paper's C_B) and spectra (S_B), vectorised over the contiguous
/// (channel, polarisation, re/im) axis; the int8/int16 samples are converted inside the loop.
#include <cstddef>

#include "fastpsr/ppf.hpp"

namespace fastpsr::cpu {

struct FirBlock {
  const void* in = nullptr;       ///< raw samples from raw spectrum s0 on: [(S + T − 1)·C][P][2]
  const float* coeffx = nullptr;  ///< coefficients repeated over (P, re/im): [T][C·P·2]
  const float* phase = nullptr;   ///< exp(2πi·m·c/C): [C][2]
  /// The phase's real and imaginary parts repeated over (P, re/im): [2][C·P·2] (the AVX2 tiles
  /// rotate their accumulators in registers with it)
  const float* phasex = nullptr;
  float* out = nullptr;  ///< filtered spectra × phase: [S][C][P][2]
  int nchans = 0;
  int ntaps = 0;
  int npol = 1;
  int nspectra = 0;          ///< S
  int block_channels = 256;  ///< C_B
};

/// Computes out[s][c][p] = phase[c] · Σ_t coeffx[t][c][p] · in[(s + t)·C + c][p] for s < S,
/// with the widest SIMD variant this CPU runs (AVX2+FMA or baseline SSE2, chosen at run time).
void fir_block(VoltageType type, const FirBlock& b);
/// The variant fir_block uses, for -v ("avx2+fma" or "sse2").
const char* fir_variant_name();

}  // namespace fastpsr::cpu
