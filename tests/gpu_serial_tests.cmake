# SPDX-License-Identifier: MIT
# Included by ctest after the discovered GPU tests (tests/CMakeLists.txt): the cases that size
# their work by the GPU's whole or free memory run alone (RUN_SERIAL). Beside another of them a
# case ran out of device memory (H200, ctest -L gpu -j 3, 2026-11-29: "a plane larger than the
# GPU" while "a plane larger than the GPU's memory" held most of it).
foreach(name
        "gpu:accel cuda: a plane larger than the GPU's memory is searched in blocks and finds the signal"
        "gpu:gpu accel: a plane larger than the GPU: the GPU's block search, or with the cuFFT path a resource error by name and the CPU's block search under auto"
        "gpu:dedisp gpu vs reference: a problem larger than the GPU shrinks its gulp or fails with a message"
        "gpu:cuda dedisp: gulps shrink to a small memory budget, or fail with a message")
  set_tests_properties("${name}" PROPERTIES RUN_SERIAL TRUE)
endforeach()
