// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <string>

#include "fastpsr/dada.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/format_detect.hpp"
#include "format_test_helpers.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

std::string card(const std::string& text) {
  std::string c = text;
  c.resize(80, ' ');
  return c;
}

}  // namespace

TEST_CASE("detect_format: contents first, then names") {
  const auto fil = encode_sigproc_header(test::small_fil_header());
  CHECK(detect_format(fil, "x.fil") == FileFormat::sigproc_filterbank);
  CHECK(detect_format(fil, "x.dat") == FileFormat::sigproc_filterbank);  // contents win over the name
  SigprocHeader tfb;
  tfb.tsamp = 1e-3;
  const auto tim = encode_sigproc_header(make_tim_header(tfb, 10.0, 1400.0));
  CHECK(detect_format(tim, "<stdin>") == FileFormat::sigproc_timeseries);
  // A header the reader would reject still counts as SIGPROC (the reader then says why).
  auto broken = fil;
  broken.resize(40);
  CHECK(detect_format(broken, "a.tim") == FileFormat::sigproc_timeseries);
  CHECK(detect_format(broken, "a.fil") == FileFormat::sigproc_filterbank);

  test::FakePsrfits f;
  f.freqs_mhz = {1, 2, 3, 4};
  f.raw.assign(64, 0.0);
  CHECK(detect_format(f.encode(), "x.fits") == FileFormat::psrfits);
  const std::string plain_fits = card("SIMPLE  =                    T") + card("BITPIX  =                    8") +
                                 card("NAXIS   =                    0") + card("END");
  CHECK(detect_format(bytes_of(plain_fits), "x.fits") == FileFormat::unknown);

  const std::string guppi = card("BACKEND = 'GUPPI   '") + card("BLOCSIZE=                16384") + card("END");
  CHECK(detect_format(bytes_of(guppi), "x.raw") == FileFormat::guppi_raw);
  const std::string no_blocsize = card("BACKEND = 'GUPPI   '") + card("END");
  CHECK(detect_format(bytes_of(no_blocsize), "x.raw") == FileFormat::unknown);

  DadaHeader dh;
  dh.set("NCHAN", "1");
  CHECK(detect_format(encode_dada_header(dh), "x.dada") == FileFormat::dada);

  const std::string inf = " Data file name without suffix          =  x\n";
  CHECK(detect_format(bytes_of(inf), "<stdin>") == FileFormat::presto_inf);
  const std::vector<std::uint8_t> floats(64, 0x41);
  CHECK(detect_format(floats, "dir/a_DM1.00.dat") == FileFormat::presto_dat);
  CHECK(detect_format(floats, "a.sdat") == FileFormat::presto_sdat);
  CHECK(detect_format(floats, "a.fft") == FileFormat::presto_fft);
  CHECK(detect_format(floats, "a_DM30.00.sub07") == FileFormat::presto_sub);
  CHECK(detect_format(floats, "a_DM30.00.sub") == FileFormat::unknown);
  CHECK(detect_format(floats, "obs_rfifind.mask") == FileFormat::presto_mask);
  CHECK(format_name(FileFormat::presto_mask) == "PRESTO rfifind mask");
  CHECK(detect_format(floats, "a.INF") == FileFormat::presto_inf);
  CHECK(detect_format(floats, "a.bin") == FileFormat::unknown);
  CHECK(detect_format(floats, ".dat") == FileFormat::unknown);
}

TEST_CASE("detect_format: unknown and empty inputs are errors naming the file") {
  auto empty = memory_source({}, "empty.fil");
  CHECK_THROWS_WITH_AS(detect_format(*empty), "empty file", Error);
  auto junk = memory_source(bytes_of("hello world"), "junk.bin");
  try {
    (void)detect_format(*junk);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.path() == "junk.bin");
    CHECK(std::string(e.what()).starts_with("unknown format"));
  }
  // Detection consumes nothing.
  auto fil = memory_source(encode_sigproc_header(test::small_fil_header()), "x.fil");
  CHECK(detect_format(*fil) == FileFormat::sigproc_filterbank);
  CHECK(fil->position() == 0);
  CHECK(read_sigproc_header(*fil).nchans == 8);
}

TEST_CASE("detect_format: every file in shared/data/real" * doctest::skip(!test::have_shared_data())) {
  const auto dir = *test::shared_data_dir() / "real";
  auto kind = [&](const char* name) {
    auto src = open_source((dir / name).string());
    return detect_format(*src);
  };
  CHECK(kind("FRB180417_ASKAP.fil") == FileFormat::sigproc_filterbank);
  CHECK(kind("parkes_crab_8bit_1.fil") == FileFormat::sigproc_filterbank);
  CHECK(kind("parkes_crab_4bit.fil") == FileFormat::sigproc_filterbank);
  CHECK(kind("GBT_J1807-0847.tim") == FileFormat::sigproc_timeseries);
  CHECK(kind("parkes_crab_4bit.sf") == FileFormat::psrfits);
  CHECK(kind("puppi_J1810+1744.raw") == FileFormat::guppi_raw);
  const auto peers = *test::shared_data_dir() / "peer-outputs/small";
  auto peer = [&](const char* name) {
    auto src = open_source((peers / name).string());
    return detect_format(*src);
  };
  CHECK(peer("small_DM62.50.dat") == FileFormat::presto_dat);
  CHECK(peer("small_DM62.50.inf") == FileFormat::presto_inf);
  CHECK(peer("small_DM62.50.fft") == FileFormat::presto_fft);
  CHECK(peer("small_DM62.5.tim") == FileFormat::sigproc_timeseries);
}
