// SPDX-License-Identifier: MIT
#pragma once
/// One part of a job split over several processes (`--part i/n`): SLURM job arrays, MPI ranks
/// or plain shell loops divide a survey's DM trials without any other change to the command.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace fastpsr {

struct WorkPart {
  std::size_t index = 1;  ///< 1 .. count
  std::size_t count = 1;
  [[nodiscard]] bool whole() const noexcept { return count == 1; }
  [[nodiscard]] std::string describe() const;  ///< "part 2/8"
  /// What a part adds to the name of a file that every part would otherwise write under the
  /// same name: "_part2of8"; "" for the whole job.
  [[nodiscard]] std::string name_suffix() const;
};

/// `path` with the part's suffix before its extension: "dmtime.fil" -> "dmtime_part2of8.fil"
/// (a name without an extension gets it at the end); unchanged for the whole job or stdout ("-").
std::string part_file_name(const std::string& path, WorkPart part);

/// The most parts a job may be split into.
inline constexpr std::size_t kMaxWorkParts = 1'000'000;

/// Parses "i/n" (1 <= i <= n <= kMaxWorkParts). Throws Error(invalid_argument) naming `option`
/// otherwise; for i = 0 it says that parts are numbered from 1 (a 0-based rank adds one).
WorkPart parse_work_part(std::string_view text, std::string_view option = "--part");

/// The contiguous items [first, second) of `part` among items of the given weights (the work
/// each costs): item j goes to the part in whose share of the total weight the middle of j's own
/// weight falls, so the parts tile the items in order, each exactly once, with nearly equal work.
/// A part may be empty when there are fewer items than parts (or very uneven weights).
std::pair<std::size_t, std::size_t> part_slice(std::span<const double> weights, WorkPart part);

/// Round-robin membership: item j (0-based) belongs to part i when j mod n = i - 1.
[[nodiscard]] inline bool in_part_round_robin(std::size_t j, WorkPart part) noexcept {
  return j % part.count == part.index - 1;
}

}  // namespace fastpsr
