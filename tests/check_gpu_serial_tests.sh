#!/bin/bash
# SPDX-License-Identifier: MIT
# check_gpu_serial_tests.sh GPU_TESTS FILE: every "gpu:<case>" that FILE (gpu_serial_tests.cmake)
# names is a test case of the GPU_TESTS binary (its list needs no GPU).
set -u
cases=$("$1" --list-test-cases --no-version 2>/dev/null) || { echo "cannot list the cases of $1"; exit 1; }
n=0
while IFS= read -r name; do
  n=$((n + 1))
  grep -qxF -- "$name" <<<"$cases" || { echo "no GPU test case named: $name"; exit 1; }
done < <(grep -o '"gpu:[^"]*"' "$2" | sed 's/^"gpu://; s/"$//')
[ "$n" -gt 0 ] || { echo "no case named in $2"; exit 1; }
echo "$n serial GPU cases exist"
