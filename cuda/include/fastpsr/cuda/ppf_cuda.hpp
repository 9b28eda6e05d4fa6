// SPDX-License-Identifier: MIT
#pragma once
/// The CUDA channeliser. Per gulp: the input goes up once (pinned staging), the FIR kernel (the
/// paper's cache or shared-memory kernel or the register kernel, int8/int16/float32 unpacked in
/// the kernel) writes the filtered spectra of a chunk, then either cuFFT writes the complex rows
/// straight into the output (its strides put every spectrum in its row) or, for power output,
/// one fused kernel transforms in registers and shared memory and integrates in registers (or
/// cuFFT transforms in place and a detection kernel integrates); only the output comes down.
/// For complex output, fft=cluster runs FIR and FFT in one kernel instead (see ppf_kernels.cuh).
///
/// --gpu-config keys (run-time, for the tuner):
///   fir=register|cache|shared  FIR kernel: register (the cache kernel with the taps compiled
///                      in: T = 4, 8, 16, 32, 64; the default there), cache (the paper's
///                      Algorithm 2), shared (Algorithm 3; the default for other T when its
///                      tile fits in shared memory, else cache)
///   cb=N               channels per FIR block (register/cache: threads, default 128; shared:
///                      blockDim.x, a multiple of 32, default 32)
///   sb=N               spectra per FIR block (register: per thread, 4 8 16, default 8; cache:
///                      per thread, 1 2 4 8 16 32, default 8; shared: per block, default 32)
///   ry=N               shared kernel: spectra per thread, 1 2 4 8 (default 4; sb/ry rows of threads)
///   chunk=N            filtered spectra per coarse channel per FIR+FFT chunk (default: 2^24
///                      samples over all coarse channels (2^25 for power output) or a third of
///                      the L2 cache, whichever is more, at most one push; whole rows for power
///                      output)
///   fft=fused|cufft    power output: FFT and detection in one kernel (register-blocked Stockham
///                      FFT in shared memory, sums in registers; the default where C is a power
///                      of two from 256 to 4096), or cuFFT in place then a detection kernel
///   fft=cluster        complex output: FIR and FFT in one kernel, a thread-block cluster of
///                      8 blocks per FFT (sm_90+, C = 1024, 2048, 4096, T = 4, 8, 16)
///   seg=N              fft=fused: spectra per block (default 16, halved while a chunk would have
///                      fewer than 1.5 blocks per SM); a row's segments are summed in order by a
///                      second kernel
///   radix=8|16         fft=fused: points per thread of the FFT (default 16 for C >= 2048 except
///                      IQUV, else 8; 16 needs C >= 1024)
#include <cstddef>
#include <memory>
#include <string>

#include "fastpsr/ppf.hpp"

namespace fastpsr::cuda {

/// The channeliser on GPU `device`. Throws Error(invalid_argument) for a bad --gpu-config,
/// Error(resource) when the GPU lacks memory, Error(device) for a CUDA or cuFFT failure.
std::unique_ptr<Channeliser> make_channeliser(const ChanneliserPlan& plan, const ChanneliserOptions& options,
                                              int device);

/// Benchmark support (bench/ppf): the device-resident PPF without the host link.
struct PpfDeviceTiming {
  double total_ms = 0.0;   ///< median of the repeats: the whole PPF (FIR, FFT, detection)
  double fir_ms = 0.0;     ///< FIR kernel launches alone (same chunks)
  double fft_ms = 0.0;     ///< cuFFT calls alone
  double detect_ms = 0.0;  ///< detection kernels alone (power output)
  std::size_t rows = 0;    ///< output rows per run
  std::string config;      ///< the kernel configuration used
};
/// Runs the PPF of `plan` over `nspectra` filtered spectra per coarse channel of pseudo-random
/// input made on the device, `repeats` times after a warm-up, timed with CUDA events; with
/// `split_stages` the FIR, FFT and detection stages are also timed alone.
PpfDeviceTiming benchmark_device_ppf(const ChanneliserPlan& plan, const ChanneliserOptions& options, int device,
                                     std::size_t nspectra, int repeats, bool split_stages);
/// Device-to-device copy bandwidth, bytes read plus written per second (median of `repeats`
/// copies of `bytes`).
double measure_copy_bandwidth(int device, std::size_t bytes, int repeats);

}  // namespace fastpsr::cuda
