// SPDX-License-Identifier: MIT
#pragma once
// What `header` knows about one file, whatever its format: a SIGPROC-style header (derived for
// PRESTO, PSRFITS and DADA files), sizes, and the lines and JSON fields only that format has.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fastpsr/format_detect.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr::app {

struct FileDescription {
  std::string path;        ///< as given ("-" for stdin)
  std::string shown_name;  ///< SIGPROC's "Data file" value: the path, or "stdin"
  FileFormat format = FileFormat::unknown;
  SigprocHeader header;   ///< the file's header, or its SIGPROC equivalent
  std::string telescope;  ///< name to print
  std::string machine;    ///< backend name to print
  std::uint64_t header_bytes = 0;
  std::optional<std::uint64_t> data_bytes;  ///< unknown for a .inf without its data file
  std::optional<std::uint64_t> nsamples;
  /// Lines SIGPROC's header has no place for, printed after its lines: (label, value).
  std::vector<std::pair<std::string, std::string>> extra_lines;
  /// Fields only this format has, under `--json`'s "details".
  nlohmann::ordered_json details = nlohmann::ordered_json::object();
};

/// Reads what `header` prints from `path` ("-" for stdin). Throws fastpsr::Error naming the file.
FileDescription describe_file(const std::string& path);

}  // namespace fastpsr::app
