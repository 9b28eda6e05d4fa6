// SPDX-License-Identifier: MIT
#pragma once
// The three ways `header` prints a file: SIGPROC's listing, single values for scripts, JSON.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "describe.hpp"
#include "fastpsr/byte_stream.hpp"

namespace fastpsr::app {

/// SIGPROC `header`'s listing, line for line (labels, formats, which lines appear), then the
/// lines only this format has.
void print_listing(ByteSink& out, const FileDescription& d);

/// The names accepted as single-value flags (-tsamp, --tsamp, ...), in SIGPROC's spelling.
const std::vector<std::string>& value_names();
/// What the value `name` is, with its unit, for --help.
std::string value_description(std::string_view name);
/// The value of `name` as SIGPROC `header -name` prints it (-tsamp in microseconds, -fch1 with
/// three decimals, ...). `-frequencies` gives one line per channel. Lines end in '\n'.
std::string value_text(const FileDescription& d, std::string_view name);

/// Everything as one JSON object.
nlohmann::ordered_json to_json(const FileDescription& d);

}  // namespace fastpsr::app
