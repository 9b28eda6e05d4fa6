#!/bin/sh
# SPDX-License-Identifier: MIT
# The whole accelsearch tool on many DM trials, as a user runs it after dedisp: a fake pulsar
# filterbank of 2^LOG2N samples (16 channels, 8 bits, 64 us), `dedisp --dm 0:STEP*(TRIALS-1):STEP`
# (PRESTO .dat/.inf, each DM's valid samples: the lengths differ), then
# `accelsearch -zmax Z -numharm H --device DEVICE x_DM*.dat -o cands`, timed (wall, user, system)
# twice: --serial (one trial at a time, a new searcher per length: the behaviour before
# 2026-11-26) and the default (prepare / search / optimise-and-write overlapped, one searcher for
# every shorter trial). Prints seconds per trial for both, the -v stage breakdown, and whether
# the outputs are byte-identical.
# usage: bench/accel/e2e_trials.sh BUILD_DIR [DEVICE] [TRIALS] [ZMAX] [NUMHARM] [LOG2N] [EXTRA_OPTIONS]
set -eu
build=$(cd "$1" && pwd)
device=${2:-auto}
trials=${3:-8}
zmax=${4:-200}
numharm=${5:-16}
log2n=${6:-23}
extra=${7:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/fastpsr-accel-e2e-XXXXXX")
trap 'rm -rf "$work"' EXIT
n=$((1 << log2n))
"$build/bin/fake-pulsar" -q --nchans 16 --nbits 8 --tsamp 64 --nsamples "$n" --fch1 1400 --foff -10 \
  --period 5.3 --dm 20 --snrpeak 0.3 >"$work/in.fil"
"$build/bin/dedisp" -q "$work/in.fil" --dm "0:$((10 * (trials - 1))):10" -o "$work/x"
now() { date +%s.%N; }
for mode in serial overlap; do
  mkdir -p "$work/$mode"
  ln -s "$work"/x_DM*.dat "$work"/x_DM*.inf "$work/$mode/"
  flag=$([ $mode = serial ] && echo --serial || true)
  t0=$(now)
  (cd "$work/$mode" && /usr/bin/time -f "%U %S" -o time.txt "$build/bin/accelsearch" -v $flag $extra \
    -zmax "$zmax" -numharm "$numharm" --device "$device" x_DM*.dat -o cands 2>log.txt)
  t1=$(now)
  read -r user sys <"$work/$mode/time.txt"
  echo "$mode $t0 $t1 $user $sys" | awk -v k="$trials" '{w = $3 - $2;
    printf "%-8s %2d trials: %7.3f s wall (%6.3f s a trial), user %7.2f s, system %6.2f s\n", $1, k, w, w / k, $4, $5}'
  grep -E "prepare .* s, search|searchers made|searcher:" "$work/$mode/log.txt" | sed 's/^/    /' | cut -c1-200
done
same=yes
for f in "$work"/serial/*ACCEL* "$work"/serial/cands.csv; do
  cmp -s "$f" "$work/overlap/$(basename "$f")" || same=no
done
echo "outputs byte-identical (serial vs overlap): $same"
