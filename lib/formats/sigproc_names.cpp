// SPDX-License-Identifier: MIT
// Packed sky angles and the telescope/machine code tables of formats.md §1.4 and §1.7.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "fastpsr/error.hpp"
#include "fastpsr/escape.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr {

std::string sigproc_angle_to_string(double packed, bool is_ra, int decimals) {
  const bool negative = packed < 0.0;
  double a = std::fabs(packed);
  int major = static_cast<int>(a / 10000.0);
  int minute = static_cast<int>((a - major * 10000.0) / 100.0);
  double second = a - major * 10000.0 - minute * 100.0;
  // Printing may round 59.99996 up to 60.0000: carry into minutes and degrees/hours.
  const double scale = std::pow(10.0, decimals);
  if (std::round(second * scale) / scale >= 60.0) {
    second = 0.0;
    if (++minute == 60) {
      minute = 0;
      ++major;
    }
    if (is_ra && major == 24) major = 0;  // 23:59:59.96 is 00:00:00.0, not 24:00:00.0
  }
  const int width = decimals > 0 ? decimals + 3 : 2;
  return fmt::format("{}{:02d}:{:02d}:{:0{}.{}f}", (negative && !is_ra) ? "-" : "", major, minute, second, width,
                     decimals);
}

double sigproc_angle_from_string(std::string_view text, bool is_ra) {
  const std::string s(text);
  int major = 0;
  int minute = 0;
  double second = 0.0;
  const bool negative = !s.empty() && s[0] == '-';
  const char* p = s.c_str() + ((!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0);
  const int n = std::sscanf(p, "%d:%d:%lf", &major, &minute, &second);
  if (n < 1 || major < 0 || minute < 0 || minute >= 60 || second < 0.0 || second >= 60.0 ||
      (is_ra && major >= 24) || (!is_ra && major > 90)) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("cannot read '{}' as {} (expected {})", escape_for_message(s),
                            is_ra ? "a right ascension" : "a declination", is_ra ? "hh:mm:ss.s" : "[-]dd:mm:ss.s"));
  }
  const double v = major * 10000.0 + minute * 100.0 + second;
  return negative ? -v : v;
}

std::string sigproc_telescope_name(int id) {
  switch (id) {
    case 0: return "Fake";
    case 1: return "Arecibo";
    case 2: return "Ooty";
    case 3: return "Nancay";
    case 4: return "Parkes";
    case 5: return "Jodrell";
    case 6: return "GBT";
    case 7: return "GMRT";
    case 8: return "Effelsberg";
    case 9: return "140ft";
    case 10: return "SRT";
    case 11: return "LOFAR";
    case 12: return "VLA";
    case 20: return "CHIME";
    case 21: return "FAST";
    case 30: return "MWA";
    case 64: return "MeerKAT";
    case 65: return "KAT-7";
    case 82: return "eMerlin";
    default: return "???????";
  }
}

std::string sigproc_machine_name(int id) {
  switch (id) {
    case 0: return "FAKE";
    case 1: return "PSPM";
    case 2: return "WAPP";
    case 3: return "AOFTM";
    case 4: return "BPP";
    case 5: return "OOTY";
    case 6: return "SCAMP";
    case 7: return "GMRTFB";
    case 8: return "PULSAR2000";
    case 9: return "PARSPEC";
    case 10: return "BPSR";
    case 14: return "GMRTNEW";
    case 20: return "CHIME";
    case 64: return "KAT";
    case 65: return "KAT-DC2";
    case 82: return "loft-e";
    case 83: return "ROACH";
    case 88: return "AT-PAF";
    default: return "?????";
  }
}

int sigproc_telescope_id(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  while (!lower.empty() && lower.back() == ' ') lower.pop_back();
  static const std::pair<const char*, int> kNames[] = {
      {"fake", 0},   {"arecibo", 1}, {"ao", 1},        {"ooty", 2},    {"ort", 2},          {"nancay", 3},
      {"parkes", 4}, {"pks", 4},     {"murriyang", 4}, {"jodrell", 5}, {"jodrell bank", 5}, {"jb", 5},
      {"lovell", 5}, {"gbt", 6},     {"gb", 6},        {"gmrt", 7},    {"effelsberg", 8},   {"eff", 8},
      {"140ft", 9},  {"ata", 9},     {"srt", 10},      {"lofar", 11},  {"vla", 12},         {"chime", 20},
      {"fast", 21},  {"mwa", 30},    {"meerkat", 64},  {"kat-7", 65},  {"emerlin", 82},
  };
  for (const auto& [n, id] : kNames) {
    if (lower == n) return id;
  }
  return -1;
}

}  // namespace fastpsr
