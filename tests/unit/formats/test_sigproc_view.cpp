// SPDX-License-Identifier: MIT
// SigprocFloatView: a search-mode PSRFITS file read as a SIGPROC float32 filterbank (how dedisp
// takes PSRFITS) gives exactly the PSRFITS reader's values, header and length.
#include <doctest/doctest.h>

#include <cstring>
#include <random>

#include "fastpsr/filterbank.hpp"
#include "fastpsr/psrfits.hpp"
#include "fastpsr/sigproc_view.hpp"
#include "format_test_helpers.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

// 4-bit AABBCRCI (total intensity from two pols), ascending frequencies (the band is flipped),
// random raw values, scales, offsets and weights.
test::FakePsrfits fake_file(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  test::FakePsrfits f;
  f.nbits = 4;
  f.npol = 4;
  f.pol_type = "AABBCRCI";
  f.nchan = 8;
  f.nsblk = 16;
  f.nrows = 3;
  f.zero_off = 7.5;
  std::uniform_real_distribution<float> u(0.5F, 2.0F);
  for (int c = 0; c < f.nchan; ++c) {
    f.freqs_mhz.push_back(1000.0 + 2.0 * c);
    f.wts.push_back(u(rng));
  }
  for (int i = 0; i < f.nchan * f.npol; ++i) {
    f.scl.push_back(u(rng));
    f.offs.push_back(10.0F * u(rng));
  }
  std::uniform_int_distribution<int> d(0, 15);
  for (int i = 0; i < f.nrows * f.nsblk * f.npol * f.nchan; ++i) f.raw.push_back(d(rng));
  return f;
}

}  // namespace

TEST_CASE("sigproc view: PSRFITS read as a SIGPROC float32 filterbank gives the PSRFITS reader's values") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  const auto bytes = fake_file(seed).encode();
  PsrfitsReader direct(memory_source(bytes, "fake.sf"));
  const SigprocHeader want_header = direct.header();
  const std::vector<float> want = test::read_all_float(direct, 7);
  REQUIRE(want.size() == 3U * 16U * 8U);

  for (const std::size_t piece : {std::size_t{1}, std::size_t{5}, std::size_t{48}, std::size_t{100}}) {
    CAPTURE(piece);
    auto view = std::make_unique<SigprocFloatView>(std::make_unique<PsrfitsReader>(memory_source(bytes, "fake.sf")));
    const std::uint64_t header_bytes = view->header().header_bytes;
    CHECK(view->size() == header_bytes + want.size() * sizeof(float));
    FilterbankReader r(std::move(view));
    const SigprocHeader& h = r.header();
    CHECK(h.nbits == 32);
    CHECK(h.nchans == 8);
    CHECK(h.nifs == 1);
    CHECK(h.fch1 == want_header.fch1);
    CHECK(h.foff == want_header.foff);
    CHECK(h.foff < 0.0);  // ascending DAT_FREQ, flipped as a SIGPROC filterbank
    CHECK(h.tsamp == want_header.tsamp);
    CHECK(h.tstart == want_header.tstart);
    CHECK(h.source_name == want_header.source_name);
    CHECK(h.header_bytes == header_bytes);
    CHECK(r.nsamples() == 48U);
    CHECK(test::same_bits(test::read_all_float(r, piece), want));
  }

  // Skipped samples (dedisp --start) are the reader's too.
  FilterbankReader skipped(
      std::make_unique<SigprocFloatView>(std::make_unique<PsrfitsReader>(memory_source(bytes, "fake.sf"))));
  CHECK(skipped.skip(19) == 19U);
  const std::vector<float> rest(want.begin() + 19 * 8, want.end());
  CHECK(test::same_bits(test::read_all_float(skipped, 6), rest));
}

TEST_CASE("sigproc view: open_sigproc_source reads PSRFITS through the view and SIGPROC files as they are") {
  test::TempDir dir;
  test::write_file(dir / "a.sf", fake_file(7).encode());
  auto fits = open_sigproc_source((dir / "a.sf").string());
  CHECK(dynamic_cast<SigprocFloatView*>(fits.get()) != nullptr);
  FilterbankReader from_fits(std::move(fits));
  CHECK(from_fits.header().nbits == 32);
  CHECK(from_fits.nsamples() == 48U);

  std::vector<std::uint8_t> fil = encode_sigproc_header(test::small_fil_header());
  fil.resize(fil.size() + 8 * 10, 3);  // 10 samples of 8 channels
  test::write_file(dir / "b.fil", fil);
  auto plain = open_sigproc_source((dir / "b.fil").string());
  CHECK(dynamic_cast<SigprocFloatView*>(plain.get()) == nullptr);
  FilterbankReader from_fil(std::move(plain));
  CHECK(from_fil.header().nbits == 8);
  CHECK(from_fil.nsamples() == 10U);
}
