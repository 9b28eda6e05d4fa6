// SPDX-License-Identifier: MIT
// The SIGPROC header parser and the filterbank reader on arbitrary bytes: they may reject the
// input (fastpsr::Error) but must not crash, leak or read out of bounds; what they accept must
// encode back to a header that reads the same.
#include <cstdint>
#include <string>
#include <vector>

#include "fastpsr/error.hpp"
#include "fastpsr/filterbank.hpp"
#include "fastpsr/format_detect.hpp"
#include "fastpsr/sigproc.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fastpsr;
  const std::vector<std::uint8_t> bytes(data, data + size);
  (void)detect_format(bytes, "fuzz.fil");
  try {
    FilterbankReader reader(memory_source(bytes, "fuzz.fil"));
    const SigprocHeader& h = reader.header();
    // Round trip: every value and the key order survive encoding (strings the writer refuses,
    // over 79 characters, end the check).
    try {
      auto again = memory_source(encode_sigproc_header(h), "again.fil");
      const SigprocHeader r = read_sigproc_header(*again);
      std::vector<std::string> kept;  // the writer leaves out empty strings, which readers reject
      for (const auto& k : h.keys) {
        if (sigproc_key_type(k) != SigprocKeyType::str || !sigproc_value_string(h, k).empty()) kept.push_back(k);
      }
      if (r.keys != kept) __builtin_trap();
      for (const auto& k : h.keys) {
        if (k != "FREQUENCY_START" && sigproc_value_string(r, k) != sigproc_value_string(h, k)) __builtin_trap();
      }
    } catch (const Error& e) {
      if (e.code() != ErrorCode::invalid_argument) __builtin_trap();
    }
    const std::size_t per_sample = static_cast<std::size_t>(h.nchans) * static_cast<std::size_t>(h.nifs);
    if (per_sample <= (std::size_t{1} << 20)) {  // the data of a fuzz input are small; its claims need not be
      std::vector<float> buf(per_sample * 4);
      while (reader.read_float(buf.data(), 4) == 4) {
      }
    }
  } catch (const Error&) {
  }
  return 0;
}
