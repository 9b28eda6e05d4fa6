// SPDX-License-Identifier: MIT
#include "fastpsr/accel_output.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "fastpsr/accel_stats.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr {
namespace {

constexpr double kCorrect = 1e-14;  // PRESTO's DBLCORRECT
constexpr double kSpeedOfLight = 299792458.0;
constexpr double kTwoPi = 6.283185307179586476925;

// C printf formatting: PRESTO's layouts (" % .*f", "%.2d") are printf's, so they are kept as such.
__attribute__((format(printf, 1, 2))) std::string cfmt(const char* f, ...) {
  std::array<char, 128> buf{};
  va_list args;
  va_start(args, f);
  const int n = std::vsnprintf(buf.data(), buf.size(), f, args);
  va_end(args);
  return std::string(buf.data(),
                     static_cast<std::size_t>(std::max(0, std::min<int>(n, static_cast<int>(buf.size()) - 1))));
}

double copysign_of(double a, double b) { return b < 0.0 ? -std::fabs(a) : std::fabs(a); }
double p10(int e) { return std::pow(10.0, static_cast<double>(e)); }
int floor_log10(double v) { return static_cast<int>(std::floor(std::log10(std::fabs(v)))); }

}  // namespace

std::string nice_output_1(double val, double err) {
  int errexp = err == 0.0 ? 0 : floor_log10(err);
  int errval = static_cast<int>(std::floor(std::fabs(err) * p10(-errexp) + kCorrect + 0.5));
  if (errval == 10) {
    errval = 1;
    ++errexp;
  }
  const double rndval = p10(errexp) * std::floor(val * p10(-errexp) + 0.5);
  int nint = 1;
  if (val != 0.0) {
    nint = static_cast<int>(std::ceil(std::log10(std::fabs(val))));
    if (nint == 0) nint = 1;
  }
  const int nfrac = -errexp;
  int totprec = nint + nfrac;
  const int outexp = rndval == 0.0 ? 0 : floor_log10(rndval);
  const double outmant = rndval * p10(-outexp);
  if (std::fabs(1.0 - outmant) < kCorrect || std::fabs(-1.0 - outmant) < kCorrect) ++totprec;
  const double signed_mant = copysign_of(outmant, rndval);
  if (outexp >= 0 && errexp > 0 && outexp > errexp)
    return cfmt("% .*f(%d)x10^%d", totprec - 1, signed_mant, errval, outexp);
  if (outexp >= 0 && errexp > 0 && outexp == errexp)
    return cfmt("% d(%d)x10^%d", static_cast<int>(signed_mant), errval, outexp);
  if (outexp < -4 && outexp >= errexp) return cfmt("% .*f(%d)x10^%d", totprec - 1, signed_mant, errval, outexp);
  if (outexp < errexp && errexp != 0) {
    return cfmt("% d(%d)x10^%d", static_cast<int>(signed_mant + kCorrect), errval, errexp);
  }
  if (nfrac == 0 && std::fabs(rndval) < 1.0e-15) return cfmt("% d(%d)", static_cast<int>(std::fabs(rndval)), errval);
  if (std::fabs(rndval) <= kCorrect && errexp < -5) return cfmt("0.0(%d)x10^%d", errval, errexp + 1);
  return cfmt("% .*f(%d)", nfrac, rndval, errval);
}

std::string nice_output_2(double val, double err) {
  int errexp = err == 0.0 ? 0 : floor_log10(err);
  int errval = static_cast<int>(std::floor(std::fabs(err) * p10(-errexp + 1) + kCorrect + 0.5));
  if (errval == 100) {
    errval = 10;
    ++errexp;
  }
  double rndval = p10(errexp - 1) * std::floor(val * p10(-errexp + 1) + 0.5);
  const int outexp = rndval == 0.0 ? 0 : floor_log10(rndval);
  const int valexp = val == 0.0 ? 0 : floor_log10(val);
  double outmant = rndval * p10(-outexp);
  const int e_hi = errval / 10;
  const int e_lo = errval % 10;
  if (outexp < -4) {
    const int digits = outexp - errexp + 1;
    if (digits == 0) return cfmt("% .1f(%d.%d)x10^%d", outmant / 10, e_hi, e_lo, outexp + 1);
    if (digits < 2) return cfmt("% .1f(%d.%d)x10^%d", outmant, e_hi, e_lo, outexp);
    return cfmt("% .*f(%.2d)x10^%d", digits, outmant, errval, outexp);
  }
  if (errexp - valexp > 1 && errexp != 0 && errexp != 1) return cfmt("0.0(%d.%d)x10^%d", e_hi, e_lo, errexp);
  if (errexp == 0) {
    if (std::fabs(rndval) < 0.1) rndval = std::fabs(rndval);  // no "-0.0"
    return cfmt("% .1f(%d.%d)", rndval, e_hi, e_lo);
  }
  if (errexp < 0) {
    if (std::fabs(rndval) * p10(-errexp + 1) < 0.1) rndval = std::fabs(rndval);
    if (std::fabs(rndval) <= kCorrect && errexp < -4) return cfmt("0.0(%d.%d)x10^%d", e_hi, e_lo, errexp);
    return cfmt("% .*f(%.2d)", -errexp + 1, rndval, errval);
  }
  if (errexp == outexp) {
    if (errexp == 1) return cfmt("% d(%.2d)", static_cast<int>(rndval), errval);
    return cfmt("% .1f(%d.%d)x10^%d", outmant, e_hi, e_lo, errexp);
  }
  if (errexp - outexp == 1) {
    if (std::fabs(outmant) < 0.99999999999999) outmant = std::fabs(outmant);
    return cfmt("% .1f(%d.%d)x10^%d", outmant / 10.0, e_hi, e_lo, errexp);
  }
  if (errexp > 1 && outexp > 1 && errexp - outexp <= -1) {
    return cfmt("% .*f(%.2d)x10^%d", outexp - errexp + 1, outmant, errval, outexp);
  }
  if (errexp == 1 && outexp > 0) return cfmt("% d(%.2d)", static_cast<int>(rndval), errval);
  // PRESTO stops here ("undefined condition"); a plain rendering keeps the file usable.
  return cfmt("% g(%d)", val, errval);
}

std::string center_string(const std::string& text, int width) {
  const auto w = static_cast<std::size_t>(width);
  if (text.size() >= w) return text.substr(0, w);
  std::string out(w, ' ');
  out.replace((w - text.size()) / 2, text.size(), text);
  return out;
}

FourierProps fundamental_props(const AccelCandidate& cand) {
  FourierProps p = calc_props(cand.derivs.at(0), cand.r, cand.z, cand.w);
  p.rerr = static_cast<float>(kAccelDr / cand.numharm);
  p.zerr = static_cast<float>(static_cast<double>(kAccelDz) / cand.numharm);
  p.werr = static_cast<float>(static_cast<double>(kAccelDw) / cand.numharm);
  return p;
}

namespace {

struct RzwErrs {
  double f, ferr, fd, fderr, p, perr;
};
RzwErrs rzw_errs(const FourierProps& p, double T) {
  const double rerr = static_cast<double>(p.rerr);
  const double zerr = static_cast<double>(p.zerr);
  return {p.r / T, rerr / T, p.z / (T * T), zerr / (T * T), T / p.r, T * rerr / (p.r * p.r)};
}

void append_column(std::string& line, const std::string& value, int width) {
  line += center_string(value, width) + "  ";
}

// Header lines of a table: titles centred, two spaces apart, and a line of dashes.
std::string table_header(std::span<const char* const> t1, std::span<const char* const> t2,
                         std::span<const int> widths) {
  std::string out;
  for (auto titles : {t1, t2}) {
    for (std::size_t i = 0; i + 1 < widths.size(); ++i) append_column(out, titles[i], widths[i]);
    out += center_string(titles[widths.size() - 1], widths.back()) + "\n";
  }
  for (std::size_t i = 0; i + 1 < widths.size(); ++i)
    out += std::string(static_cast<std::size_t>(widths[i]), '-') + "--";
  out += std::string(static_cast<std::size_t>(widths.back()), '-') + "\n";
  return out;
}

// PRESTO's compare_rzw_cands: "SL? of Cand i" for a weaker neighbour at another z, "H k of Cand i"
// for an integer harmonic.
std::vector<std::string> candidate_notes(const std::vector<FourierProps>& props) {
  const std::size_t n = props.size();
  std::vector<std::string> notes(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      if (std::fabs(props[i].r - props[j].r) < 15.0 && std::fabs(props[i].z - props[j].z) > 1.0 &&
          props[i].pow > props[j].pow) {
        if (notes[j].empty()) notes[j] = fmt::format("SL? of Cand {}", i + 1);
        continue;
      }
      for (int k = 1; k < 61; ++k) {
        if (std::fabs(props[i].r - props[j].r / k) < static_cast<double>(props[j].rerr) * 3 &&
            std::fabs(props[i].z - props[j].z / k) < static_cast<double>(props[j].zerr) * 2 && notes[j].empty()) {
          notes[j] = fmt::format("H {} of Cand {}", k, i + 1);
          break;
        }
      }
    }
  }
  for (auto& s : notes) {
    if (s.empty()) s = std::string(20, ' ');
    if (s.size() > 20) s.resize(20);
  }
  return notes;
}

double coherent_power(const AccelCandidate& c, double nph) {
  const double phs0 = c.derivs[0].phs;
  double re = 0.0;
  double im = 0.0;
  for (int j = 0; j < c.numharm; ++j) {
    const RDerivs& h = c.derivs[static_cast<std::size_t>(j)];
    const double amp = std::sqrt(h.pow / (nph > 0.0 ? nph : h.locpow));
    const double corr = phs0 - std::fmod((j + 1.0) * phs0, kTwoPi);
    re += amp * std::cos(h.phs + corr);
    im += amp * std::sin(h.phs + corr);
  }
  return re * re + im * im;
}

}  // namespace

std::string format_accel_text(const std::vector<AccelCandidate>& cands, const AccelTextInfo& info) {
  std::vector<FourierProps> props;
  props.reserve(cands.size());
  for (const auto& c : cands) props.push_back(fundamental_props(c));
  const auto notes = candidate_notes(props);
  std::string out;
  {
    static constexpr std::array<int, 12> w{4, 5, 6, 8, 4, 16, 15, 15, 15, 11, 15, 20};
    static constexpr std::array<const char*, 12> t1{"",          "",        "Summed",     "Coherent", "Num",   "Period",
                                                    "Frequency", "FFT 'r'", "Freq Deriv", "FFT 'z'",  "Accel", ""};
    static constexpr std::array<const char*, 12> t2{"Cand", "Sigma", "Power",  "Power",  "Harm",    "(ms)",
                                                    "(Hz)", "(bin)", "(Hz/s)", "(bins)", "(m/s^2)", "Notes"};
    out += table_header(t1, t2, w);
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const AccelCandidate& c = cands[i];
      const FourierProps& p = props[i];
      const RzwErrs e = rzw_errs(p, info.T_s);
      std::string line;
      append_column(line, cfmt("%-4d", static_cast<int>(i + 1)), w[0]);
      append_column(line, cfmt("%.2f", static_cast<double>(c.sigma)), w[1]);
      append_column(line, cfmt("%.2f", static_cast<double>(c.power)), w[2]);
      append_column(line, cfmt("%.2f", coherent_power(c, info.nph)), w[3]);
      append_column(line, cfmt("%d", c.numharm), w[4]);
      append_column(line, nice_output_1(e.p * 1000.0, e.perr * 1000.0), w[5]);
      append_column(line, nice_output_1(e.f, e.ferr), w[6]);
      append_column(line, nice_output_2(p.r, static_cast<double>(p.rerr)), w[7]);
      append_column(line, nice_output_1(e.fd, e.fderr), w[8]);
      append_column(line, nice_output_2(p.z, static_cast<double>(p.zerr)), w[9]);
      const double tt = info.T_s * info.T_s * e.f;
      append_column(line, nice_output_2(p.z * kSpeedOfLight / tt, static_cast<double>(p.zerr) * kSpeedOfLight / tt),
                    w[10]);
      out += line + "  " + notes[i] + "\n";
    }
    out += "\n\n";
  }
  {
    static constexpr std::array<int, 13> w{5, 4, 5, 15, 11, 18, 13, 12, 9, 12, 10, 10, 20};
    static constexpr std::array<const char*, 13> t1{
        "", "", "", "Power /", "Raw", "FFT 'r'", "Pred 'r'", "FFT 'z'", "Pred 'z'", "Phase", "Centroid", "Purity", ""};
    std::array<const char*, 13> t2{"Cand",   "Harm",   "Sigma", "Loc Pow", "Power",   "(bin)", "(bin)",
                                   "(bins)", "(bins)", "(rad)", "(0-1)",   "<p> = 1", "Notes"};
    if (info.nph > 0.0) t2[3] = "NumPhot";
    out += table_header(t1, t2, w);
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const AccelCandidate& c = cands[i];
      for (int j = 0; j < c.numharm; ++j) {
        const auto k = static_cast<std::size_t>(j);
        RDerivs d = c.derivs[k];
        if (info.nph > 0.0) d.locpow = info.nph;
        const FourierProps p = calc_props(d, c.hirs[k], c.hizs[k], c.hiws[k]);
        std::string line;
        append_column(line, j == 0 ? cfmt(" %-4d", static_cast<int>(i + 1)) : std::string(5, ' '), w[0]);
        append_column(line, cfmt("%-4d", j + 1), w[1]);
        append_column(line, cfmt("%.2f", candidate_sigma(static_cast<double>(p.pow), 1, 1.0)), w[2]);
        append_column(line, nice_output_2(static_cast<double>(p.pow), static_cast<double>(p.powerr)), w[3]);
        append_column(line, cfmt("%.3g", static_cast<double>(p.rawpow)), w[4]);
        append_column(line, nice_output_2(p.r, static_cast<double>(p.rerr)), w[5]);
        append_column(line, cfmt("%.2f", c.r * (j + 1)), w[6]);
        append_column(line, nice_output_2(p.z, static_cast<double>(p.zerr)), w[7]);
        append_column(line, cfmt("%.2f", c.z * (j + 1)), w[8]);
        append_column(line, nice_output_2(static_cast<double>(p.phs), static_cast<double>(p.phserr)), w[9]);
        append_column(line, nice_output_2(static_cast<double>(p.cen), static_cast<double>(p.cenerr)), w[10]);
        append_column(line, nice_output_2(static_cast<double>(p.pur), static_cast<double>(p.purerr)), w[11]);
        out += line + "  " + std::string(info.artificial ? 20 : 19, ' ') + "\n";
      }
    }
    out += "\n\n";
  }
  out += info.inf_text;
  return out;
}

namespace {
constexpr std::size_t kCandRecord = 88;
template <typename T>
void put(std::uint8_t* rec, std::size_t off, T v) {
  std::memcpy(rec + off, &v, sizeof(T));
}
template <typename T>
T get(const std::uint8_t* rec, std::size_t off) {
  T v{};
  std::memcpy(&v, rec + off, sizeof(T));
  return v;
}
}  // namespace

std::vector<std::uint8_t> format_cand_records(const std::vector<AccelCandidate>& cands) {
  std::vector<std::uint8_t> bytes(cands.size() * kCandRecord, 0);  // the two pads stay zero
  for (std::size_t i = 0; i < cands.size(); ++i) {
    const FourierProps p = fundamental_props(cands[i]);
    std::uint8_t* rec = bytes.data() + i * kCandRecord;
    put(rec, 0, p.r);
    put(rec, 8, p.rerr);
    put(rec, 16, p.z);
    put(rec, 24, p.zerr);
    put(rec, 32, p.w);
    put(rec, 40, p.werr);
    const std::array<float, 11> tail{p.pow, p.powerr, p.sig, p.rawpow, p.phs,   p.phserr,
                                     p.cen, p.cenerr, p.pur, p.purerr, p.locpow};
    for (std::size_t k = 0; k < tail.size(); ++k) put(rec, 44 + 4 * k, tail[k]);
  }
  return bytes;
}

std::vector<FourierProps> parse_cand_records(std::span<const std::uint8_t> bytes, const std::string& name) {
  if (bytes.size() % kCandRecord != 0) {
    throw Error(ErrorCode::format,
                fmt::format("a .cand file holds 88-byte records, but this one has {} bytes", bytes.size()), name);
  }
  std::vector<FourierProps> out(bytes.size() / kCandRecord);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::uint8_t* rec = bytes.data() + i * kCandRecord;
    FourierProps& p = out[i];
    p.r = get<double>(rec, 0);
    p.rerr = get<float>(rec, 8);
    p.z = get<double>(rec, 16);
    p.zerr = get<float>(rec, 24);
    p.w = get<double>(rec, 32);
    p.werr = get<float>(rec, 40);
    std::array<float*, 11> tail{&p.pow, &p.powerr, &p.sig, &p.rawpow, &p.phs,   &p.phserr,
                                &p.cen, &p.cenerr, &p.pur, &p.purerr, &p.locpow};
    for (std::size_t k = 0; k < tail.size(); ++k) *tail[k] = get<float>(rec, 44 + 4 * k);
  }
  return out;
}

}  // namespace fastpsr
