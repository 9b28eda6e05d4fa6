// SPDX-License-Identifier: MIT
#pragma once
/// The temporary output files of this process (see open_sink), kept where a signal handler can
/// find them: when SIGINT, SIGTERM or SIGHUP ends a tool, the handler (apps/common/tool_main.cpp)
/// calls remove_all_for_exit() so that no `.NAME.tmp.PID.SERIAL` file outlives the run.
///
/// Normal code registers and unregisters paths from any thread (add/remove take a lock and
/// allocate); the handler side (remove_all, remove_all_for_exit) only reads atomics, claims
/// slots with compare-and-swap and calls unlink(2), so it is async-signal-safe. Only temporary
/// names are ever registered, never final ones: a sweep that races with a rename unlinks a name
/// that no longer exists, and a finished file is never touched.
#include <signal.h>

#include <cstddef>
#include <cstdint>
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

/// Unlinks every registered path; returns how many files it removed. The ids stay valid (their
/// remove() still frees the slot). Async-signal-safe.
std::size_t remove_all() noexcept;
/// What a signal handler that ends the process calls: stops new temporaries (CreationScope),
/// waits briefly for those being created, then remove_all(). Returns false, doing nothing, when
/// another thread's call already does the work (that thread ends the process). Async-signal-safe;
/// after it, this process must end (creations from then on wait for ever).
bool remove_all_for_exit() noexcept;

}  // namespace fastpsr::temp_files
