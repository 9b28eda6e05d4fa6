#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --set/--unset -o: a copy with the header changed and the data untouched; bad edits are errors
# that leave no output.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
{ NSAMPLES=50 fil_header; head -c 200 /dev/urandom; } >"$WORK/in.fil"
"$HEADER" "$WORK/in.fil" --set source_name=J0534+2200 --set tstart=58543.25 --set ibeam=3 --unset nsamples \
  -o "$WORK/out.fil"
[ "$("$HEADER" "$WORK/out.fil" -source_name -tstart -ibeam)" = "J0534+2200
58543.250000000000
3" ] || fail "values after --set"
cmp <(tail -c 200 "$WORK/in.fil") <(tail -c 200 "$WORK/out.fil") || fail "data changed"
"$HEADER" --json "$WORK/out.fil" | grep -q '"nsamples": 50' || fail "sample count"
"$HEADER" --json "$WORK/out.fil" | grep -q '"header": {[^}]*"nsamples"' && fail "nsamples was not removed"
# Through pipes.
"$HEADER" - --set nbits=16 --unset nsamples -o - <"$WORK/in.fil" | "$HEADER" - -nbits -nsamples | tr '\n' ' ' | grep -qx "16 25 " ||
  fail "pipe"
# Errors: no output appears.
for bad in "--set nchans=0" "--set nbits=3" "--set nchans=3" "--set tsamp=abc" "--set nosuchkey=1" "--unset nosuchkey" \
  "--set data_type=2" "--unset foff" "--set foff=0" "--set src_raj=-5" "--set src_dej=-950000" \
  "--unset fch1" "--set fch1=-1400" "--set nsamples=100" "--set nsamples=51"; do
  set +e
  # shellcheck disable=SC2086
  "$HEADER" "$WORK/in.fil" $bad -o "$WORK/bad.fil" 2>"$WORK/err"
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "$bad: status $rc (a refused edit is a usage error: 2)"
  grep -q "^header: error: " "$WORK/err" || fail "$bad: $(cat "$WORK/err")"
  [ ! -e "$WORK/bad.fil" ] || fail "$bad: output left behind"
  [ -z "$(ls -A "$WORK" | grep '\.tmp\.')" ] || fail "$bad: temporary left behind"
done
# nsamples set to the samples there are is fine.
"$HEADER" "$WORK/in.fil" --set nsamples=50 -o "$WORK/n50.fil" || fail "--set nsamples=50 refused"
# tsamp takes a unit (SIGPROC stores seconds, -tsamp prints microseconds); a bare number is
# seconds, below 1 (tsamp=64 silently made 64-second samples: QA pass 15).
for v in 128us 0.128ms 1.28e-4s 128000ns 0.000128 128µs; do
  "$HEADER" "$WORK/in.fil" --set tsamp=$v -o "$WORK/t.fil" || fail "--set tsamp=$v refused"
  [ "$("$HEADER" "$WORK/t.fil" -tsamp)" = "128.00000" ] || fail "--set tsamp=$v: -tsamp $("$HEADER" "$WORK/t.fil" -tsamp)"
done
"$HEADER" "$WORK/in.fil" --set tsamp=2s -o "$WORK/t.fil" || fail "--set tsamp=2s (seconds said) refused"
[ "$("$HEADER" "$WORK/t.fil" -tsamp)" = "2000000.00000" ] || fail "--set tsamp=2s: -tsamp $("$HEADER" "$WORK/t.fil" -tsamp)"
for bad in 64 1 64xs us 64usec; do
  set +e
  "$HEADER" "$WORK/in.fil" --set tsamp=$bad -o "$WORK/bad.fil" 2>"$WORK/err"
  rc=$?
  set -e
  [ "$rc" -eq 2 ] || fail "--set tsamp=$bad: status $rc (want 2)"
  [ ! -e "$WORK/bad.fil" ] || fail "--set tsamp=$bad: output left behind"
  grep -q "^header: error: .*--set tsamp=$bad: " "$WORK/err" || fail "--set tsamp=$bad: $(cat "$WORK/err")"
done
"$HEADER" "$WORK/in.fil" --set tsamp=64 -o "$WORK/bad.fil" 2>"$WORK/err" || true
grep -q "tsamp=64: SIGPROC stores seconds, so that is a 64 s sample .*give the unit: tsamp=64us, or tsamp=64s" \
  "$WORK/err" || fail "--set tsamp=64: $(cat "$WORK/err")"
"$HEADER" --help | grep -q 'tsamp=64us' || fail "--help does not say tsamp's unit"
echo ok
