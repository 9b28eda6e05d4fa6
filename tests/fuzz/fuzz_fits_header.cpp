// SPDX-License-Identifier: MIT
// FITS header cards and binary-table layouts, as the PSRFITS reader uses them.
#include <cstdint>
#include <vector>

#include "fastpsr/error.hpp"
#include "fastpsr/fits.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fastpsr;
  const std::vector<std::uint8_t> bytes(data, data + size);
  try {
    auto src = memory_source(bytes, "fuzz.fits");
    const FitsHeader h = read_fits_header(*src);
    for (const auto& c : h.cards) {
      (void)h.number(c.key);
      (void)h.integer(c.key);
      (void)h.text(c.key);
    }
    (void)h.data_bytes_padded("fuzz.fits");
    (void)fits_table_columns(h, "fuzz.fits");
  } catch (const Error&) {
  }
  return 0;
}
