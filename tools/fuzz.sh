#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs every libFuzzer target of a fuzz build for SECONDS each (make fuzz: FUZZ_SECONDS), one
# after the other on one core, starting from the seeds in tests/fuzz/corpus/<target>; the corpus
# each run grows is kept in BUILD/fuzz-corpus/<target>, and inputs that crash in
# BUILD/fuzz-artifacts/. Exit status 1 if any target found a crash.
set -eu
build=${1:?usage: tools/fuzz.sh BUILD_DIR SECONDS_PER_TARGET}
seconds=${2:?usage: tools/fuzz.sh BUILD_DIR SECONDS_PER_TARGET}
root=$(cd "$(dirname "$0")/.." && pwd)
status=0
found=0
for target in "$build"/fuzz/fuzz_*; do
  [ -x "$target" ] || continue
  found=1
  name=${target##*/fuzz_}
  corpus="$build/fuzz-corpus/$name"
  artifacts="$build/fuzz-artifacts/$name/"
  mkdir -p "$corpus" "$artifacts"
  echo "fuzz: $name for ${seconds}s"
  if "$target" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
      -artifact_prefix="$artifacts" "$corpus" "$root/tests/fuzz/corpus/$name" >"$build/fuzz-$name.log" 2>&1; then
    grep -aE "^stat::number_of_executed_units|^stat::peak_rss_mb" "$build/fuzz-$name.log" | tr '\n' ' '
    echo
  else
    status=1
    echo "fuzz: $name FAILED; see $build/fuzz-$name.log and $artifacts" >&2
    tail -n 40 "$build/fuzz-$name.log" >&2
  fi
done
[ "$found" -eq 1 ] || { echo "fuzz: no targets in $build/fuzz (build the fuzz_targets target)" >&2; exit 1; }
exit "$status"
