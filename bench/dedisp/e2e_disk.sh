#!/bin/sh
# SPDX-License-Identifier: MIT
# The whole dedisp tool with its files written, beside the disk's own write speed (issue: within
# 80% of it). Writes the apertif setup's random 8-bit filterbank (bench/dedisp --write), runs
# `dedisp FILE --dm 0:511.75:0.25 -o DIR/x` (2048 PRESTO .dat/.inf pairs) followed by sync, then
# writes the same number of bytes with dd (conv=fsync) into the same folder, and prints both rates.
# "The tool" here is everything a user waits for: process start, CUDA context, reading, the
# dedispersion, the files written and renamed, process exit, and the sync that puts the bytes on
# the disk (dd's fsync does the same for dd). dedisp's own -v breakdown is printed beside.
# usage: bench/dedisp/e2e_disk.sh BUILD_DIR [DEVICE] [SECONDS] [WORK_DIR]
set -eu
build=$1
device=${2:-auto}
seconds=${3:-8}
work=${4:-$(mktemp -d "${TMPDIR:-/tmp}/fastpsr-e2e-XXXXXX")}
mkdir -p "$work/out"
trap 'rm -rf "$work"' EXIT
"$build/bench/dedisp" --setup apertif --seconds "$seconds" --write "$work/in.fil"
sync
now() { date +%s.%N; }
t0=$(now)
"$build/bin/dedisp" -v "$work/in.fil" --dm 0:511.75:0.25 --device "$device" -o "$work/out/x" 2> "$work/log"
ts=$(now)
sync
t1=$(now)
bytes=$(cat "$work"/out/x_DM*.dat | wc -c)
in_bytes=$(wc -c < "$work/in.fil")
rm -rf "$work/out"
mkdir -p "$work/out"
sync
t2=$(now)
dd if=/dev/zero of="$work/out/dd" bs=4M count=$(( (bytes + 4194303) / 4194304 )) conv=fsync status=none
t3=$(now)
awk -v a="$t0" -v s="$ts" -v b="$t1" -v c="$t2" -v d="$t3" -v n="$bytes" -v i="$in_bytes" -v dev="$device" 'BEGIN {
  tool = b - a; disk = d - c
  printf "dedisp --device %s, apertif 2048 DMs: %.0f MB in, %.0f MB of .dat written\n", dev, i / 1e6, n / 1e6
  printf "  dedisp + sync   %7.2f s  %7.0f MB/s written (dedisp %.2f s, then sync %.2f s)\n", tool, n / tool / 1e6,
         s - a, b - s
  printf "  dd conv=fsync   %7.2f s  %7.0f MB/s (the disk)\n", disk, n / disk / 1e6
  printf "  dedisp at %.0f%% of the disk write speed (target >= 80%%)\n", 100 * disk / tool
}'
grep -E "set-up:|time:" "$work/log" | sed 's/^/  /'
