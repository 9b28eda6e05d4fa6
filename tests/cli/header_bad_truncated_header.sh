#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A header cut off before HEADER_END, at every byte from the first key on.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
fil_header >"$WORK/full.fil"
size=$(stat -c %s "$WORK/full.fil")
for cut in 20 37 60 $((size - 11)) $((size - 1)); do
  head -c "$cut" "$WORK/full.fil" >"$WORK/cut.fil"
  EXPECT="header" expect_header_error "$WORK/cut.fil" "$WORK/cut.fil"
  grep -qE "truncated header|end of file" "$WORK/err" || fail "cut at $cut: $(cat "$WORK/err")"
done
