// SPDX-License-Identifier: MIT
#pragma once
// fake-pulsar's command line: SIGPROC fake's options (also spelled with one dash) and ours.
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/tool_main.hpp"
#include "fastpsr/sim/sim_config.hpp"
#include "fastpsr/sim/source_spec.hpp"
#include "fastpsr/sim/voltage_simulator.hpp"

namespace fastpsr::app {

struct FakeOptions {
  CommonOptions common;
  // Observation (SIGPROC defaults).
  int nchans = 128;
  double fch1_mhz = 433.968;
  double foff_mhz = -0.062;
  double tsamp_us = 80.0;
  bool tsamp_given = false;  // SIGPROC's default is the literal 80.0e-6, a given one tsamp * 1e-6
  double tobs_s = 10.0;
  std::optional<std::uint64_t> nsamples;
  double tstart_mjd = 50000.0;
  int nbits = 4;
  int nifs = 1;
  // The pulsar of -period (SIGPROC's one pulsar).
  sim::PulsarOptions pulsar;
  std::string profile = "boxcar";
  bool sigproc_phase = false;
  // More sources.
  std::vector<std::string> psr;
  std::vector<std::string> frb;
  std::vector<std::string> rfi_narrowband;
  std::vector<std::string> rfi_impulses;
  std::vector<std::string> rfi_impulse;
  std::vector<std::string> rfi_periodic;
  // Noise, smearing, output.
  std::optional<std::uint64_t> seed;
  bool no_noise = false;
  std::string smear = "sigproc";
  bool nosmear = false;
  std::string delay_model = "presto";
  std::optional<double> mean;
  std::optional<double> rms;
  std::string output = "-";
  bool headerless = false;
  std::optional<std::string> source_name;
  int machine_id = 10;
  int telescope_id = 4;
  int threads = 0;
  std::string report;
  // Voltage mode.
  bool voltages = false;
  double freq_mhz = 1400.0;
  double bw_mhz = 16.0;
  int npol = 1;
  std::string vformat = "ci8";
  std::vector<std::string> tones;
  bool raw = false;
  // SIGPROC options we refuse with a reason.
  bool swapout = false;
  bool evenodd = false;
  std::optional<double> rednoise;
};

/// Every long option name of `app`: one dash works for all of them (SIGPROC fake's users type
/// -period, -nsamples alike), so each is also accepted as -name (normalize_single_dash).
std::vector<std::string> single_dash_names(const CLI::App& app);
/// Declares every option of fake-pulsar on `app`.
void add_fake_options(CLI::App& app, FakeOptions& o);
/// usage_error() when an option of the other mode (filterbank or --voltages) is given.
void check_mode_options(const CLI::App& app, const FakeOptions& o);
/// usage_error() when an option of the --period pulsar is given without --period.
void check_pulsar_options(const CLI::App& app, const FakeOptions& o);
/// The simulator's configuration; usage_error() for inconsistent options.
sim::SimConfig build_config(const FakeOptions& o);
/// The voltage simulator's configuration (--voltages).
sim::VoltageConfig build_voltage_config(const FakeOptions& o);
/// source_name as SIGPROC fake writes it ("P: 4.837200000000 ms, DM: 62.500"), or --source-name.
std::string source_name(const FakeOptions& o);
/// SOURCE of the DADA header: one word (DADA readers take the first word), so spaces become
/// underscores; by default "fake_P<ms>_DM<dm>".
std::string voltage_source_name(const FakeOptions& o);

}  // namespace fastpsr::app
