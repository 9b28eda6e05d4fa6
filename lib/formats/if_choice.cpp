// SPDX-License-Identifier: MIT
#include "fastpsr/if_choice.hpp"

#include <algorithm>
#include <charconv>

#include "fastpsr/error.hpp"
#include "fastpsr/escape.hpp"
#include "fastpsr/log.hpp"
#include "fastpsr/sigproc_view.hpp"

namespace fastpsr {

IfChoice parse_if_choice(std::string_view text) {
  if (text == "auto") return {};
  if (text == "sum") return {IfChoice::Mode::sum, 0};
  int index = -1;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, index);
  if (text.empty() || ec != std::errc() || ptr != end || index < 0) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("'{}' is not an IF: give auto, sum or an IF number from 0", escape_for_message(text)));
  }
  return {IfChoice::Mode::one, index};
}

std::string to_string(const IfChoice& choice) {
  switch (choice.mode) {
    case IfChoice::Mode::automatic:
      return "auto";
    case IfChoice::Mode::sum:
      return "sum";
    case IfChoice::Mode::one:
      break;
  }
  return std::to_string(choice.index);
}

IfCombiner::IfCombiner(std::unique_ptr<SpectraSource> source, const IfChoice& choice)
    : source_(std::move(source)), header_(source_->header()), nifs_(header_.nifs) {
  const std::string& file = source_->name();
  if (nifs_ < 1) throw Error(ErrorCode::format, fmt::format("nifs is {}: a filterbank has 1 IF or more", nifs_), file);
  switch (choice.mode) {
    case IfChoice::Mode::automatic:
      if (nifs_ > 2) {
        throw Error(ErrorCode::invalid_argument,
                    fmt::format("the data have {} IFs and a SIGPROC header does not say what they are: choose "
                                "--if N for one of them (0 to {}; ppf --detect IQUV writes Stokes I as IF 0) or "
                                "--if sum",
                                nifs_, nifs_ - 1),
                    file);
      }
      count_ = nifs_;  // one as it is, or two polarisations' powers summed
      break;
    case IfChoice::Mode::sum:
      count_ = nifs_;
      break;
    case IfChoice::Mode::one:
      if (choice.index >= nifs_) {
        throw Error(ErrorCode::invalid_argument,
                    fmt::format("--if {}: the data have {} IF{} (0{})", choice.index, nifs_, nifs_ == 1 ? "" : "s",
                                nifs_ == 1 ? "" : fmt::format(" to {}", nifs_ - 1)),
                    file);
      }
      first_ = choice.index;
      count_ = 1;
      break;
  }
  header_.nifs = 1;
  header_.add_key("nifs");
}

std::string IfCombiner::describe() const {
  if (count_ == 1) return fmt::format("IF {} of {}", first_, nifs_);
  return fmt::format("the sum of its {} IFs", count_);
}

std::size_t IfCombiner::read_float(float* dst, std::size_t n) {
  const auto nchans = static_cast<std::size_t>(header_.nchans);
  const std::size_t in_values = nchans * static_cast<std::size_t>(nifs_);
  // A bounded piece at a time (the caller's n may be a whole gulp); a short read ends it.
  const std::size_t piece = std::max<std::size_t>(1, (std::size_t{1} << 18) / in_values);
  std::size_t done = 0;
  while (done < n) {
    const std::size_t want = std::min(piece, n - done);
    scratch_.resize(want * in_values);
    const std::size_t got = source_->read_float(scratch_.data(), want);
    for (std::size_t t = 0; t < got; ++t) {
      const float* in = scratch_.data() + t * in_values + static_cast<std::size_t>(first_) * nchans;
      float* out = dst + (done + t) * nchans;
      std::copy(in, in + nchans, out);
      for (int i = 1; i < count_; ++i) {
        const float* more = in + static_cast<std::size_t>(i) * nchans;
        for (std::size_t c = 0; c < nchans; ++c) out[c] += more[c];
      }
    }
    done += got;
    if (got < want) break;
  }
  return done;
}

std::unique_ptr<FilterbankReader> combine_ifs(std::unique_ptr<FilterbankReader> reader, const IfChoice& choice) {
  if (reader->header().nifs == 1) {
    if (choice.mode == IfChoice::Mode::one && choice.index > 0) {
      throw Error(ErrorCode::invalid_argument, fmt::format("--if {}: the data have one IF (0)", choice.index),
                  reader->name());
    }
    return reader;
  }
  auto combiner = std::make_unique<IfCombiner>(std::move(reader), choice);
  log_verbose("{}: dedispersing {}, read as a float32 filterbank", combiner->name(), combiner->describe());
  return std::make_unique<FilterbankReader>(std::make_unique<SigprocFloatView>(std::move(combiner)));
}

}  // namespace fastpsr
