#!/bin/sh
# SPDX-License-Identifier: MIT
# dedisp against PRESTO's prepsubband on the same file, DMs and cores (the issue's comparison:
# a 2^21-sample, 256-channel, 8-bit filterbank, 32 DMs 58.0 ... 67.3, -nsub 32). PRESTO is not
# part of fastpsr: build it yourself and give its prepsubband.
# usage: bench/dedisp/compare_prepsubband.sh BUILD_DIR PREPSUBBAND [FILE.fil] [REPS]
#
# The runs alternate (prepsubband 1 cpu, prepsubband -ncpus 2, dedisp 1 thread, dedisp 2
# threads) so that both tools see the same load. Every run writes its 32 .dat/.inf files into
# a new empty directory, after a `sync`: otherwise a run overwriting the files of the previous
# one, or writing while that one's 256 MiB are still being flushed, pays for it (ext4 writes
# back replaced files at once). The file is read once first, so every run reads it from the
# page cache. Wall time includes reading the file and writing the .dat files.
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
cat "$fil" > /dev/null
flags="-nobary -lodm 58.0 -dmstep 0.3 -numdms 32 -nsub 32"
run() {  # key, label, command...
  key=$1
  label=$2
  shift 2
  rm -rf "$work/out"
  mkdir "$work/out"
  sync
  load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" > /dev/null 2> "$work/err" || { cat "$work/err"; exit 1; }
  read -r wall user sys < "$work/time"
  echo "$wall" >> "$work/$key"
  printf '%s: wall %5.2f s, cpu %5.2f+%4.2f s, load before %s\n' "$label" "$wall" "$user" "$sys" "$load"
}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ "$i" -lt "$reps" ]; do
  run p1 "prepsubband (1 cpu)   " "$presto" $flags -o "$work/out/p" "$fil"
  run p2 "prepsubband -ncpus 2  " "$presto" -ncpus 2 $flags -o "$work/out/p" "$fil"
  run d1 "dedisp --threads 1    " "$build/bin/dedisp" $flags --threads 1 -o "$work/out/d" "$fil"
  run d2 "dedisp --threads 2    " "$build/bin/dedisp" $flags --threads 2 -o "$work/out/d" "$fil"
  i=$((i + 1))
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
stats() {  # key -> "best median worst"
  sort -n "$work/$1" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print v[1], m, v[NR] }'
}
for key in p1 p2 d1 d2; do
  set -- $(stats "$key")
  eval "${key}_best=$1 ${key}_median=$2"
  printf '%s: best %5.2f s, median %5.2f s, worst %5.2f s over %s runs\n' "$key" "$1" "$2" "$3" "$reps"
done
# prepsubband's better configuration against dedisp's, each at its best and at its median.
ratio() { awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" 'BEGIN { x = a < b ? a : b; y = c < d ? c : d; printf "%.1f", x / y }'; }
echo "speed-up (best prepsubband / best dedisp): best runs $(ratio "$p1_best" "$p2_best" "$d1_best" "$d2_best")x," \
  "medians $(ratio "$p1_median" "$p2_median" "$d1_median" "$d2_median")x;" \
  "one CPU each: best $(ratio "$p1_best" "$p1_best" "$d1_best" "$d1_best")x, medians $(ratio "$p1_median" "$p1_median" "$d1_median" "$d1_median")x"
