// SPDX-License-Identifier: MIT
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "fastpsr/error.hpp"
#include "fastpsr/work_part.hpp"
#include "support/test_support.hpp"

using namespace fastpsr;

TEST_CASE("work part: i/n parsed, nonsense refused with a reason") {
  CHECK(parse_work_part("3/8").index == 3);
  CHECK(parse_work_part("3/8").count == 8);
  CHECK(parse_work_part("1/1").whole());
  CHECK(parse_work_part("2/5").describe() == "part 2/5");
  CHECK(test::error_of([] { (void)parse_work_part("0/4"); }).find("numbered 1 to 4") != std::string::npos);
  CHECK(test::error_of([] { (void)parse_work_part("5/4"); }).find("only 4 parts") != std::string::npos);
  for (const char* bad : {"", "3", "/4", "3/", "a/4", "3/4x", "-1/4", "1.5/4", "1/0", "1/2000000"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS((void)parse_work_part(bad), Error);
  }
}

// Checks that the parts of `weights` tile 0..size in order, each item once, and returns each
// part's weight.
std::vector<double> check_tiling(const std::vector<double>& w, std::size_t n) {
  std::vector<double> part_weight;
  std::size_t next = 0;
  for (std::size_t i = 1; i <= n; ++i) {
    const auto [first, last] = part_slice(w, WorkPart{i, n});
    CHECK(first == next);
    CHECK(last >= first);
    double sum = 0;
    for (std::size_t j = first; j < last; ++j) sum += w[j];
    part_weight.push_back(sum);
    next = last;
  }
  CHECK(next == w.size());
  return part_weight;
}

TEST_CASE("work part: contiguous slices tile the items with nearly equal work") {
  std::mt19937_64 rng(test::fresh_seed());
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t items = std::uniform_int_distribution<std::size_t>(0, 3000)(rng);
    const std::size_t n = std::uniform_int_distribution<std::size_t>(1, 40)(rng);
    std::vector<double> w(items);
    // DM plans: ranges of DMs downsampled by 1, 2, 4 ... cost 1/downsample each.
    std::size_t ds = 1;
    for (std::size_t j = 0; j < items; ++j) {
      if (std::uniform_int_distribution<int>(0, 500)(rng) == 0) ds *= 2;
      w[j] = 1.0 / static_cast<double>(ds);
    }
    CAPTURE(items);
    CAPTURE(n);
    const auto parts = check_tiling(w, n);
    double total = 0, wmax = 0;
    for (double x : w) {
      total += x;
      wmax = std::max(wmax, x);
    }
    // Each part is within one item's weight of its share.
    for (double p : parts) CHECK(std::abs(p - total / static_cast<double>(n)) <= wmax + 1e-9 * total);
  }
}

TEST_CASE("work part: equal weights split as evenly as counts allow, and extra parts are empty") {
  const std::vector<double> w(10, 1.0);
  const auto parts = check_tiling(w, 4);  // 10 over 4: 2 or 3 each
  for (double p : parts) CHECK((p == 2.0 || p == 3.0));
  const auto many = check_tiling(w, 25);  // more parts than items: 10 of one, 15 empty
  CHECK(std::count(many.begin(), many.end(), 1.0) == 10);
  CHECK(std::count(many.begin(), many.end(), 0.0) == 15);
  CHECK(part_slice(w, WorkPart{1, 1}) == std::pair<std::size_t, std::size_t>{0, 10});
  CHECK(part_slice(std::vector<double>{}, WorkPart{1, 3}) == std::pair<std::size_t, std::size_t>{0, 0});
}

TEST_CASE("work part: file names of a part") {
  CHECK(part_file_name("dmtime.fil", WorkPart{2, 8}) == "dmtime_part2of8.fil");
  CHECK(part_file_name("out/run.1/obs", WorkPart{3, 4}) == "out/run.1/obs_part3of4");
  CHECK(part_file_name("dmtime.fil", WorkPart{1, 1}) == "dmtime.fil");
  CHECK(part_file_name("-", WorkPart{2, 8}) == "-");
  CHECK(WorkPart{5, 6}.name_suffix() == "_part5of6");
}

TEST_CASE("work part: round robin") {
  const WorkPart p{2, 3};
  CHECK(!in_part_round_robin(0, p));
  CHECK(in_part_round_robin(1, p));
  CHECK(in_part_round_robin(4, p));
  CHECK(!in_part_round_robin(5, p));
  CHECK(in_part_round_robin(7, WorkPart{1, 1}));
}
