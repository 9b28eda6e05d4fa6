// SPDX-License-Identifier: MIT
#pragma once
/// Text read from a file (a header keyword, a card's name or value) made safe to quote in a
/// message: what reaches the terminal is printable ASCII, whatever bytes the file held.
#include <string>
#include <string_view>

namespace fastpsr {

/// `s` with every byte outside printable ASCII (below 0x20, 0x7f and above: NUL, BEL, ESC,
/// UTF-8) written as \xNN (two lowercase hex digits) and a backslash as \\, so that the
/// escaped text reads back unambiguously; printable text is returned as it is.
/// escape_for_message("nch\0\a") == "nch\\x00\\x07".
std::string escape_for_message(std::string_view s);

}  // namespace fastpsr
