// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <random>

#include "fastpsr/mjd.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

TEST_CASE("mjd: known dates and the round trip") {
  auto date = [](std::int64_t mjd) {
    const CalendarDate d = calendar_date_of_mjd(mjd);
    return fmt::format("{:04d}-{:02d}-{:02d}", d.year, d.month, d.day);
  };
  CHECK(date(0) == "1858-11-17");
  CHECK(date(40587) == "1970-01-01");
  CHECK(date(51544) == "2000-01-01");
  CHECK(date(51603) == "2000-02-29");
  CHECK(date(60000) == "2023-02-25");  // SIGPROC's header for small_psr.fil says 2023/02/25
  CHECK(date(58543) == "2019-03-01");  // the Parkes Crab files: DATE-OBS 2019-03-01
  const auto seed = test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> d(-100000, 200000);
  for (int i = 0; i < 1000; ++i) {
    const std::int64_t m = d(rng);
    const CalendarDate c = calendar_date_of_mjd(m);
    CHECK(mjd_of_calendar_date(c.year, c.month, c.day) == m);
  }
}

TEST_CASE("mjd: SIGPROC's and PRESTO's date strings") {
  CHECK(sigproc_date_string(60000.0) == "2023/02/25");
  CHECK(sigproc_date_string(60000.94) == "2023/02/25");
  CHECK(sigproc_date_string(60000.96) == "2023/02/26");  // slaDjcal(1, ...) rounds to 0.1 day
  CHECK(sigproc_utstart_string(60000.75) == "18:00:00");
  CHECK(presto_date_string(60000.0) == "2023-02-25T00:00:00");
  CHECK(presto_date_string(58543.0 + (7 * 3600 + 55 * 60 + 14.3605) / 86400.0).starts_with("2019-03-01T07:55:14.36"));
  CHECK(presto_date_string(58543.0 + (7 * 3600 + 55 * 60 + 4.5) / 86400.0) == "2019-03-01T07:55:04.5");
  CHECK(sigproc_date_string(1e300) == "unknown");
}
