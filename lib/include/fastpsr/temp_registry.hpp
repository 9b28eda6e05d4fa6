// SPDX-License-Identifier: MIT
#pragma once
/// The temporary output files of this process (see open_sink), kept where a signal handler can
/// find them: when SIGINT, SIGTERM or SIGHUP ends a tool, the handler (apps/common/tool_main.cpp)
/// calls remove_all_for_exit() so that no `.NAME.tmp.PID.SERIAL` file outlives the run.
///
/// Normal code registers and unregisters paths from any thread (add/remove take a lock and
/// allocate); the handler side (remove_all, remove_all_for_exit) only reads atomics, claims
/// slots with compare-and-swap and calls unlink(2), so it is async-signal-safe. Temporary names
/// are registered (a sweep that races with a rename unlinks a name that no longer exists); final
/// names only through an OutputSet, while its files are being renamed into place, so that a
/// set of outputs that belong together is left whole or not at all.
#include <signal.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

namespace fastpsr::temp_files {

/// What add() returns when a path was not registered (registry full, out of memory): that file
/// is then simply not removed by a signal; remove() accepts it and does nothing.
inline constexpr std::uint32_t kNotRegistered = UINT32_MAX;

/// Paths the registry can hold at once. Memory grows with the paths live at the peak (16 bytes
/// a slot, allocated 256 slots at a time, plus each path's own bytes), not with this capacity.
[[nodiscard]] std::size_t capacity() noexcept;

/// Encloses the creation of a temporary file and its publish(). It blocks SIGINT, SIGTERM and
/// SIGHUP on this thread, so no handler runs here between creating and registering the file, and
/// counts the creation, so that remove_all_for_exit() on another thread waits for it rather than
/// sweep just before the file appears. If the process is already being ended by such a signal,
/// the constructor does not return: the thread waits for the end instead of creating a file.
class CreationScope {
 public:
  CreationScope() noexcept;
  ~CreationScope();
  CreationScope(const CreationScope&) = delete;
  CreationScope& operator=(const CreationScope&) = delete;

 private:
  sigset_t old_mask_;
};

/// Registers a temporary file's path (as given: relative paths are taken from the current
/// directory when removed). Returns an id for remove(), or kNotRegistered.
[[nodiscard]] std::uint32_t add(std::string_view path) noexcept;
/// add() in two steps: reserve() takes the lock and allocates, but a sweep ignores the path until
/// publish(), which only stores an atomic. Creating a file is then: reserve(path); CreationScope
/// { open(path, O_CREAT | O_EXCL); publish() if it was created }; remove() if it was not. The
/// scope then holds no lock and allocates nothing, so a handler waiting for it never waits on
/// a lock (a malloc arena, say) held by the thread it interrupted.
[[nodiscard]] std::uint32_t reserve(std::string_view path) noexcept;
void publish(std::uint32_t id) noexcept;
/// Unregisters the path of `id` (after the file was renamed into place or removed); once per id,
/// since the slot may then hold another path. Waits while a sweep on another thread holds it.
void remove(std::uint32_t id) noexcept;
/// Paths registered and not yet removed or swept (for tests and diagnostics).
[[nodiscard]] std::size_t live() noexcept;

/// Unlinks every registered path (the final names of an OutputSet only while it is not
/// complete); returns how many files it removed. The ids stay valid (their remove() still frees
/// the slot). Async-signal-safe.
std::size_t remove_all() noexcept;
/// What a signal handler that ends the process calls: stops new temporaries (CreationScope),
/// waits briefly for those being created, then remove_all(). Returns false, doing nothing, when
/// another thread's call already does the work (that thread ends the process). Async-signal-safe;
/// after it, this process must end (creations from then on wait for ever).
bool remove_all_for_exit() noexcept;

/// Files that are complete only together (dedisp's DM trials: .dat/.inf pairs, .tim files) and
/// are renamed into place one by one: a signal that ends the process while they are (SIGINT,
/// SIGTERM, SIGHUP: remove_all_for_exit) removes those already renamed as well as the
/// temporaries, so that an interrupted run leaves none of its files; once complete() has
/// returned, a signal leaves them all. Whichever happens first decides: a complete() that finds
/// the process being ended waits for the end (its files are removed), a sweep that finds
/// complete() under way waits for it (the files stay).
///
/// One condition: a rename that takes longer than the half second remove_all_for_exit waits
/// for file creations (a stalled network file system) may finish after the sweep, and that one
/// file is then left.
class OutputSet {
 public:
  /// A set of `files` files, numbered 0 to files - 1.
  explicit OutputSet(std::size_t files);
  /// Unregisters the final names (removes nothing: on failure the caller removes what it
  /// renamed). Call it only when no commit() runs any more.
  ~OutputSet();
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;

  /// Renames file `k` into place: `rename` (a ByteSink's commit()) runs with the ending signals
  /// blocked on this thread, and `final_path` is registered for removal by a signal from the
  /// moment the file exists under it (before rename returns as seen by a sweep). An empty
  /// `final_path` (stdout, or an existing device or FIFO written in place) registers nothing.
  /// If the process is being ended by a signal, does not return (the file is not renamed).
  /// Once per k; from several threads at once for different k.
  void commit(std::size_t k, std::string_view final_path, const std::function<void()>& rename);
  /// The set's commit point, after every commit(): from here a signal leaves the files. If the
  /// process is already being ended by a signal, does not return (the files are removed).
  void complete() noexcept;

 private:
  std::size_t files_;
  std::unique_ptr<std::uint32_t[]> ids_;  // per file: its registration, or kNotRegistered
  std::atomic<bool> armed_{true};         // read by sweeps: remove the final names
};

}  // namespace fastpsr::temp_files
