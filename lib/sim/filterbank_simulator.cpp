// SPDX-License-Identifier: MIT
#include "fastpsr/sim/filterbank_simulator.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <future>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/error.hpp"
#include "simulator_impl.hpp"

namespace fastpsr::sim {
namespace {

// Values per chunk of rows a thread makes at once: its floats stay in the core's L2 cache.
constexpr std::size_t kChunkValues = 65536;

void check_observation(const Observation& o) {
  FASTPSR_EXPECTS(o.nchans >= 1, "nchans must be >= 1, got {}", o.nchans);
  FASTPSR_EXPECTS(o.nifs >= 1, "nifs must be >= 1, got {}", o.nifs);
  FASTPSR_EXPECTS(o.tsamp_s > 0.0 && std::isfinite(o.tsamp_s), "tsamp must be positive, got {} us", 1e6 * o.tsamp_s);
  FASTPSR_EXPECTS(std::isfinite(o.fch1_mhz) && std::isfinite(o.foff_mhz), "fch1 and foff must be finite");
  FASTPSR_EXPECTS(o.foff_mhz != 0.0 || o.nchans == 1, "foff must not be 0 with {} channels", o.nchans);
  const double lowest = std::min(o.channel_freq_mhz(0), o.channel_freq_mhz(o.nchans - 1)) - std::abs(o.foff_mhz) / 2;
  FASTPSR_EXPECTS(lowest > 0.0, "the band reaches down to {} MHz: frequencies must stay positive", lowest);
}

template <typename Body>
void parallel_chunks(std::size_t nchunks, const Body& body) {
  std::exception_ptr failure;
#pragma omp parallel for schedule(dynamic)
  for (std::size_t i = 0; i < nchunks; ++i) {
    try {
      body(i);
    } catch (...) {
#pragma omp critical(fastpsr_sim_failure)
      if (!failure) failure = std::current_exception();
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace

Smearing parse_smearing(std::string_view text) {
  if (text == "none") return Smearing::none;
  if (text == "full") return Smearing::full;
  if (text == "sigproc") return Smearing::sigproc;
  throw Error(ErrorCode::invalid_argument, fmt::format("smearing '{}' is not one of none, full, sigproc", text));
}

std::string_view to_string(Smearing s) {
  switch (s) {
    case Smearing::none:
      return "none";
    case Smearing::full:
      return "full";
    case Smearing::sigproc:
      return "sigproc";
  }
  return "?";
}

std::vector<detail::PhasePieces> FilterbankSimulator::Impl::make_pieces(std::uint64_t first, std::size_t n) const {
  std::vector<detail::PhasePieces> out;
  out.reserve(pulsars.size());
  for (const auto& p : pulsars) out.push_back(p.make_pieces(first, n));
  return out;
}

void FilterbankSimulator::Impl::fill_chunk(const std::vector<detail::PhasePieces>& pieces, std::uint64_t first,
                                           std::size_t n, float* out) const {
  const std::size_t stride = config.obs.values_per_sample();
  for (std::size_t k = 0; k < n; ++k) {
    if (config.noise) {
      rng.normals(RandomStream::filterbank_noise, first + k, stride, out + k * stride);
    } else {
      std::fill_n(out + k * stride, stride, 0.0F);
    }
  }
  for (std::size_t i = 0; i < pulsars.size(); ++i) pulsars[i].add(pieces[i], first, n, out, stride);
  for (const auto& p : pulses) p.add(first, n, out, stride);
  for (const auto& b : narrowband) b.add(n, out, stride);
  for (const auto& s : impulses) s.add(first, n, out, stride);
}

FilterbankSimulator::FilterbankSimulator(const SimConfig& config) : impl_(std::make_unique<Impl>(config)) {
  check_observation(config.obs);
  Impl& m = *impl_;
  for (const auto& p : config.pulsars) m.pulsars.emplace_back(p, config);
  for (const auto& p : config.pulses) m.pulses.emplace_back(p, config);
  for (const auto& b : config.narrowband) m.narrowband.emplace_back(b, config.obs);
  for (std::size_t i = 0; i < config.impulses.size(); ++i) {
    m.impulses.emplace_back(config.impulses[i], config, static_cast<std::uint32_t>(i));
  }
  m.chunk_rows = std::clamp<std::size_t>(kChunkValues / config.obs.values_per_sample(), 1, 4096);
  // Amplitudes given as a target S/N: the S/N is proportional to the amplitude.
  for (std::size_t i = 0; i < m.pulsars.size(); ++i) {
    const double target = config.pulsars[i].fold_snr;
    if (target <= 0.0) continue;
    m.pulsars[i].set_snrpeak(1.0);
    const double unit = expected_fold_snr(i);
    FASTPSR_EXPECTS(unit > 0.0, "pulsar {} is invisible (its profile is flat after smearing): cannot reach S/N {}",
                    i + 1, target);
    m.pulsars[i].set_snrpeak(target / unit);
    m.config.pulsars[i].snrpeak = target / unit;
  }
  for (std::size_t i = 0; i < m.pulses.size(); ++i) {
    const double target = config.pulses[i].snr;
    if (target <= 0.0) continue;
    m.pulses[i].set_fluence(1.0);
    m.pulses[i].set_fluence(target / expected_single_pulse_snr(i));
    m.config.pulses[i].fluence = m.pulses[i].fluence();
  }
}

FilterbankSimulator::~FilterbankSimulator() = default;

const SimConfig& FilterbankSimulator::config() const noexcept { return impl_->config; }

void FilterbankSimulator::fill(std::uint64_t first, std::size_t n, float* out) const {
  const Impl& m = *impl_;
  const auto pieces = m.make_pieces(first, n);
  const std::size_t stride = values_per_sample();
  const std::size_t nchunks = (n + m.chunk_rows - 1) / m.chunk_rows;
  parallel_chunks(nchunks, [&](std::size_t i) {
    const std::size_t k0 = i * m.chunk_rows;
    m.fill_chunk(pieces, first + k0, std::min(m.chunk_rows, n - k0), out + k0 * stride);
  });
}

void FilterbankSimulator::fill_packed(std::uint64_t first, std::size_t n, int nbits, OutputScale scale,
                                      std::uint8_t* out) const {
  const Impl& m = *impl_;
  const std::size_t stride = values_per_sample();
  FASTPSR_EXPECTS((stride * static_cast<std::size_t>(nbits)) % 8 == 0,
                  "nifs x nchans x nbits = {} x {} must be a whole number of bytes per sample", stride, nbits);
  const auto pieces = m.make_pieces(first, n);
  const std::size_t row_bytes = stride * static_cast<std::size_t>(nbits) / 8;
  const std::size_t nchunks = (n + m.chunk_rows - 1) / m.chunk_rows;
  std::vector<std::vector<float>> scratch(static_cast<std::size_t>(omp_get_max_threads()));
  parallel_chunks(nchunks, [&](std::size_t i) {
    auto& buf = scratch[static_cast<std::size_t>(omp_get_thread_num())];
    buf.resize(m.chunk_rows * stride);
    const std::size_t k0 = i * m.chunk_rows;
    const std::size_t rows = std::min(m.chunk_rows, n - k0);
    m.fill_chunk(pieces, first + k0, rows, buf.data());
    quantise(buf.data(), rows * stride, nbits, scale, out + k0 * row_bytes);
  });
}

const PhaseModel& FilterbankSimulator::pulsar_phase_model(std::size_t pulsar) const {
  return impl_->pulsars.at(pulsar).model();
}

double FilterbankSimulator::pulsar_delay_s(std::size_t pulsar, int c) const {
  return impl_->pulsars.at(pulsar).delay_s(c);
}

double FilterbankSimulator::pulsar_channel_signal(std::size_t pulsar, int c, double phase) const {
  const auto& p = impl_->pulsars.at(pulsar);
  return p.channel_amplitude(c) * p.recorded_profile(c, phase);
}

SigprocHeader make_fake_header(const Observation& obs, int nbits, const std::string& source_name, double refdm,
                               int machine_id, int telescope_id) {
  SigprocHeader h;
  h.source_name = source_name;
  h.machine_id = machine_id;
  h.telescope_id = telescope_id;
  h.data_type = obs.nchans > 1 ? 1 : 2;
  h.refdm = refdm;
  h.fch1 = obs.fch1_mhz;
  h.foff = obs.foff_mhz;
  h.nchans = obs.nchans;
  h.nbits = nbits;
  h.tstart = obs.tstart_mjd;
  h.tsamp = obs.tsamp_s;
  h.nifs = obs.nifs;
  h.keys = sigproc_fake_keys(h);
  return h;
}

void write_filterbank(const FilterbankSimulator& sim, ByteSink& sink, const WriteOptions& options) {
  const Observation& obs = sim.config().obs;
  if (options.write_header) write_sigproc_header(sink, options.header);
  const std::size_t row_bytes = packed_bytes(obs.values_per_sample(), options.nbits);
  const std::size_t rows = std::max<std::size_t>(1, options.block_bytes / row_bytes);
  std::vector<std::uint8_t> buffers[2];
  std::future<void> pending;
  std::uint64_t done = 0;
  for (int b = 0; done < obs.nsamples; b ^= 1) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(rows, obs.nsamples - done));
    auto& buf = buffers[b];
    buf.resize(n * row_bytes);
    sim.fill_packed(done, n, options.nbits, options.scale, buf.data());
    if (pending.valid()) pending.get();  // the other buffer is free again; rethrows write errors
    pending = std::async(std::launch::async, [&sink, &buf] { sink.write(buf.data(), buf.size()); });
    done += n;
    if (options.progress) options.progress(done);
  }
  if (pending.valid()) pending.get();
}

}  // namespace fastpsr::sim
