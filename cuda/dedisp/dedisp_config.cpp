// SPDX-License-Identifier: MIT
#include "dedisp/dedisp_config.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include "fastpsr/error.hpp"

namespace fastpsr::cuda {
namespace {

struct KeyInfo {
  const char* name;
  long long lo;
  long long hi;
  const char* help;
};

constexpr KeyInfo kKeys[] = {
    {"threads_time", 32, 1024, "threads per block along time (a multiple of 32)"},
    {"threads_dm", 1, 32, "threads per block along DM"},
    {"items_time", 1, 4, "words (lanes samples each) per thread along time: 1, 2 or 4"},
    {"items_dm", 1, 8, "DMs per thread: 1, 2, 4 or 8"},
    {"chans_per_stage", 1, 256, "channel rows staged in shared memory per step"},
    {"stages", 1, 3, "shared-memory buffers (2 = double buffering)"},
    {"lanes", 0, 4, "samples per 32-bit word: 4 (8-bit values), 2 (16-bit), 1; 0 = automatic"},
    {"flush_chans", 0, 65535, "channels summed in a 16-bit lane before it is flushed; 0 = its capacity"},
    {"mad_hi", 0, 1, "lanes=4: sum the odd bytes with IMAD.HI (1) instead of PRMT (0)"},
    {"subband", 0, 16,
     "0: the staged kernel (default); 4, 8 or 16: the subband kernel (lanes=4, slower on an H100 so far) "
     "with units of that many channels, chans_per_stage a multiple of it"},
    {"bulk_copy", 0, 1,
     "staged kernel on sm_90+: stage each channel row with one bulk (TMA) copy (1) or with 16-byte cp.async "
     "pieces from every thread (0)"},
    {"max_regs", 0, 255,
     "register cap of the staged kernel: 0 = automatic; items_time=4 items_dm=8 is compiled for 128 (four "
     "128-thread blocks an SM), 168 and 255, smaller tiles for 128"},
    {"reuse", 0, 2,
     "staged kernel: a DM whose delay in a channel equals the thread's previous DM's adds the words loaded "
     "for that DM again, its loads predicated off (1: the words and their odd bytes kept; 2: the words only, "
     "odd bytes made again, fewer registers; 2 differs from 1 for lanes=4 items_dm=8 only; compiled for "
     "items_time=4 with items_dm=4 or 8) or loads every word (0)"},
    {"gulp", 0, std::numeric_limits<int>::max(), "input samples per push; 0 = automatic"},
    {"pipeline", 2, 4, "gulps in flight (upload / compute / download overlap)"},
    {"max_device_mb", 0, 1 << 24, "device memory budget in MiB; 0 = what is free"},
};

long long parse_value(const std::string& key, const std::string& text, const KeyInfo& info) {
  long long v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    throw Error(ErrorCode::invalid_argument, fmt::format("--gpu-config {}={}: not an integer", key, text));
  }
  if (v < info.lo || v > info.hi) {
    throw Error(ErrorCode::invalid_argument,
                fmt::format("--gpu-config {}={}: out of range [{}, {}] ({})", key, text, info.lo, info.hi, info.help));
  }
  return v;
}

bool one_of(long long v, std::initializer_list<long long> allowed) {
  return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
}

}  // namespace

std::string gpu_config_keys_help() {
  std::string s;
  for (const auto& k : kKeys) s += fmt::format("  {:<16} {}\n", k.name, k.help);
  return s;
}

DedispGpuConfig parse_gpu_config(const std::map<std::string, std::string>& kv) {
  DedispGpuConfig c;
  for (const auto& [key, text] : kv) {
    const auto* info =
        std::find_if(std::begin(kKeys), std::end(kKeys), [&](const KeyInfo& k) { return key == k.name; });
    if (info == std::end(kKeys)) {
      throw Error(ErrorCode::invalid_argument,
                  fmt::format("--gpu-config: unknown key '{}'; the keys are:\n{}", key, gpu_config_keys_help()));
    }
    const long long v = parse_value(key, text, *info);
    auto bad = [&](const char* what) {
      throw Error(ErrorCode::invalid_argument, fmt::format("--gpu-config {}={}: {}", key, text, what));
    };
    if (key == "threads_time") {
      if (v % 32 != 0) bad("must be a multiple of 32 (whole warps along time)");
      c.shape.threads_time = static_cast<int>(v);
    } else if (key == "threads_dm") {
      c.shape.threads_dm = static_cast<int>(v);
    } else if (key == "items_time") {
      if (!one_of(v, {1, 2, 4})) bad("compiled for 1, 2 or 4");
      c.shape.items_time = static_cast<int>(v);
    } else if (key == "items_dm") {
      if (!one_of(v, {1, 2, 4, 8})) bad("compiled for 1, 2, 4 or 8");
      c.shape.items_dm = static_cast<int>(v);
    } else if (key == "chans_per_stage") {
      c.shape.chans_per_stage = static_cast<int>(v);
    } else if (key == "stages") {
      c.shape.stages = static_cast<int>(v);
    } else if (key == "lanes") {
      if (!one_of(v, {0, 1, 2, 4})) bad("must be 0 (automatic), 1, 2 or 4");
      c.lanes_request = static_cast<int>(v);
    } else if (key == "flush_chans") {
      c.flush_chans = static_cast<int>(v);
    } else if (key == "mad_hi") {
      c.mad_hi = v == 1;
    } else if (key == "subband") {
      if (!one_of(v, {0, 4, 8, 16})) bad("must be 0 (the staged kernel) or 4, 8, 16 channels per unit");
      c.shape.subband = static_cast<int>(v);
    } else if (key == "bulk_copy") {
      c.shape.bulk_copy = v == 1;
    } else if (key == "max_regs") {
      if (!one_of(v, {0, 128, 168, 255})) bad("must be 0 (automatic), 128, 168 or 255");
      c.shape.max_regs = static_cast<int>(v);
    } else if (key == "reuse") {
      c.shape.reuse = static_cast<int>(v);
    } else if (key == "gulp") {
      c.gulp = static_cast<std::size_t>(v);
    } else if (key == "pipeline") {
      c.pipeline = static_cast<int>(v);
    } else if (key == "max_device_mb") {
      c.max_device_mb = static_cast<std::size_t>(v);
    }
    c.given.insert(key);
  }
  return c;
}

std::string to_gpu_config_string(const DedispGpuConfig& c) {
  return fmt::format(
      "threads_time={},threads_dm={},items_time={},items_dm={},chans_per_stage={},stages={},lanes={},flush_chans={},"
      "mad_hi={},subband={},bulk_copy={},max_regs={},reuse={},gulp={},pipeline={}{}",
      c.shape.threads_time, c.shape.threads_dm, c.shape.items_time, c.shape.items_dm, c.shape.chans_per_stage,
      c.shape.stages, c.shape.lanes, c.flush_chans, c.mad_hi ? 1 : 0, c.shape.subband, c.shape.bulk_copy ? 1 : 0,
      c.shape.max_regs, c.shape.reuse, c.gulp, c.pipeline,
      c.max_device_mb ? fmt::format(",max_device_mb={}", c.max_device_mb) : std::string());
}

}  // namespace fastpsr::cuda
