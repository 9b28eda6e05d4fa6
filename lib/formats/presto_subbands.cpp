// SPDX-License-Identifier: MIT
#include "fastpsr/presto_subbands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>

#include "fastpsr/error.hpp"
#include "fastpsr/sigproc.hpp"

namespace fastpsr {
namespace {

// The digits after ".sub" at the end of a name; empty when there are none.
std::string_view subband_digits(std::string_view path) {
  std::size_t d = path.size();
  while (d > 0 && std::isdigit(static_cast<unsigned char>(path[d - 1])) != 0) --d;
  if (d == path.size() || d < 4 || path.substr(d - 4, 4) != ".sub") return {};
  return path.substr(d);
}

// prepsubband's "%0*d" with ceil(log10 nsub) digits prints at least one: the width of the
// numbers of a set of nsub.
std::size_t number_width(std::size_t nsub) {
  std::size_t digits = 0;
  for (std::size_t p = 1; p < nsub; p *= 10) ++digits;
  return std::max<std::size_t>(digits, 1);
}

}  // namespace

bool is_presto_subband_name(std::string_view path) { return !subband_digits(path).empty(); }

std::string presto_subband_inf_root(std::string_view path) {
  return std::string(path.substr(0, path.size() - subband_digits(path).size()));
}

std::string presto_subband_file_name(const std::string& dm_root, int index, int nsub) {
  return fmt::format("{}.sub{:0{}d}", dm_root, index, number_width(static_cast<std::size_t>(nsub)));
}

PrestoSubbandReader::PrestoSubbandReader(const std::vector<std::string>& files, bool run_avg) : run_avg_(run_avg) {
  std::map<long long, std::string> numbered;
  std::vector<std::string> infs;
  std::string root;
  std::size_t width = 0;
  for (const auto& f : files) {
    if (f.ends_with(".sub.inf")) {  // `root.sub*` matches the .inf too
      infs.push_back(f);
      continue;
    }
    if (!is_presto_subband_name(f)) {
      throw Error(ErrorCode::format, "not a PRESTO subband file (a name ending in .sub and a number)", f);
    }
    const std::string_view digits = subband_digits(f);
    if (digits.size() > 6) throw Error(ErrorCode::format, "subband number too long", f);
    const std::string r = presto_subband_inf_root(f);
    if (root.empty()) root = r;
    if (r != root) {
      throw Error(ErrorCode::format, fmt::format("subband files of two sets: {}.. and {}..", root, r), f);
    }
    if (width == 0) width = digits.size();
    if (digits.size() != width) {
      throw Error(ErrorCode::format,
                  fmt::format("subband numbers of {} and {} digits: prepsubband numbers one set with one width", width,
                              digits.size()),
                  f);
    }
    if (!numbered.emplace(std::stoll(std::string(digits)), f).second) {
      throw Error(ErrorCode::format, "subband given twice", f);
    }
  }
  if (numbered.empty()) throw Error(ErrorCode::invalid_argument, "no PRESTO subband file (.sub<NN>) given");
  for (const auto& inf : infs) {
    if (inf != root + ".inf") {
      throw Error(ErrorCode::format, fmt::format("the .sub.inf of another set: this set's is {}.inf", root), inf);
    }
  }
  name_ = numbered.size() == 1 ? numbered.begin()->second
                               : fmt::format("{} .. {}", numbered.begin()->second, numbered.rbegin()->second);
  long long expect = 0;
  for (const auto& [number, path] : numbered) {
    if (number != expect) {
      throw Error(ErrorCode::format,
                  fmt::format("subband {} is missing: a set of {} subbands runs from 0 to {}", expect, numbered.size(),
                              numbered.size() - 1),
                  root + "*");
    }
    ++expect;
    paths_.push_back(path);
  }
  // The next number's file beside the set: the set is part of a larger one (sub0..sub3 of 8).
  const std::string next = fmt::format("{}{:0{}d}", root, numbered.size(), width);
  if (std::filesystem::exists(next)) {
    throw Error(ErrorCode::format,
                fmt::format("{} subband files given, but {} is beside them: give the whole set ({}*)", numbered.size(),
                            next, root),
                root + "*");
  }
  // prepsubband names n subbands with max(1, ceil(log10 n)) digits: names of another width are a
  // part of a larger set (sub00..sub07 of 16), which would otherwise pass as a set of wider
  // subbands whenever its count divides the channels.
  if (width != number_width(numbered.size())) {
    long long hi = 10;
    for (std::size_t i = 1; i < width; ++i) hi *= 10;
    throw Error(ErrorCode::format,
                fmt::format("{} subband files numbered with {} digits, as prepsubband numbers a set of {} to {}: part "
                            "of a larger set?",
                            numbered.size(), width, width == 1 ? 1 : hi / 10 + 1, hi),
                root + "*");
  }

  const std::string inf_path = root + ".inf";
  inf_ = read_inf(inf_path);
  const int nsub = static_cast<int>(paths_.size());
  if (inf_.num_chan < 1 || inf_.num_chan % nsub != 0) {
    throw Error(ErrorCode::format,
                fmt::format("{} subband files, but the .inf's {} channels do not split into {} subbands: a "
                            "subband file missing or one too many?",
                            nsub, inf_.num_chan, nsub),
                inf_path);
  }
  if (!(inf_.dt > 0.0) || !(inf_.freq > 0.0) || !(inf_.chan_wid > 0.0)) {
    throw Error(ErrorCode::format,
                fmt::format("needs a positive sample time, lowest channel and channel width (dt {}, freq {}, "
                            "chan_wid {})",
                            inf_.dt, inf_.freq, inf_.chan_wid),
                inf_path);
  }

  std::optional<std::uint64_t> bytes;
  for (const auto& path : paths_) {
    files_.push_back(open_source(path));
    const auto size = files_.back()->size();
    if (!size)
      throw Error(ErrorCode::unsupported, "subband files must be regular files (their length is needed)", path);
    if (*size % 2 != 0) {
      throw Error(ErrorCode::format, fmt::format("{} bytes: not a whole number of int16 samples", *size), path);
    }
    if (bytes && *size != *bytes) {
      throw Error(
          ErrorCode::format,
          fmt::format("{} bytes where {} has {}: the subbands of a set have one length", *size, paths_.front(), *bytes),
          path);
    }
    bytes = size;
  }
  nsamples_ = *bytes / 2;

  // prepsubband's frequencies (dispersion.c subband_delays): the highest channel of subband j.
  const int cps = inf_.num_chan / nsub;
  const double subbandwidth = inf_.chan_wid * cps;
  header_.keys = {"source_name", "machine_id", "telescope_id", "src_raj", "src_dej", "data_type", "fch1",
                  "foff",        "nchans",     "nbits",        "tstart",  "tsamp",   "nifs"};
  header_.source_name = inf_.object.substr(0, 79);
  header_.telescope_id = std::max(0, sigproc_telescope_id(inf_.telescope));
  try {
    header_.src_raj = sigproc_angle_from_string(inf_.ra, true);
    header_.src_dej = sigproc_angle_from_string(inf_.dec, false);
  } catch (const Error&) {
    header_.src_raj = header_.src_dej = 0.0;  // "Unknown": SIGPROC's "not given"
  }
  header_.data_type = 1;
  header_.fch1 = inf_.freq + subbandwidth - inf_.chan_wid;
  header_.foff = subbandwidth;
  header_.nchans = nsub;
  header_.nbits = 16;
  header_.nifs = 1;
  header_.tsamp = inf_.dt;
  header_.tstart = static_cast<double>(inf_.mjd_i) + inf_.mjd_f;
  if (header_.source_name.empty()) header_.remove_key("source_name");
}

bool PrestoSubbandReader::fill_block() {
  const std::size_t nsub = files_.size();
  const auto left = static_cast<std::size_t>(std::min<std::uint64_t>(kPrestoSubbandBlock, nsamples_ - position_));
  if (left == 0) return false;
  raw_.resize(left);
  block_.resize(left * nsub);
  for (std::size_t j = 0; j < nsub; ++j) {
    files_[j]->read_exact(raw_.data(), left * sizeof(std::int16_t), "subband data");
    // prepsubband -runavg (read_PRESTO_subbands): the block's mean in double, subtracted in
    // double from each sample converted to float, stored as float.
    double avg = 0.0;
    if (run_avg_) {
      for (std::size_t t = 0; t < left; ++t) avg += static_cast<double>(static_cast<float>(raw_[t]));
      avg /= static_cast<double>(left);
    }
    for (std::size_t t = 0; t < left; ++t) {
      block_[t * nsub + j] = static_cast<float>(static_cast<double>(static_cast<float>(raw_[t])) - avg);
    }
  }
  block_len_ = left;
  block_pos_ = 0;
  return true;
}

void PrestoSubbandReader::limit_samples(std::uint64_t n) {
  FASTPSR_EXPECTS(!started_ && position_ == 0, "limit_samples before any read or skip");
  nsamples_ = std::min(nsamples_, n);
}

std::size_t PrestoSubbandReader::read_float(float* dst, std::size_t n) {
  started_ = true;
  const std::size_t nsub = files_.size();
  std::size_t done = 0;
  while (done < n) {
    if (block_pos_ == block_len_ && !fill_block()) break;
    const std::size_t k = std::min(n - done, block_len_ - block_pos_);
    std::memcpy(dst + done * nsub, block_.data() + block_pos_ * nsub, k * nsub * sizeof(float));
    block_pos_ += k;
    done += k;
    position_ += k;
  }
  return done;
}

std::uint64_t PrestoSubbandReader::skip(std::uint64_t n) {
  n = std::min(n, nsamples_ - position_);
  if (!started_) {
    // Before any read: seek every file (prepsubband -offset), so the -runavg blocks start here,
    // as PRESTO's do after its seek.
    for (auto& f : files_) f->skip(n * sizeof(std::int16_t));
    position_ += n;
    return n;
  }
  std::vector<float> scratch(files_.size() * 256);
  std::uint64_t done = 0;
  while (done < n) {
    const std::size_t k = read_float(scratch.data(), static_cast<std::size_t>(std::min<std::uint64_t>(256, n - done)));
    if (k == 0) break;
    done += k;
  }
  return done;
}

}  // namespace fastpsr
