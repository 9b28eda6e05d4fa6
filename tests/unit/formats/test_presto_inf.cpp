// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <string>

#include "fastpsr/error.hpp"
#include "fastpsr/presto_inf.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

TEST_CASE("presto .inf: PRESTO-written files are rewritten byte for byte" * doctest::skip(!test::have_shared_data())) {
  const auto dir = *test::shared_data_dir() / "peer-outputs";
  for (const char* rel : {"small/small_DM62.50.inf", "small/small_sub_DM62.50.inf", "small/small_DM62.50_red.inf",
                          "iso/iso_DM62.50.inf", "iso/iso_DM62.50_red.inf", "iso/iso_prepdata_DM62.50.inf",
                          "bin/bin_DM88.80.inf"}) {
    CAPTURE(rel);
    const auto bytes = test::read_file(dir / rel);
    const std::string text(bytes.begin(), bytes.end());
    const PrestoInf inf = parse_inf(text, rel);
    CHECK(format_inf(inf) == text);
  }
}

TEST_CASE("presto .inf: fields are parsed") {
  PrestoInf d;
  d.name = "psr_DM12.30";
  d.telescope = "Parkes";
  d.instrument = "BPSR";
  d.object = "J0437-4715";
  d.ra = "04:37:15.8961";
  d.dec = "-47:15:09.1100";
  d.mjd_i = 60000;
  d.mjd_f = 0.123456789012345;
  d.bary = 1;
  d.N = 2097152;
  d.dt = 6.4e-05;
  d.onoff = {{0, 2090399}, {2097151, 2097151}};
  d.fov = 844;
  d.dm = 12.3;
  d.freq = 1182.1953125;
  d.freqband = 400;
  d.num_chan = 1024;
  d.chan_wid = 0.390625;
  d.analyzer = "someone";
  d.notes = "Project ID unset.\n    2 polns were summed.  Samples have 8 bits.\n";
  const std::string text = format_inf(d);
  CHECK(text.find(" Epoch of observation (MJD)             =  60000.123456789012345\n") != std::string::npos);
  CHECK(text.find(" Number of bins in the time series      =  2097152    \n") != std::string::npos);
  CHECK(text.find(" On/Off bin pair #  2                   =  2097151    , 2097151    \n") != std::string::npos);
  const PrestoInf r = parse_inf(text, "x.inf");
  CHECK(r.name == d.name);
  CHECK(r.mjd_i == 60000);
  CHECK(r.mjd_f == doctest::Approx(d.mjd_f).epsilon(1e-15));
  CHECK(r.N == d.N);
  CHECK(r.dt == d.dt);
  CHECK(r.onoff == d.onoff);
  CHECK(r.dm == d.dm);
  CHECK(r.freq == d.freq);
  CHECK(r.num_chan == 1024);
  CHECK(r.notes == d.notes);
  CHECK(format_inf(r) == text);
}

TEST_CASE("presto .inf: the Python writer's spellings are read too") {
  const std::string text =
      " Data file name without suffix          =  x\n"
      " Telescope used                         =  GBT\n"
      " Number of bins in the time series      =  1000\n"
      " Width of each time series bin (sec)    =  0.001\n"
      " Central freq of low channel (Mhz)      =  350\n"
      " Total bandwidth (Mhz)                  =  100\n"
      " Any breaks in the data? (1=yes, 0=no)  =  0\n";
  const PrestoInf r = parse_inf(text, "py.inf");
  CHECK(r.freq == 350);
  CHECK(r.freqband == 100);
  CHECK(r.N == 1000);
}

TEST_CASE("presto .inf: missing lines and bad numbers are errors") {
  CHECK_THROWS_WITH_AS(parse_inf("hello\n", "a.inf"), doctest::Contains("not a PRESTO .inf"), Error);
  CHECK_THROWS_WITH_AS(parse_inf(" Number of bins in the time series      =  abc\n", "a.inf"),
                       doctest::Contains("cannot read a number"), Error);
  // (N, bin width) pairs and what each is refused with.
  struct Bad {
    const char* n;
    const char* dt;
    const char* says;
  };
  for (const Bad& c : {
           // The whole value, in decimal (QA pass 20, finding 6: '15x31' was read as 15, '0x10' as 16).
           Bad{"15x31", "0.001", "cannot read a number"}, Bad{"0x10", "0.001", "cannot read a number"},
           Bad{"12 34", "0.001", "cannot read a number"}, Bad{"inf", "0.001", "cannot read a number"},
           Bad{"nan", "0.001", "cannot read a number"}, Bad{"1e3q", "0.001", "cannot read a number"},
           Bad{"1000", "1e-3s", "cannot read a number from '1e-3s'"},
           Bad{"0", "0.001", "must be a positive whole number"},
           Bad{"1.5", "0.001", "got 1.5"},  // a fractional N would not survive PRESTO's "%-11.0f"
           Bad{"10", "-0.001", "bin width must be a positive number"},
           Bad{"10", "nan", "cannot read a number from 'nan'"},  // nan is not a number to begin with
       }) {
    CAPTURE(c.n);
    CAPTURE(c.dt);
    CHECK_THROWS_WITH_AS(parse_inf(std::string(" Number of bins in the time series      =  ") + c.n +
                                       "\n Width of each time series bin (sec)    =  " + c.dt + "\n",
                                   "a.inf"),
                         doctest::Contains(c.says), Error);
  }
  CHECK_THROWS_WITH_AS(parse_inf(" Number of bins in the time series      =  10\n"
                                 " Width of each time series bin (sec)    =  0.1\n"
                                 " Number of channels                     =  1e300\n",
                                 "a.inf"),
                       doctest::Contains("out of range"), Error);
}
