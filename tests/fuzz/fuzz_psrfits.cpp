// SPDX-License-Identifier: MIT
// The whole PSRFITS search-mode reader: headers, table layout, rows and decoding.
#include <cstdint>
#include <vector>

#include "fastpsr/error.hpp"
#include "fastpsr/psrfits.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fastpsr;
  try {
    PsrfitsReader r(memory_source(std::vector<std::uint8_t>(data, data + size), "fuzz.sf"));
    std::vector<float> buf(static_cast<std::size_t>(r.header().nchans) * 3);
    while (r.read_float(buf.data(), 3) == 3) {
    }
  } catch (const Error&) {
  }
  return 0;
}
