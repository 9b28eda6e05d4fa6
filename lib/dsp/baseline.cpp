// SPDX-License-Identifier: MIT
#include "fastpsr/baseline.hpp"

#include <algorithm>
#include <charconv>

#include "fastpsr/error.hpp"

namespace fastpsr {

BaselineSpec BaselineSpec::parse(std::string_view text, int nchans) {
  BaselineSpec s;
  if (text == "none") return s;
  if (text == "sigproc") {
    s.kind = Kind::sigproc;
    s.block = 32 * static_cast<std::size_t>(nchans);
    return s;
  }
  if (text.starts_with("median:")) {
    const std::string_view n = text.substr(7);
    std::size_t v = 0;
    const auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
    if (ec == std::errc() && p == n.data() + n.size() && v > 0) {
      s.kind = Kind::median;
      s.block = v;
      return s;
    }
  }
  throw Error(ErrorCode::invalid_argument,
              fmt::format("--baseline '{}': expected none, median:N (N samples per block) or sigproc", text));
}

BlockMedianBaseline::BlockMedianBaseline(std::size_t block, bool sigproc_tail)
    : block_(block), sigproc_tail_(sigproc_tail) {
  FASTPSR_EXPECTS(block > 0, "baseline block must hold at least one sample");
  buf_.reserve(block);
}

void BlockMedianBaseline::emit_block(const Emit& emit, float offset) {
  for (float& v : buf_) v -= offset;
  emit(buf_.data(), buf_.size());
  buf_.clear();
}

void BlockMedianBaseline::push(const float* x, std::size_t n, const Emit& emit) {
  while (n > 0) {
    const std::size_t take = std::min(n, block_ - buf_.size());
    buf_.insert(buf_.end(), x, x + take);
    x += take;
    n -= take;
    if (buf_.size() == block_) {
      scratch_.assign(buf_.begin(), buf_.end());
      const auto k = (scratch_.size() + 1) / 2 - 1;
      std::nth_element(scratch_.begin(), scratch_.begin() + static_cast<long>(k), scratch_.end());
      last_offset_ = scratch_[k];
      emit_block(emit, last_offset_);
    }
  }
}

void BlockMedianBaseline::finish(const Emit& emit) {
  if (buf_.empty()) return;
  float offset = last_offset_;
  if (!sigproc_tail_) {
    scratch_.assign(buf_.begin(), buf_.end());
    const auto k = (scratch_.size() + 1) / 2 - 1;
    std::nth_element(scratch_.begin(), scratch_.begin() + static_cast<long>(k), scratch_.end());
    offset = scratch_[k];
  }
  emit_block(emit, offset);
}

}  // namespace fastpsr
