// SPDX-License-Identifier: MIT
// The PSRDADA header parser, from text and from a stream, and its encoder.
#include <cstdint>
#include <string>
#include <vector>

#include "fastpsr/dada.hpp"
#include "fastpsr/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fastpsr;
  const std::vector<std::uint8_t> bytes(data, data + size);
  (void)looks_like_dada(bytes);
  try {
    auto src = memory_source(bytes, "fuzz.dada");
    const DadaHeader h = read_dada_header(*src);
    for (const auto& [k, v] : h.entries) (void)h.get_double_or(k, 0.0, "fuzz.dada");
    (void)encode_dada_header(h);
  } catch (const Error&) {
  }
  try {
    (void)parse_dada_header(std::string(bytes.begin(), bytes.end()), "fuzz.dada");
  } catch (const Error&) {
  }
  return 0;
}
