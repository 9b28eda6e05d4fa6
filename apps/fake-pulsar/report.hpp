// SPDX-License-Identifier: MIT
#pragma once
// What fake-pulsar injected and the S/N a search must recover: -v lines and --report JSON.
#include <nlohmann/json.hpp>
#include <string>

#include "fastpsr/sim/filterbank_simulator.hpp"
#include "fastpsr/sim/voltage_simulator.hpp"

namespace fastpsr::app {

/// The report as JSON: observation, output levels, and per source the injected parameters and
/// the expected S/N (in the written file, i.e. times the quantisation efficiency).
nlohmann::json fake_report(const sim::FilterbankSimulator& sim, int nbits, sim::OutputScale scale);
/// The same for voltage output: per pulsar the peak power and the coherent S/N.
nlohmann::json voltage_report(const sim::VoltageSimulator& sim, sim::VoltageFormat format, double scale);
/// Logs the report at -v.
void log_fake_report(const nlohmann::json& report);
/// Warns when a signal is bright enough to be clipped by the integer output.
void warn_if_clipped(const sim::FilterbankSimulator& sim, int nbits, sim::OutputScale scale);

}  // namespace fastpsr::app
