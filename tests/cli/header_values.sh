#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Single values in SIGPROC's formats and in the order asked, GNU and SIGPROC spellings, several
# files at once, and --json.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
{ NCHANS=8 fil_header; head -c $((8 * 1000)) /dev/zero; } >"$WORK/a.fil"
out=$("$HEADER" "$WORK/a.fil" -tsamp -nchans --nsamples -fch1 -foff -tstart -nbits -nifs -headersize -tobs -date -bandwidth -fmid)
expected="64.00000
8
1000
1500.000
-0.500000
60000.000000000000
8
1
$(stat -c %s "$WORK/a.fil" | awk '{print $1 - 8000}')
0.064000
2023/02/25
4.000
1498.000"
[ "$out" = "$expected" ] || fail "values: got
$out"
[ "$("$HEADER" -frequencies "$WORK/a.fil" | sed -n '1p;8p' | tr '\n' ' ')" = "1500.000000 1496.500000 " ] || fail "frequencies"
# Several files: one line each, name and values separated by tabs.
cp "$WORK/a.fil" "$WORK/b.fil"
printf '%s\t8\t1000\n%s\t8\t1000\n' "$WORK/a.fil" "$WORK/b.fil" >"$WORK/want"
"$HEADER" "$WORK/a.fil" "$WORK/b.fil" --nchans -nsamples | diff -u "$WORK/want" - || fail "several files"
# JSON: an object for one file, an array for several.
json=$("$HEADER" --json "$WORK/a.fil")
for want in '"nchans": 8' '"tsamp": 6.4e-05' '"nsamples": 1000' '"format": "SIGPROC filterbank"'; do
  case "$json" in "{"*"$want"*) ;; *) fail "json lacks $want: $json" ;; esac
done
[ "$("$HEADER" --json "$WORK/a.fil" "$WORK/b.fil" | head -c 1)" = "[" ] || fail "json array"
# A usage error is status 2.
set +e
"$HEADER" "$WORK/a.fil" -nosuchvalue >/dev/null 2>&1
[ $? -eq 2 ] || fail "unknown flag: status not 2"
"$HEADER" --json -tsamp "$WORK/a.fil" >/dev/null 2>&1
[ $? -eq 2 ] || fail "--json with a value: status not 2"
# One bad file among good ones: the good ones are printed, the status is 1.
: >"$WORK/empty.fil"
"$HEADER" "$WORK/a.fil" "$WORK/empty.fil" "$WORK/b.fil" -nchans >"$WORK/out" 2>"$WORK/err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "mixed files: status $rc"
[ "$(wc -l <"$WORK/out")" -eq 2 ] || fail "mixed files: $(cat "$WORK/out")"
grep -qF "header: error: $WORK/empty.fil: empty file" "$WORK/err" || fail "mixed files: $(cat "$WORK/err")"
"$HEADER" --help | grep -q "Examples:" || fail "--help has no examples"
# No file: stdin, as SIGPROC's `header -tsamp < obs.fil` (QA pass 18).
[ "$("$HEADER" -tsamp -nchans <"$WORK/a.fil")" = "64.00000
8" ] || fail "header -tsamp -nchans < a.fil: $("$HEADER" -tsamp -nchans <"$WORK/a.fil" 2>&1)"
echo ok
