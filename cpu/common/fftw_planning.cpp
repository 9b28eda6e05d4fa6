// SPDX-License-Identifier: MIT
#include "fastpsr/cpu/fftw_planning.hpp"

#include <fftw3.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>

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

void export_fftw_wisdom(const std::string& path) {
  const std::filesystem::path target(path);
  std::error_code ec;
  if (std::filesystem::exists(target, ec) && !std::filesystem::is_regular_file(target, ec)) {
    throw Error(ErrorCode::io, "not a regular file: wisdom is not written there", path);
  }
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path(), ec);
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
      used_(on_cpu && path_ != "none" && effort != FftwEffort::estimate) {
  if (used_) import_fftw_wisdom(path_);
}

void FftwWisdomFile::save() const {
  if (!used_) return;
  try {
    export_fftw_wisdom(path_);
  } catch (const Error& e) {
    log_warning(
        "{}: {}: FFTW wisdom not saved, so a later run may measure other plans and differ in its last bits "
        "(--wisdom, or --fftw estimate)",
        e.path(), e.what());
  }
}

}  // namespace fastpsr::cpu
