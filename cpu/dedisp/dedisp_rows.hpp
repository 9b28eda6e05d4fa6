// SPDX-License-Identifier: MIT
#pragma once
// Turning packed time-major input into the channel-major rows the kernel reads: unpack,
// offset signed values to unsigned, sum groups of D samples (downsampling), drop killed
// channels. One row per kept channel; position `pos` of each row receives the first new
// downsampled sample.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fastpsr/worker_team.hpp"

namespace fastpsr::cpu::dedisp_detail {

struct RowsTarget {
  /// nk rows of row_len elements: std::uint8_t (input of at most 8 bits whose downsampled sums
  /// fit it), std::uint16_t, std::uint32_t or float
  void* rows = nullptr;
  std::size_t row_len = 0;
  std::size_t elem_bytes = 0;  ///< 1, 2 or 4
  bool is_float_rows = false;  ///< float rows (nbits 32) rather than unsigned integers
};

struct InputFormat {
  int nbits = 8;
  bool is_signed = false;            ///< 8-bit signed: stored as value + 128
  std::size_t bytes_per_sample = 0;  ///< packed bytes of one spectrum
  std::size_t downsample = 1;
  const std::vector<int>* kept = nullptr;  ///< kept channels in file order
};

/// Writes n_ds downsampled samples, read from n_ds * downsample packed spectra, at position
/// `pos` of every row. Runs on the threads of `team` (nullptr: in the calling thread alone).
void append_rows(const InputFormat& in, const std::uint8_t* packed, std::size_t n_ds, const RowsTarget& dst,
                 std::size_t pos, WorkerTeam* team);

}  // namespace fastpsr::cpu::dedisp_detail
