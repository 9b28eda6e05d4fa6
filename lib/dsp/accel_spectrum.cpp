// SPDX-License-Identifier: MIT
#include "fastpsr/accel_spectrum.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <sstream>

#include "fastpsr/accel.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/escape.hpp"
#include "fastpsr/side_file.hpp"

namespace fastpsr {
namespace {

using cf = std::complex<float>;

float power_of(cf v) { return v.real() * v.real() + v.imag() * v.imag(); }

// v * s computed in double and rounded once (PRESTO's float *= double).
cf scaled(cf v, double s) {
  return {static_cast<float>(static_cast<double>(v.real()) * s), static_cast<float>(static_cast<double>(v.imag()) * s)};
}

// PRESTO's invsqrtf: the bit-trick estimate with one Newton step (~0.2% error). rednoise output
// is defined by it, so it is kept exactly.
float presto_invsqrtf(float x) {
  const float y = std::bit_cast<float>(0x5f3759df - (std::bit_cast<std::int32_t>(x) >> 1));
  return y * (1.5F - 0.5F * x * y * y);
}

// Puts the k-th smallest of v at v[k], everything before it no larger (std::nth_element's
// contract), by quickselect with branch-free partitions: the medians of de-reddening and block
// normalisation (tens of thousands a DM trial, of 100 to 2048 powers) went through
// std::nth_element at ~10 ns an element, mostly mispredicted branches. Pivots are medians of
// three; a range whose pivot is its smallest value (ties: zeros of padding, repeated powers) is
// split again into that value and the rest, so every round shrinks it; after 64 rounds the rest
// goes to std::nth_element, so no input is quadratic.
void select_kth(std::span<float> v, std::size_t k) {
  std::size_t lo = 0;
  std::size_t hi = v.size();
  for (int round = 0; hi - lo > 24; ++round) {
    if (round == 64) {
      std::nth_element(v.begin() + static_cast<std::ptrdiff_t>(lo), v.begin() + static_cast<std::ptrdiff_t>(k),
                       v.begin() + static_cast<std::ptrdiff_t>(hi));
      return;
    }
    const float a = v[lo];
    const float b = v[lo + (hi - lo) / 2];
    const float c = v[hi - 1];
    const float p = std::max(std::min(a, b), std::min(std::max(a, b), c));
    // [lo, i) < p and [i, j) >= p: each element is swapped into place and i advances by the
    // comparison's value, with no branch on it.
    std::size_t i = lo;
    for (std::size_t j = lo; j < hi; ++j) {
      const float x = v[j];
      v[j] = v[i];
      v[i] = x;
      i += static_cast<std::size_t>(x < p);
    }
    if (k < i) {
      hi = i;
      continue;
    }
    if (i > lo) {
      lo = i;
      continue;
    }
    // p is the range's smallest value: [lo, e) == p goes first.
    std::size_t e = lo;
    for (std::size_t j = lo; j < hi; ++j) {
      const float x = v[j];
      v[j] = v[e];
      v[e] = x;
      e += static_cast<std::size_t>(!(p < x));
    }
    if (k < e) return;  // v[k] == p, and everything before it too
    lo = e;
  }
  std::sort(v.begin() + static_cast<std::ptrdiff_t>(lo), v.begin() + static_cast<std::ptrdiff_t>(hi));
}

// ln 2 in double, as PRESTO divides a float median by log(2.0).
float median_to_mean(float med) { return static_cast<float>(static_cast<double>(med) / std::log(2.0)); }

}  // namespace

float presto_median(std::span<float> v) {
  const std::size_t n = v.size();
  if (n == 0) return 0.0F;
  const std::size_t hi = n / 2;
  select_kth(v, hi);
  const float b = v[hi];
  if (n % 2 == 1) return b;
  const float a = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(hi));
  const float sum = a + b;  // GSL adds the two floats in float, then halves in double
  return static_cast<float>(0.5 * static_cast<double>(sum));
}

std::int64_t deredden(std::span<std::complex<float>> fft, const DereddenOptions& o, double T_s) {
  FASTPSR_EXPECTS(o.startwidth >= 1 && o.endwidth >= o.startwidth,
                  "deredden: need 1 <= startwidth <= endwidth, got {} and {}", o.startwidth, o.endwidth);
  const auto numbins = static_cast<std::int64_t>(fft.size());
  FASTPSR_EXPECTS(numbins >= 1 + o.startwidth, "deredden: the spectrum has {} bins, fewer than 1 + startwidth ({})",
                  numbins, 1 + o.startwidth);
  std::int64_t read_pos = 1;
  std::int64_t write_pos = 1;
  fft[0] = {1.0F, 0.0F};
  std::vector<cf> old_blk(fft.begin() + 1, fft.begin() + 1 + o.startwidth);
  std::vector<cf> new_blk;
  std::vector<float> pows;
  auto block_mean = [&](const std::vector<cf>& blk) {
    pows.resize(blk.size());
    for (std::size_t i = 0; i < blk.size(); ++i) pows[i] = power_of(blk[i]);
    return median_to_mean(presto_median(pows));
  };
  read_pos += o.startwidth;
  float mean_old = block_mean(old_blk);
  auto mid_old = static_cast<int>(old_blk.size() / 2);
  // The first half block is scaled without a slope (as PRESTO does).
  const float norm0 = presto_invsqrtf(mean_old);
  for (int i = 0; i < mid_old; ++i)
    fft[static_cast<std::size_t>(write_pos++)] = old_blk[static_cast<std::size_t>(i)] * norm0;
  std::int64_t binnum = 1 + o.startwidth;
  auto grown = [&](std::int64_t b) {
    const auto w = static_cast<int>(o.startwidth * std::log(static_cast<double>(b)));
    return std::min(w, o.endwidth);
  };
  int bufflen = grown(binnum);
  const auto Tf = static_cast<float>(T_s);
  float dslope = 1.0F;
  while (read_pos < numbins) {
    const auto nnew = static_cast<int>(std::min<std::int64_t>(bufflen, numbins - read_pos));
    new_blk.assign(fft.begin() + read_pos, fft.begin() + read_pos + nnew);
    read_pos += nnew;
    const int mid_new = nnew / 2;
    const float mean_new = block_mean(new_blk);
    const auto nold = static_cast<int>(old_blk.size());
    dslope = static_cast<float>(static_cast<double>(mean_new - mean_old) / (0.5 * (nold + nnew)));
    // From the midpoint of the old block to the midpoint of the new one, interpolating the mean.
    int i = 0;
    for (int ind = mid_old; ind < nold; ++ind, ++i) {
      const float norm = presto_invsqrtf(mean_old + dslope * static_cast<float>(i));
      fft[static_cast<std::size_t>(write_pos++)] = old_blk[static_cast<std::size_t>(ind)] * norm;
    }
    for (int ind = 0; ind < mid_new; ++ind, ++i) {
      const float norm = presto_invsqrtf(mean_old + dslope * static_cast<float>(i));
      fft[static_cast<std::size_t>(write_pos++)] = new_blk[static_cast<std::size_t>(ind)] * norm;
    }
    binnum += nnew;
    const float f_hz = static_cast<float>(binnum) / Tf;
    bufflen = static_cast<double>(f_hz) < o.endfreq_hz ? grown(binnum) : o.endwidth;
    std::swap(old_blk, new_blk);
    mean_old = mean_new;
    mid_old = mid_new;
  }
  // The last half block keeps the last slope.
  int i = 0;
  for (auto ind = static_cast<std::size_t>(mid_old); ind < old_blk.size(); ++ind, ++i) {
    const float norm = presto_invsqrtf(mean_old + dslope * static_cast<float>(i));
    fft[static_cast<std::size_t>(write_pos++)] = old_blk[ind] * norm;
  }
  FASTPSR_ASSERT(write_pos == numbins);
  return write_pos;
}

std::vector<Birdie> read_zaplist(const std::string& path, double T_s, double baryv) {
  // Not std::ifstream, which reads a directory as an empty list (nothing zapped, exit 0): a
  // directory is an error, an unreadable file says why, and the size is bounded.
  const auto bytes = read_side_file(path, "a zaplist");
  std::istringstream in(std::string(bytes.begin(), bytes.end()));
  std::vector<Birdie> birds;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const bool bary = line[first] == 'B';
    std::istringstream ss(line.substr(first + (bary ? 1 : 0)));
    double f = 0.0;
    double w = 0.0;
    if (!(ss >> f >> w) || w < 0.0) {
      throw Error(ErrorCode::format,
                  fmt::format("line {}: expected 'frequency_hz width_hz', got '{}'", lineno, escape_for_message(line)),
                  path);
    }
    const double scale = bary ? T_s : T_s * (1.0 + baryv);
    Birdie b{(f - 0.5 * w) * scale, (f + 0.5 * w) * scale};
    if (b.hibin - b.lobin < 1.0) {
      const double mid = 0.5 * (b.hibin + b.lobin);
      b = {mid - 0.5, mid + 0.5};
    }
    birds.push_back(b);
  }
  std::sort(birds.begin(), birds.end(), [](const Birdie& a, const Birdie& b) { return a.lobin < b.lobin; });
  return birds;
}

std::int64_t zap_birdies(std::span<std::complex<float>> fft, const std::vector<Birdie>& birdies) {
  constexpr std::int64_t median_bins = 200;
  constexpr std::int64_t guard_bins = 100;
  const auto numbins = static_cast<std::int64_t>(fft.size());
  std::mt19937 rng(1);  // fixed: the same input zaps to the same output
  auto uniform = [&rng] { return (static_cast<double>(rng() >> 5) + 0.5) / 134217728.0; };  // (0, 1)
  std::vector<float> pows;
  auto median_power = [&](std::int64_t start) {
    pows.resize(median_bins);
    for (std::int64_t i = 0; i < median_bins; ++i)
      pows[static_cast<std::size_t>(i)] = power_of(fft[static_cast<std::size_t>(start + i)]);
    return static_cast<double>(presto_median(pows));
  };
  std::int64_t zapped = 0;
  for (const Birdie& b : birdies) {
    // The range is clamped to the spectrum as doubles before any cast: a zaplist's 1e300 Hz is
    // 1e300 bins, beyond int64 (undefined; QA pass 16). NaN ends zap nothing.
    const double flo = std::floor(b.lobin);
    const double fhi = std::ceil(b.hibin);
    if (!(fhi > 1.0) || !(flo < static_cast<double>(numbins))) continue;
    const auto lo = static_cast<std::int64_t>(std::max(flo, 1.0));
    const auto hi = static_cast<std::int64_t>(std::min(fhi, static_cast<double>(numbins)));
    if (hi <= lo) continue;
    const std::int64_t lostart = lo - guard_bins - median_bins;
    const std::int64_t histart = hi + guard_bins;
    double med = 0.0;
    int sides = 0;
    if (lostart >= 1) {
      med += median_power(lostart);
      ++sides;
    }
    if (histart + median_bins <= numbins) {
      med += median_power(histart);
      ++sides;
    }
    if (sides == 0) continue;  // no room to measure the local level: left alone
    const double mean = med / sides / std::log(2.0);
    for (std::int64_t k = lo; k < hi; ++k) {
      const double amp = std::sqrt(-mean * std::log(uniform()));
      const double ph = 2.0 * M_PI * uniform();
      fft[static_cast<std::size_t>(k)] = {static_cast<float>(amp * std::cos(ph)),
                                          static_cast<float>(amp * std::sin(ph))};
      ++zapped;
    }
  }
  return zapped;
}

PrestoBlocks presto_blocks(int zmax) {
  PrestoBlocks b;
  b.halfwidth = template_halfwidth(zmax);
  const int kernlen = 2 * 2 * b.halfwidth;
  // PRESTO's fftlen_from_kernwidth table (FFTW throughput), at least 2048.
  int len = 0;
  if (kernlen < 6) {
    len = 128;
  } else if (kernlen < 52) {
    len = 256;
  } else if (kernlen < 67) {
    len = 512;
  } else if (kernlen < 378) {
    len = 1024;
  } else if (kernlen < 664) {
    len = 2048;
  } else if (kernlen < 1672) {
    len = 4096;
  } else if (kernlen < 3015) {
    len = 10240;
  } else if (kernlen < 3554) {
    len = 15360;
  } else if (kernlen < 6000) {
    len = 25600;
  } else {
    len = static_cast<int>(std::bit_ceil(static_cast<unsigned>(kernlen * 5)));
  }
  b.fftlen = std::max(len, 2048);
  b.uselen = (b.fftlen - kernlen) / 2 * 2;
  return b;
}

SearchSpectrum normalise_for_search(std::span<const std::complex<float>> fft, AccelNorm norm,
                                    const PrestoBlocks& blocks, std::int64_t rlo, double nph, double presto_end_r) {
  const auto n = static_cast<std::int64_t>(fft.size());
  SearchSpectrum out;
  out.bins.assign(fft.begin(), fft.end());
  switch (norm) {
    case AccelNorm::none:
      break;
    case AccelNorm::photon: {
      const double scale = 1.0 / std::sqrt(nph > 0.0 ? nph : 1.0);
      for (auto& v : out.bins) v = scaled(v, scale);
      break;
    }
    case AccelNorm::block_median: {
      const std::int64_t step = blocks.rstep();
      const std::int64_t window = blocks.fftlen / 2;
      std::vector<float> pows(static_cast<std::size_t>(window));
      auto add_block = [&](std::int64_t start) {
        // PRESTO's blocks count the bins outside the spectrum as zeros; the others leave them out.
        const bool padded = static_cast<double>(start) < presto_end_r;
        std::size_t count = 0;
        for (std::int64_t b = start - blocks.halfwidth; b < start - blocks.halfwidth + window; ++b) {
          if (b >= 0 && b < n) {
            pows[count++] = power_of(fft[static_cast<std::size_t>(b)]);
          } else if (padded) {
            pows[count++] = 0.0F;
          }
        }
        const auto med = static_cast<double>(presto_median(std::span<float>(pows.data(), count)));
        out.scale_rk_start.push_back(2 * start);
        out.scale.push_back(med > 0.0 ? static_cast<float>(std::log(2.0) / med) : 0.0F);
      };
      // PRESTO's in-memory search fills the plane below rlo from r = 8 first; what lies below
      // its first block is never computed.
      constexpr std::int64_t populate_from = 8;
      out.scale_rk_start.push_back(std::numeric_limits<std::int64_t>::min());
      out.scale.push_back(0.0F);
      if (rlo > populate_from) {
        for (std::int64_t start = populate_from; start < rlo; start += step) add_block(start);
      }
      for (std::int64_t start = rlo; start < n; start += step) add_block(start);
      break;
    }
    case AccelNorm::local_power: {
      constexpr std::int64_t near = 6;
      constexpr std::int64_t far = 15;
      FASTPSR_EXPECTS(n > 2 * far + 1, "local-power normalisation needs more than {} bins, got {}", 2 * far + 1, n);
      std::vector<double> prefix(static_cast<std::size_t>(n) + 1, 0.0);
      for (std::int64_t i = 0; i < n; ++i) {
        prefix[static_cast<std::size_t>(i + 1)] =
            prefix[static_cast<std::size_t>(i)] + static_cast<double>(power_of(fft[static_cast<std::size_t>(i)]));
      }
      for (std::int64_t i = 0; i < n; ++i) {
        // The 10 bins on each side from 6 to 15 away; near the ends, the value of the closest bin
        // that has both sides.
        const std::int64_t c = std::clamp(i, far, n - 1 - far);
        const double lo = prefix[static_cast<std::size_t>(c - near + 1)] - prefix[static_cast<std::size_t>(c - far)];
        const double hi = prefix[static_cast<std::size_t>(c + far + 1)] - prefix[static_cast<std::size_t>(c + near)];
        const double lp = (lo + hi) / 20.0;
        out.bins[static_cast<std::size_t>(i)] =
            scaled(fft[static_cast<std::size_t>(i)], lp > 0.0 ? 1.0 / std::sqrt(lp) : 0.0);
      }
      break;
    }
  }
  return out;
}

}  // namespace fastpsr
