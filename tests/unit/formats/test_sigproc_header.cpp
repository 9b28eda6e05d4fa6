// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>

#include "fastpsr/error.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/sigproc.hpp"
#include "format_test_helpers.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

SigprocHeader every_key_header() {
  SigprocHeader h;
  h.telescope_id = 4;
  h.machine_id = 10;
  h.data_type = 1;
  h.rawdatafile = "raw.dat";
  h.source_name = "J0437-4715";
  h.barycentric = 0;
  h.pulsarcentric = 0;
  h.az_start = 123.5;
  h.za_start = 12.25;
  h.src_raj = 43715.8961;
  h.src_dej = -471509.11;
  h.tstart = 60000.123456789;
  h.tsamp = 64e-6;
  h.nbits = 8;
  h.nsamples = 0;
  h.fch1 = 1500.0;
  h.foff = -0.5;
  h.nchans = 4;
  h.nifs = 1;
  h.refdm = 12.5;
  h.period = 0.005757;
  h.nbeams = 13;
  h.ibeam = 2;
  h.signed_flag = -1;
  h.nbins = 64;
  h.npuls = 1234567890123LL;
  h.frequency_table = {1500.0, 1499.5, 1499.0, 1498.5};
  h.keys = {"telescope_id", "machine_id", "data_type", "rawdatafile", "source_name", "barycentric",    "pulsarcentric",
            "az_start",     "za_start",   "src_raj",   "src_dej",     "tstart",      "tsamp",          "nbits",
            "nsamples",     "fch1",       "foff",      "nchans",      "nifs",        "refdm",          "period",
            "nbeams",       "ibeam",      "signed",    "nbins",       "npuls",       "FREQUENCY_START"};
  return h;
}

}  // namespace

TEST_CASE("sigproc header: every keyword survives a write and read, byte for byte") {
  const SigprocHeader h = every_key_header();
  const auto bytes = encode_sigproc_header(h);
  auto src = memory_source(bytes);
  const SigprocHeader r = read_sigproc_header(*src);
  CHECK(r.keys == h.keys);
  CHECK(r.header_bytes == bytes.size());
  CHECK(r.telescope_id == 4);
  CHECK(r.machine_id == 10);
  CHECK(r.rawdatafile == "raw.dat");
  CHECK(r.source_name == "J0437-4715");
  CHECK(r.az_start == 123.5);
  CHECK(r.za_start == 12.25);
  CHECK(r.src_raj == 43715.8961);
  CHECK(r.src_dej == -471509.11);
  CHECK(r.tstart == 60000.123456789);
  CHECK(r.tsamp == 64e-6);
  CHECK(r.fch1 == 1500.0);
  CHECK(r.foff == -0.5);
  CHECK(r.refdm == 12.5);
  CHECK(r.period == 0.005757);
  CHECK(r.nbeams == 13);
  CHECK(r.ibeam == 2);
  CHECK(r.signed_flag == -1);
  CHECK(r.data_signed());
  CHECK(r.nbins == 64);
  CHECK(r.npuls == 1234567890123LL);
  CHECK(r.frequency_table == h.frequency_table);
  CHECK(encode_sigproc_header(r) == bytes);
}

TEST_CASE("sigproc header: SIGPROC's signed = +1 means unsigned") {
  SigprocHeader h = every_key_header();
  h.signed_flag = 1;
  CHECK_FALSE(h.data_signed());
  h.remove_key("signed");
  h.signed_flag = -1;
  CHECK_FALSE(h.data_signed());
}

TEST_CASE("sigproc header: the fake writer order matches SIGPROC fake's bytes" *
          doctest::skip(!test::have_shared_data())) {
  const auto path = *test::shared_data_dir() / "peer-outputs/small/small_psr.fil";
  auto src = open_source(path.string());
  const SigprocHeader h = read_sigproc_header(*src);
  CHECK(h.header_bytes == 242);
  CHECK(h.nchans == 256);
  CHECK(h.nbits == 8);
  CHECK(h.tsamp == doctest::Approx(64e-6).epsilon(1e-12));
  CHECK(h.fch1 == 1500.0);
  CHECK(h.foff == -0.5);
  CHECK(h.machine_id == 10);
  CHECK(h.telescope_id == 4);
  CHECK(h.source_name == "P: 4.837200000000 ms, DM: 62.500");
  SigprocHeader w = h;
  w.keys = sigproc_fake_keys(w);
  const auto bytes = encode_sigproc_header(w);
  const auto file = test::read_file(path);
  REQUIRE(bytes.size() == 242);
  CHECK(std::memcmp(bytes.data(), file.data(), bytes.size()) == 0);
}

TEST_CASE("sigproc header: the dedisperse .tim order matches SIGPROC dedisperse's bytes" *
          doctest::skip(!test::have_shared_data())) {
  const auto path = *test::shared_data_dir() / "peer-outputs/small/small_DM62.5.tim";
  auto src = open_source(path.string());
  const SigprocHeader h = read_sigproc_header(*src);
  CHECK(h.header_bytes == 340);
  CHECK(h.data_type == 2);
  CHECK(h.refdm == 62.5);
  SigprocHeader w = h;
  w.keys = sigproc_dedisperse_keys(w);
  const auto file = test::read_file(path);
  CHECK(encode_sigproc_header(w) == std::vector<std::uint8_t>(file.begin(), file.begin() + 340));
}

TEST_CASE("sigproc header: bad headers give clear errors") {
  auto expect_format_error = [](std::vector<std::uint8_t> bytes, const char* fragment) {
    auto src = memory_source(std::move(bytes), "bad.fil");
    try {
      (void)read_sigproc_header(*src);
      FAIL("no error for a header that should fail: " << fragment);
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::format);
      CHECK(e.path() == "bad.fil");
      CHECK_MESSAGE(std::string(e.what()).find(fragment) != std::string::npos, std::string(e.what()));
    }
  };
  const SigprocHeader good = every_key_header();
  const auto bytes = encode_sigproc_header(good);

  SUBCASE("empty file") { expect_format_error({}, "empty file"); }
  SUBCASE("no HEADER_START") {
    auto b = bytes;
    b[4] = 'X';
    expect_format_error(b, "HEADER_START");
  }
  SUBCASE("another format, named") {
    test::FakePsrfits f;
    f.freqs_mhz = {1, 2, 3, 4};
    f.raw.assign(64, 0.0);
    expect_format_error(f.encode(), "not a SIGPROC file but PSRFITS");
  }
  SUBCASE("truncated header") {
    expect_format_error(std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + 60), "end of file");
  }
  SUBCASE("unknown keyword") {
    SigprocHeader h = good;
    auto b = encode_sigproc_header(h);
    // Rename "telescope_id" to "telescope_xx": same length, unknown name.
    const std::string key = "telescope_id";
    auto it = std::search(b.begin(), b.end(), key.begin(), key.end());
    REQUIRE(it != b.end());
    it[10] = 'x';
    it[11] = 'x';
    expect_format_error(b, "unknown header keyword 'telescope_xx'");
  }
  SUBCASE("absurd string length") {
    auto b = bytes;
    const std::int32_t huge = 1 << 30;
    std::memcpy(b.data() + 16, &huge, 4);
    expect_format_error(b, "absurd");
  }
  SUBCASE("nchans <= 0") {
    SigprocHeader h = good;
    h.nchans = 0;
    h.frequency_table.clear();
    h.remove_key("FREQUENCY_START");
    expect_format_error(encode_sigproc_header(h), "nchans must be positive");
  }
  SUBCASE("tsamp <= 0") {
    SigprocHeader h = good;
    h.tsamp = -1e-3;
    expect_format_error(encode_sigproc_header(h), "tsamp must be a positive");
  }
  SUBCASE("nbits 3") {
    SigprocHeader h = good;
    h.nbits = 3;
    expect_format_error(encode_sigproc_header(h), "unsupported nbits 3");
  }
}

TEST_CASE("filterbank: data shorter than nsamples are an error, a trailing partial sample is dropped") {
  SigprocHeader h = every_key_header();
  h.frequency_table.clear();
  h.remove_key("FREQUENCY_START");
  h.nsamples = 10;
  auto bytes = encode_sigproc_header(h);
  const auto header_size = bytes.size();
  SUBCASE("shorter than nsamples") {
    bytes.resize(header_size + 9 * 4);
    CHECK_THROWS_WITH_AS(FilterbankReader(memory_source(bytes)), doctest::Contains("shorter than the header says"),
                         Error);
  }
  SUBCASE("trailing partial sample") {
    // A file cut short: its whole samples are the data (with a warning), as SIGPROC and PRESTO read it.
    bytes.resize(header_size + 10 * 4 + 3);
    FilterbankReader r(memory_source(bytes));
    REQUIRE(r.nsamples().has_value());
    CHECK(*r.nsamples() == 10);
    std::vector<float> got(10 * static_cast<std::size_t>(h.nchans * h.nifs) + 64);
    CHECK(r.read_float(got.data(), 20) == 10);
    CHECK(r.read_float(got.data(), 20) == 0);
  }
}

TEST_CASE("sigproc angles: seconds that print as 60 carry, and an RA of 24 h is 0 h") {
  CHECK(sigproc_angle_to_string(123459.96, true, 1) == "12:35:00.0");
  CHECK(sigproc_angle_to_string(235959.96, true, 1) == "00:00:00.0");
  CHECK(sigproc_angle_to_string(235959.94, true, 1) == "23:59:59.9");
  CHECK(sigproc_angle_to_string(-225959.96, false, 1) == "-23:00:00.0");
  CHECK(sigproc_angle_to_string(895959.96, false, 1) == "90:00:00.0");
}
