// SPDX-License-Identifier: MIT
#pragma once
/// FFTW planning shared by the CPU paths: the planner flags of an effort, and wisdom (single
/// precision). Measured plans (FFTW_MEASURE, FFTW_PATIENT) are chosen by timing, so two runs can
/// pick different algorithms and round differently; kept in a wisdom file, the plan a machine
/// measured once is the plan of every later run there, which makes measured runs reproducible as
/// well as fast.
#include <string>

#include "fastpsr/fftw_effort.hpp"

namespace fastpsr::cpu {

/// FFTW_ESTIMATE, FFTW_MEASURE or FFTW_PATIENT.
unsigned fftw_flags(FftwEffort effort) noexcept;

/// $XDG_CACHE_HOME/fastpsr/fftwf-wisdom, else ~/.cache/fastpsr/fftwf-wisdom, else "none".
std::string default_fftw_wisdom_path();

/// Whether `path` may be written as a wisdom file: it is absent, empty, not a regular file (which
/// export_fftw_wisdom refuses anyway) or starts as FFTW's wisdom does, "(fftw-". False for any
/// other file (a data file named by mistake) and for one that cannot be read.
bool may_hold_fftw_wisdom(const std::string& path);

/// Imports the file's wisdom; false when it is absent, invalid, not a regular file or over 64 MiB
/// (plans are then measured).
bool import_fftw_wisdom(const std::string& path);

/// Writes the accumulated wisdom under a temporary name and renames it into place, so that a
/// concurrent run never reads half a file; creates the directory (and those above it) only with
/// `create_directory` (the default location). Error(io) naming the file, also for a path that
/// exists and is not a regular file (a device is never replaced), is a file that is not wisdom
/// (may_hold_fftw_wisdom) or is in a directory that does not exist.
void export_fftw_wisdom(const std::string& path, bool create_directory = false);

/// A tool run's wisdom file (the tools' --fftw and --wisdom): made before the plans, it imports
/// the file when the run measures plans on the CPU; save() after the run writes it back, or says
/// in a warning that it could not (later runs may then measure other plans).
class FftwWisdomFile {
 public:
  /// `path`: the --wisdom value ("" for the default path, "none" for no file). When the run uses
  /// wisdom and the file exists but is not wisdom (may_hold_fftw_wisdom): Error(invalid_argument)
  /// naming it for a path given, a warning and no wisdom for the default path. The default
  /// path's directories are created when it is saved; a path given in a directory that does not
  /// exist gets one warning here (the wisdom cannot be saved there), and the run goes on
  /// without wisdom: nothing is created.
  FftwWisdomFile(const std::string& path, FftwEffort effort, bool on_cpu);
  void save() const;

 private:
  std::string path_;
  bool used_ = false;
  bool default_path_ = false;
};

}  // namespace fastpsr::cpu
