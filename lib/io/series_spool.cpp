// SPDX-License-Identifier: MIT
#include "fastpsr/series_spool.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "fastpsr/error.hpp"

namespace fastpsr {

SeriesSpool::SeriesSpool(std::size_t nseries, std::size_t memory_budget, std::string tmpdir)
    : budget_(memory_budget), tmpdir_(std::move(tmpdir)), segments_(nseries), chunks_(nseries), lengths_(nseries, 0) {
  if (tmpdir_.empty()) {
    const char* env = std::getenv("TMPDIR");
    tmpdir_ = env != nullptr && *env != '\0' ? env : "/tmp";
  }
}

SeriesSpool::~SeriesSpool() {
  if (fd_ >= 0) ::close(fd_);
}

void SeriesSpool::spill() {
  std::string name = tmpdir_ + "/fastpsr-spool-XXXXXX";
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0) {
    // mkstemp's errno alone misleads: /proc gives "No such file or directory" for a directory
    // that exists. Say what is wrong with the directory, then what the creation said.
    const int err = errno;
    struct stat st {};
    std::string why;
    if (::stat(tmpdir_.c_str(), &st) != 0) {
      why = std::strerror(errno);
    } else if (!S_ISDIR(st.st_mode)) {
      why = "not a directory";
    } else {
      why = fmt::format("the output's spool file could not be created there: {}", std::strerror(err));
    }
    throw Error(ErrorCode::io,
                fmt::format("cannot hold temporary files ({}); choose another directory with --tmpdir or TMPDIR", why),
                tmpdir_);
  }
  ::unlink(name.c_str());  // anonymous from now on: gone when closed, even after a crash
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    for (auto& seg : segments_[i]) {
      if (seg.in_file) continue;
      const auto& chunk = chunks_[i][seg.offset];
      const std::uint64_t at = file_end_;
      write_at_end(chunk.data(), chunk.size(), i);
      seg.in_file = true;
      seg.offset = at;
    }
    chunks_[i].clear();
    chunks_[i].shrink_to_fit();
  }
  in_memory_ = 0;
  // The pending buffers together stay within the memory budget.
  constexpr std::size_t kMaxFlush = std::size_t{8} << 20;
  flush_bytes_ = std::min(kMaxFlush, budget_ / std::max<std::size_t>(segments_.size(), 1));
  pending_.assign(segments_.size(), {});
}

void SeriesSpool::flush_pending(std::size_t i) {
  auto& p = pending_[i];
  if (p.empty()) return;
  segments_[i].push_back({true, file_end_, p.size()});
  write_at_end(p.data(), p.size(), i);
  p.clear();
}

void SeriesSpool::write_at_end(const void* data, std::size_t n, std::size_t /*series*/) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  std::size_t done = 0;
  while (done < n) {
    const ssize_t w = ::pwrite(fd_, p + done, n - done, static_cast<off_t>(file_end_ + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      throw Error(ErrorCode::io, fmt::format("cannot write the output spool file: {}", std::strerror(errno)), tmpdir_);
    }
    done += static_cast<std::size_t>(w);
  }
  file_end_ += n;
}

void SeriesSpool::append(std::size_t i, const void* data, std::size_t nbytes) {
  if (nbytes == 0) return;
  lengths_.at(i) += nbytes;
  if (fd_ < 0 && in_memory_ + nbytes > budget_) spill();
  if (fd_ >= 0) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    auto& pending = pending_[i];
    if (pending.size() + nbytes > flush_bytes_) flush_pending(i);
    if (nbytes >= flush_bytes_) {
      segments_[i].push_back({true, file_end_, nbytes});
      write_at_end(data, nbytes, i);
    } else {
      if (pending.capacity() == 0) pending.reserve(flush_bytes_);
      pending.insert(pending.end(), p, p + nbytes);
    }
    return;
  }
  const auto* p = static_cast<const std::uint8_t*>(data);
  segments_[i].push_back({false, chunks_[i].size(), nbytes});
  chunks_[i].emplace_back(p, p + nbytes);
  in_memory_ += nbytes;
}

void SeriesSpool::read(std::size_t i, const std::function<void(const std::uint8_t*, std::size_t)>& f) const {
  constexpr std::size_t kPiece = std::size_t{4} << 20;
  std::vector<std::uint8_t> buf;
  for (const auto& seg : segments_.at(i)) {
    if (!seg.in_file) {
      const auto& chunk = chunks_[i][seg.offset];
      f(chunk.data(), chunk.size());
      continue;
    }
    for (std::uint64_t done = 0; done < seg.size;) {
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kPiece, seg.size - done));
      buf.resize(n);
      std::size_t got = 0;
      while (got < n) {
        const ssize_t r = ::pread(fd_, buf.data() + got, n - got, static_cast<off_t>(seg.offset + done + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
          throw Error(ErrorCode::io, fmt::format("cannot read back the output spool file: {}", std::strerror(errno)),
                      tmpdir_);
        }
        got += static_cast<std::size_t>(r);
      }
      f(buf.data(), n);
      done += n;
    }
  }
  if (i < pending_.size() && !pending_[i].empty()) f(pending_[i].data(), pending_[i].size());  // the newest bytes
}

void SeriesSpool::release(std::size_t i) {
  for (const auto& c : chunks_.at(i)) in_memory_ -= c.size();
  chunks_[i].clear();
  chunks_[i].shrink_to_fit();
  segments_[i].clear();
  if (i < pending_.size()) {
    pending_[i].clear();
    pending_[i].shrink_to_fit();
  }
}

}  // namespace fastpsr
