// SPDX-License-Identifier: MIT
// The doctest runner of unit_tests and gpu_tests. gpu_tests exits with 77 (ctest: skipped)
// when there is no CUDA device, after saying why; listing test cases works everywhere.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>

#include "fastpsr/backends.hpp"

int main(int argc, char** argv) {
  doctest::Context context;
  context.applyCommandLine(argc, argv);
#ifdef FASTPSR_GPU_TESTS
  // Only doctest's listing options (--list-*, -l*; also --dt-list-*) run without a device; a
  // test case filter may contain the word "list" itself.
  bool listing = false;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    listing = listing || std::strncmp(a, "--list", 6) == 0 || std::strncmp(a, "--dt-list", 9) == 0 ||
              (a[0] == '-' && a[1] == 'l' && a[2] != '\0' && std::strchr(a, '=') == nullptr);
  }
  if (!listing && fastpsr::gpu_count() == 0) {
    std::fprintf(stderr, "no CUDA device: GPU tests skipped\n");
    return 77;
  }
#endif
  return context.run();
}
