// SPDX-License-Identifier: MIT
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/error.hpp"
#include "fastpsr/tuning.hpp"
#include "fastpsr/version.hpp"

namespace fastpsr {
namespace {

using nlohmann::json;

// The file's own version: bumped when the entry layout changes; a file of another version is
// an error (never silently rewritten) so that an older build cannot drop a newer one's fields.
constexpr int kFormatVersion = 1;
constexpr const char* kFormatName = "fastpsr-tuning";

json entry_to_json(const TuningEntry& e) {
  return json{{"algorithm", e.algorithm}, {"shape", e.shape},     {"device", e.device},         {"build", e.build},
              {"config", e.config},       {"time_ms", e.time_ms}, {"default_ms", e.default_ms}, {"date", e.date}};
}

TuningEntry entry_from_json(const json& j) {
  TuningEntry e;
  e.algorithm = j.at("algorithm").get<std::string>();
  e.shape = j.at("shape").get<std::string>();
  e.device = j.at("device").get<std::string>();
  e.build = j.at("build").get<std::string>();
  e.config = j.at("config").get<GpuConfig>();
  e.time_ms = j.at("time_ms").get<double>();
  e.default_ms = j.at("default_ms").get<double>();
  e.date = j.at("date").get<std::string>();
  return e;
}

bool same_key(const TuningEntry& a, const TuningEntry& b) {
  return a.algorithm == b.algorithm && a.shape == b.shape && a.device == b.device && a.build == b.build;
}

// An exclusive advisory lock on `path`.lock for the life of the object (released on close,
// also when the process dies).
class FileLock {
 public:
  explicit FileLock(const std::filesystem::path& path) : name_(path.string() + ".lock") {
    fd_ = ::open(name_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error(ErrorCode::io, fmt::format("cannot open the lock file: {}", std::strerror(errno)), name_);
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd_);
      throw Error(ErrorCode::io, fmt::format("cannot lock: {}", std::strerror(err)), name_);
    }
  }
  ~FileLock() { ::close(fd_); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  std::string name_;
  int fd_ = -1;
};

}  // namespace

std::string tuning_build_id() { return fmt::format("{}+{}", version_string, git_describe); }

std::filesystem::path tuning_database_path() {
  if (const char* p = std::getenv("FASTPSR_TUNING"); p != nullptr && *p != '\0') return p;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x != '\0') {
    return std::filesystem::path(x) / "fastpsr" / "tuning.json";
  }
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr && *home != '\0' ? home : ".") / ".cache" / "fastpsr" / "tuning.json";
}

std::string format_gpu_config(const GpuConfig& config) {
  if (config.empty()) return "defaults";
  std::string s;
  for (const auto& [k, v] : config) s += (s.empty() ? "" : ",") + k + "=" + v;
  return s;
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

TuningDatabase TuningDatabase::load(const std::filesystem::path& path) {
  TuningDatabase db;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return db;
    throw Error(ErrorCode::io, fmt::format("cannot read the tuning database: {}", std::strerror(errno)), path.string());
  }
  std::stringstream text;
  text << in.rdbuf();
  try {
    const json j = json::parse(text.str());
    if (!j.is_object() || j.value("format", "") != kFormatName) {
      throw Error(ErrorCode::format, "not a fastpsr tuning database (no \"format\": \"fastpsr-tuning\")",
                  path.string());
    }
    if (j.at("version").get<int>() != kFormatVersion) {
      throw Error(ErrorCode::format,
                  fmt::format("tuning database version {}, this build reads version {}", j.at("version").get<int>(),
                              kFormatVersion),
                  path.string());
    }
    for (const auto& e : j.at("entries")) db.entries_.push_back(entry_from_json(e));
  } catch (const json::exception& e) {
    throw Error(ErrorCode::format, fmt::format("not a valid tuning database: {}", e.what()), path.string());
  }
  return db;
}

TuningLookup TuningDatabase::find(std::string_view algorithm, std::string_view shape, std::string_view device,
                                  std::string_view build) const {
  TuningLookup r;
  for (const auto& e : entries_) {
    if (e.algorithm != algorithm || e.shape != shape || e.device != device) continue;
    if (e.build == build) {
      r.entry = e;
    } else {
      ++r.other_builds;
    }
  }
  return r;
}

void TuningDatabase::put(TuningEntry e) {
  for (auto& old : entries_) {
    if (same_key(old, e)) {
      old = std::move(e);
      return;
    }
  }
  entries_.push_back(std::move(e));
}

std::string TuningDatabase::to_json() const {
  json list = json::array();
  for (const auto& e : entries_) list.push_back(entry_to_json(e));
  const json j{{"format", kFormatName}, {"version", kFormatVersion}, {"entries", list}};
  return j.dump(2) + "\n";
}

void TuningDatabase::store(const std::filesystem::path& path, const TuningEntry& e) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) {
    throw Error(ErrorCode::io, fmt::format("cannot create the directory: {}", ec.message()),
                path.parent_path().string());
  }
  const FileLock lock(path);
  // Read again under the lock: another `tune` may have added entries since this one started.
  TuningDatabase db = load(path);
  db.put(e);
  const std::string text = db.to_json();
  auto sink = open_sink(path.string());
  sink->write(text.data(), text.size());
  sink->commit();
}

}  // namespace fastpsr
