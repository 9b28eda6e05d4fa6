// SPDX-License-Identifier: MIT
#pragma once
// The problems `tune` times, built from the setup options of each subcommand, with their
// candidate spaces (the values bench/dedisp_gpu, bench/accel_gpu and bench/ppf sweep).
#include <string>
#include <vector>

#include "fastpsr/tuner.hpp"

namespace fastpsr::tune {

struct DedispSetupOptions {
  std::string setup;  ///< a benchmarks.md setup (fastpsr/dedisp_setups.hpp)
  std::string fil;    ///< or a filterbank whose header describes the data
  std::string dm;     ///< lo:hi:step with --fil; empty: the automatic plan of dedisp --dm-plan auto
  double dm_min = 0.0;
  double dm_max = 1000.0;
  int downsample = 1;
  bool zero_dm = false;  ///< dedisp --zero-dm: the dedisperser sees float32
  double seconds = 2.0;  ///< output per timed gulp
};
struct AccelSetupOptions {
  std::string setup;  ///< fdas-2m or fdas-8m (benchmarks.md: 2^21 or 2^23 samples of 64 us)
  std::string dat;    ///< or a PRESTO .dat/.fft whose .inf gives the length
  int zmax = 200;
  int numharm = 8;
  bool interbin = false;
  std::string plane = "auto";
};
struct PpfSetupOptions {
  int channels = 0;
  int taps = 8;  // ppf's default: a tuned entry of the defaults serves a default ppf run
  std::string format = "ci8";
  int npol = 1;
  int coarse = 1;
  bool complex_out = false;
  int nint = 1;
  std::string detect = "I";
  double samples = 1.34e8;  ///< complex input samples per timed run (bench/ppf's 2^27)
};

/// One target per DM range (the automatic plan has several; equal shapes once).
std::vector<TuneTarget> dedisp_targets(const DedispSetupOptions& o, int gpu, int repeats);
TuneTarget accel_target(const AccelSetupOptions& o, int gpu, int repeats);
TuneTarget ppf_target(const PpfSetupOptions& o, int gpu, int repeats);

}  // namespace fastpsr::tune
