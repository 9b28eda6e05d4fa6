#!/bin/sh
# SPDX-License-Identifier: MIT
# dedisp against PRESTO's prepsubband on the same file, DMs and cores (the comparison:
# a 2^21-sample, 256-channel, 8-bit filterbank, 32 DMs 58.0 ... 67.3). PRESTO is not part of
# fastpsr: build it yourself and give its prepsubband.
# usage: bench/dedisp/compare_prepsubband.sh BUILD_DIR PREPSUBBAND [FILE.fil] [REPS]
set -eu
build=$1
presto=$2
fil=${3:-}
reps=${4:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/fastpsr-vs-presto-XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -z "$fil" ]; then
  fil=$work/iso_rand.fil
  "$build/bench/dedisp" --setup presto-iso --write "$fil"
fi
flags="-nobary -lodm 58.0 -dmstep 0.3 -numdms 32 -nsub 32"
run() {  # label, command...
  label=$1
  shift
  /usr/bin/time -f "$label: wall %e s, cpu %U+%S s" "$@" > /dev/null 2> "$work/err" || { cat "$work/err"; exit 1; }
  tail -1 "$work/err"
}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ "$i" -lt "$reps" ]; do
  run "prepsubband (1 cpu)      " "$presto" $flags -o "$work/p" "$fil"
  run "prepsubband -ncpus 2     " "$presto" -ncpus 2 $flags -o "$work/p" "$fil"
  run "dedisp --threads 1       " "$build/bin/dedisp" $flags --threads 1 -o "$work/d" "$fil"
  run "dedisp --threads 2       " "$build/bin/dedisp" $flags --threads 2 -o "$work/d" "$fil"
  i=$((i + 1))
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
