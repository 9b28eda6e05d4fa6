#!/bin/bash
# SPDX-License-Identifier: MIT
# fake-pulsar --voltages: a PSRDADA stream (or raw samples) of complex voltages, deterministic,
# with the header a channeliser needs, and clear errors for options of the other mode.
set -euo pipefail
bin=${FASTPSR_BIN:?}
fp=$bin/fake-pulsar
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
key() { head -c 4096 "$1" | tr -d '\0' | awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }'; }

args=(--voltages --freq 400 --bw 2 --nsamples 300000 --period 20 --dm 15 --fold-snr 30 --tone freq=400.3,amp=2)
"$fp" "${args[@]}" --npol 2 --seed 7 --threads 1 -o "$tmp/a.dada"
"$fp" "${args[@]}" --npol 2 --seed 7 --threads 2 > "$tmp/b.dada"
cmp "$tmp/a.dada" "$tmp/b.dada" || fail "thread count changed the stream"
# Header: 4096 bytes, then 300000 samples x 2 pols x (re, im) bytes.
[ "$(stat -c %s "$tmp/a.dada")" = $((4096 + 300000 * 4)) ] || fail "size $(stat -c %s "$tmp/a.dada")"
[ "$(key "$tmp/a.dada" HDR_SIZE)" = 4096 ] || fail HDR_SIZE
[ "$(key "$tmp/a.dada" NBIT)" = 8 ] || fail NBIT
[ "$(key "$tmp/a.dada" NDIM)" = 2 ] || fail NDIM
[ "$(key "$tmp/a.dada" NPOL)" = 2 ] || fail NPOL
[ "$(key "$tmp/a.dada" NCHAN)" = 1 ] || fail NCHAN
[ "$(key "$tmp/a.dada" TSAMP)" = 0.5 ] || fail "TSAMP $(key "$tmp/a.dada" TSAMP)"
[ "$(key "$tmp/a.dada" FREQ)" = 400 ] || fail FREQ
[ "$(key "$tmp/a.dada" BW)" = 2 ] || fail BW
[ "$(key "$tmp/a.dada" ORDER)" = TFP ] || fail ORDER
[ "$(key "$tmp/a.dada" INSTRUMENT)" = fake-pulsar ] || fail INSTRUMENT
[ "$(key "$tmp/a.dada" SOURCE)" = fake_P20.000000ms_DM15.000 ] || fail "SOURCE $(key "$tmp/a.dada" SOURCE)"
[ -n "$(key "$tmp/a.dada" UTC_START)" ] || fail UTC_START

# Formats and --raw.
for f in ci8:2 ci16:4 cf32:8; do
  "$fp" "${args[@]}" --vformat "${f%%:*}" --seed 7 --raw -o "$tmp/r.raw"
  [ "$(stat -c %s "$tmp/r.raw")" = $((300000 * ${f##*:})) ] || fail "raw size of ${f%%:*}"
done
# --tobs gives tobs x bw samples.
"$fp" --voltages --bw 1 --tobs 0.25 --seed 1 --raw -o "$tmp/t.raw"
[ "$(stat -c %s "$tmp/t.raw")" = 500000 ] || fail "tobs size $(stat -c %s "$tmp/t.raw")"

# A reader that stops early: quiet, status 0.
"$fp" --voltages --bw 16 --tobs 10 --seed 3 2> "$tmp/err" | head -c 5000 > /dev/null
[ ! -s "$tmp/err" ] || fail "stderr on a closed pipe: $(cat "$tmp/err")"

# The report gives the coherent S/N.
"$fp" "${args[@]}" --seed 7 --report "$tmp/r.json" -o "$tmp/c.dada"
grep -q '"expected_coherent_fold_snr": 30.0' "$tmp/r.json" || fail "report: $(cat "$tmp/r.json")"

# Options of the other mode, and missing strengths, are usage errors.
expect_usage() {
  local want=$1
  shift
  set +e
  "$fp" "$@" > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  set -e
  [ $rc = 2 ] || fail "exit $rc (want 2) for: $*"
  grep -q -- "$want" "$tmp/err" || fail "message for '$*' lacks '$want': $(cat "$tmp/err")"
}
expect_usage "filterbank option" --voltages --nchans 64
expect_usage "add --voltages" --npol 2
expect_usage "coherent" --voltages --period 5
expect_usage "npol" --voltages --npol 3
expect_usage "outside the band" --voltages --tone freq=10,amp=1
expect_usage "voltage format" --voltages --vformat ci4
expect_usage "power=" --psr period=5,power=0.1
# The strength of the --period pulsar without --period (it injected nothing), and --nsamples 0.
expect_usage "no --period" --voltages --tobs 0.01 --peak-power 1
expect_usage "no --period" --voltages --tobs 0.01 --fold-snr 5
expect_usage "--nsamples must be positive" --voltages --nsamples 0
expect_usage "--tobs must be positive" --voltages --tobs 0
echo PASS
