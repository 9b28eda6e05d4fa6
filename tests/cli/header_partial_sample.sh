#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Data that end inside a sample (4-byte samples, 4*10+3 bytes): a file cut short. As SIGPROC and
# PRESTO read it, its whole samples are the data: the header is listed (status 0) with 10
# samples, and one warning naming the file says what was ignored.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
{ fil_header; head -c 43 /dev/zero; } >"$WORK/partial.fil"
out=$("$HEADER" "$WORK/partial.fil" --nsamples 2>"$WORK/err") || fail "exit status $? for a file cut short"
[ "$out" = "10" ] || fail "nsamples: got '$out', want 10"
grep -qF "header: warning: $WORK/partial.fil: trailing partial sample" "$WORK/err" ||
  { cat "$WORK/err" >&2; fail "no warning naming the file"; }
grep -qF "last 3 bytes ignored" "$WORK/err" || { cat "$WORK/err" >&2; fail "the warning does not say what was ignored"; }
"$HEADER" --json "$WORK/partial.fil" 2>/dev/null | grep -q '"nsamples": 10' || fail "--json lacks nsamples 10"
echo "ok: $(cat "$WORK/err")"
