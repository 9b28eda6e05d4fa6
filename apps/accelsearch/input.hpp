// SPDX-License-Identifier: MIT
#pragma once
/// Reading accelsearch's inputs: PRESTO .fft/.dat/.sdat with their .inf, and SIGPROC .tim.
#include <complex>
#include <string>
#include <vector>

#include "fastpsr/presto_inf.hpp"

namespace fastpsr::app {

struct AccelInput {
  std::string path;                      ///< as given
  std::string root;                      ///< output root: the path without .fft/.dat/.sdat/.tim
  std::vector<std::complex<float>> fft;  ///< PRESTO packed layout
  PrestoInf inf;                         ///< its .inf (made from the header for a .tim)
  std::string inf_text;                  ///< the .inf as it will be appended to the ACCEL file
  bool from_fft = false;                 ///< a .fft file (PRESTO writes .txtcand only then)
  bool inf_written = false;              ///< for a .tim, whether <root>.inf must be written beside the outputs
};

/// Reads one input and, for time series, FFTs it. Throws Error naming the file: missing or
/// unreadable .inf, a length that disagrees with the .inf, an empty series, NaN or infinite
/// samples, an unsupported SIGPROC file.
AccelInput read_accel_input(const std::string& path);

}  // namespace fastpsr::app
