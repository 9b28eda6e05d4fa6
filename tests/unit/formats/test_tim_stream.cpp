// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <random>

#include "fastpsr/error.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/tim_stream.hpp"
#include "format_test_helpers.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

SigprocHeader base_header() {
  SigprocHeader fb;
  fb.source_name = "J0534+2200";
  fb.telescope_id = 4;
  fb.machine_id = 10;
  fb.src_raj = 53431.9;
  fb.src_dej = 220052.0;
  fb.tstart = 58543.330387241345;
  fb.tsamp = 512e-6;
  fb.fch1 = 4030.0;
  fb.foff = -4.0;
  fb.nchans = 832;
  return fb;
}

struct Record {
  double dm;
  std::vector<float> samples;
};

std::vector<std::uint8_t> write_stream(const std::vector<Record>& records, bool in_pieces) {
  auto sink = std::make_unique<MemorySink>("stream");
  MemorySink* mem = sink.get();
  TimStreamWriter w(std::move(sink));
  for (const auto& r : records) {
    const SigprocHeader h = make_tim_header(base_header(), r.dm, 4030.0);
    if (in_pieces) {
      w.begin(h, r.samples.size());
      const std::span<const float> all(r.samples);
      const std::size_t half = all.size() / 2;
      w.append(all.first(half));
      w.append(all.subspan(half));
    } else {
      w.write(h, r.samples);
    }
  }
  w.commit();
  CHECK(w.records_written() == records.size());
  return mem->bytes();
}

std::vector<Record> random_records(std::mt19937_64& rng) {
  std::normal_distribution<float> g(0.0F, 1.0F);
  std::vector<Record> recs;
  for (int i = 0; i < 5; ++i) {
    Record r{10.0 * i + 0.25, std::vector<float>(static_cast<std::size_t>(i == 2 ? 0 : 100 + 37 * i))};
    for (auto& v : r.samples) v = g(rng);
    recs.push_back(std::move(r));
  }
  return recs;
}

}  // namespace

TEST_CASE("tim-stream: records written whole or in pieces read back exactly") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const auto recs = random_records(rng);
  for (bool pieces : {false, true}) {
    const auto bytes = write_stream(recs, pieces);
    for (bool piped : {false, true}) {
      CAPTURE(pieces);
      CAPTURE(piped);
      TimStreamReader r(piped ? test::pipe_source(bytes, 13) : memory_source(bytes));
      for (const auto& want : recs) {
        auto ts = r.next();
        REQUIRE(ts);
        CHECK(ts->origin == TimeSeriesOrigin::tim_stream);
        CHECK(ts->samples == want.samples);
        CHECK(ts->dm == want.dm);
        CHECK(ts->ref_freq_mhz == 4030.0);
        CHECK(ts->tsamp_s == 512e-6);
        CHECK(ts->epoch_mjd_int == 58543);
        CHECK(ts->source_name == "J0534+2200");
        REQUIRE(ts->sigproc);
        CHECK(ts->sigproc->nsamples == static_cast<std::int32_t>(want.samples.size()));
        CHECK(ts->sigproc->data_type == 2);
        CHECK(ts->sigproc->nbits == 32);
      }
      CHECK_FALSE(r.next());
      CHECK_FALSE(r.next());
      CHECK(r.records_read() == recs.size());
    }
  }
}

TEST_CASE("tim-stream: each record header is SIGPROC dedisperse's .tim header plus nsamples") {
  const SigprocHeader h = tim_stream_record_header(make_tim_header(base_header(), 56.77, 4030.0), 4096);
  CHECK(h.keys == std::vector<std::string>{"source_name", "telescope_id", "machine_id", "src_raj", "src_dej",
                                           "az_start", "za_start", "data_type", "refdm", "fch1", "barycentric",
                                           "nchans", "nbits", "nsamples", "tstart", "tsamp", "nifs"});
  CHECK(h.nsamples == 4096);
  CHECK(h.nchans == 1);
  CHECK(h.nifs == 1);
  CHECK(h.refdm == 56.77);
  CHECK(h.fch1 == 4030.0);
  CHECK_THROWS_AS(tim_stream_record_header(h, kMaxTimStreamRecord + 1), Error);
}

TEST_CASE("tim-stream: a record cut short names the stream and the record") {
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  const auto recs = random_records(rng);
  auto bytes = write_stream(recs, false);
  bytes.erase(bytes.end() - 10, bytes.end());
  TimStreamReader r(test::pipe_source(bytes, 64, "dedisp-out"));
  for (int i = 0; i < 4; ++i) REQUIRE(r.next());
  try {
    (void)r.next();
    FAIL("no error for a truncated record");
  } catch (const Error& e) {
    CHECK(e.path() == "dedisp-out");
    CHECK_MESSAGE(std::string(e.what()).find("record 4: truncated") != std::string::npos, std::string(e.what()));
  }
}

TEST_CASE("tim-stream: garbage between records is an error naming the record") {
  auto bytes = write_stream({{1.0, {1, 2, 3}}}, false);
  bytes.push_back('x');
  TimStreamReader r(memory_source(bytes, "s"));
  REQUIRE(r.next());
  CHECK_THROWS_WITH_AS(r.next(), doctest::Contains("record 1: not a SIGPROC file"), Error);
  // The usual cause (a .tim whose nsamples is below its data, piped) is named.
  TimStreamReader again(memory_source(bytes, "s"));
  REQUIRE(again.next());
  CHECK_THROWS_WITH_AS(again.next(), doctest::Contains("cannot be streamed"), Error);
}

TEST_CASE("tim-stream: a plain .tim without nsamples is one record running to the end") {
  SigprocHeader h = make_tim_header(base_header(), 3.0, 4030.0);
  auto bytes = encode_sigproc_header(h);
  const std::vector<float> v = {4, 5, 6, 7};
  const auto* p = reinterpret_cast<const std::uint8_t*>(v.data());
  bytes.insert(bytes.end(), p, p + 16);
  TimStreamReader r(test::pipe_source(bytes, 5));
  auto ts = r.next();
  REQUIRE(ts);
  CHECK(ts->samples == v);
  CHECK_FALSE(r.next());
}

TEST_CASE("tim-stream: the writer refuses records that do not add up") {
  TimStreamWriter w(std::make_unique<MemorySink>("s"));
  const SigprocHeader h = make_tim_header(base_header(), 3.0, 4030.0);
  w.begin(h, 4);
  const std::vector<float> three = {1, 2, 3};
  w.append(three);
  CHECK_THROWS_WITH_AS(w.append(three), doctest::Contains("needs only 1 more"), Error);
  CHECK_THROWS_WITH_AS(w.begin(h, 2), doctest::Contains("still lacks 1 samples"), Error);
  CHECK_THROWS_WITH_AS(w.commit(), doctest::Contains("still lacks 1 samples"), Error);
}

TEST_CASE("tim-stream: read_timeseries of a stream file gives its first record") {
  test::TempDir dir;
  const auto bytes = write_stream({{1.0, {1, 2, 3}}, {2.0, {4, 5}}}, false);
  test::write_file(dir / "s.tim", bytes);
  const TimeSeries ts = read_timeseries((dir / "s.tim").string());
  CHECK(ts.samples == std::vector<float>{1, 2, 3});
  CHECK(ts.dm == 1.0);
}
