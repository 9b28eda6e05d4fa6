// SPDX-License-Identifier: MIT
#include "fastpsr/presto_fft.hpp"

#include <fftw3.h>

#include <cstring>
#include <mutex>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/fftw_lock.hpp"

namespace fastpsr {

std::vector<std::complex<float>> presto_realfft(std::span<const float> x) {
  const std::size_t n = x.size();
  FASTPSR_EXPECTS(n >= 2 && n % 2 == 0, "real FFT: the series length must be even and >= 2, got {}", n);
  const std::size_t half = n / 2;
  std::vector<float> in(x.begin(), x.end());
  std::vector<std::complex<float>> out(half + 1);
  fftwf_plan plan = nullptr;
  {
    const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    plan = fftwf_plan_dft_r2c_1d(static_cast<int>(n), in.data(), reinterpret_cast<fftwf_complex*>(out.data()),
                                 FFTW_ESTIMATE);
  }
  FASTPSR_ASSERT(plan != nullptr);
  fftwf_execute(plan);
  {
    const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    fftwf_destroy_plan(plan);
  }
  out[0] = {out[0].real(), out[half].real()};
  out.resize(half);
  return out;
}

std::vector<std::complex<float>> read_presto_fft(const std::string& path) {
  // Read straight into the bins, from a file of known size: a .fft that is /dev/zero or a FIFO
  // would otherwise grow memory without bound.
  auto src = open_source(path);
  const auto size = src->size();
  if (!size) {
    throw Error(ErrorCode::format, "not a regular file: a PRESTO .fft is read from a file of known size", path);
  }
  if (*size == 0 || *size % sizeof(std::complex<float>) != 0) {
    throw Error(
        ErrorCode::format,
        fmt::format("a PRESTO .fft holds complex float32 pairs (8 bytes each), but the file has {} bytes", *size),
        path);
  }
  std::vector<std::complex<float>> bins(static_cast<std::size_t>(*size / sizeof(std::complex<float>)));
  src->read_exact(bins.data(), static_cast<std::size_t>(*size), "data");
  return bins;
}

void write_presto_fft(const std::string& path, std::span<const std::complex<float>> bins) {
  auto sink = open_sink(path);
  sink->write(bins.data(), bins.size_bytes());
  sink->commit();
}

}  // namespace fastpsr
