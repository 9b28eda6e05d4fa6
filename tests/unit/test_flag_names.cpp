// SPDX-License-Identifier: MIT
// A shim's spelling of a tool's flags in its messages (flag_names.hpp).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "fastpsr/flag_names.hpp"

using fastpsr::FlagAlias;
using fastpsr::parse_flag_aliases;
using fastpsr::rename_flags;

TEST_CASE("flag names: the shim's list is read, bad entries left out") {
  const std::vector<FlagAlias> a =
      parse_flag_aliases("  --nsub=-nsub\t--numout=-numout nonsense --x= =-y --dm=subdm -q=-quiet --start=-offset\n");
  REQUIRE(a.size() == 4);
  CHECK(a[0].ours == "--nsub");
  CHECK(a[0].theirs == "-nsub");
  CHECK(a[1].ours == "--numout");
  CHECK(a[2].ours == "-q");
  CHECK(a[2].theirs == "-quiet");
  CHECK(a[3].theirs == "-offset");
  CHECK(parse_flag_aliases("").empty());
}

TEST_CASE("flag names: whole flags are renamed, never parts of longer flags or words") {
  const std::vector<FlagAlias> a = parse_flag_aliases(
      "--dm=-subdm --downsample=-downsamp --downsample-after=-downsamp --numout=-numout --nsub=-nsub");
  CHECK(rename_flags("--nsub 0: must be at least 1", a) == "-nsub 0: must be at least 1");
  CHECK(rename_flags("--dm 5 (with --dm-list, --dmstep, --dm=3, x--dm)", a) ==
        "-subdm 5 (with --dm-list, --dmstep, -subdm=3, x--dm)");
  CHECK(rename_flags("--downsample-after sums; --downsample-mean; --downsample rounds", a) ==
        "-downsamp sums; --downsample-mean; -downsamp rounds");
  CHECK(rename_flags("'--numout' and \"--numout\" at the end --numout", a) ==
        "'-numout' and \"-numout\" at the end -numout");
  CHECK(rename_flags("no flags here - or -- here; a-b --", a) == "no flags here - or -- here; a-b --");
  CHECK(rename_flags("", a).empty());
  CHECK(rename_flags("--nsub", {}) == "--nsub");
}
