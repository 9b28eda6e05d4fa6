// SPDX-License-Identifier: MIT
#pragma once
/// Which IFs of a multi-IF SIGPROC filterbank (nifs > 1), or which polarisations of a search-mode
/// PSRFITS file, make the intensity that is dedispersed (dedisp --if, PRESTO's -if).
///
/// A SIGPROC header does not say what its IFs are. Two IFs are taken as the powers of two
/// polarisations (what SIGPROC's filterbank and fake write), whose sum is the total intensity;
/// with more (ppf --detect IQUV writes I, Q, U, V) the user must say which to use.
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fastpsr/filterbank.hpp"
#include "fastpsr/spectra_source.hpp"

namespace fastpsr {

struct IfChoice {
  enum class Mode {
    automatic,  ///< one IF as it is; two summed; more refused. PSRFITS: its total intensity
    sum,        ///< every IF summed (PSRFITS: AA + BB)
    one,        ///< IF (polarisation) `index` alone
  };
  Mode mode = Mode::automatic;
  int index = 0;  ///< Mode::one: the IF, from 0
};

/// "auto", "sum" or an IF number from 0 (PRESTO's -if N). Throws Error(invalid_argument).
IfChoice parse_if_choice(std::string_view text);
/// "auto", "sum" or the number.
std::string to_string(const IfChoice& choice);

/// A SIGPROC filterbank of several IFs read as one of one IF: the IFs summed in order (float32
/// additions, exact for integer samples) or one of them alone. Checks the choice against the
/// header at construction (Error naming the file).
class IfCombiner final : public SpectraSource {
 public:
  IfCombiner(std::unique_ptr<SpectraSource> source, const IfChoice& choice);

  /// The source's header with nifs 1.
  [[nodiscard]] const SigprocHeader& header() const noexcept override { return header_; }
  [[nodiscard]] const std::string& name() const noexcept override { return source_->name(); }
  [[nodiscard]] std::optional<std::uint64_t> nsamples() const noexcept override { return source_->nsamples(); }
  [[nodiscard]] std::uint64_t position() const noexcept override { return source_->position(); }
  std::size_t read_float(float* dst, std::size_t n) override;
  std::uint64_t skip(std::uint64_t n) override { return source_->skip(n); }
  [[nodiscard]] std::vector<SampleGap> gaps() const override { return source_->gaps(); }
  /// What the values are, for -v: "the sum of 2 IFs" or "IF 1 of 4".
  [[nodiscard]] std::string describe() const;

 private:
  std::unique_ptr<SpectraSource> source_;
  SigprocHeader header_;
  int nifs_ = 1;
  int first_ = 0;  // the IFs used: first_ .. first_ + count_ - 1
  int count_ = 1;
  std::vector<float> scratch_;
};

/// `reader` as it is when it holds one IF (an --if of more refused, naming the file), else the
/// IFs `choice` names through an IfCombiner, read as a SIGPROC float32 filterbank of one IF.
/// Nothing is read or allocated per channel until the first read, so a caller can first check
/// that a sample exists (a header may claim spectra too large to buffer).
std::unique_ptr<FilterbankReader> combine_ifs(std::unique_ptr<FilterbankReader> reader, const IfChoice& choice);

}  // namespace fastpsr
