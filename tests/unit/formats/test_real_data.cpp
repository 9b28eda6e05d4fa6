// SPDX-License-Identifier: MIT
// Reading the real observations of shared/data/real (values from its README).
#include <doctest/doctest.h>

#include <cmath>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/spectra_source.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

double correlation(const std::vector<float>& a, const std::vector<float>& b) {
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ma += static_cast<double>(a[i]);
    mb += static_cast<double>(b[i]);
  }
  ma /= static_cast<double>(a.size());
  mb /= static_cast<double>(b.size());
  double c = 0, va = 0, vb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double x = static_cast<double>(a[i]) - ma;
    const double y = static_cast<double>(b[i]) - mb;
    c += x * y;
    va += x * x;
    vb += y * y;
  }
  return c / std::sqrt(va * vb);
}

}  // namespace

TEST_CASE("real data: Parkes Crab at 4 and 8 bits, and SIGPROC's nibble order" *
          doctest::skip(!test::have_shared_data())) {
  const auto dir = *test::shared_data_dir() / "real";
  auto r8 = FilterbankReader::open((dir / "parkes_crab_8bit_1.fil").string());
  auto r4 = FilterbankReader::open((dir / "parkes_crab_4bit.fil").string());
  for (const auto* r : {r8.get(), r4.get()}) {
    const SigprocHeader& h = r->header();
    CHECK(h.header_bytes == 351);
    CHECK(h.nchans == 832);
    CHECK(h.fch1 == 4030.0);
    CHECK(h.foff == -4.0);
    CHECK(h.tsamp == 512e-6);
    CHECK(h.tstart == 58543.330387241345);
    CHECK(h.source_name == "J0534+2200");
    CHECK(h.telescope_id == 4);
    CHECK(r->nsamples() == 4096);
  }
  CHECK(r8->header().nbits == 8);
  CHECK(r4->header().nbits == 4);
  const std::size_t n = 4096 * 832;
  std::vector<float> v8(n);
  std::vector<float> v4(n);
  std::vector<std::uint8_t> packed(n / 2);
  REQUIRE(r8->read_float(v8.data(), 4096) == 4096);
  REQUIRE(r4->read_packed(packed.data(), 4096) == 4096);
  unpack_to_float(packed.data(), v4.data(), n, 4, false);
  CHECK(correlation(v4, v8) > 0.95);  // README: 0.977
  // The same bytes with the nibbles the other way round: the order is not a matter of taste.
  for (auto& b : packed) b = static_cast<std::uint8_t>((b >> 4) | (b << 4));
  unpack_to_float(packed.data(), v4.data(), n, 4, false);
  CHECK(std::fabs(correlation(v4, v8)) < 0.1);  // README: 0.038
}

TEST_CASE("real data: FRB 180417 from ASKAP (real/README.md section 1)" * doctest::skip(!test::have_shared_data())) {
  auto s = open_spectra((*test::shared_data_dir() / "real/FRB180417_ASKAP.fil").string());
  const SigprocHeader& h = s->header();
  CHECK(h.header_bytes == 327);
  CHECK(h.source_name == "src1");
  CHECK(h.rawdatafile == "ics_beams/28.fil");
  CHECK(h.telescope_id == 7);
  CHECK(h.nchans == 336);
  CHECK(h.nbits == 8);
  CHECK(h.fch1 == 1465.0);
  CHECK(h.foff == -1.0);
  CHECK(h.tsamp == doctest::Approx(1.26646875e-3).epsilon(1e-12));
  CHECK(h.tstart == doctest::Approx(58682.620316710374).epsilon(1e-15));
  CHECK(h.src_raj == doctest::Approx(122637.636));
  CHECK(h.src_dej == doctest::Approx(135752.112));
  CHECK(s->nsamples() == 5120);
  // Every channel varies (README: no channel has zero variance).
  std::vector<float> all(5120 * 336);
  REQUIRE(s->read_float(all.data(), 5120) == 5120);
  for (std::size_t c = 0; c < 336; ++c) {
    float lo = all[c], hi = all[c];
    for (std::size_t t = 1; t < 5120; ++t) {
      lo = std::min(lo, all[t * 336 + c]);
      hi = std::max(hi, all[t * 336 + c]);
    }
    if (!(hi > lo)) {
      CAPTURE(c);
      FAIL("constant channel");
    }
  }
}

TEST_CASE("spectra source: open_spectra refuses what holds no spectra" * doctest::skip(!test::have_shared_data())) {
  const auto dir = *test::shared_data_dir() / "real";
  CHECK_THROWS_WITH(open_spectra((dir / "GBT_J1807-0847.tim").string()),
                    doctest::Contains("is a SIGPROC time series, not a filterbank"));
  CHECK_THROWS_WITH(open_spectra((dir / "puppi_J1810+1744.raw").string()), doctest::Contains("GUPPI RAW"));
  CHECK(open_spectra((dir / "parkes_crab_4bit.sf").string())->header().nchans == 416);
}
