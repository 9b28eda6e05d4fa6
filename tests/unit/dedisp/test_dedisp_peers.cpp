// SPDX-License-Identifier: MIT
// The dedisp tool against PRESTO and SIGPROC outputs of the same file (shared/data/peer-outputs)
// and the real FRB of shared/data/real. Outputs are read back with our readers.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/presto_inf.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

std::string dedisp_cmd() { return (test::bin_dir() / "dedisp").string(); }

std::vector<float> read_floats(const std::filesystem::path& p, std::size_t skip_bytes = 0) {
  const auto bytes = test::read_file(p);
  REQUIRE(bytes.size() >= skip_bytes);
  std::vector<float> v((bytes.size() - skip_bytes) / 4);
  std::memcpy(v.data(), bytes.data() + skip_bytes, v.size() * 4);
  return v;
}

// Index of the first difference in the first n samples, or n.
std::size_t first_difference(const std::vector<float>& a, const std::vector<float>& b, std::size_t n) {
  REQUIRE(a.size() >= n);
  REQUIRE(b.size() >= n);
  for (std::size_t i = 0; i < n; ++i) {
    if (std::memcmp(&a[i], &b[i], 4) != 0) return i;
  }
  return n;
}

void check_inf_matches_presto(const PrestoInf& ours, const PrestoInf& presto) {
  CHECK(ours.telescope == presto.telescope);
  CHECK(ours.object == presto.object);
  CHECK(ours.ra == presto.ra);
  CHECK(ours.dec == presto.dec);
  CHECK(ours.observer == presto.observer);
  CHECK(ours.mjd_i == presto.mjd_i);
  CHECK(ours.mjd_f == presto.mjd_f);
  CHECK(ours.bary == presto.bary);
  CHECK(ours.dt == presto.dt);
  CHECK(ours.band == presto.band);
  CHECK(ours.fov == presto.fov);
  CHECK(ours.dm == presto.dm);
  CHECK(ours.freq == presto.freq);
  CHECK(ours.freqband == presto.freqband);
  CHECK(ours.num_chan == presto.num_chan);
  CHECK(ours.chan_wid == presto.chan_wid);
  CHECK(ours.notes.rfind(presto.notes, 0) == 0);  // PRESTO's note lines, then ours
  CHECK_FALSE(ours.breaks());
}

}  // namespace

TEST_CASE("dedisp vs PRESTO prepdata: equal sample for sample wherever prepdata had data" *
          doctest::skip(!test::have_shared_data())) {
  const auto small = *test::shared_data_dir() / "peer-outputs" / "small";
  test::TempDir tmp;
  const auto r = test::run_command(dedisp_cmd() + " " + (small / "small_psr.fil").string() + " -d 62.5 -nobary -o " +
                                   (tmp / "small").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const PrestoInf ours = read_inf((tmp / "small_DM62.50.inf").string());
  const PrestoInf presto = read_inf((small / "small_DM62.50.inf").string());
  check_inf_matches_presto(ours, presto);
  CHECK(ours.name == (tmp / "small_DM62.50").string());  // PRESTO too puts -o as given
  // 32768 input samples, 350 samples of delay across the band at DM 62.5: 32418 with full data.
  CHECK(ours.N == 32418);
  const auto a = read_floats(tmp / "small_DM62.50.dat");
  REQUIRE(a.size() == 32418);
  const auto b = read_floats(small / "small_DM62.50.dat");
  // prepdata reads whole blocks of 2400 spectra and pads the partial last one: its on-range
  // (0 .. 31199) has data only up to 31200 - 350 samples.
  REQUIRE(presto.onoff.size() == 2);
  const auto presto_on = static_cast<std::size_t>(presto.onoff[0].second) + 1;
  const std::size_t n = presto_on - 350;
  CHECK(first_difference(a, b, n) == n);
  // ... and beyond that its samples are built from its padding: they differ from the data.
  CHECK(first_difference(a, b, presto_on) < presto_on);
}

TEST_CASE("dedisp vs PRESTO prepsubband -nsub 32: equal over prepsubband's whole on-range" *
          doctest::skip(!test::have_shared_data())) {
  const auto small = *test::shared_data_dir() / "peer-outputs" / "small";
  test::TempDir tmp;
  // prepsubband -nobary -lodm 61.9 -dmstep 0.3 -numdms 5 -nsub 32 -o small_sub small_psr.fil
  const auto r = test::run_command(dedisp_cmd() + " -nobary -lodm 61.9 -dmstep 0.3 -numdms 5 -nsub 32 -o " +
                                   (tmp / "small_sub").string() + " " + (small / "small_psr.fil").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const PrestoInf ours = read_inf((tmp / "small_sub_DM62.50.inf").string());
  const PrestoInf presto = read_inf((small / "small_sub_DM62.50.inf").string());
  check_inf_matches_presto(ours, presto);
  const auto a = read_floats(tmp / "small_sub_DM62.50.dat");
  const auto b = read_floats(small / "small_sub_DM62.50.dat");
  const auto presto_on = static_cast<std::size_t>(presto.onoff.at(0).second) + 1;
  CHECK(presto_on == 26400);
  CHECK(first_difference(a, b, presto_on) == presto_on);
  // Without -nsub the delays are prepdata's (rounded per channel): a different series.
  const auto r2 = test::run_command(dedisp_cmd() + " -d 62.5 -o " + (tmp / "direct").string() + " " +
                                    (small / "small_psr.fil").string());
  REQUIRE(r2.exit_code == 0);
  CHECK(first_difference(read_floats(tmp / "direct_DM62.50.dat"), b, presto_on) < presto_on);
}

TEST_CASE("dedisp vs SIGPROC dedisperse: byte-identical .tim with --baseline sigproc" *
          doctest::skip(!test::have_shared_data())) {
  const auto small = *test::shared_data_dir() / "peer-outputs" / "small";
  test::TempDir tmp;
  const auto tim = tmp / "small_DM62.5.tim";
  // dedisperse small_psr.fil -d 62.5 -o small_DM62.5.tim (its running-median baseline is on by default)
  const auto r = test::run_command(dedisp_cmd() + " " + (small / "small_psr.fil").string() +
                                   " -d 62.5 --baseline sigproc -o " + tim.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto ours = test::read_file(tim);
  const auto theirs = test::read_file(small / "small_DM62.5.tim");
  constexpr std::size_t kHeader = 340;
  REQUIRE(ours.size() > kHeader);
  CHECK(std::equal(ours.begin(), ours.begin() + kHeader, theirs.begin()));
  // SIGPROC wrote 32550 samples: the last 132 add channels read past the end of its final
  // (short) input block, i.e. stale buffer contents. The 32418 with full data are equal.
  auto reader = FilterbankReader::open(tim.string());
  CHECK(reader->header().data_type == 2);
  CHECK(reader->header().nchans == 1);
  CHECK(reader->header().nbits == 32);
  CHECK(reader->header().refdm == 62.5);
  CHECK(reader->header().fch1 == 1500.0);
  REQUIRE(reader->nsamples() == 32418u);
  std::vector<float> a(32418);
  REQUIRE(reader->read_float(a.data(), a.size()) == a.size());
  const auto b = read_floats(small / "small_DM62.5.tim", kHeader);
  REQUIRE(b.size() == 32550);
  CHECK(first_difference(a, b, a.size()) == a.size());
}

namespace {

// Best boxcar S/N of a series (widths 1..max_width), noise from the median absolute deviation.
struct Peak {
  double snr = 0;
  std::size_t sample = 0;
  std::size_t width = 0;
};

Peak best_boxcar(const std::vector<float>& x, std::size_t max_width) {
  std::vector<float> s(x);
  std::nth_element(s.begin(), s.begin() + static_cast<long>(s.size() / 2), s.end());
  const double median = s[s.size() / 2];
  for (auto& v : s) v = static_cast<float>(std::fabs(static_cast<double>(v) - median));
  std::nth_element(s.begin(), s.begin() + static_cast<long>(s.size() / 2), s.end());
  const double sigma = 1.4826 * static_cast<double>(s[s.size() / 2]);
  Peak best;
  for (std::size_t w = 1; w <= max_width; ++w) {
    double sum = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      sum += static_cast<double>(x[i]) - median;
      if (i >= w) sum -= static_cast<double>(x[i - w]) - median;
      if (i + 1 < w) continue;
      const double snr = sum / (sigma * std::sqrt(static_cast<double>(w)));
      if (snr > best.snr) best = {snr, i + 1 - w, w};
    }
  }
  return best;
}

}  // namespace

TEST_CASE("dedisp on real data: FRB 180417 (ASKAP) peaks at DM 474 +- 5, t = 2.03 s" *
          doctest::skip(!test::have_shared_data())) {
  const auto fil = *test::shared_data_dir() / "real" / "FRB180417_ASKAP.fil";
  test::TempDir tmp;
  const auto r = test::run_command(dedisp_cmd() + " " + fil.string() + " --dm 300:650:1 -o " + (tmp / "frb").string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  double best_dm = -1;
  Peak best;
  double snr_at_dm0 = 0;
  for (int dm = 300; dm <= 650; ++dm) {
    const auto root = (tmp / ("frb_DM" + std::to_string(dm) + ".00")).string();
    const PrestoInf inf = read_inf(root + ".inf");
    const auto x = read_floats(root + ".dat");
    REQUIRE(x.size() == static_cast<std::size_t>(inf.N));
    const Peak p = best_boxcar(x, 8);
    if (p.snr > best.snr) {
      best = p;
      best_dm = dm;
    }
  }
  const auto r0 = test::run_command(dedisp_cmd() + " " + fil.string() + " -d 0 -o " + (tmp / "zero").string());
  REQUIRE(r0.exit_code == 0);
  snr_at_dm0 = best_boxcar(read_floats(tmp / "zero_DM0.00.dat"), 8).snr;
  const double tsamp = 1.26646875e-3;
  INFO("best DM " << best_dm << ", S/N " << best.snr << ", sample " << best.sample << ", width " << best.width
                  << "; S/N at DM 0: " << snr_at_dm0);
  CHECK(std::fabs(best_dm - 474.0) <= 5.0);
  CHECK(std::fabs((static_cast<double>(best.sample) + 0.5 * static_cast<double>(best.width)) * tsamp - 2.03) <= 0.01);
  CHECK(best.snr >= 12.0);
  CHECK(best.width * tsamp <= 5e-3);
  CHECK(snr_at_dm0 < 6.0);
}
