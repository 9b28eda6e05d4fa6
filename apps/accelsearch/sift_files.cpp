// SPDX-License-Identifier: MIT
#include "sift_files.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "fastpsr/byte_stream.hpp"
#include "fastpsr/error.hpp"

namespace fastpsr::app {
namespace {

// ACCEL files of real searches are kilobytes to a few MB; a larger one is not an ACCEL file.
constexpr std::size_t kMaxAccelFileBytes = std::size_t{256} << 20;

std::string read_text(const std::string& path) {
  auto src = open_source(path);
  std::string text;
  char buffer[65536];
  for (;;) {
    const std::size_t n = src->read(buffer, sizeof buffer);
    text.append(buffer, n);
    if (text.size() > kMaxAccelFileBytes) {
      throw Error(ErrorCode::format, fmt::format("more than {} MiB: not an ACCEL text file", kMaxAccelFileBytes >> 20),
                  path);
    }
    if (n < sizeof buffer) return text;
  }
}

// The DM of the .inf that an ACCEL file ends with (" Dispersion measure (cm-3 pc) = 56.7").
double appended_dm(const std::string& text, const std::string& path) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(" Dispersion measure", 0) != 0) continue;
    const auto eq = line.find('=');
    if (eq != std::string::npos) {
      try {
        return std::stod(line.substr(eq + 1));
      } catch (const std::exception&) {
      }
    }
    break;
  }
  throw Error(ErrorCode::format, "no DM: neither 'DM<dm>' in the name nor a DM in the appended .inf", path);
}

}  // namespace

std::vector<SiftInput> read_accel_files(const std::vector<std::string>& paths) {
  std::vector<SiftInput> inputs;
  inputs.reserve(paths.size());
  for (const auto& path : paths) {
    const std::string name = std::filesystem::path(path).filename().string();
    for (const char* side : {".cand", ".txtcand", ".inf", ".dat", ".fft"}) {
      if (name.ends_with(side)) {
        throw Error(ErrorCode::invalid_argument,
                    fmt::format("--sift reads the ACCEL text files (<root>_ACCEL_<zmax>), not a {} file", side), path);
      }
    }
    const std::string text = read_text(path);
    if (text.find('\0') != std::string::npos) {
      throw Error(ErrorCode::format, "binary data: not an ACCEL text file (<root>_ACCEL_<zmax>)", path);
    }
    // sift_input_from_accel_text takes "DM<dm>" from the name first, as sifting.py does.
    const bool dm_in_name = dm_from_name(name).has_value();
    inputs.push_back(sift_input_from_accel_text(text, name, dm_in_name ? 0.0 : appended_dm(text, path)));
  }
  return inputs;
}

std::size_t add_trials_without_candidates(const std::vector<std::string>& paths, std::vector<SiftInput>& inputs) {
  std::set<std::string> dms;  // as the sifter compares them
  for (const auto& in : inputs) dms.insert(dm_string(in.dm));
  std::set<std::filesystem::path> dirs;
  for (const auto& path : paths) dirs.insert(std::filesystem::path(path).parent_path());
  std::size_t added = 0;
  for (const auto& dir : dirs) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (!name.ends_with(".inf")) continue;
      const auto dm = dm_from_name(name);
      if (dm && dms.insert(dm_string(*dm)).second) {
        inputs.push_back(SiftInput{*dm, {}});
        ++added;
      }
    }
  }
  return added;
}

}  // namespace fastpsr::app
