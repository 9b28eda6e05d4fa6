// SPDX-License-Identifier: MIT
#include "fastpsr/spectra_source.hpp"

#include "fastpsr/error.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/format_detect.hpp"
#include "fastpsr/psrfits.hpp"

namespace fastpsr {

std::unique_ptr<SpectraSource> open_spectra(const std::string& path) {
  auto src = open_source(path);
  const FileFormat f = detect_format(*src);
  switch (f) {
    case FileFormat::sigproc_filterbank:
      return std::make_unique<FilterbankReader>(std::move(src));
    case FileFormat::psrfits:
      return std::make_unique<PsrfitsReader>(std::move(src));
    default:
      break;
  }
  throw Error(ErrorCode::format,
              fmt::format("is a {}, not a filterbank (SIGPROC .fil or search-mode PSRFITS)", format_name(f)), path);
}

}  // namespace fastpsr
