// SPDX-License-Identifier: MIT
#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>

#include "fastpsr/error.hpp"
#include "fastpsr/ppf.hpp"

namespace fastpsr {
namespace {

// exp(2πi·num/den) with the quadrant points (multiples of π/2) exact, so that the ±1 factors
// of an fftshift introduce no rounding at all.
void unit_phase(std::int64_t num, std::int64_t den, float& re, float& im) {
  num %= den;
  if ((4 * num) % den == 0) {
    const auto quadrant = (4 * num) / den;
    constexpr float kRe[4] = {1.0F, 0.0F, -1.0F, 0.0F};
    constexpr float kIm[4] = {0.0F, 1.0F, 0.0F, -1.0F};
    re = kRe[quadrant];
    im = kIm[quadrant];
    return;
  }
  const double angle = 2.0 * std::numbers::pi * static_cast<double>(num) / static_cast<double>(den);
  re = static_cast<float>(std::cos(angle));
  im = static_cast<float>(std::sin(angle));
}

std::string upper(std::string_view s) {
  std::string u(s);
  for (auto& ch : u) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return u;
}

}  // namespace

VoltageType parse_voltage_type(std::string_view text) {
  if (text == "ci8") return VoltageType::ci8;
  if (text == "ci16") return VoltageType::ci16;
  if (text == "cf32") return VoltageType::cf32;
  throw Error(ErrorCode::invalid_argument,
              fmt::format("--format '{}' is not one of ci8, ci16, cf32 (complex int8, int16, float32)", text));
}

std::string_view to_string(VoltageType t) {
  switch (t) {
    case VoltageType::ci8:
      return "ci8";
    case VoltageType::ci16:
      return "ci16";
    case VoltageType::cf32:
      return "cf32";
  }
  return "?";
}

std::size_t component_bytes(VoltageType t) {
  switch (t) {
    case VoltageType::ci8:
      return 1;
    case VoltageType::ci16:
      return 2;
    case VoltageType::cf32:
      return 4;
  }
  return 1;
}

Detection parse_detection(std::string_view text) {
  const std::string u = upper(text);
  if (u == "I") return Detection::I;
  if (u == "AA") return Detection::AA;
  if (u == "BB") return Detection::BB;
  if (u == "IQUV") return Detection::IQUV;
  throw Error(ErrorCode::invalid_argument, fmt::format("--detect '{}' is not one of I, AA, BB, IQUV", text));
}

std::string_view to_string(Detection d) {
  switch (d) {
    case Detection::I:
      return "I";
    case Detection::AA:
      return "AA";
    case Detection::BB:
      return "BB";
    case Detection::IQUV:
      return "IQUV";
  }
  return "?";
}

int detection_nifs(Detection d) { return d == Detection::IQUV ? 4 : 1; }

std::uint64_t ChanneliserPlan::rows_for_samples(std::uint64_t nsamples) const noexcept {
  const std::uint64_t raw = nsamples / static_cast<std::uint64_t>(problem.nchans);
  const auto history = static_cast<std::uint64_t>(problem.ntaps - 1);
  if (raw <= history) return 0;
  return (raw - history) / static_cast<std::uint64_t>(spectra_per_row());
}

int ChanneliserPlan::coarse_of(std::size_t o) const noexcept {
  const int f_out = static_cast<int>(o / static_cast<std::size_t>(problem.nchans));
  return problem.descending ? problem.ncoarse - 1 - f_out : f_out;
}

int ChanneliserPlan::bin_of(std::size_t o) const noexcept {
  const int c = problem.nchans;
  const int j = static_cast<int>(o % static_cast<std::size_t>(c));
  const int h = c / 2;
  const int k = problem.descending ? c - 1 - j - h : j - h;
  return ((k % c) + c) % c;
}

ChanneliserPlan make_channeliser_plan(const ChanneliserProblem& p) {
  FASTPSR_EXPECTS(p.nchans >= 1 && p.nchans <= (1 << 26), "--channels must be in 1 ... 2^26, got {}", p.nchans);
  FASTPSR_EXPECTS(p.ntaps >= 1 && p.ntaps <= 4096, "--taps must be in 1 ... 4096, got {}", p.ntaps);
  FASTPSR_EXPECTS(p.ncoarse >= 1, "the input must have at least one channel, got {}", p.ncoarse);
  FASTPSR_EXPECTS(p.npol == 1 || p.npol == 2, "the number of polarisations must be 1 or 2, got {}", p.npol);
  FASTPSR_EXPECTS(p.nint >= 1, "--nint must be >= 1, got {}", p.nint);
  if (p.output == PpfOutput::power && p.npol == 1) {
    FASTPSR_EXPECTS(p.detection == Detection::I || p.detection == Detection::AA,
                    "--detect {} needs two polarisations; the input has one", to_string(p.detection));
  }
  const std::size_t ncoeff = static_cast<std::size_t>(p.nchans) * static_cast<std::size_t>(p.ntaps);
  ChanneliserPlan plan;
  plan.problem = p;
  if (p.coeffs.empty()) {
    plan.coeffs = design_ppf_coeffs(p.nchans, p.ntaps, p.window, p.fwidth);
  } else {
    FASTPSR_EXPECTS(p.coeffs.size() == ncoeff, "{} coefficients given; {} channels x {} taps need {}", p.coeffs.size(),
                    p.nchans, p.ntaps, ncoeff);
    FASTPSR_EXPECTS(std::all_of(p.coeffs.begin(), p.coeffs.end(), [](float v) { return std::isfinite(v); }),
                    "the coefficients contain a NaN or infinity");
    plan.coeffs = p.coeffs;
  }
  plan.problem.coeffs.clear();  // the plan's copy is plan.coeffs
  const std::int64_t c = p.nchans;
  const std::int64_t m = c / 2 + (p.descending ? 1 : 0);
  plan.inverse_fft = p.descending;
  plan.phase.resize(2 * static_cast<std::size_t>(c));
  for (std::int64_t i = 0; i < c; ++i) {
    unit_phase(m * i, c, plan.phase[static_cast<std::size_t>(2 * i)], plan.phase[static_cast<std::size_t>(2 * i + 1)]);
  }
  return plan;
}

}  // namespace fastpsr
