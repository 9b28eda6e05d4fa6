// SPDX-License-Identifier: MIT
// PRESTO subband files (prepsubband -sub) read as a filterbank: the set ordered by number
// whatever the argument order, the subband frequencies prepsubband's subband_delays uses, the
// samples as float, -runavg's block means (blocks of 1024 from the first sample read, also after
// a seek), skips, the names prepsubband gives, and the refusals.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "fastpsr/error.hpp"
#include "fastpsr/presto_inf.hpp"
#include "fastpsr/presto_subbands.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

namespace {

struct SubbandSet {
  test::TempDir dir;
  std::vector<std::string> files;               // lowest subband first
  std::vector<std::vector<std::int16_t>> data;  // [subband][sample]
};

// nsub files of n random int16 samples beside a .sub.inf of `nchan` channels.
void make_set(SubbandSet& set, int nsub, std::size_t n, int nchan, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> value(-32768, 32767);
  for (int j = 0; j < nsub; ++j) {
    std::vector<std::int16_t> x(n);
    for (auto& v : x) v = static_cast<std::int16_t>(value(rng));
    std::vector<std::uint8_t> bytes(n * 2);
    std::memcpy(bytes.data(), x.data(), bytes.size());
    const std::string path = (set.dir / presto_subband_file_name("obs_DM30.00", j, nsub)).string();
    test::write_file(path, bytes);
    set.files.push_back(path);
    set.data.push_back(std::move(x));
  }
  PrestoInf inf;
  inf.name = "obs_DM30.00.sub";
  inf.telescope = "Parkes";
  inf.object = "J0000+0000";
  inf.ra = "01:02:03.0000";
  inf.dec = "-04:05:06.0000";
  inf.mjd_i = 60000;
  inf.mjd_f = 0.25;
  inf.N = static_cast<double>(n);
  inf.dt = 6.4e-5;
  inf.dm = 30;
  inf.freq = 1182.1953125;
  inf.chan_wid = 0.390625;
  inf.num_chan = nchan;
  inf.freqband = nchan * inf.chan_wid;
  write_inf((set.dir / "obs_DM30.00.sub.inf").string(), inf);
}

}  // namespace

TEST_CASE("presto subbands: names") {
  CHECK(is_presto_subband_name("a/obs_DM30.00.sub07"));
  CHECK(is_presto_subband_name("obs.sub0"));
  CHECK_FALSE(is_presto_subband_name("obs_DM30.00.sub"));
  CHECK_FALSE(is_presto_subband_name("obs_DM30.00.sub.inf"));
  CHECK_FALSE(is_presto_subband_name("obs_DM30.00.dat"));
  CHECK_FALSE(is_presto_subband_name("sub12"));
  CHECK(presto_subband_inf_root("a/obs_DM30.00.sub07") == "a/obs_DM30.00.sub");
  // prepsubband: ceil(log10(nsub)) digits.
  CHECK(presto_subband_file_name("r", 0, 1) == "r.sub0");
  CHECK(presto_subband_file_name("r", 9, 10) == "r.sub9");
  CHECK(presto_subband_file_name("r", 3, 11) == "r.sub03");
  CHECK(presto_subband_file_name("r", 31, 32) == "r.sub31");
  CHECK(presto_subband_file_name("r", 5, 100) == "r.sub05");
  CHECK(presto_subband_file_name("r", 5, 101) == "r.sub005");
}

TEST_CASE("presto subbands: samples, header and order") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  SubbandSet set;
  make_set(set, 4, 2500, 64, seed);
  // Given in any order, with the .inf among them (root.sub* matches it too).
  std::vector<std::string> given = {set.files[2], set.files[0], (set.dir / "obs_DM30.00.sub.inf").string(),
                                    set.files[3], set.files[1]};
  PrestoSubbandReader r(given, false);
  CHECK(r.nsub() == 4);
  CHECK(r.paths() == set.files);
  REQUIRE(r.nsamples() == 2500U);
  const SigprocHeader& h = r.header();
  CHECK(h.nchans == 4);
  CHECK(h.tsamp == doctest::Approx(6.4e-5));
  CHECK(h.tstart == doctest::Approx(60000.25));
  CHECK(h.source_name == "J0000+0000");
  // Channel j: the centre of subband j's highest channel, exactly as prepsubband computes it.
  const double sbw = 0.390625 * 16;
  CHECK(h.fch1 == 1182.1953125 + sbw - 0.390625);
  CHECK(h.foff == sbw);
  CHECK(r.inf().num_chan == 64);
  CHECK(r.inf().dm == 30);

  std::vector<float> got(2500 * 4);
  REQUIRE(r.read_float(got.data(), 1000) == 1000);
  REQUIRE(r.read_float(got.data() + 4000, 5000) == 1500);
  CHECK(r.read_float(got.data(), 1) == 0);
  for (std::size_t t = 0; t < 2500; ++t) {
    for (std::size_t j = 0; j < 4; ++j) {
      if (got[t * 4 + j] != static_cast<float>(set.data[j][t])) {
        FAIL_CHECK("sample " << t << " subband " << j);
        return;
      }
    }
  }
}

TEST_CASE("presto subbands: -runavg block means, after a seek too") {
  const std::uint64_t seed = test::fresh_seed();
  INFO("seed " << seed);
  SubbandSet set;
  make_set(set, 2, 3000, 8, seed);
  for (const std::uint64_t start : {std::uint64_t{0}, std::uint64_t{700}}) {
    CAPTURE(start);
    PrestoSubbandReader r(set.files, true);
    REQUIRE(r.skip(start) == start);
    std::vector<float> got((3000 - start) * 2);
    REQUIRE(r.read_float(got.data(), 3000) == 3000 - start);
    // Blocks of 1024 from `start` (PRESTO seeks, then reads blocks): the last one shorter.
    for (std::size_t j = 0; j < 2; ++j) {
      for (std::size_t b = start; b < 3000; b += 1024) {
        const std::size_t e = std::min<std::size_t>(b + 1024, 3000);
        double avg = 0.0;
        for (std::size_t t = b; t < e; ++t) avg += static_cast<double>(set.data[j][t]);
        avg /= static_cast<double>(e - b);
        for (std::size_t t = b; t < e; ++t) {
          const auto want = static_cast<float>(static_cast<double>(set.data[j][t]) - avg);
          REQUIRE(got[(t - start) * 2 + j] == want);
        }
      }
    }
  }
  // A skip after a read reads on (the blocks stay where the reading started).
  PrestoSubbandReader r(set.files, false);
  std::vector<float> x(10 * 2);
  REQUIRE(r.read_float(x.data(), 10) == 10);
  CHECK(r.skip(100) == 100);
  REQUIRE(r.read_float(x.data(), 1) == 1);
  CHECK(x[0] == static_cast<float>(set.data[0][110]));
  CHECK(r.skip(10000) == 3000 - 111);
}

TEST_CASE("presto subbands: refusals name the file") {
  SubbandSet set;
  make_set(set, 4, 100, 64, 1);
  CHECK(test::error_of([&] {
          PrestoSubbandReader({set.files[0], set.files[1], set.files[3]}, false);
        }).find("subband 2 is missing") != std::string::npos);
  CHECK(test::error_of([&] {
          PrestoSubbandReader({set.files[0], set.files[0]}, false);
        }).find("subband given twice") != std::string::npos);
  // A part of the set: the next file is beside it.
  CHECK(test::error_of([&] {
          PrestoSubbandReader({set.files[0], set.files[1], set.files[2]}, false);
        }).find("obs_DM30.00.sub3 is beside them") != std::string::npos);
  {
    SubbandSet three;  // a whole set whose count does not divide the channels
    make_set(three, 3, 10, 64, 2);
    CHECK(test::error_of([&] { PrestoSubbandReader(three.files, false); }).find("do not split into 3 subbands") !=
          std::string::npos);
  }
  {
    SubbandSet twelve;  // sub00..sub11: eight of them with two digits are too few for their names
    make_set(twelve, 12, 10, 48, 3);
    const std::vector<std::string> first8(twelve.files.begin(), twelve.files.begin() + 8);
    std::filesystem::remove(twelve.files[8]);  // so only the width tells
    CHECK(test::error_of([&] {
            PrestoSubbandReader(first8, false);
          }).find("8 subband files numbered with 2 digits, as prepsubband numbers a set of 11 to 100") !=
          std::string::npos);
  }
  {
    SubbandSet other;  // the .sub.inf of another set among the files
    make_set(other, 4, 10, 64, 4);
    std::vector<std::string> mixed = set.files;
    mixed.push_back((other.dir / "obs_DM30.00.sub.inf").string());
    CHECK(test::error_of([&] { PrestoSubbandReader(mixed, false); }).find("the .sub.inf of another set") !=
          std::string::npos);
  }
  CHECK(test::error_of([&] {
          PrestoSubbandReader({(set.dir / "obs.dat").string()}, false);
        }).find("not a PRESTO subband file") != std::string::npos);
  test::write_file(set.files[3], std::vector<std::uint8_t>(201));
  CHECK(test::error_of([&] { PrestoSubbandReader(set.files, false); }).find("not a whole number of int16") !=
        std::string::npos);
  test::write_file(set.files[3], std::vector<std::uint8_t>(202));
  const std::string e = test::error_of([&] { PrestoSubbandReader(set.files, false); });
  CHECK(e.find("the subbands of a set have one length") != std::string::npos);
  CHECK(e.find("obs_DM30.00.sub3") != std::string::npos);
}
