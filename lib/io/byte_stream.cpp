// SPDX-License-Identifier: MIT
#include "fastpsr/byte_stream.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "fastpsr/error.hpp"
#include "fastpsr/temp_registry.hpp"
#include "fastpsr/worker_team.hpp"

namespace fastpsr {
namespace {

// strerror_r, not strerror: the parallel readers may report errors at the same time.
std::string errno_text(int err) {
  char buf[256] = {};
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return ::strerror_r(err, buf, sizeof buf);  // GNU: returns the message (maybe not in buf)
#else
  return ::strerror_r(err, buf, sizeof buf) == 0 ? std::string(buf) : "error " + std::to_string(err);
#endif
}

// Reads n bytes at `offset` of a file, fewer only where the file ends first; returns the count.
// Error(io) naming `name` on a read error.
std::size_t pread_full(int fd, std::uint8_t* dst, std::size_t n, std::uint64_t offset, const std::string& name) {
  std::size_t done = 0;
  while (done < n) {
    const ssize_t r = ::pread(fd, dst + done, std::min<std::size_t>(n - done, std::size_t{1} << 30),
                              static_cast<off_t>(offset + done));
    if (r == 0) break;  // the end of the file
    if (r < 0) {
      if (errno == EINTR) continue;
      throw Error(ErrorCode::io, "read failed: " + errno_text(errno), name);
    }
    done += static_cast<std::size_t>(r);
  }
  return done;
}

// A pipe between two of our tools (or cat and one of them) holds 64 KiB by default, so every
// few writes the two sides take turns through the scheduler: `cat 1 GiB | reader` measured
// 0.64 GB/s on the 2-vCPU VM, 2.4 GB/s once the pipe held 1 MiB (the unprivileged limit,
// /proc/sys/fs/pipe-max-size, by default). Either end may enlarge it; a failure (a lower limit,
// not Linux) leaves the pipe as it was.
void widen_pipe(int fd, const struct stat& st) {
#ifdef F_SETPIPE_SZ
  if (S_ISFIFO(st.st_mode)) (void)::fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#else
  (void)fd;
  (void)st;
#endif
}

void widen_pipe(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) == 0) widen_pipe(fd, st);
}

class FdSource final : public ByteSource {
 public:
  FdSource(int fd, std::string name, bool owns) : ByteSource(std::move(name)), fd_(fd), owns_(owns) {
    struct stat st {};
    if (::fstat(fd_, &st) != 0) return;
    if (S_ISREG(st.st_mode)) {
      size_ = static_cast<std::uint64_t>(st.st_size);
      seekable_ = true;
      readers_ = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, kMaxParallelReaders);
    }
    widen_pipe(fd_, st);
  }
  ~FdSource() override {
    if (owns_) ::close(fd_);
  }
  [[nodiscard]] std::optional<std::uint64_t> size() const override { return size_; }
  bool read_at(std::uint64_t offset, void* dst, std::size_t n) override {
    return seekable_ && pread_full(fd_, static_cast<std::uint8_t*>(dst), n, offset, name()) == n;
  }

 protected:
  std::size_t read_some(void* dst, std::size_t n) override {
    if (readers_ > 1 && n >= kParallelReadBytes) {
      const off_t start = ::lseek(fd_, 0, SEEK_CUR);
      if (start >= 0) return read_parallel(static_cast<std::uint8_t*>(dst), n, start);
    }
    for (;;) {
      const ssize_t got = ::read(fd_, dst, std::min<std::size_t>(n, std::size_t{1} << 30));
      if (got >= 0) return static_cast<std::size_t>(got);
      if (errno == EINTR) continue;
      if (errno == EISDIR) throw Error(ErrorCode::io, "is a directory, not a file", name());
      throw Error(ErrorCode::io, "read failed: " + errno_text(errno), name());
    }
  }
  bool seek_forward(std::uint64_t n) override {
    if (!seekable_) return false;
    return ::lseek(fd_, static_cast<off_t>(n), SEEK_CUR) >= 0;
  }

 private:
  // A large read of a regular file is split over a few threads, each pread()ing its piece, and
  // the file offset then moves past what was read. One thread copies the page cache at ~5 GB/s
  // into large buffers, four at ~20 (the lent H200 machine, 16 cores; ppf's GPU path was bound
  // by that one thread).
  static constexpr std::size_t kParallelReadBytes = std::size_t{4} << 20;
  static constexpr std::size_t kMaxParallelReaders = 4;

  std::size_t read_parallel(std::uint8_t* dst, std::size_t n, off_t start) {
    if (!team_) team_ = std::make_unique<WorkerTeam>(readers_);
    const std::size_t pieces = team_->size();
    constexpr std::size_t kAlign = 4096;  // pieces start on page boundaries of the buffer
    const std::size_t piece = ((n + pieces - 1) / pieces + kAlign - 1) / kAlign * kAlign;
    std::vector<std::size_t> got(pieces, 0);
    team_->run(pieces, [&](std::size_t i) {
      const std::size_t begin = i * piece;
      if (begin >= n) return;
      got[i] =
          pread_full(fd_, dst + begin, std::min(piece, n - begin), static_cast<std::uint64_t>(start) + begin, name());
    });
    // The bytes read without a gap: a piece that ended short ended the data.
    std::size_t total = 0;
    for (std::size_t i = 0; i < pieces && i * piece < n; ++i) {
      total += got[i];
      if (got[i] < std::min(piece, n - i * piece)) break;
    }
    if (::lseek(fd_, start + static_cast<off_t>(total), SEEK_SET) < 0) {
      throw Error(ErrorCode::io, "seek failed: " + errno_text(errno), name());
    }
    return total;
  }

  int fd_;
  bool owns_;
  bool seekable_ = false;
  std::optional<std::uint64_t> size_;
  std::size_t readers_ = 1;           // threads a large read is split over (regular files only)
  std::unique_ptr<WorkerTeam> team_;  // the parallel readers, made at the first large read
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(std::vector<std::uint8_t> bytes, std::string name)
      : ByteSource(std::move(name)), bytes_(std::move(bytes)) {}
  [[nodiscard]] std::optional<std::uint64_t> size() const override { return bytes_.size(); }
  bool read_at(std::uint64_t offset, void* dst, std::size_t n) override {
    if (offset > bytes_.size() || n > bytes_.size() - offset) return false;
    if (n > 0) std::memcpy(dst, bytes_.data() + offset, n);
    return true;
  }

 protected:
  std::size_t read_some(void* dst, std::size_t n) override {
    const std::size_t k = std::min(n, bytes_.size() - pos_);
    if (k > 0) std::memcpy(dst, bytes_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  bool seek_forward(std::uint64_t n) override {
    pos_ += static_cast<std::size_t>(std::min<std::uint64_t>(n, bytes_.size() - pos_));
    return true;
  }

 private:
  std::vector<std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

// Writes through a buffer so that the many small writes of a header cost one system call.
class FdSink : public ByteSink {
 public:
  FdSink(int fd, std::string name, std::size_t buffer_bytes = kSinkBufferBytes)
      : ByteSink(std::move(name)), fd_(fd), capacity_(buffer_bytes) {}
  ~FdSink() override = default;
  void write(const void* src, std::size_t n) override {
    const auto* p = static_cast<const std::uint8_t*>(src);
    position_ += n;
    if (buffer_.size() + n <= capacity_) {
      if (buffer_.capacity() < capacity_) buffer_.reserve(capacity_);
      buffer_.insert(buffer_.end(), p, p + n);
      return;
    }
    flush();
    if (n >= capacity_) {
      write_fd(p, n);
    } else {
      buffer_.assign(p, p + n);
    }
  }
  void flush() override {
    if (!buffer_.empty()) write_fd(buffer_.data(), buffer_.size());
    buffer_.clear();
  }

 protected:
  [[nodiscard]] std::uint64_t bytes_in_file() const noexcept { return in_file_; }
  int fd_;

 private:
  std::size_t capacity_;
  std::uint64_t in_file_ = 0;  // bytes handed to the file (position_ less the buffer)
  void write_fd(const std::uint8_t* p, std::size_t n) {
    while (n > 0) {
      const ssize_t put = ::write(fd_, p, std::min<std::size_t>(n, std::size_t{1} << 30));
      if (put < 0) {
        if (errno == EINTR) continue;
        if (errno == EPIPE) throw BrokenPipe(name());
        throw Error(ErrorCode::io, "write failed: " + errno_text(errno), name());
      }
      p += put;
      n -= static_cast<std::size_t>(put);
      in_file_ += static_cast<std::uint64_t>(put);
    }
  }
  std::vector<std::uint8_t> buffer_;
};

class StdoutSink final : public FdSink {
 public:
  StdoutSink() : FdSink(STDOUT_FILENO, "<stdout>") { widen_pipe(STDOUT_FILENO); }
  ~StdoutSink() override {
    try {
      flush();
    } catch (...) {  // NOLINT(bugprone-empty-catch): destructors must not throw; commit() reports
    }
  }
};

// A device or FIFO opened by name: written directly, closed on commit (where a failed flush of
// the last bytes, e.g. ENOSPC on /dev/full, is still reported).
class DeviceSink final : public FdSink {
 public:
  DeviceSink(int fd, std::string name) : FdSink(fd, std::move(name)) { widen_pipe(fd); }
  ~DeviceSink() override {
    if (!closed_) ::close(fd_);
  }
  void commit() override {
    flush();
    closed_ = true;
    if (::close(fd_) != 0) throw Error(ErrorCode::io, "write failed: " + errno_text(errno), name());
  }

 private:
  bool closed_ = false;
};

// The temporary is registered in temp_files (by open_sink) until it is renamed into place or
// removed, so that a signal ending the tool removes it too.
class AtomicFileSink final : public FdSink {
 public:
  AtomicFileSink(int fd, std::string final_path, std::string temp_path, std::uint32_t registration,
                 std::size_t buffer_bytes)
      : FdSink(fd, final_path, buffer_bytes),
        final_(std::move(final_path)),
        temp_(std::move(temp_path)),
        registration_(registration) {}
  void start_writeback() override {
#ifdef __linux__
    // Asynchronous: queues the range written since the last call for writing to the disk.
    const std::uint64_t end = bytes_in_file();
    if (end > writeback_from_ &&
        ::sync_file_range(fd_, static_cast<off_t>(writeback_from_), static_cast<off_t>(end - writeback_from_),
                          SYNC_FILE_RANGE_WRITE) != 0 &&
        errno != EINVAL && errno != ESPIPE) {  // file systems without it: nothing to start
      throw Error(ErrorCode::io, "write failed: " + errno_text(errno), name());
    }
    writeback_from_ = end;
#endif
  }
  bool read_back(std::uint64_t offset, void* dst, std::size_t n) override {
    flush();
    if (offset > bytes_in_file() || n > bytes_in_file() - offset) return false;
    return pread_full(fd_, static_cast<std::uint8_t*>(dst), n, offset, name()) == n;
  }
  bool overwrite(std::uint64_t offset, const void* src, std::size_t n) override {
    flush();
    if (offset > bytes_in_file() || n > bytes_in_file() - offset) return false;
    const auto* p = static_cast<const std::uint8_t*>(src);
    while (n > 0) {
      const ssize_t w = ::pwrite(fd_, p, std::min<std::size_t>(n, std::size_t{1} << 30), static_cast<off_t>(offset));
      if (w < 0) {
        if (errno == EINTR) continue;
        throw Error(ErrorCode::io, "write failed: " + errno_text(errno), name());
      }
      p += w;
      n -= static_cast<std::size_t>(w);
      offset += static_cast<std::uint64_t>(w);
    }
    return true;
  }
  // Unregistered only after the unlink or rename: a signal in between unlinks the temporary name
  // once more, which by then names nothing (ENOENT), never the final file.
  ~AtomicFileSink() override {
    if (!committed_) {
      ::close(fd_);
      remove_temporary();
    }
  }
  void commit() override {
    flush();
    if (::close(fd_) != 0) {
      const int err = errno;
      remove_temporary();
      committed_ = true;
      throw Error(ErrorCode::io, "write failed: " + errno_text(err), name());
    }
    committed_ = true;
    if (::rename(temp_.c_str(), final_.c_str()) != 0) {
      const int err = errno;
      remove_temporary();
      throw Error(ErrorCode::io, "cannot rename temporary file into place: " + errno_text(err), name());
    }
    temp_files::remove(registration_);
  }

 private:
  void remove_temporary() noexcept {
    ::unlink(temp_.c_str());
    temp_files::remove(registration_);
  }

  std::string final_;
  std::string temp_;
  std::uint32_t registration_;  // in temp_files, or kNotRegistered
  bool committed_ = false;
  std::uint64_t writeback_from_ = 0;
};

// Why a file cannot be created in `dir`, given open()'s errno. ENOENT means a missing directory
// only when the directory really is missing: a file system that takes no new files (/proc) says
// ENOENT too, and a directory without write permission says EACCES.
std::string cannot_create_reason(const std::string& dir, int err) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    const int stat_err = errno;
    if (stat_err == ENOENT) return fmt::format("cannot create output file: directory '{}' does not exist", dir);
    return fmt::format("cannot create output file in '{}': {}", dir, errno_text(stat_err));
  }
  if (!S_ISDIR(st.st_mode)) return fmt::format("cannot create output file: '{}' is not a directory", dir);
  return fmt::format("cannot create output file in '{}': {}", dir, errno_text(err == ENOENT ? EACCES : err));
}

}  // namespace

std::size_t ByteSource::read(void* dst, std::size_t n) {
  auto* out = static_cast<std::uint8_t*>(dst);
  std::size_t done = 0;
  if (peeked_pos_ < peeked_.size()) {
    const std::size_t k = std::min(n, peeked_.size() - peeked_pos_);
    std::memcpy(out, peeked_.data() + peeked_pos_, k);
    peeked_pos_ += k;
    done = k;
    if (peeked_pos_ == peeked_.size()) {
      peeked_.clear();
      peeked_pos_ = 0;
    }
  }
  while (done < n) {
    const std::size_t got = read_some(out + done, n - done);
    if (got == 0) break;
    done += got;
  }
  position_ += done;
  return done;
}

void ByteSource::read_exact(void* dst, std::size_t n, const char* what) {
  const std::uint64_t start = position_;
  const std::size_t got = read(dst, n);
  if (got != n) {
    throw Error(ErrorCode::format,
                fmt::format("unexpected end of file in the {} at byte {} ({} of {} bytes read)", what, start, got, n),
                name());
  }
}

std::span<const std::uint8_t> ByteSource::peek(std::size_t n) {
  const std::size_t have = peeked_.size() - peeked_pos_;
  if (have < n) {
    if (peeked_pos_ > 0) {
      peeked_.erase(peeked_.begin(), peeked_.begin() + static_cast<std::ptrdiff_t>(peeked_pos_));
      peeked_pos_ = 0;
    }
    // Grown as the bytes come, a MiB at a time: a caller may ask for more than the data hold (one
    // sample of a header that claims 2^30 channels), and memory follows what arrives.
    constexpr std::size_t kStep = std::size_t{1} << 20;
    std::size_t done = peeked_.size();
    while (done < n) {
      const std::size_t step = std::min(n - done, kStep);
      peeked_.resize(done + step);
      const std::size_t got = read_some(peeked_.data() + done, step);
      done += got;
      peeked_.resize(done);
      if (got == 0) break;
    }
  }
  return {peeked_.data() + peeked_pos_, std::min(n, peeked_.size() - peeked_pos_)};
}

std::uint64_t ByteSource::skip(std::uint64_t n) {
  std::uint64_t done = 0;
  const std::size_t buffered = peeked_.size() - peeked_pos_;
  if (buffered > 0) {
    const auto k = static_cast<std::size_t>(std::min<std::uint64_t>(n, buffered));
    peeked_pos_ += k;
    done += k;
    position_ += k;
  }
  if (done < n) {
    const std::uint64_t want = n - done;
    const auto total = size();
    if (total && position_ + want <= *total && seek_forward(want)) {
      position_ += want;
      return n;
    }
    std::vector<std::uint8_t> scratch(std::size_t{1} << 20);
    while (done < n) {
      const auto k = static_cast<std::size_t>(std::min<std::uint64_t>(n - done, scratch.size()));
      const std::size_t got = read(scratch.data(), k);
      done += got;
      if (got < k) break;
    }
  }
  return done;
}

std::unique_ptr<ByteSource> open_source(const std::string& path) {
  if (path == "-") return std::make_unique<FdSource>(STDIN_FILENO, "<stdin>", false);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(ErrorCode::io, "cannot open for reading: " + errno_text(errno), path);
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw Error(ErrorCode::io, "is a directory, not a file", path);
  }
  return std::make_unique<FdSource>(fd, path, true);
}

std::unique_ptr<ByteSource> memory_source(std::vector<std::uint8_t> bytes, std::string name) {
  return std::make_unique<MemorySource>(std::move(bytes), std::move(name));
}

namespace {

// The inputs protect_input() named, as (device, inode).
struct ProtectedInputs {
  std::mutex mutex;
  std::vector<std::pair<dev_t, ino_t>> files;
};
ProtectedInputs& protected_inputs() {
  static ProtectedInputs p;
  return p;
}

bool is_protected(const struct stat& st) {
  ProtectedInputs& p = protected_inputs();
  const std::lock_guard lock(p.mutex);
  return std::find(p.files.begin(), p.files.end(), std::pair{st.st_dev, st.st_ino}) != p.files.end();
}

}  // namespace

void protect_input(const std::string& path) {
  struct stat st {};
  if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  ProtectedInputs& p = protected_inputs();
  const std::lock_guard lock(p.mutex);
  p.files.emplace_back(st.st_dev, st.st_ino);
}

std::unique_ptr<ByteSink> open_sink(const std::string& path, std::size_t buffer_bytes) {
  if (path == "-") return std::make_unique<StdoutSink>();
  // An existing target that is not a regular file (/dev/null, a FIFO, a terminal) is written in
  // place: a temporary beside it and a rename would replace the device node or the pipe.
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISREG(st.st_mode) && is_protected(st)) {
    throw Error(ErrorCode::invalid_argument,
                "is this run's input: the output would replace the data it is made from; give another output name",
                path);
  }
  if (exists && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw Error(ErrorCode::io, "is a directory, not a file", path);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw Error(ErrorCode::io, "cannot open for writing: " + errno_text(errno), path);
    return std::make_unique<DeviceSink>(fd, path);
  }
  const std::filesystem::path target(path);
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : ".";
  // The temporary is created with the mode an ordinary open() gives (0666 less the umask) under
  // a name unique to this process and sink; mkstemp would create it 0600 and need an fchmod, one
  // more metadata update per file, which is what dominates writing thousands of .dat files on
  // some disks. O_EXCL keeps it safe against an existing file of the same name (then the next).
  static std::atomic<std::uint64_t> serial{0};
  std::string temp;
  int fd = -1;
  int err = 0;
  std::uint32_t registration = temp_files::kNotRegistered;
  for (int attempt = 0; fd < 0; ++attempt) {
    temp = (dir / fmt::format(".{}.tmp.{}.{}", target.filename().string(), ::getpid(), serial++)).string();
    // Registered for removal by a signal once open() created it (before, the name might be
    // another's file), with those signals held off in between; see CreationScope.
    const std::uint32_t reserved = temp_files::reserve(temp);
    {
      const temp_files::CreationScope creating;
      fd = ::open(temp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // read_back() reads it
      err = errno;
      if (fd >= 0) temp_files::publish(reserved);
    }
    if (fd >= 0) {
      registration = reserved;
      continue;
    }
    temp_files::remove(reserved);
    if (err == EEXIST && attempt < 100) continue;
    throw Error(ErrorCode::io, cannot_create_reason(dir.string(), err), path);
  }
  try {
    return std::make_unique<AtomicFileSink>(fd, path, temp, registration, buffer_bytes);
  } catch (...) {  // out of memory: leave nothing behind, as a failed write does
    ::close(fd);
    ::unlink(temp.c_str());
    temp_files::remove(registration);
    throw;
  }
}

void MemorySink::write(const void* src, std::size_t n) {
  const auto* p = static_cast<const std::uint8_t*>(src);
  bytes_.insert(bytes_.end(), p, p + n);
  position_ += n;
}

std::vector<std::uint8_t> read_all(const std::string& path) {
  auto src = open_source(path);
  std::vector<std::uint8_t> bytes;
  if (auto n = src->size()) bytes.reserve(static_cast<std::size_t>(*n));
  std::uint8_t buf[1 << 16];
  for (;;) {
    const std::size_t got = src->read(buf, sizeof buf);
    bytes.insert(bytes.end(), buf, buf + got);
    if (got < sizeof buf) break;
  }
  return bytes;
}

void write_all(const std::string& path, std::span<const std::uint8_t> bytes) {
  auto sink = open_sink(path);
  sink->write(bytes.data(), bytes.size());
  sink->commit();
}

}  // namespace fastpsr
