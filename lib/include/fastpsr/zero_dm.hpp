// SPDX-License-Identifier: MIT
#pragma once
/// The zero-DM filter (Eatough, Keane & Lyne 2009; SIGPROC -subzero, PRESTO -zerodm): from
/// every spectrum, subtract its mean over the kept channels, which removes what arrives at
/// all frequencies at once (undispersed interference).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fastpsr {

/// Unpacks n spectra of `nchans` channels at `nbits` into float32 and subtracts from each kept
/// channel the spectrum's mean over kept channels (computed in double); killed channels are
/// set to 0. `out` receives n * nchans values. An empty `keep` keeps every channel.
void zero_dm_filter(const std::uint8_t* packed, std::size_t n, int nchans, int nbits, bool is_signed,
                    const std::vector<std::uint8_t>& keep, float* out);

}  // namespace fastpsr
