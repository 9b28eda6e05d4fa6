// SPDX-License-Identifier: MIT
#include "fastpsr/temp_registry.hpp"

#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <new>
#include <thread>

namespace fastpsr::temp_files {
namespace {

// The sweep runs in signal handlers: every atomic it touches must be a plain instruction, not a
// hidden lock.
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);
static_assert(std::atomic<int>::is_always_lock_free);
static_assert(std::atomic<bool>::is_always_lock_free);
static_assert(std::atomic<void*>::is_always_lock_free);

// A slot's life: kFree -> (reserve) kReserved -> (publish) kLive -> (remove) kFree, or, when a
// sweep gets there first, kLive -> (sweep claims it) kClaimed -> (unlinked) kSwept -> (remove)
// kFree. The path is written only while the slot is kFree (by reserve, under the lock) and read
// by a sweep only after its compare-and-swap from kLive, so a sweep never reads a path being
// replaced; a slot a sweep holds (kClaimed) is not freed under it.
enum : std::uint32_t { kFree = 0, kReserved = 1, kLive = 2, kClaimed = 3, kSwept = 4 };

struct Slot {
  std::atomic<std::uint32_t> state{kFree};
  std::uint32_t next_free = 0;  // the free list, under the lock
  char* path = nullptr;         // this slot's NUL-terminated copy, exactly as long as the path
  // A final name of an OutputSet: unlinked by a sweep only while *armed (nullptr: a temporary).
  // Set with the path; the set outlives the slot (its destructor removes it).
  const std::atomic<bool>* armed = nullptr;
};

// Slots come in chunks allocated on first use and never freed (a handler may read them until
// the process ends), so the memory follows the peak of live paths: dedisp's 2000+ open .dat
// files take 9 chunks of 4 KiB plus their paths. The chunk table itself is 8 KiB.
constexpr std::uint32_t kChunkSlots = 256;
constexpr std::uint32_t kChunks = 1024;
constexpr std::uint32_t kCapacity = kChunkSlots * kChunks;
constexpr std::uint32_t kNoSlot = UINT32_MAX;

struct Registry {
  std::mutex lock;  // add/remove only (normal code); a sweep never takes it
  std::atomic<Slot*> chunks[kChunks] = {};
  std::atomic<std::uint32_t> used{0};  // slots handed out at least once: what a sweep walks
  std::uint32_t free_head = kNoSlot;   // under the lock
  std::atomic<int> creating{0};        // CreationScopes open now
  std::atomic<int> completing{0};      // OutputSet::complete() calls deciding now
  std::atomic<bool> ending{false};     // a signal is ending the process
};
// Constant-initialised, so valid before any constructor runs, and trivially destroyed: a signal
// that arrives during start-up or exit still finds it.
constinit Registry g;

Slot& slot(std::uint32_t id) noexcept {
  return g.chunks[id / kChunkSlots].load(std::memory_order_acquire)[id % kChunkSlots];
}

sigset_t ending_signals() noexcept {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

// Blocks the ending signals on this thread while it holds the lock: a handler running here then
// could not make progress on another thread's behalf (remove_all_for_exit waits for creations,
// and a creation on another thread may be waiting for this lock).
class SignalsBlocked {
 public:
  SignalsBlocked() noexcept {
    const sigset_t set = ending_signals();
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~SignalsBlocked() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t old_;
};

}  // namespace

std::size_t capacity() noexcept { return kCapacity; }

CreationScope::CreationScope() noexcept {
  const sigset_t set = ending_signals();
  pthread_sigmask(SIG_BLOCK, &set, &old_mask_);
  // Sequentially consistent against remove_all_for_exit (store `ending`, then read `creating`):
  // either it sees this creation and waits for it, or this sees the process ending.
  g.creating.fetch_add(1);
  if (g.ending.load()) {
    g.creating.fetch_sub(1);
    for (;;) ::pause();  // the signal's handler ends the process; a new file would outlive it
  }
}

CreationScope::~CreationScope() {
  g.creating.fetch_sub(1);  // after publish(): a sweep that waited for it sees the path
  pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
}

std::uint32_t add(std::string_view path) noexcept {
  const std::uint32_t id = reserve(path);
  publish(id);
  return id;
}

namespace {
// reserve() of a final name of an OutputSet (armed != nullptr) or of a temporary.
std::uint32_t reserve_slot(std::string_view path, const std::atomic<bool>* armed) noexcept {
  if (path.empty()) return kNotRegistered;
  char* copy = new (std::nothrow) char[path.size() + 1];
  if (copy == nullptr) return kNotRegistered;
  std::memcpy(copy, path.data(), path.size());
  copy[path.size()] = '\0';

  const SignalsBlocked blocked;
  const std::lock_guard hold(g.lock);
  std::uint32_t id = g.free_head;
  if (id != kNoSlot) {
    g.free_head = slot(id).next_free;
  } else {
    const std::uint32_t used = g.used.load(std::memory_order_relaxed);
    if (used == kCapacity) {
      delete[] copy;
      return kNotRegistered;
    }
    auto& chunk = g.chunks[used / kChunkSlots];
    if (chunk.load(std::memory_order_relaxed) == nullptr) {
      Slot* fresh = new (std::nothrow) Slot[kChunkSlots];
      if (fresh == nullptr) {
        delete[] copy;
        return kNotRegistered;
      }
      chunk.store(fresh, std::memory_order_release);
    }
    id = used;
    g.used.store(used + 1, std::memory_order_release);  // after the chunk: a sweep finds it
  }
  Slot& s = slot(id);
  s.path = copy;
  s.armed = armed;
  s.state.store(kReserved, std::memory_order_relaxed);
  return id;
}
}  // namespace

std::uint32_t reserve(std::string_view path) noexcept { return reserve_slot(path, nullptr); }

void publish(std::uint32_t id) noexcept {
  if (id == kNotRegistered) return;
  slot(id).state.store(kLive, std::memory_order_release);  // publishes the path to sweeps
}

void remove(std::uint32_t id) noexcept {
  if (id == kNotRegistered || id >= g.used.load(std::memory_order_acquire)) return;
  const SignalsBlocked blocked;
  const std::lock_guard hold(g.lock);
  Slot& s = slot(id);
  for (;;) {
    std::uint32_t seen = kLive;
    if (s.state.compare_exchange_strong(seen, kFree, std::memory_order_acq_rel)) break;
    if (seen == kFree) return;                  // already removed
    if (seen == kSwept || seen == kReserved) {  // the sweep is done with it, or never saw it
      s.state.store(kFree, std::memory_order_relaxed);
      break;
    }
    // kClaimed: a sweep on another thread (not this one: the signals are blocked here) is
    // unlinking the path and lets go of it after that one call; the path must outlive it.
    std::this_thread::yield();
  }
  delete[] s.path;
  s.path = nullptr;
  s.armed = nullptr;
  s.next_free = g.free_head;
  g.free_head = id;
}

std::size_t live() noexcept {
  std::size_t n = 0;
  const std::uint32_t used = g.used.load(std::memory_order_acquire);
  for (std::uint32_t id = 0; id < used; ++id) n += slot(id).state.load(std::memory_order_acquire) == kLive ? 1 : 0;
  return n;
}

std::size_t remove_all() noexcept {
  const int saved_errno = errno;  // a handler that returns must leave errno as it found it
  std::size_t removed = 0;
  const std::uint32_t used = g.used.load(std::memory_order_acquire);
  for (std::uint32_t id = 0; id < used; ++id) {
    Slot& s = slot(id);
    std::uint32_t seen = kLive;
    if (!s.state.compare_exchange_strong(seen, kClaimed, std::memory_order_acq_rel)) continue;
    // A temporary renamed into place a moment ago no longer exists (ENOENT), and no other file
    // can have taken its name: the names are unique to this process (pid and serial), so a
    // final file is never touched through it. A final name is registered only by an OutputSet
    // once its file is there, and removed while the set is not complete.
    const bool remove = s.armed == nullptr || s.armed->load();
    if (remove && ::unlink(s.path) == 0) ++removed;
    s.state.store(kSwept, std::memory_order_release);
  }
  errno = saved_errno;
  return removed;
}

bool remove_all_for_exit() noexcept {
  if (g.ending.exchange(true)) return false;
  // Creations in flight on other threads (none on this one: CreationScope blocks the signals)
  // take microseconds unless their open() hangs (a stalled network file system): spin a little,
  // then sleep in steps of 1 ms, for half a second at most, rather than never end.
  const int saved_errno = errno;
  for (int i = 0; g.creating.load() != 0 && i < 10000 + 500; ++i) {
    if (i >= 10000) ::poll(nullptr, 0, 1);
  }
  // An OutputSet::complete() under way decides without a lock or a system call: wait for it,
  // however long, so that the sweep below sees its set complete or not, never both.
  for (int i = 0; g.completing.load() != 0; ++i) {
    if (i >= 10000) ::poll(nullptr, 0, 1);
  }
  errno = saved_errno;
  remove_all();
  return true;
}

OutputSet::OutputSet(std::size_t files) : files_(files), ids_(std::make_unique<std::uint32_t[]>(files)) {
  for (std::size_t k = 0; k < files; ++k) ids_[k] = kNotRegistered;
}

OutputSet::~OutputSet() {
  for (std::size_t k = 0; k < files_; ++k) remove(ids_[k]);
}

void OutputSet::commit(std::size_t k, std::string_view final_path, const std::function<void()>& rename) {
  // Reserved outside the scope (reserving takes the lock and allocates), published inside it
  // right after the rename: a sweep waits for the scope, so it finds the file either not yet
  // renamed (its temporary is registered) or renamed and registered under its final name.
  const std::uint32_t id = final_path.empty() ? kNotRegistered : reserve_slot(final_path, &armed_);
  try {
    const CreationScope renaming;
    rename();
    publish(id);
  } catch (...) {
    remove(id);
    throw;
  }
  ids_[k] = id;
}

void OutputSet::complete() noexcept {
  const sigset_t set = ending_signals();
  sigset_t old;
  pthread_sigmask(SIG_BLOCK, &set, &old);
  // Sequentially consistent against remove_all_for_exit (store `ending`, then read
  // `completing`): either the sweep waits for this and sees the set complete, or this sees the
  // process ending and waits for its end, the files being removed.
  g.completing.fetch_add(1);
  if (g.ending.load()) {
    g.completing.fetch_sub(1);
    for (;;) ::pause();
  }
  armed_.store(false);
  g.completing.fetch_sub(1);
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace fastpsr::temp_files
