#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fewer samples than the header's nsamples says, from a file and from a pipe.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
{ NSAMPLES=100 fil_header; head -c $((4 * 60)) /dev/zero; } >"$WORK/short.fil"
EXPECT="shorter than the header says" expect_header_error "$WORK/short.fil" "$WORK/short.fil"
set +e
"$HEADER" - <"$WORK/short.fil" >"$WORK/out" 2>"$WORK/err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "stdin: exit status $rc"
grep -qF "header: error: <stdin>: data are shorter than the header says" "$WORK/err" || fail "stdin: $(cat "$WORK/err")"
