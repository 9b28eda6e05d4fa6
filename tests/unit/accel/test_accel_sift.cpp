// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cmath>

#include "accel_pipeline_support.hpp"
#include "fastpsr/accel_sift.hpp"
#include "fastpsr/accel_stats.hpp"

using namespace fastpsr;

namespace {

SiftCandidate cand(double dm, double r, int numharm, std::vector<double> pows, double cpow = 200.0) {
  SiftCandidate c;
  c.file = fmt::format("x_DM{:.2f}_ACCEL_0", dm);
  c.candnum = 1;
  c.dm = dm;
  c.dm_str = fmt::format("{:.2f}", dm);
  c.numharm = numharm;
  c.r = r;
  c.T = 100.0;
  c.cpow = cpow;
  c.harm_pows = std::move(pows);
  double sum = 0;
  for (double p : c.harm_pows) {
    sum += p;
    c.snr += std::sqrt(std::max(p - 1.0, 0.0));
  }
  c.ipow = sum;
  c.sigma = candidate_sigma(sum, numharm, 1.0);
  c.hits = {{dm, c.snr, c.sigma}};
  return c;
}

}  // namespace

TEST_CASE("accel sift: ACCEL files are read as sifting.py reads them (S/N and sigma of ACCEL_sift)" *
          doctest::skip(!test::have_shared_data())) {
  // ACCEL_sift_iso_z0.txt lists these hits at DM 62.50 (made from the same de-reddened search).
  const auto dir = *test::shared_data_dir() / "peer-outputs/iso";
  const auto in =
      sift_input_from_accel_text(test::read_text(dir / "iso_DM62.50_red_ACCEL_0"), "iso_DM62.50_ACCEL_0", 0.0);
  CHECK(in.dm == 62.5);
  struct Expect {
    int candnum;
    double snr, sigma;
  };
  for (const Expect& e : {Expect{1, 73.07, 36.63}, Expect{2, 11.61, 9.99}, Expect{6, 7.31, 9.05}, Expect{7, 8.25, 8.05},
                          Expect{8, 7.61, 8.19}, Expect{9, 6.16, 8.09}}) {
    CAPTURE(e.candnum);
    REQUIRE(e.candnum <= static_cast<int>(in.candidates.size()));
    const SiftCandidate& c = in.candidates[static_cast<std::size_t>(e.candnum - 1)];
    CHECK(c.candnum == e.candnum);
    CHECK(std::fabs(c.snr - e.snr) < 0.006);
    CHECK(std::fabs(c.sigma - e.sigma) < 0.006);
  }
  CHECK(in.candidates[0].r == 27747.0);
  CHECK(in.candidates[0].T == doctest::Approx(2097152 * 6.4e-5));
}

TEST_CASE("accel sift: duplicates merge across DMs, DM problems and harmonics are removed") {
  std::vector<SiftInput> inputs;
  for (double dm : {10.0, 10.5, 11.0, 11.5, 12.0}) inputs.push_back({dm, {}});
  const std::vector<double> strong{40, 30, 20, 15};
  // A pulsar seen at DMs 10.5..11.5, best at 11.0.
  inputs[1].candidates.push_back(cand(10.5, 1000.2, 4, {30, 20, 15, 10}));
  inputs[2].candidates.push_back(cand(11.0, 1000.0, 4, strong));
  inputs[3].candidates.push_back(cand(11.5, 999.5, 4, {25, 20, 10, 9}));
  // Its second harmonic, weaker, at DM 11.0: removed as a harmonic.
  inputs[2].candidates.push_back(cand(11.0, 2000.1, 4, {30, 15, 10, 9}));
  inputs[3].candidates.push_back(cand(11.5, 2000.2, 4, {30, 15, 10, 8}));
  // A signal at DMs 10.0 and 12.0 only: gaps, removed.
  inputs[0].candidates.push_back(cand(10.0, 5003.0, 2, {30, 20}));
  inputs[4].candidates.push_back(cand(12.0, 5003.4, 2, {30, 20}));
  // Below the thresholds: rejected at once.
  inputs[0].candidates.push_back(cand(10.0, 7001.0, 2, {3, 2}));
  // A rogue harmonic: 8 harmonics, the 6th three times stronger than any other.
  inputs[1].candidates.push_back(cand(10.5, 3333.0, 8, {5, 5, 5, 5, 5, 40, 5, 5}));
  const SiftResult r = sift_candidates(inputs, SiftOptions{});
  REQUIRE(r.candidates.size() == 1);
  const SiftCandidate& best = r.candidates[0];
  CHECK(best.dm == 11.0);
  CHECK(best.r == 1000.0);
  CHECK(best.hits.size() == 3);
  CHECK(r.rejected == 2);
  CHECK(r.harmonics == 1);
  CHECK(r.dm_problems == 1);
  const std::string csv = format_sift_csv(r);
  CHECK(csv.find("x_DM11.00_ACCEL_0,1,11.00,") != std::string::npos);
  CHECK(csv.find(",3,10.50,11.50,10.50;11.00;11.50") != std::string::npos);
  const std::string txt = format_sift_summary(r);
  CHECK(txt.find("  DM= 11.00 SNR=") != std::string::npos);
}
