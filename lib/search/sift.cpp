// SPDX-License-Identifier: MIT
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "fastpsr/accel_sift.hpp"
#include "fastpsr/accel_stats.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr {
namespace {

std::vector<std::string> tokens(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> t;
  for (std::string w; in >> w;) t.push_back(w);
  return t;
}

double leading_number(const std::string& tok, const std::string& file) {
  try {
    return std::stod(tok.substr(0, tok.find('(')));
  } catch (const std::exception&) {
    throw Error(ErrorCode::format, fmt::format("cannot read a number from '{}'", tok), file);
  }
}

// sifting.py's parse_power: the value before '(' times 10^exponent after '^' (5 if cut off).
double parse_power(const std::string& tok, const std::string& file) {
  double p = leading_number(tok, file);
  const auto caret = tok.find('^');
  if (caret != std::string::npos) {
    double e = 5.0;
    try {
      e = std::stod(tok.substr(caret + 1));
    } catch (const std::exception&) {
    }
    p *= std::pow(10.0, e);
  }
  return p;
}

void finish_harmonics(SiftCandidate& c) {
  c.snr = 0.0;
  double sum = 0.0;
  for (double p : c.harm_pows) {
    c.snr += std::sqrt(std::max(p - 1.0, 0.0));
    sum += p;
  }
  c.ipow = sum;
  c.sigma = candidate_sigma(sum, c.numharm, 1.0);
  c.hits = {{c.dm, c.snr, c.sigma}};
}

}  // namespace

std::string dm_string(double dm) { return fmt::format("{:.2f}", dm); }

std::optional<double> dm_from_name(const std::string& name) {
  auto digit = [&](std::size_t i) { return i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) != 0; };
  for (std::size_t at = name.find("DM"); at != std::string::npos; at = name.find("DM", at + 1)) {
    std::size_t i = at + 2;
    while (digit(i)) ++i;
    if (i > at + 2 && i < name.size() && name[i] == '.' && digit(i + 1) && digit(i + 2)) {
      return std::stod(name.substr(at + 2, i + 3 - (at + 2)));
    }
  }
  return std::nullopt;
}

SiftInput sift_input_from_accel_text(const std::string& text, const std::string& file, double dm) {
  SiftInput in;
  in.dm = dm_from_name(file).value_or(dm);
  std::istringstream all(text);
  double numsamp = 0;
  double dt = 0;
  for (std::string line; std::getline(all, line);) {
    if (line.rfind(" Number of bins in the time series", 0) == 0) numsamp = std::stod(tokens(line).back());
    if (line.rfind(" Width of each time series bin (sec)", 0) == 0) dt = std::stod(tokens(line).back());
  }
  if (numsamp <= 0 || dt <= 0)
    throw Error(ErrorCode::format, "no number of bins or bin width in the appended .inf", file);
  const double T = numsamp * dt;
  std::istringstream lines(text);
  SiftCandidate* current = nullptr;
  std::size_t harm = 0;
  std::map<int, std::size_t> index;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const auto t = tokens(line);
    if (std::isdigit(static_cast<unsigned char>(line[0]))) {
      if (t.size() < 10) throw Error(ErrorCode::format, "short candidate line: " + line, file);
      SiftCandidate c;
      c.file = file;
      c.candnum = std::stoi(t[0]);
      // Numbers past 9999 are cut to 4 characters: count on (as sifting.py does).
      if (!in.candidates.empty() && t[0].size() == 4 && in.candidates.back().candnum >= 9999) {
        c.candnum = in.candidates.back().candnum + 1;
      }
      c.sigma = leading_number(t[1], file);
      c.ipow = leading_number(t[2], file);
      c.cpow = leading_number(t[3], file);
      c.numharm = std::stoi(t[4]);
      c.r = leading_number(t[7], file);
      c.z = leading_number(t[9], file);
      c.T = T;
      c.dm = in.dm;
      c.dm_str = dm_string(in.dm);
      index[c.candnum] = in.candidates.size();
      in.candidates.push_back(c);
      continue;
    }
    if (line.size() > 1 && line[0] == ' ' && std::isdigit(static_cast<unsigned char>(line[1]))) {
      const int num = std::stoi(t[0]);
      const auto it = index.find(num);
      current = nullptr;
      if (it == index.end()) continue;
      SiftCandidate& c = in.candidates[it->second];
      c.harm_pows.assign(static_cast<std::size_t>(c.numharm), 0.0);
      c.harm_pows[0] = parse_power(t.at(3), file);
      if (c.numharm > 1) {
        current = &c;
        harm = 1;
      } else {
        finish_harmonics(c);
      }
      continue;
    }
    if (current != nullptr && t.size() > 2) {
      current->harm_pows[harm++] = parse_power(t[2], file);
      if (harm == current->harm_pows.size()) {
        finish_harmonics(*current);
        current = nullptr;
      }
    }
  }
  return in;
}

SiftResult sift_candidates(const std::vector<SiftInput>& inputs, const SiftOptions& o) {
  SiftResult res;
  std::vector<SiftCandidate> cands;
  std::set<double> dm_set;
  for (const SiftInput& in : inputs) {
    dm_set.insert(std::stod(dm_string(in.dm)));
    for (const SiftCandidate& c : in.candidates) {
      ++res.read;
      if (c.harm_pows.empty()) continue;  // no harmonic table (should not happen)
      const double p = c.p_s();
      bool bad = p > o.long_period_s || p < o.short_period_s;
      if (c.numharm == 1) {
        bad = bad || (c.sigma < o.sigma_threshold && c.cpow < o.c_pow_threshold);
      } else {
        bad = bad || c.sigma < o.sigma_threshold;
      }
      const auto maxit = std::max_element(c.harm_pows.begin(), c.harm_pows.end());
      const auto maxharm = maxit - c.harm_pows.begin();
      bad = bad || *maxit < o.harm_pow_cutoff;
      if (!bad && c.harm_pows.size() > 1) {
        auto sorted = c.harm_pows;
        std::sort(sorted.begin(), sorted.end());
        const double second = sorted[sorted.size() - 2];
        bad = (c.numharm >= 8 && maxharm > 4 && *maxit > 2 * second) ||
              (c.numharm >= 4 && maxharm > 2 && *maxit > 3 * second);
      }
      if (bad) {
        ++res.rejected;
      } else {
        cands.push_back(c);
      }
    }
  }
  auto by_sigma = [](const SiftCandidate& a, const SiftCandidate& b) { return a.sigma > b.sigma; };
  // Duplicates, in r order.
  std::stable_sort(cands.begin(), cands.end(),
                   [](const SiftCandidate& a, const SiftCandidate& b) { return a.r < b.r; });
  for (std::size_t ii = 0; ii < cands.size();) {
    std::size_t jj = ii + 1;
    while (jj < cands.size() && std::fabs(cands[ii].r - cands[jj].r) < o.r_err) ++jj;
    if (jj == ii + 1) {
      ++ii;
      continue;
    }
    std::size_t best = ii;
    for (std::size_t k = ii + 1; k < jj; ++k) {
      if (cands[k].sigma > cands[best].sigma) best = k;
    }
    for (std::size_t k = jj; k-- > ii;) {
      if (k == best) continue;
      cands[best].hits.insert(cands[best].hits.end(), cands[k].hits.begin(), cands[k].hits.end());
    }
    SiftCandidate keep = cands[best];
    cands.erase(cands.begin() + static_cast<std::ptrdiff_t>(ii), cands.begin() + static_cast<std::ptrdiff_t>(jj));
    cands.insert(cands.begin() + static_cast<std::ptrdiff_t>(ii), keep);
    res.duplicates += static_cast<int>(jj - ii - 1);
  }
  std::stable_sort(cands.begin(), cands.end(), by_sigma);
  // DM problems.
  const std::vector<double> dms(dm_set.begin(), dm_set.end());
  auto dm_index = [&](double dm) {
    return std::lower_bound(dms.begin(), dms.end(), std::stod(dm_string(dm))) - dms.begin();
  };
  for (std::size_t i = cands.size(); i-- > 0;) {
    SiftCandidate& c = cands[i];
    bool bad = static_cast<int>(c.hits.size()) < o.min_num_dms;
    if (!bad) {
      const auto best = std::max_element(c.hits.begin(), c.hits.end(),
                                         [](const auto& a, const auto& b) { return a.sigma < b.sigma; });
      bad = best->dm <= o.low_dm_cutoff;
    }
    if (!bad && c.hits.size() > 1) {
      std::stable_sort(c.hits.begin(), c.hits.end(), [](const auto& a, const auto& b) { return a.dm < b.dm; });
      long min_gap = -1;
      for (std::size_t k = 1; k < c.hits.size(); ++k) {
        const long gap = dm_index(c.hits[k].dm) - dm_index(c.hits[k - 1].dm);
        min_gap = min_gap < 0 ? gap : std::min(min_gap, gap);
      }
      bad = min_gap > 1;
    }
    if (bad) {
      cands.erase(cands.begin() + static_cast<std::ptrdiff_t>(i));
      ++res.dm_problems;
    }
  }
  // Harmonics of better candidates.
  if (cands.size() > 1) {
    const double f_err = o.r_err / cands[0].T;
    static const double ratios[][2] = {{3, 2}, {5, 2}, {2, 3}, {4, 3}, {5, 3}, {3, 4}, {5, 4}, {2, 5}, {3, 5}, {4, 5}};
    for (std::size_t ii = 0; ii + 1 < cands.size(); ++ii) {
      const double ff = cands[ii].f_hz();
      for (std::size_t jj = cands.size() - 1; jj > ii; --jj) {
        const double fh = cands[jj].f_hz();
        bool zap = false;
        for (int k = 1; k <= 16 && !zap; ++k) {
          zap = std::fabs(ff - fh * k) < f_err * k || std::fabs(ff - fh / k) < f_err / k;
        }
        for (const auto& q : ratios) {
          if (zap) break;
          const double factor = q[0] / q[1];
          zap = std::fabs(ff - fh * factor) < f_err * factor;
        }
        if (zap) {
          cands.erase(cands.begin() + static_cast<std::ptrdiff_t>(jj));
          ++res.harmonics;
        }
      }
    }
  }
  std::stable_sort(cands.begin(), cands.end(), by_sigma);
  res.candidates = std::move(cands);
  return res;
}

std::string format_sift_csv(const SiftResult& r) {
  std::string out = "file,candnum,dm,snr,sigma,numharm,ipow,cpow,period_ms,f_hz,r,z,num_dms,dm_min,dm_max,dms\n";
  for (const SiftCandidate& c : r.candidates) {
    double lo = c.hits.front().dm;
    double hi = lo;
    std::string list;
    for (const auto& h : c.hits) {
      lo = std::min(lo, h.dm);
      hi = std::max(hi, h.dm);
      if (!list.empty()) list += ';';
      list += dm_string(h.dm);
    }
    out += fmt::format("{},{},{:.2f},{:.2f},{:.2f},{},{:.1f},{:.1f},{:.6f},{:.9f},{:.2f},{:.2f},{},{:.2f},{:.2f},{}\n",
                       c.file, c.candnum, c.dm, c.snr, c.sigma, c.numharm, c.ipow, c.cpow, c.p_s() * 1000.0, c.f_hz(),
                       c.r, c.z, c.hits.size(), lo, hi, list);
  }
  return out;
}

namespace {
std::string centred(const std::string& s, std::size_t w) {  // Python's str.center
  if (s.size() >= w) return s;
  const std::size_t pad = w - s.size();
  const std::size_t left = pad / 2 + (pad & w & 1);
  return std::string(left, ' ') + s + std::string(pad - left, ' ');
}
}  // namespace

std::string format_sift_summary(const SiftResult& r) {
  std::string out = fmt::format(
      "# {} good candidates ({} read; rejected: {} by threshold/period/harmonic power, {} duplicates, {} with DM "
      "problems, {} harmonics)\n",
      r.candidates.size(), r.read, r.rejected, r.duplicates, r.dm_problems, r.harmonics);
  out += '#';
  const std::pair<const char*, std::size_t> columns[] = {
      {"file:candnum", 66}, {"DM", 9},     {"SNR", 8}, {"sigma", 8}, {"numharm", 9}, {"ipow", 9},
      {"cpow", 9},          {"P(ms)", 14}, {"r", 12},  {"z", 8},     {"numhits", 9}};
  for (const auto& [name, width] : columns) out += centred(name, width);
  out += '\n';
  for (SiftCandidate c : r.candidates) {
    const std::string id = fmt::format("{}:{}", c.file, c.candnum);
    out += fmt::format("{:<65}   {:7.2f}  {:6.2f}  {:6.2f}  {}   {:7.1f}  {:7.1f}  {:12.6f}  {:10.2f}  {:8.2f}  ({})\n",
                       id, c.dm, c.snr, c.sigma, centred(fmt::format("{:2d}", c.numharm), 7), c.ipow, c.cpow,
                       c.p_s() * 1000.0, c.r, c.z, c.hits.size());
    if (c.hits.size() > 1) {
      std::stable_sort(c.hits.begin(), c.hits.end(), [](const auto& a, const auto& b) { return a.dm < b.dm; });
      for (const auto& h : c.hits) {
        out += fmt::format("  DM={:6.2f} SNR={:5.2f} Sigma={:5.2f}   {}\n", h.dm, h.snr, h.sigma,
                           std::string(static_cast<std::size_t>(std::max(0.0, h.sigma / 3.0)), '*'));
      }
    }
  }
  return out;
}

}  // namespace fastpsr
