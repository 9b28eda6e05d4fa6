// SPDX-License-Identifier: MIT
#include "options.hpp"

#include <cmath>

#include "common/option_checks.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/log.hpp"

namespace fastpsr::app {
namespace {

// The options that describe the pulsar of --period (an error without --period: they would
// silently inject nothing).
const std::vector<std::string> kPulsarOptions = {
    "--dm",   "--width",  "--snrpeak", "--fold-snr", "--peak-power", "--profile",        "--phase",
    "--pdot", "--accn",   "--fdot",    "--z",        "--binary",     "--bper",           "--becc",
    "--binc", "--bomega", "--bphase",  "--bpmass",   "--bcmass",     "--spectral-index", "--sigproc-phase"};

std::uint64_t sigproc_sample_count(double tobs_s, double tsamp_s) {
  // SIGPROC fake writes blocks of 512 samples until its clock, tsamp added once a sample in
  // double, reaches tobs (at least one block). Where tobs is a whole number of blocks the sum's
  // rounding decides whether one more block is written (-tsamp 64 -tobs 0.098304: 4 blocks, not
  // 3; QA pass 18), so the clock is run as fake runs it up to 2^27 samples (a fraction of a
  // second); beyond, the count is the exact quotient's.
  constexpr double kBlock = 512.0;
  const double blocks = std::max(1.0, std::ceil(tobs_s / (kBlock * tsamp_s) - 1e-9));
  if (blocks * kBlock <= 0x1p27) {
    double faketime = 0.0;
    std::uint64_t n = 0;
    do {
      for (int s = 0; s < 512; ++s) faketime += tsamp_s;
      n += 512;
    } while (faketime < tobs_s);
    return n;
  }
  return static_cast<std::uint64_t>(blocks) * 512U;
}

// The most samples --tobs may ask for: past 2^64 - 1 the count wrapped to 0 (a header-only
// file, which --tobs 0 is refused for).
constexpr double kMaxSamples = 0x1p63;

// Values that overflow the float32 output (NaN and infinite samples): these bounds keep mean +
// rms x signal below 1e37.
constexpr double kMaxLevel = 1e30;                // --mean, --rms: output units
constexpr double kMaxSnr = sim::kMaxSourceSnr;    // --snrpeak, --fold-snr (and --psr's, source_spec.hpp)
constexpr double kMaxPower = sim::kMaxPeakPower;  // --peak-power (the square of an S/N)

}  // namespace

std::vector<std::string> single_dash_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back(name);
  }
  return names;
}

void add_fake_options(CLI::App& app, FakeOptions& o) {
  const std::string obs = "Observation (SIGPROC fake's options and defaults; every option also works with one dash)";
  app.add_option("--nchans", o.nchans, "Number of channels")
      ->capture_default_str()
      ->check(number_in(1, kNoLimit, "give 1 channel or more"))
      ->group(obs);
  app.add_option("--fch1", o.fch1_mhz, "Centre frequency of channel 0, MHz")->capture_default_str()->group(obs);
  app.add_option("--foff", o.foff_mhz, "Channel width, MHz (made negative: channel 0 is the highest, as SIGPROC does)")
      ->capture_default_str()
      ->group(obs);
  app.add_option("--tsamp", o.tsamp_us, "Sample time, microseconds")->capture_default_str()->group(obs);
  app.add_option("--tobs", o.tobs_s, "Observation length, s (rounded up to whole blocks of 512 samples, as SIGPROC)")
      ->capture_default_str()
      ->group(obs);
  app.add_option("--nsamples", o.nsamples, "Exact number of samples (instead of --tobs)")->group(obs);
  app.add_option("--tstart", o.tstart_mjd, "MJD of the first sample (header only)")->capture_default_str()->group(obs);
  app.add_option("--nbits", o.nbits, "Bits per sample: 1, 2, 4, 8, 16 or 32")->capture_default_str()->group(obs);
  app.add_option("--nifs", o.nifs, "Number of IFs (the same signal, independent noise)")
      ->capture_default_str()
      ->group(obs);

  const std::string psr = "The pulsar (SIGPROC fake's options)";
  auto& p = o.pulsar;
  app.add_option("--period", p.period_ms, "Period, ms (no pulsar without it)")->group(psr);
  app.add_option("--dm", p.dm, "Dispersion measure, pc cm^-3")->capture_default_str()->group(psr);
  app.add_option("--width", p.width_percent, "Pulse width, percent of the period (FWHM for gaussian/vonmises)")
      ->capture_default_str()
      ->group(psr);
  app.add_option("--snrpeak", p.snrpeak,
                 "Peak S/N of one pulse in the dedispersed time series (per channel: snrpeak/sqrt(nchans))")
      ->capture_default_str()
      ->check(number_in(0, kMaxSnr, "give an S/N of 0 to 1e6"))
      ->group(psr);
  // 0 or less read as "not given": the pulsar was injected at --snrpeak's default instead.
  app.add_option("--fold-snr", p.fold_snr, "Instead of --snrpeak: the S/N after ideal dedispersion and folding")
      ->check(number_in(0, kMaxSnr, "give an S/N above 0 and at most 1e6", Ends::above_lo))
      ->group(psr);
  app.add_option("--profile", o.profile, "Pulse shape: boxcar (SIGPROC's), gaussian or vonmises")
      ->capture_default_str()
      ->group(psr);
  app.add_option("--phase", p.phase, "Rotational phase at the start, cycles (the pulse peaks at phase 0.5)")
      ->group(psr);
  app.add_option("--pdot", p.pdot, "Period derivative, s/s (period given at the start)")->group(psr);
  app.add_option("--accn", p.accn,
                 "Line-of-sight acceleration, m/s^2, positive away from us (fdot = -accn f/c; period given at "
                 "the middle)")
      ->group(psr);
  app.add_option("--fdot", p.fdot, "Frequency derivative, Hz/s (period given at the middle)")->group(psr);
  app.add_option("--z", p.z, "PRESTO's z = fdot T^2, Fourier bins drifted over the observation")->group(psr);
  // Pulsars' indices lie between about -4 and 1; 1e300 gave NaN samples.
  app.add_option("--spectral-index", p.spectral_index, "Amplitude ~ f^index (mean 1 over the band), -10 to 10")
      ->check(number_in(-sim::kMaxSpectralIndex, sim::kMaxSpectralIndex, "give an index of -10 to 10"))
      ->group(psr);
  app.add_flag("--sigproc-phase", o.sigproc_phase,
               "Phase = t f(t) as SIGPROC fake (doubles the apparent fdot); default: the integral of f(t)")
      ->group(psr);

  const std::string orbit = "Binary orbit (SIGPROC fake's options and defaults)";
  app.add_flag("--binary", p.binary, "Put the pulsar in a Keplerian orbit")->group(orbit);
  app.add_option("--bper", p.bper_h, "Orbital period, hours")->capture_default_str()->group(orbit);
  app.add_option("--becc", p.becc, "Eccentricity")->capture_default_str()->group(orbit);
  app.add_option("--binc", p.binc_deg, "Inclination, degrees")->capture_default_str()->group(orbit);
  app.add_option("--bomega", p.bomega_deg, "Longitude of periastron, degrees")->capture_default_str()->group(orbit);
  app.add_option("--bphase", p.bphase, "Periastron at bphase x Pb after the start (mean anomaly -2 pi bphase)")
      ->capture_default_str()
      ->group(orbit);
  app.add_option("--bpmass", p.bpmass, "Pulsar mass, solar masses")->capture_default_str()->group(orbit);
  app.add_option("--bcmass", p.bcmass, "Companion mass, solar masses")->capture_default_str()->group(orbit);

  const std::string more = "More sources (repeatable; key=value,...; see the man page)";
  app.add_option("--psr", o.psr, "Another pulsar: period=ms|f=Hz,dm=,width=%,snrpeak=|snr=,profile=,accn=|z=,...")
      ->group(more);
  app.add_option("--frb", o.frb, "A single dispersed pulse: time=s,dm=,width=ms,fluence=|snr=,scatter=ms,...")
      ->group(more);
  app.add_option("--rfi-narrowband", o.rfi_narrowband, "Persistent narrowband RFI: freq=MHz,amp=rms[,width=MHz]")
      ->group(more);
  app.add_option("--rfi-impulses", o.rfi_impulses, "Random broadband impulses: rate=Hz,amp=rms[,width=ms]")
      ->group(more);
  app.add_option("--rfi-impulse", o.rfi_impulse, "One broadband impulse: time=s,amp=rms[,width=ms]")->group(more);
  app.add_option("--rfi-periodic", o.rfi_periodic,
                 "Periodic interferer at DM 0: period=ms|f=Hz,amp=rms[,duty=%,fmin=MHz,fmax=MHz]")
      ->group(more);

  const std::string noise = "Noise, smearing and output";
  // Unsigned: CLI11 alone took -1 as seed 18446744073709551615 (QA pass 20).
  app.add_option("--seed", o.seed, "Random seed (default: from the system; -v prints it)")
      ->check(not_negative())
      ->group(noise);
  app.add_flag("--no-noise", o.no_noise, "Signals only, no noise")->group(noise);
  app.add_option("--smear", o.smear,
                 "sigproc (SIGPROC fake's widened pulse), full (the mean over each sample and each channel's "
                 "dispersion sweep: what a filterbank records) or none (point samples)")
      ->capture_default_str()
      ->group(noise);
  app.add_flag("--nosmear", o.nosmear, "Same as --smear none (SIGPROC's -nosmear)")->group(noise);
  app.add_option("--delay-model", o.delay_model, "Dispersion constant and reference: presto or sigproc")
      ->capture_default_str()
      ->group(noise);
  app.add_option("--mean", o.mean, "Output value of zero signal (default by nbits: 127.5 for 8 bits...)")
      ->check(number_in(-kMaxLevel, kMaxLevel, "give a level of -1e30 to 1e30"))
      ->group(noise);
  app.add_option("--rms", o.rms, "Output units per noise rms (default by nbits: 31.875 for 8 bits...)")
      ->check(number_in(0, kMaxLevel, "give a scale above 0 and at most 1e30", Ends::above_lo))
      ->group(noise);
  app.add_option("-o,--output", o.output, "Output file; - is stdout")->capture_default_str()->group(noise);
  app.add_flag("--headerless", o.headerless, "Write the data without a header")->group(noise);
  app.add_option("--source-name", o.source_name, "source_name in the header (default as SIGPROC fake)")->group(noise);
  app.add_option("--machine-id", o.machine_id, "machine_id in the header")
      ->capture_default_str()
      ->check(not_negative())
      ->group(noise);
  app.add_option("--telescope-id", o.telescope_id, "telescope_id in the header")
      ->capture_default_str()
      ->check(not_negative())
      ->group(noise);
  app.add_option("--threads", o.threads, "CPU threads (0: all; at most 1024)")
      ->capture_default_str()
      ->check(thread_count())
      ->group(noise);
  app.add_option("--report", o.report,
                 "Write what was injected and the S/N a search must recover (JSON; the RFI is not in it)")
      ->group(noise);

  const std::string volt = "Voltage mode: complex baseband of one band, as a PSRDADA stream";
  app.add_flag("--voltages", o.voltages,
               "Write complex voltages (noise, tones, coherently dispersed pulsars) instead of a filterbank")
      ->group(volt);
  app.add_option("--freq", o.freq_mhz, "Centre frequency of the band, MHz")->capture_default_str()->group(volt);
  app.add_option("--bw", o.bw_mhz, "Bandwidth = complex sample rate, MHz")->capture_default_str()->group(volt);
  app.add_option("--npol", o.npol, "Polarisations: 1 or 2")->capture_default_str()->group(volt);
  app.add_option("--vformat", o.vformat, "Sample format: ci8, ci16 or cf32")->capture_default_str()->group(volt);
  app.add_option("--tone", o.tones, "A tone: freq=MHz,amp=rms[,phase=deg] (repeatable)")->group(volt);
  app.add_option("--peak-power", o.pulsar.peak_power,
                 "Pulsar power / noise power at the pulse peak (or --fold-snr: the coherent S/N)")
      ->check(number_in(0, kMaxPower, "give a power ratio above 0 and at most 1e12", Ends::above_lo))
      ->group(volt);
  app.add_flag("--raw", o.raw, "No DADA header: the samples only")->group(volt);

  // SIGPROC options that we do not implement, accepted only to explain why.
  app.add_flag("--swapout", o.swapout)->group("");
  app.add_flag("--evenodd", o.evenodd)->group("");
  app.add_option("--rednoise", o.rednoise)->group("");
  add_common_options(app, o.common, false);
}

void check_mode_options(const CLI::App& app, const FakeOptions& o) {
  static const std::vector<std::string> filterbank_only = {
      "--nchans",  "--fch1",           "--foff",           "--tsamp",       "--nbits",        "--nifs",
      "--frb",     "--rfi-narrowband", "--rfi-impulses",   "--rfi-impulse", "--rfi-periodic", "--smear",
      "--nosmear", "--snrpeak",        "--spectral-index", "--headerless",  "--mean",         "--machine-id"};
  static const std::vector<std::string> voltage_only = {"--freq", "--bw",         "--npol", "--vformat",
                                                        "--tone", "--peak-power", "--raw"};
  for (const auto& name : o.voltages ? filterbank_only : voltage_only) {
    if (app.count(name) > 0) {
      usage_error(o.voltages ? fmt::format("{} is a filterbank option: it has no meaning with --voltages", name)
                             : fmt::format("{} is for voltage output: add --voltages", name));
    }
  }
  if (!o.voltages) {
    for (const auto& s : o.psr) {
      if (s.find("power=") != std::string::npos) usage_error("--psr: power= is for voltage output (--voltages)");
    }
  } else {
    for (const auto& s : o.psr) {
      if (s.find("snrpeak=") != std::string::npos) {
        usage_error("--psr: snrpeak= has no meaning with --voltages: give power= or snr=");
      }
    }
  }
}

void check_pulsar_options(const CLI::App& app, const FakeOptions& o) {
  if (app.count("--snrpeak") > 0 && app.count("--fold-snr") > 0) {
    usage_error("give the pulsar's strength once: --snrpeak (peak S/N a sample) or --fold-snr (folded S/N)");
  }
  if (o.pulsar.period_ms) return;
  for (const auto& name : kPulsarOptions) {
    if (app.count(name) > 0) {
      usage_error(
          fmt::format("{} describes the pulsar of --period, but no --period was given (use --psr for "
                      "more pulsars)",
                      name));
    }
  }
}

sim::SimConfig build_config(const FakeOptions& o) {
  if (o.swapout) usage_error("-swapout (big-endian output) is not supported: every reader expects little-endian");
  if (o.evenodd) usage_error("-evenodd (SIGPROC's channel test pattern) is not supported");
  if (o.rednoise) usage_error("-rednoise is not supported (it has no effect in SIGPROC fake either)");
  sim::SimConfig c;
  c.obs.nchans = o.nchans;
  c.obs.nifs = o.nifs;
  c.obs.fch1_mhz = o.fch1_mhz;
  // SIGPROC fake makes channel 0 the highest frequency whatever the sign given.
  c.obs.foff_mhz = -std::abs(o.foff_mhz);
  if (!(o.tsamp_us > 0.0) || !std::isfinite(o.tsamp_us))
    usage_error(fmt::format("--tsamp must be positive, got {}", o.tsamp_us));
  // SIGPROC's arithmetic, for an identical header: its default is the constant 80.0e-6, one bit
  // above 1e-6 * 80 (QA pass 18).
  c.obs.tsamp_s = o.tsamp_given ? 1.0e-6 * o.tsamp_us : 80.0e-6;
  c.obs.tstart_mjd = o.tstart_mjd;
  if (o.nsamples) {
    // As --tobs 0 is refused: zero samples would be a header-only file.
    if (*o.nsamples == 0) usage_error("--nsamples must be positive, got 0");
    c.obs.nsamples = *o.nsamples;
  } else {
    if (!(o.tobs_s > 0.0) || !std::isfinite(o.tobs_s))
      usage_error(fmt::format("--tobs must be positive, got {}", o.tobs_s));
    if (!(o.tobs_s / c.obs.tsamp_s <= kMaxSamples)) {
      usage_error(fmt::format("--tobs: {} is out of range: {:.3g} samples of {} us, more than the 2^63 a file may hold",
                              o.tobs_s, o.tobs_s / c.obs.tsamp_s, o.tsamp_us));
    }
    c.obs.nsamples = sigproc_sample_count(o.tobs_s, c.obs.tsamp_s);
  }
  if (o.nbits != 1 && o.nbits != 2 && o.nbits != 4 && o.nbits != 8 && o.nbits != 16 && o.nbits != 32) {
    usage_error(fmt::format("--nbits must be 1, 2, 4, 8, 16 or 32, got {}", o.nbits));
  }
  if ((static_cast<long long>(o.nchans) * o.nifs * o.nbits) % 8 != 0) {
    usage_error(fmt::format("nchans x nifs x nbits = {} x {} x {} is not a whole number of bytes per sample", o.nchans,
                            o.nifs, o.nbits));
  }
  c.seed = o.seed.value_or(0);
  c.noise = !o.no_noise;
  c.smearing = o.nosmear ? sim::Smearing::none : sim::parse_smearing(o.smear);
  c.delay_model = parse_delay_model(o.delay_model);
  const double tobs = c.obs.duration_s();
  if (o.pulsar.period_ms) {
    sim::PulsarOptions p = o.pulsar;
    p.shape = sim::parse_profile_shape(o.profile);
    p.law = o.sigproc_phase ? sim::PhaseLaw::sigproc : sim::PhaseLaw::integrated;
    c.pulsars.push_back(sim::make_pulsar_spec(p, tobs));
  }
  for (const auto& s : o.psr) c.pulsars.push_back(sim::make_pulsar_spec(sim::parse_pulsar_options(s), tobs));
  for (const auto& s : o.rfi_periodic) c.pulsars.push_back(sim::parse_periodic_rfi(s, c.obs));
  for (const auto& s : o.frb) c.pulses.push_back(sim::parse_single_pulse(s));
  for (const auto& s : o.rfi_impulse) c.pulses.push_back(sim::parse_single_impulse(s));
  for (const auto& s : o.rfi_narrowband) c.narrowband.push_back(sim::parse_narrowband_rfi(s));
  for (const auto& s : o.rfi_impulses) c.impulses.push_back(sim::parse_impulse_rfi(s));
  return c;
}

sim::VoltageConfig build_voltage_config(const FakeOptions& o) {
  sim::VoltageConfig v;
  v.freq_mhz = o.freq_mhz;
  v.bw_mhz = o.bw_mhz;
  v.npol = o.npol;
  v.tstart_mjd = o.tstart_mjd;
  v.seed = o.seed.value_or(0);
  v.noise = !o.no_noise;
  v.delay_model = parse_delay_model(o.delay_model);
  if (!(o.bw_mhz > 0.0) || !std::isfinite(o.bw_mhz))
    usage_error(fmt::format("--bw must be positive, got {}", o.bw_mhz));
  if (o.nsamples) {
    if (*o.nsamples == 0) usage_error("--nsamples must be positive, got 0");
    v.nsamples = *o.nsamples;
  } else {
    if (!(o.tobs_s > 0.0) || !std::isfinite(o.tobs_s)) {
      usage_error(fmt::format("--tobs must be positive, got {}", o.tobs_s));
    }
    if (!(o.tobs_s * o.bw_mhz * 1e6 <= kMaxSamples)) {
      usage_error(
          fmt::format("--tobs: {} is out of range: {:.3g} samples at --bw {} MHz, more than the 2^63 a stream "
                      "may hold",
                      o.tobs_s, o.tobs_s * o.bw_mhz * 1e6, o.bw_mhz));
    }
    v.nsamples = static_cast<std::uint64_t>(std::ceil(o.tobs_s * o.bw_mhz * 1e6 - 1e-6));
  }
  const double tobs = static_cast<double>(v.nsamples) * v.tsamp_s();
  auto add = [&](const sim::PulsarOptions& p, const std::string& what) {
    if ((p.peak_power > 0.0) == (p.fold_snr > 0.0)) {
      usage_error(
          fmt::format("{}: with --voltages give the strength as a peak power ratio ({}) or a coherent "
                      "S/N ({}), once",
                      what, what == "--psr" ? "power=" : "--peak-power", what == "--psr" ? "snr=" : "--fold-snr"));
    }
    sim::VoltagePulsar vp;
    vp.spec = sim::make_pulsar_spec(p, tobs);
    vp.peak_power = p.peak_power;
    vp.coherent_snr = p.fold_snr;
    v.pulsars.push_back(vp);
  };
  if (o.pulsar.period_ms) {
    sim::PulsarOptions p = o.pulsar;
    p.shape = sim::parse_profile_shape(o.profile);
    p.law = o.sigproc_phase ? sim::PhaseLaw::sigproc : sim::PhaseLaw::integrated;
    add(p, "the pulsar of --period");
  }
  for (const auto& s : o.psr) add(sim::parse_pulsar_options(s), "--psr");
  for (const auto& s : o.tones) v.tones.push_back(sim::parse_tone(s));
  return v;
}

std::string source_name(const FakeOptions& o) {
  if (o.source_name) return *o.source_name;
  if (o.pulsar.period_ms) {
    const double period_s = 1.0e-3 * *o.pulsar.period_ms;  // SIGPROC: period = 1.0e-3 * atof(...)
    return fmt::format("P: {:.12f} ms, DM: {:.3f}", period_s * 1000.0, o.pulsar.dm);
  }
  return "fake-pulsar";
}

std::string voltage_source_name(const FakeOptions& o) {
  std::string name = "fake";
  if (o.source_name) {
    name = *o.source_name;
  } else if (o.pulsar.period_ms) {
    name = fmt::format("fake_P{:.6f}ms_DM{:.3f}", *o.pulsar.period_ms, o.pulsar.dm);
  }
  for (char& ch : name) {
    if (ch == ' ' || ch == '\t') ch = '_';
  }
  return name;
}

}  // namespace fastpsr::app
