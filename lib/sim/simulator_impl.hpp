// SPDX-License-Identifier: MIT
#pragma once
// The state of a FilterbankSimulator (internal to lib/sim).
#include <vector>

#include "fastpsr/sim/filterbank_simulator.hpp"
#include "fastpsr/sim/random.hpp"
#include "signals.hpp"

namespace fastpsr::sim {

struct FilterbankSimulator::Impl {
  explicit Impl(const SimConfig& c) : config(c), rng(c.seed) {}
  SimConfig config;
  CounterRng rng;
  std::vector<detail::PulsarSignal> pulsars;
  std::vector<detail::SinglePulseSignal> pulses;
  std::vector<detail::NarrowbandSignal> narrowband;
  std::vector<detail::ImpulseSignal> impulses;
  std::size_t chunk_rows = 1;

  /// Noise and signals of rows [first, first + n) into out (row stride values_per_sample).
  void fill_chunk(const std::vector<detail::PhasePieces>& pieces, std::uint64_t first, std::size_t n, float* out) const;
  [[nodiscard]] std::vector<detail::PhasePieces> make_pieces(std::uint64_t first, std::size_t n) const;
};

}  // namespace fastpsr::sim
