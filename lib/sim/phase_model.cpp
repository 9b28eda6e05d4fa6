// SPDX-License-Identifier: MIT
#include "fastpsr/sim/phase_model.hpp"

#include <cmath>
#include <numbers>

#include "fastpsr/error.hpp"

namespace fastpsr::sim {
namespace {

constexpr double kGmSun = 1.32712440018e20;  // m^3 s^-2 (IAU nominal solar mass parameter)
constexpr double kSpeedOfLight = 299792458.0;
constexpr double kTwoPi = 2.0 * std::numbers::pi;

}  // namespace

KeplerOrbit KeplerOrbit::from_masses(double pb_s, double ecc, double incl_deg, double omega_deg, double peri_phase,
                                     double mp_msun, double mc_msun) {
  FASTPSR_EXPECTS(pb_s > 0.0 && std::isfinite(pb_s), "orbital period must be positive, got {} s", pb_s);
  FASTPSR_EXPECTS(ecc >= 0.0 && ecc < 1.0, "eccentricity must be in [0, 1), got {}", ecc);
  FASTPSR_EXPECTS(mp_msun > 0.0 && mc_msun > 0.0, "pulsar and companion masses must be positive, got {} and {}",
                  mp_msun, mc_msun);
  // x = a sin(i) is the projected semi-major axis: an inclination outside (0, 180) degrees would
  // make it negative (the orbit's sense is omega's business, not the sign of x).
  FASTPSR_EXPECTS(incl_deg > 0.0 && incl_deg < 180.0, "the inclination must be between 0 and 180 degrees, got {}",
                  incl_deg);
  const double mtot = mp_msun + mc_msun;
  const double a_m = std::cbrt(kGmSun * mtot * pb_s * pb_s / (kTwoPi * kTwoPi));
  KeplerOrbit o;
  o.pb_s = pb_s;
  o.ecc = ecc;
  o.x_lts = a_m * mc_msun / mtot * std::sin(incl_deg * std::numbers::pi / 180.0) / kSpeedOfLight;
  o.omega_rad = omega_deg * std::numbers::pi / 180.0;
  o.t_peri_s = peri_phase * pb_s;
  return o;
}

double KeplerOrbit::eccentric_anomaly(double te) const {
  double cycles = (te - t_peri_s) / pb_s;
  cycles -= std::floor(cycles + 0.5);  // mean anomaly in [-pi, pi)
  const double m = kTwoPi * cycles;
  if (ecc == 0.0) return m;
  double e = ecc < 0.8 ? m : (m < 0 ? -std::numbers::pi : std::numbers::pi);
  for (int i = 0; i < 50; ++i) {
    const double step = (e - ecc * std::sin(e) - m) / (1.0 - ecc * std::cos(e));
    e -= step;
    if (std::abs(step) < 1e-15) break;
  }
  return e;
}

double KeplerOrbit::roemer_delay_s(double te) const {
  const double e = eccentric_anomaly(te);
  return x_lts *
         (std::sin(omega_rad) * (std::cos(e) - ecc) + std::sqrt(1.0 - ecc * ecc) * std::cos(omega_rad) * std::sin(e));
}

double KeplerOrbit::velocity_over_c(double te) const {
  const double e = eccentric_anomaly(te);
  const double edot = kTwoPi / pb_s / (1.0 - ecc * std::cos(e));
  return x_lts * edot *
         (std::sqrt(1.0 - ecc * ecc) * std::cos(omega_rad) * std::cos(e) - std::sin(omega_rad) * std::sin(e));
}

PhaseModel::PhaseModel(SpinModel spin, std::optional<KeplerOrbit> orbit, PhaseLaw law)
    : spin_(spin), orbit_(orbit), law_(law) {
  FASTPSR_EXPECTS(spin.f_hz > 0.0 && std::isfinite(spin.f_hz), "spin frequency must be positive, got {} Hz", spin.f_hz);
  if (orbit_) {
    FASTPSR_EXPECTS(orbit_->pb_s > 0.0, "orbital period must be positive, got {} s", orbit_->pb_s);
    FASTPSR_EXPECTS(orbit_->ecc >= 0.0 && orbit_->ecc < 1.0, "eccentricity must be in [0, 1), got {}", orbit_->ecc);
    FASTPSR_EXPECTS(std::abs(orbit_->velocity_over_c(0.0)) < 0.1 && orbit_->x_lts >= 0.0,
                    "the orbit is not physical (x = {} lt-s, Pb = {} s: v/c above 0.1)", orbit_->x_lts, orbit_->pb_s);
    roemer0_ = orbit_->roemer_delay_s(0.0);
  }
  cycles0_ = spin_cycles(0.0);
}

double PhaseModel::spin_cycles(double te) const {
  const double tau = te - spin_.t_ref_s;
  return tau * (spin_.f_hz + 0.5 * spin_.fdot * tau);
}

double PhaseModel::emission_time(double t) const {
  if (!orbit_) return t;
  // Newton's method on te + R(te) - R(0) = t; |dR/dte| = |v/c| << 1 makes it converge at once.
  double te = t - (orbit_->roemer_delay_s(t) - roemer0_);
  for (int i = 0; i < 20; ++i) {
    const double residual = te + orbit_->roemer_delay_s(te) - roemer0_ - t;
    const double step = residual / (1.0 + orbit_->velocity_over_c(te));
    te -= step;
    if (std::abs(step) < 1e-13) break;
  }
  return te;
}

double PhaseModel::apparent_frequency(double t) const {
  const double te = emission_time(t);
  const double f_spin = spin_.f_hz + spin_.fdot * (te - spin_.t_ref_s);
  return orbit_ ? f_spin / (1.0 + orbit_->velocity_over_c(te)) : f_spin;
}

double PhaseModel::phase(double t) const {
  if (law_ == PhaseLaw::sigproc) return spin_.phase0 + t * apparent_frequency(t);
  return spin_.phase0 + (spin_cycles(emission_time(t)) - cycles0_);
}

}  // namespace fastpsr::sim
