// SPDX-License-Identifier: MIT
// Every sample width and IF count through FilterbankWriter -> FilterbankReader and GulpReader
// (packed and float, several gulp sizes and overlaps), against the values written.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "fastpsr/bitpack.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/filterbank.hpp"
#include "format_test_helpers.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

struct Width {
  int nbits;
  bool is_signed;
};

SigprocHeader header_for(Width w, int nifs, int nchans) {
  SigprocHeader h;
  h.source_name = "roundtrip";
  h.telescope_id = 4;
  h.machine_id = 10;
  h.fch1 = 1500.0;
  h.foff = -0.5;
  h.nchans = nchans;
  h.nbits = w.nbits;
  h.nifs = nifs;
  h.tstart = 60000.5;
  h.tsamp = 64e-6;
  h.keys = sigproc_filterbank_keys(h);
  if (w.is_signed) {
    h.signed_flag = -1;
    h.keys.emplace_back("signed");
  }
  return h;
}

// Values that every width represents exactly: integers in its range (any float for 32 bits).
std::vector<float> random_values(Width w, std::size_t n, std::mt19937_64& rng) {
  std::vector<float> v(n);
  if (w.nbits == 32) {
    std::normal_distribution<float> g(0.0F, 100.0F);
    for (auto& x : v) x = g(rng);
    return v;
  }
  const long lo = w.is_signed ? -128 : 0;
  const long hi = w.is_signed ? 127 : (1L << w.nbits) - 1;
  std::uniform_int_distribution<long> d(lo, hi);
  for (auto& x : v) x = static_cast<float>(d(rng));
  return v;
}

std::vector<std::uint8_t> write_file(const SigprocHeader& h, const std::vector<float>& values, std::size_t nsamples) {
  auto sink = std::make_unique<MemorySink>();
  MemorySink* mem = sink.get();
  FilterbankWriter w(std::move(sink), h);
  // In two pieces, to exercise appending.
  const std::size_t first = nsamples / 3;
  const std::size_t per = static_cast<std::size_t>(h.nchans) * h.nifs;
  w.write_float(values.data(), first);
  w.write_float(values.data() + first * per, nsamples - first);
  w.commit();
  CHECK(w.samples_written() == nsamples);
  return mem->bytes();
}

}  // namespace

TEST_CASE("filterbank: every nbits and nifs round-trips through writer, reader and gulps") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const std::size_t nsamples = 203;
  for (Width w : {Width{1, false}, Width{2, false}, Width{4, false}, Width{8, false}, Width{8, true}, Width{16, false},
                  Width{32, false}}) {
    for (int nifs : {1, 2, 3}) {
      CAPTURE(w.nbits);
      CAPTURE(w.is_signed);
      CAPTURE(nifs);
      const int nchans = 24;
      const SigprocHeader h = header_for(w, nifs, nchans);
      const std::size_t per = static_cast<std::size_t>(nchans) * nifs;
      const auto values = random_values(w, nsamples * per, rng);
      const auto bytes = write_file(h, values, nsamples);
      REQUIRE(bytes.size() == encode_sigproc_header(h).size() + nsamples * h.bytes_per_sample());

      // Whole file, from memory and from a pipe.
      for (bool piped : {false, true}) {
        auto src = piped ? test::pipe_source(bytes, 5) : memory_source(bytes);
        FilterbankReader r(std::move(src));
        CHECK(r.header().nbits == w.nbits);
        CHECK(r.header().data_signed() == w.is_signed);
        CHECK(r.header().keys == h.keys);
        if (!piped) CHECK(r.nsamples() == nsamples);
        std::vector<float> got(nsamples * per + per, std::nanf(""));
        CHECK(r.read_float(got.data(), nsamples + 1) == nsamples);
        got.resize(nsamples * per);
        CHECK(got == values);
      }

      // Gulps: every row of every gulp equals the sample it claims to be, and the new rows
      // cover the file exactly once.
      for (std::size_t gulp : {1, 7, 64, 500}) {
        for (std::size_t overlap : {0, 1, 9}) {
          for (auto layout : {GulpReader::Layout::packed, GulpReader::Layout::float32}) {
            FilterbankReader r(memory_source(bytes));
            GulpReader g(r, gulp, overlap, layout);
            std::size_t next_new = 0;
            bool saw_last = false;
            while (auto gl = g.next()) {
              CAPTURE(gulp);
              CAPTURE(overlap);
              REQUIRE(gl->nnew <= gulp);
              REQUIRE(gl->first_sample + gl->nsamples == next_new + gl->nnew);
              REQUIRE(gl->nsamples - gl->nnew <= overlap);
              std::vector<float> rows(gl->nsamples * per);
              if (layout == GulpReader::Layout::float32) {
                rows.assign(gl->values, gl->values + rows.size());
              } else {
                unpack_to_float(gl->packed, rows.data(), rows.size(), w.nbits, w.is_signed);
              }
              const auto* expect = values.data() + gl->first_sample * per;
              CHECK(std::equal(rows.begin(), rows.end(), expect));
              next_new += gl->nnew;
              saw_last = gl->last;
            }
            CHECK(saw_last);
            CHECK(next_new == nsamples);
          }
        }
      }
    }
  }
}

TEST_CASE("filterbank: values outside a width are rounded and clipped on writing") {
  SigprocHeader h = header_for({4, false}, 1, 8);
  const std::vector<float> in = {-3.0F, 0.4F, 0.5F, 7.49F, 14.6F, 99.0F, std::nanf(""), 2.5F};
  const auto bytes = write_file(h, in, 1);
  FilterbankReader r(memory_source(bytes));
  std::vector<float> out(8);
  REQUIRE(r.read_float(out.data(), 1) == 1);
  // Round half away from zero, clip to 0..15, NaN as 0.
  CHECK(out == std::vector<float>{0.0F, 0.0F, 1.0F, 7.0F, 15.0F, 15.0F, 0.0F, 3.0F});
}

TEST_CASE("filterbank: SIGPROC's sub-byte order puts the earliest sample in the lowest bits") {
  SigprocHeader h = header_for({2, false}, 1, 4);
  const auto bytes = write_file(h, {1.0F, 2.0F, 3.0F, 0.0F}, 1);
  CHECK(bytes.back() == (1 | (2 << 2) | (3 << 4)));
  h = header_for({1, false}, 1, 8);
  CHECK(write_file(h, {1, 0, 0, 0, 0, 0, 0, 1}, 1).back() == 0x81);
  h = header_for({16, false}, 1, 1);
  h.nchans = 1;
  const auto b16 = write_file(h, {258.0F}, 1);
  CHECK(b16[b16.size() - 2] == 2);  // little-endian
  CHECK(b16.back() == 1);
}

TEST_CASE("filterbank: skip and read continue from the same place") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const Width w{8, false};
  const SigprocHeader h = header_for(w, 1, 16);
  const auto values = random_values(w, 100 * 16, rng);
  const auto bytes = write_file(h, values, 100);
  for (bool piped : {false, true}) {
    FilterbankReader r(piped ? test::pipe_source(bytes, 3) : memory_source(bytes));
    CHECK(r.skip(37) == 37);
    std::vector<float> got(10 * 16);
    CHECK(r.read_float(got.data(), 10) == 10);
    CHECK(std::equal(got.begin(), got.end(), values.begin() + 37 * 16));
    CHECK(r.skip(1000) == 53);
    CHECK(r.read_float(got.data(), 1) == 0);
  }
}

TEST_CASE("filterbank: a pipe that ends before nsamples is an error, inside a sample, the whole ones are read") {
  SigprocHeader h = header_for({8, false}, 1, 16);
  h.nsamples = 10;
  h.keys.emplace_back("nsamples");
  auto bytes = encode_sigproc_header(h);
  const auto header_size = bytes.size();
  std::vector<float> buf(16 * 20);
  SUBCASE("partial") {
    bytes.resize(header_size + 16 * 10 + 5);
    FilterbankReader r(test::pipe_source(bytes, 64));
    std::size_t total = 0;
    for (std::size_t got = 1; got > 0; total += got) got = r.read_float(buf.data(), 20);
    CHECK(total == 10);
  }
  SUBCASE("short") {
    bytes.resize(header_size + 16 * 9);
    FilterbankReader r(test::pipe_source(bytes, 64));
    CHECK_THROWS_WITH_AS(r.read_float(buf.data(), 20), doctest::Contains("shorter than the header says"), Error);
  }
}

TEST_CASE("filterbank: every keyword survives FilterbankWriter and FilterbankReader through a file") {
  test::TempDir dir;
  SigprocHeader h = header_for({8, true}, 2, 4);
  h.rawdatafile = "raw.dat";
  h.data_type = 1;
  h.barycentric = 1;
  h.pulsarcentric = 0;
  h.az_start = 12.5;
  h.za_start = 45.25;
  h.src_raj = 53431.9;
  h.src_dej = -220052.0;
  h.nsamples = 3;
  h.refdm = 56.7;
  h.period = 0.0337;
  h.nbeams = 13;
  h.ibeam = 5;
  h.nbins = 128;
  h.npuls = 1LL << 40;
  h.frequency_table = {1500.0, 1499.0, 1498.5, 1497.0};
  h.keys = {"telescope_id", "machine_id", "data_type", "rawdatafile", "source_name", "barycentric",    "pulsarcentric",
            "az_start",     "za_start",   "src_raj",   "src_dej",     "tstart",      "tsamp",          "nbits",
            "nsamples",     "fch1",       "foff",      "nchans",      "nifs",        "refdm",          "period",
            "nbeams",       "ibeam",      "signed",    "nbins",       "npuls",       "FREQUENCY_START"};
  const auto path = (dir / "all.fil").string();
  const std::vector<float> values = {-1, 2, -3, 4, 5, -6, 7, -8, 9, 10, 11, 12, -128, 127, 0, 1,
                                     1,  1, 1,  1, 2, 2,  2, 2,  3, 3,  3,  3,  4,    4,   4, 4};
  {
    auto w = FilterbankWriter::open(path, h);
    w->write_float(values.data(), 4);
    w->commit();
  }
  auto r = FilterbankReader::open(path);
  const SigprocHeader& g = r->header();
  CHECK(g.keys == h.keys);
  for (const auto& k : h.keys) {
    if (k == "FREQUENCY_START") continue;
    CAPTURE(k);
    CHECK(sigproc_value_string(g, k) == sigproc_value_string(h, k));
  }
  CHECK(g.frequency_table == h.frequency_table);
  CHECK(g.channel_freq_mhz(2) == 1498.5);
  CHECK(r->nsamples() == 4);
  std::vector<float> got(32);
  CHECK(r->read_float(got.data(), 4) == 4);
  CHECK(got == values);
}
