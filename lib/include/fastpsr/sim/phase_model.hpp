// SPDX-License-Identifier: MIT
#pragma once
/// Rotational phase of a simulated pulsar as a function of arrival time.
///
/// Times t are seconds from the start of the observation (the start of sample 0), as they
/// arrive at the reference frequency (dispersion is applied separately, per channel).
///
/// Physical law (the default): the pulsar emits with spin frequency
///   f_spin(te) = f + fdot (te - t_ref)
/// at emission time te; light reaches us at t = te + R(te) - R(0), where R is the Roemer delay
/// across the orbit (R = 0 without an orbit), so that te(0) = 0. The phase is
///   phi(t) = phase0 + f (te - t_ref) + fdot (te - t_ref)^2 / 2 - [same at te = 0],
/// which is exactly the integral of the Doppler-shifted frequency
///   f_app(t) = d phi / dt = f_spin(te) / (1 + v(te) / c),  v = c dR/dte (positive receding).
/// Without an orbit f_app(t) = f + fdot (t - t_ref): an accelerated search finds
/// fdot = z / T^2 (PRESTO's z) exactly.
///
/// SIGPROC law (`--sigproc-phase`): phi(t) = phase0 + t f_app(t), which is what SIGPROC fake
/// computes (phase = t / P(t)). Its frequency d phi / dt = f_app + t d f_app / dt makes the
/// apparent frequency derivative twice the physical one (and the mean frequency shifts by
/// fdot T / 2); kept only to reproduce files made by SIGPROC fake.
///
/// Orbit: Keplerian, Roemer delay only (no Einstein or Shapiro delay):
///   R(te) = x [sin(omega) (cos E - e) + sqrt(1 - e^2) cos(omega) sin E],
///   E - e sin E = 2 pi (te - T_peri) / Pb,
/// with x = a_p sin(i) / c the projected semi-major axis of the pulsar's orbit (light-seconds).
#include <optional>

namespace fastpsr::sim {

/// Keplerian orbit of the pulsar.
struct KeplerOrbit {
  double pb_s = 0.0;       ///< orbital period, s
  double x_lts = 0.0;      ///< projected semi-major axis a_p sin i / c, light-seconds
  double ecc = 0.0;        ///< eccentricity, 0 <= e < 1
  double omega_rad = 0.0;  ///< longitude of periastron, radians
  double t_peri_s = 0.0;   ///< time of periastron passage, s from the start of the observation

  /// From SIGPROC fake's parameters: the orbit of a pulsar of mass mp with a companion of mass
  /// mc (solar masses) at inclination incl_deg, with periastron at peri_phase * Pb after the
  /// start (SIGPROC's -bphase: the mean anomaly at the start is -2 pi bphase).
  /// x = (G (mp + mc) Pb^2 / (4 pi^2))^(1/3) mc / (mp + mc) sin(i) / c, with GM_sun =
  /// 1.32712440018e20 m^3 s^-2 (SIGPROC uses G M_sun = 6.672e-11 * 2e30, so its x is 0.18%
  /// larger). Error(invalid_argument) for non-positive period or masses, or e outside [0, 1).
  static KeplerOrbit from_masses(double pb_s, double ecc, double incl_deg, double omega_deg, double peri_phase,
                                 double mp_msun, double mc_msun);

  /// Roemer delay R(te), s.
  [[nodiscard]] double roemer_delay_s(double te) const;
  /// Line-of-sight velocity over c (positive: receding) at emission time te.
  [[nodiscard]] double velocity_over_c(double te) const;
  /// Eccentric anomaly at emission time te (Newton's method to 1e-15).
  [[nodiscard]] double eccentric_anomaly(double te) const;
};

enum class PhaseLaw { integrated, sigproc };

struct SpinModel {
  double f_hz = 0.0;     ///< spin frequency at t_ref (in the pulsar frame when there is an orbit)
  double fdot = 0.0;     ///< Hz/s
  double t_ref_s = 0.0;  ///< epoch of f, s from the start (emission time)
  double phase0 = 0.0;   ///< phase at t = 0, cycles
};

class PhaseModel {
 public:
  PhaseModel(SpinModel spin, std::optional<KeplerOrbit> orbit, PhaseLaw law);
  /// Rotational phase (cycles) at arrival time t.
  [[nodiscard]] double phase(double t) const;
  /// Apparent spin frequency f_app(t) of the physical model (Hz), whatever the law.
  [[nodiscard]] double apparent_frequency(double t) const;
  /// Emission time te(t) (s).
  [[nodiscard]] double emission_time(double t) const;
  [[nodiscard]] const SpinModel& spin() const noexcept { return spin_; }
  [[nodiscard]] const std::optional<KeplerOrbit>& orbit() const noexcept { return orbit_; }
  [[nodiscard]] PhaseLaw law() const noexcept { return law_; }

 private:
  [[nodiscard]] double spin_cycles(double te) const;
  SpinModel spin_;
  std::optional<KeplerOrbit> orbit_;
  PhaseLaw law_;
  double roemer0_ = 0.0;
  double cycles0_ = 0.0;
};

}  // namespace fastpsr::sim
