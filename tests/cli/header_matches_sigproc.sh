#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Our listing of SIGPROC-made files equals SIGPROC's `header` output, line for line.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
peers="${FASTPSR_SHARED:-}/data/peer-outputs"
[ -d "$peers" ] || skip "shared data not found at $peers"
cd "$peers/small"
for f in small_psr.fil small_DM62.5.tim; do
  "$HEADER" "$f" >"$WORK/ours.txt"
  diff -u "$f.header.txt" "$WORK/ours.txt" || fail "$f: listing differs from SIGPROC's"
  # From stdin SIGPROC says "stdin"; the rest (sizes counted from the pipe) is the same.
  "$HEADER" - <"$f" >"$WORK/piped.txt"
  sed '1s/: .*/: stdin/' "$f.header.txt" | diff -u - "$WORK/piped.txt" || fail "$f from stdin differs"
done
echo ok
