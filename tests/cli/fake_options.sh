#!/bin/bash
# SPDX-License-Identifier: MIT
# fake-pulsar as users run it: output to stdout or files, sizes per nbits, determinism,
# pipes that close early, reports, and usage errors (exit 2 with a clear message).
set -euo pipefail
bin=${FASTPSR_BIN:?}
fp=$bin/fake-pulsar
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Usage errors: exit 2 and a message that names the problem.
expect_usage() {
  local want=$1
  shift
  set +e
  "$fp" "$@" > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  set -e
  [ $rc = 2 ] || fail "exit $rc (want 2) for: $*"
  grep -q -- "$want" "$tmp/err" || fail "message for '$*' lacks '$want': $(cat "$tmp/err")"
  [ ! -s "$tmp/out" ] || fail "data written despite the error: $*"
}
expect_usage "nbits" --nbits 3 --seed 1
expect_usage "no --period" --dm 10 --seed 1
expect_usage "swapout" -swapout -period 5
expect_usage "unknown key 'colour'" --psr period=5,colour=blue
expect_usage "time=" --frb dm=100,snr=10
expect_usage "whole number of bytes" --nchans 3 --nbits 1
expect_usage "shorter than two samples" --period 0.1 --tsamp 64
expect_usage "not a number" --psr period=5,dm=ten
expect_usage "--bogus" --bogus
expect_usage "smearing" --smear blurry
expect_usage "outside the observation" --frb time=100,dm=10,snr=10 --nsamples 1000 --seed 1
expect_usage "strength once" --period 10 --snrpeak 3 --fold-snr 10 --nsamples 1000 --seed 1
expect_usage "snr=<folded S/N>, once" --psr period=5,snr=5,snrpeak=3 --nsamples 1000 --seed 1
expect_usage "inclination" --period 10 --binary --binc 200 --nsamples 1000 --seed 1
# --nsamples 0 is refused as --tobs 0 is (it wrote a header-only file).
expect_usage "--nsamples must be positive" --nsamples 0 --seed 1
expect_usage "--tobs must be positive" --tobs 0 --seed 1
# A mean that puts the noise outside the output levels is warned of (the file is still written).
"$fp" --seed 1 --nsamples 1000 --nbits 8 --mean -300 -o "$tmp/clip.fil" 2>"$tmp/err" || fail "--mean -300 refused"
grep -q "more than half of the noise clips at 0" "$tmp/err" || fail "no warning for --mean -300: $(cat "$tmp/err")"
"$fp" --seed 1 --nsamples 1000 --nbits 8 -o "$tmp/noclip.fil" 2>"$tmp/err"
[ ! -s "$tmp/err" ] || fail "a warning with the default levels: $(cat "$tmp/err")"
# A signal is warned of only when it can clip: without noise, when it alone passes the top level
# (8 bits hold 4 rms above the mean; snrpeak 5 in 16 channels is 1.25 rms, snrpeak 40 is 10 rms);
# with noise, when it does with 3 rms of noise on top.
clip=(--nchans 16 --nsamples 4096 --nbits 8 --period 100 --seed 1)
"$fp" "${clip[@]}" --no-noise --snrpeak 5 -o "$tmp/nn.fil" 2>"$tmp/err" || fail "--no-noise refused"
[ ! -s "$tmp/err" ] || fail "a clipping warning for --no-noise and a weak signal: $(cat "$tmp/err")"
"$fp" "${clip[@]}" --no-noise --snrpeak 40 -o "$tmp/nn.fil" 2>"$tmp/err" || fail "--no-noise refused"
grep -q "10 noise rms .* holds 4 rms above the mean: its peaks will clip" "$tmp/err" ||
  fail "no clipping warning for a 10-rms signal without noise: $(cat "$tmp/err")"
"$fp" "${clip[@]}" --snrpeak 5 -o "$tmp/nn.fil" 2>"$tmp/err" || fail "--snrpeak 5 refused"
grep -q "1.25 noise rms .* plus 3 rms of noise may exceed the 4 rms above the mean" "$tmp/err" ||
  fail "no clipping warning for a 1.25-rms signal with noise: $(cat "$tmp/err")"
# One dash works for every long option, SIGPROC's and ours alike.
"$fp" -period 10 -nsamples 1000 -fold-snr 5 -seed 3 -o "$tmp/one.fil" -q
"$fp" --period 10 --nsamples 1000 --fold-snr 5 --seed 3 -o "$tmp/two.fil" -q
cmp -s "$tmp/one.fil" "$tmp/two.fil" || fail "-nsamples/-fold-snr with one dash differ from two"

# Help: examples, exit 0; no arguments prints help like SIGPROC fake.
"$fp" --help > "$tmp/help"
grep -q "Examples:" "$tmp/help" || fail "--help has no examples"
grep -q -- "-period 4.8372" "$tmp/help" || fail "--help lacks the SIGPROC example"
"$fp" > "$tmp/help2"
cmp -s "$tmp/help" "$tmp/help2" || fail "no arguments should print the help"

# A reader that stops early: quiet, status 0.
"$fp" --nchans 64 --nbits 8 --tobs 20 --seed 3 2> "$tmp/err" | head -c 100 > "$tmp/head"
[ "$(stat -c %s "$tmp/head")" = 100 ] || fail "head got $(stat -c %s "$tmp/head") bytes"
[ ! -s "$tmp/err" ] || fail "stderr on a closed pipe: $(cat "$tmp/err")"

# Sizes per nbits, --nsamples, --headerless.
for nbits in 1 2 4 8 16 32; do
  "$fp" --nchans 64 --nbits $nbits --nsamples 1000 --seed 1 --headerless -o "$tmp/h$nbits.raw"
  [ "$(stat -c %s "$tmp/h$nbits.raw")" = $((1000 * 64 * nbits / 8)) ] || fail "size at nbits $nbits"
done
# tobs rounds up to blocks of 512 samples as SIGPROC fake does: 10 s of 80 us = 125000 -> 125440.
"$fp" --nchans 8 --nbits 8 --seed 1 --headerless -o "$tmp/t.raw"
[ "$(stat -c %s "$tmp/t.raw")" = $((125440 * 8)) ] || fail "default length $(stat -c %s "$tmp/t.raw")"

# The same seed gives the same bytes whatever the thread count; another seed does not.
args=(--nchans 96 --nbits 4 --tobs 3 --period 7.7 --dm 30 --psr period=3.3,dm=60,accn=20,snr=12
      --frb time=1,dm=200,snr=15 --rfi-narrowband freq=430,amp=3 --rfi-impulses rate=1,amp=2)
"$fp" "${args[@]}" --seed 9 --threads 1 -o "$tmp/a.fil"
"$fp" "${args[@]}" --seed 9 --threads 2 > "$tmp/b.fil"
cmp "$tmp/a.fil" "$tmp/b.fil" || fail "thread count changed the output"
"$fp" "${args[@]}" --seed 10 -o "$tmp/c.fil"
cmp -s "$tmp/a.fil" "$tmp/c.fil" && fail "another seed gave the same bytes"

# -v and --report say what was injected and the S/N to expect.
"$fp" "${args[@]}" --seed 9 -v --report "$tmp/r.json" -o "$tmp/d.fil" 2> "$tmp/log"
grep -q "expected fold S/N" "$tmp/log" || fail "-v lacks the expected S/N"
grep -q "seed 9" "$tmp/log" || fail "-v lacks the seed"
python3 - "$tmp/r.json" <<'PY' || fail "report content"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["seed"] == 9 and r["nchans"] == 96 and r["nbits"] == 4
p = r["pulsars"]
assert len(p) == 2 and abs(p[1]["expected_fold_snr"] - 12 * r["quantisation_efficiency"]) < 1e-6
assert p[1]["z"] < 0          # accn > 0 (away from us): the frequency falls
assert abs(r["pulses"][0]["expected_snr"] - 15 * r["quantisation_efficiency"]) < 1e-6
PY

# The report's fluence is in the unit of --frb fluence= (noise rms x ms): fed back, it gives the
# same pulse, the S/N of the snr= it came from.
frb=(--nchans 64 --fch1 1500 --foff -1 --tsamp 64 --nsamples 20000 --nbits 32 --seed 1 -q)
"$fp" "${frb[@]}" --frb time=0.5,dm=100,width=1.5,snr=30 --report "$tmp/f1.json" -o "$tmp/f1.fil"
fluence=$(python3 -c 'import json, sys; print(repr(json.load(open(sys.argv[1]))["pulses"][0]["fluence_rms_ms"]))' \
  "$tmp/f1.json") || fail "no fluence_rms_ms in the report: $(cat "$tmp/f1.json")"
"$fp" "${frb[@]}" --frb "time=0.5,dm=100,width=1.5,fluence=$fluence" --report "$tmp/f2.json" -o "$tmp/f2.fil"
python3 - "$tmp/f2.json" <<'PY' || fail "fluence=$fluence from the report does not give S/N 30: $(cat "$tmp/f2.json")"
import json, sys
assert abs(json.load(open(sys.argv[1]))["pulses"][0]["expected_snr"] - 30) < 1e-6
PY

# A FIFO given to -o is written in place, not replaced by a regular file.
mkfifo "$tmp/fifo"
cat "$tmp/fifo" > "$tmp/from_fifo" &
reader=$!
"$fp" --nchans 16 --nbits 8 --nsamples 600 --seed 5 -o "$tmp/fifo"
wait $reader
[ -p "$tmp/fifo" ] || fail "the FIFO was replaced"
"$fp" --nchans 16 --nbits 8 --nsamples 600 --seed 5 -o "$tmp/direct.fil"
cmp "$tmp/from_fifo" "$tmp/direct.fil" || fail "FIFO output differs"
echo PASS
