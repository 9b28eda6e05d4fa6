// SPDX-License-Identifier: MIT
#include "fastpsr/accel_plane_windows.hpp"

#include <algorithm>
#include <map>

#include "fastpsr/accel.hpp"

namespace fastpsr {

std::vector<SumTerm> sum_terms(int stages) {
  std::vector<SumTerm> terms{{1, 1}};
  for (int s = 1; s < stages; ++s) {
    const int H = 1 << s;
    for (int h = 1; h < H; h += 2) terms.push_back({h, H});
  }
  return terms;
}

PlaneWindow term_window(const SumTerm& t, int zmax, std::int64_t a, std::int64_t b) noexcept {
  // sub_rk and sub_z are monotonic, so the ends of the ranges map to the ends of the window.
  PlaneWindow w;
  w.col_lo = sub_rk(a, t.h, t.H);
  w.col_hi = sub_rk(b - 1, t.h, t.H) + 1;
  w.row_lo = (sub_z(-zmax, t.h, t.H) + zmax) / kAccelDz;
  w.row_hi = (sub_z(zmax, t.h, t.H) + zmax) / kAccelDz;
  return w;
}

std::int64_t term_pitch(const SumTerm& t, std::int64_t width) noexcept {
  // sub_rk(a + width - 1) - sub_rk(a) <= floor((width - 1) h / H) + 1.
  return (width - 1) * t.h / t.H + 2;
}

std::size_t block_window_bytes(const std::vector<SumTerm>& terms, int zmax, std::int64_t width) noexcept {
  std::size_t floats = 0;
  for (const auto& t : terms) {
    const auto w = term_window(t, zmax, 0, 1);
    floats += static_cast<std::size_t>(w.rows()) * static_cast<std::size_t>(term_pitch(t, width));
  }
  return floats * sizeof(float);
}

std::int64_t widest_fitting_block(std::int64_t range, std::int64_t chunk,
                                  const std::function<bool(std::int64_t)>& fits) {
  if (!fits(chunk)) return 0;
  std::int64_t lo = 1;
  std::int64_t hi = std::max<std::int64_t>((range + chunk - 1) / chunk, 1);
  while (lo < hi) {
    const std::int64_t mid = (lo + hi + 1) / 2;
    if (fits(mid * chunk)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo * chunk;
}

std::vector<SegmentJob> segment_jobs(const std::vector<PlaneWindow>& windows, std::int64_t o_lo, std::int64_t use,
                                     bool interbin) {
  std::map<std::int64_t, SegmentJob> jobs;
  auto segment_of = [&](std::int64_t rk) { return ((interbin ? rk / 2 : rk) - o_lo) / use; };
  for (std::size_t t = 0; t < windows.size(); ++t) {
    const auto& w = windows[t];
    if (w.col_hi <= w.col_lo) continue;
    for (std::int64_t s = segment_of(w.col_lo); s <= segment_of(w.col_hi - 1); ++s) {
      auto [it, fresh] = jobs.try_emplace(s, SegmentJob{s, w.row_lo, w.row_hi, 0});
      auto& job = it->second;
      job.row_lo = std::min(job.row_lo, w.row_lo);
      job.row_hi = std::max(job.row_hi, w.row_hi);
      job.terms |= std::uint64_t{1} << t;
    }
  }
  std::vector<SegmentJob> out;
  out.reserve(jobs.size());
  for (const auto& [s, job] : jobs) out.push_back(job);
  return out;
}

}  // namespace fastpsr
