// SPDX-License-Identifier: MIT
// The PRESTO .inf parser on arbitrary text; what it accepts must survive a write and re-read
// (to the precision of PRESTO's formats: %.15g for the bin width, %.12g for the DM).
#include <cmath>
#include <cstdint>
#include <string>

#include "fastpsr/error.hpp"
#include "fastpsr/presto_inf.hpp"

namespace {
bool close(double a, double b, double rel) { return std::fabs(a - b) <= rel * std::fabs(a) || (a != a && b != b); }
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fastpsr;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const PrestoInf inf = parse_inf(text, "fuzz.inf");
    const PrestoInf again = parse_inf(format_inf(inf), "again.inf");
    if (again.N != inf.N || !close(again.dt, inf.dt, 1e-14)) __builtin_trap();
    // Artificial data sets have no epoch line, and only radio data have a DM line (PRESTO's
    // writer leaves them out).
    if (!inf.artificial() && again.mjd_i != inf.mjd_i) __builtin_trap();
    if (!inf.artificial() && inf.band == "Radio" && !close(again.dm, inf.dm, 1e-11)) __builtin_trap();
  } catch (const Error&) {
  }
  return 0;
}
