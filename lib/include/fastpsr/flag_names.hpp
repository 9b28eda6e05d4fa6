// SPDX-License-Identifier: MIT
#pragma once
/// How the command a user ran spells the flags of the tool it runs. A PRESTO/SIGPROC
/// compatibility shim (tools/presto-compat) runs dedisp with flags of its own translated
/// (prepsubband -nsub 0 becomes dedisp --nsub 0); the tool's messages then name the flags the
/// user typed ("-nsub 0: ...") instead of dedisp's.
#include <string>
#include <string_view>
#include <vector>

namespace fastpsr {

struct FlagAlias {
  std::string ours;    ///< the tool's flag, e.g. "--nsub"
  std::string theirs;  ///< the command's, e.g. "-nsub"
};

/// "ours=theirs ours=theirs ..." (separated by white space). An entry whose two sides do not both
/// start with '-', or that has no '=', is left out.
std::vector<FlagAlias> parse_flag_aliases(std::string_view spec);

/// `text` with every whole flag `ours` replaced by its `theirs`: an occurrence counts only where
/// neither the character before it nor the one after it could belong to a flag or word (letters,
/// digits, '-', '_'), so "--dm" is not renamed inside "--dm-list" or "--dmstep".
std::string rename_flags(std::string_view text, const std::vector<FlagAlias>& aliases);

}  // namespace fastpsr
