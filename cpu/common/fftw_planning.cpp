// SPDX-License-Identifier: MIT
#include "fastpsr/cpu/fftw_planning.hpp"

#include <fftw3.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "fastpsr/error.hpp"
#include "fastpsr/fftw_lock.hpp"
#include "fastpsr/log.hpp"

namespace fastpsr::cpu {

unsigned fftw_flags(FftwEffort effort) noexcept {
  switch (effort) {
    case FftwEffort::estimate:
      return FFTW_ESTIMATE;
    case FftwEffort::measure:
      return FFTW_MEASURE;
    case FftwEffort::patient:
      return FFTW_PATIENT;
  }
  return FFTW_ESTIMATE;
}

std::string default_fftw_wisdom_path() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/fastpsr/fftwf-wisdom";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.cache/fastpsr/fftwf-wisdom";
  }
  return "none";
}

bool may_hold_fftw_wisdom(const std::string& path) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (st.type() == std::filesystem::file_type::not_found) return true;
  if (ec) return false;
  if (st.type() != std::filesystem::file_type::regular) return true;  // never replaced: export refuses it
  if (std::filesystem::file_size(path, ec) == 0 && !ec) return true;
  std::ifstream in(path, std::ios::binary);
  char head[6] = {};
  in.read(head, sizeof head);
  return in.gcount() == sizeof head && std::string_view(head, sizeof head) == "(fftw-";
}

bool import_fftw_wisdom(const std::string& path) {
  // Only a regular file of a sane size: FFTW would read a device such as /dev/zero forever.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) ||
      std::filesystem::file_size(path, ec) > (std::uintmax_t{64} << 20)) {
    return false;
  }
  const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
  return fftwf_import_wisdom_from_filename(path.c_str()) != 0;
}

void export_fftw_wisdom(const std::string& path, bool create_directory) {
  const std::filesystem::path target(path);
  std::error_code ec;
  if (std::filesystem::exists(target, ec) && !std::filesystem::is_regular_file(target, ec)) {
    throw Error(ErrorCode::io, "not a regular file: wisdom is not written there", path);
  }
  if (!may_hold_fftw_wisdom(path)) {
    throw Error(ErrorCode::io, "the file is not FFTW wisdom (it does not start with '(fftw-'): not replaced", path);
  }
  if (create_directory && target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    const std::lock_guard<std::mutex> lock(fftw_planner_mutex());
    if (fftwf_export_wisdom_to_filename(tmp.c_str()) == 0) {
      std::filesystem::remove(tmp, ec);
      throw Error(ErrorCode::io, "cannot write FFTW wisdom", path);
    }
  }
  std::filesystem::rename(tmp, target, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw Error(ErrorCode::io, "cannot write FFTW wisdom", path);
  }
}

FftwWisdomFile::FftwWisdomFile(const std::string& path, FftwEffort effort, bool on_cpu)
    : path_(path.empty() ? default_fftw_wisdom_path() : path),
      used_(on_cpu && path_ != "none" && effort != FftwEffort::estimate),
      default_path_(path.empty()) {
  if (!used_) return;
  // The default location is made when missing; the folders of a path the user gave are not (a
  // typo would otherwise create a tree of them): the run goes on without saving its plans.
  if (!default_path_) {
    const std::filesystem::path dir = std::filesystem::path(path_).parent_path();
    std::error_code ec;
    if (!dir.empty() && !std::filesystem::is_directory(dir, ec)) {
      log_warning(
          "{}: the directory '{}' does not exist (--wisdom does not create it): FFTW wisdom cannot be saved "
          "there, so this run's measured plans are not kept",
          path_, dir.string());
      used_ = false;
      return;
    }
  }
  // A path that cannot be looked at (a folder without search permission) is said as such, not
  // taken for a file that is not wisdom (QA pass 20, finding 9).
  {
    std::error_code ec;
    const auto st = std::filesystem::status(path_, ec);
    if (ec && st.type() != std::filesystem::file_type::not_found) {
      if (!path.empty()) {
        throw Error(ErrorCode::io, "--wisdom: cannot look at it (" + ec.message() + ")", path_);
      }
      log_warning("{}: cannot look at it ({}): FFTW wisdom is not read or saved there", path_, ec.message());
      used_ = false;
      return;
    }
  }
  // Only a file that holds wisdom (or nothing) is ever replaced: a mistyped --wisdom obs.fil
  // must not destroy the observation.
  if (!may_hold_fftw_wisdom(path_)) {
    if (!path.empty()) {
      throw Error(ErrorCode::invalid_argument,
                  "--wisdom: the file exists and is not FFTW wisdom (it does not start with '(fftw-'), so it is "
                  "never replaced: give the name of a wisdom file or of a new one",
                  path_);
    }
    log_warning(
        "{}: not FFTW wisdom (it does not start with '(fftw-'): left as it is, and this run's plans are not "
        "saved there",
        path_);
    used_ = false;
    return;
  }
  import_fftw_wisdom(path_);
}

void FftwWisdomFile::save() const {
  if (!used_) return;
  try {
    export_fftw_wisdom(path_, default_path_);
  } catch (const Error& e) {
    log_warning(
        "{}: {}: FFTW wisdom not saved, so a later run may measure other plans and differ in its last bits "
        "(--wisdom, or --fftw estimate)",
        e.path(), e.what());
  }
}

}  // namespace fastpsr::cpu
