#!/bin/bash
# SPDX-License-Identifier: MIT
# fake-pulsar accepts SIGPROC fake's command lines unchanged and writes SIGPROC fake's header.
set -euo pipefail
bin=${FASTPSR_BIN:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The command line that made peer-outputs/small/small_psr.fil (one-dash spellings).
small=(-period 4.8372 -dm 62.5 -width 4 -snrpeak 2.0 -nbits 8 -nchans 256 -tsamp 64 -tobs 2.09
       -tstart 60000.0 -fch1 1500.0 -foff -0.5 -seed 42)
"$bin/fake-pulsar" "${small[@]}" > "$tmp/small.fil"
# SIGPROC fake writes whole blocks of 512 samples: 32768 samples of 256 bytes after a 242-byte header.
[ "$(stat -c %s "$tmp/small.fil")" = 8388850 ] || fail "size $(stat -c %s "$tmp/small.fil"), SIGPROC wrote 8388850"

# The same with GNU spellings, and through -o: the same bytes.
"$bin/fake-pulsar" --period 4.8372 --dm 62.5 --width 4 --snrpeak 2.0 --nbits 8 --nchans 256 --tsamp 64 \
    --tobs 2.09 --tstart 60000.0 --fch1 1500.0 --foff -0.5 --seed 42 -o "$tmp/gnu.fil"
cmp "$tmp/small.fil" "$tmp/gnu.fil" || fail "GNU spellings and -o give other bytes"

# The binary command line of peer-outputs/bin, header only (head ends the stream early).
"$bin/fake-pulsar" -period 3.9283 -dm 88.8 -width 4 -snrpeak 0.15 -nbits 8 -nchans 256 -tsamp 64 -tobs 134.2 \
    -tstart 60000.0 -fch1 1500.0 -foff -0.5 -seed 54321 -binary -bper 1.0 -becc 0.0 -binc 90.0 -bomega 0.0 \
    -bphase 0.25 -bpmass 1.4 -bcmass 1.4 2> "$tmp/err" | head -c 242 > "$tmp/bin.hdr"
[ ! -s "$tmp/err" ] || fail "stderr after the reader went away: $(cat "$tmp/err")"
grep -q "P: 3.928300000000 ms, DM: 88.800" "$tmp/bin.hdr" || fail "source_name of the binary"

shared=${FASTPSR_SHARED:-}/data/peer-outputs/small/small_psr.fil
if [ -f "$shared" ]; then
  cmp -n 242 "$tmp/small.fil" "$shared" || fail "header differs from SIGPROC fake's small_psr.fil"
  cmp -n 242 "$tmp/bin.hdr" <(head -c 242 "$shared") >/dev/null 2>&1 && fail "binary header should differ"
  echo "header identical to SIGPROC fake's (small_psr.fil)"
else
  echo "note: $shared absent: the byte comparison with SIGPROC fake's file is skipped"
fi
# SIGPROC's default sample time is the constant 80.0e-6, one bit above 1e-6 * 80 (what a given
# -tsamp 80 makes, in SIGPROC and here): its bytes in the header (QA pass 18).
tsamp_bytes() {
  local off
  off=$(grep -abo tsamp "$1" | head -1 | cut -d: -f1)
  od -An -tx1 -j $((off + 5)) -N8 "$1" | tr -d ' '
}
"$bin/fake-pulsar" -period 5 -dm 10 -tobs 1 -seed 1 > "$tmp/default.fil"
"$bin/fake-pulsar" -period 5 -dm 10 -tobs 1 -seed 1 -tsamp 80 > "$tmp/given.fil"
[ "$(tsamp_bytes "$tmp/default.fil")" = f168e388b5f8143f ] ||
  fail "default tsamp is $(tsamp_bytes "$tmp/default.fil"), SIGPROC's 80.0e-6 is f168e388b5f8143f"
[ "$(tsamp_bytes "$tmp/given.fil")" = f068e388b5f8143f ] ||
  fail "-tsamp 80 is $(tsamp_bytes "$tmp/given.fil"), SIGPROC's 80 * 1e-6 is f068e388b5f8143f"
# SIGPROC fake writes blocks of 512 samples while its clock (tsamp added a sample in double) is
# below tobs: at -tsamp 64 -tobs 0.098304 (3 blocks exactly) the sum falls short and a 4th block
# is written; at -tobs 0.032768 (1 block) it does not. Sizes as SIGPROC fake wrote them.
for case in "0.098304 16625" "0.6553599999999999 86257" "0.032768 4337"; do
  set -- $case
  size=$("$bin/fake-pulsar" -period 5 -dm 1 -nbits 8 -nchans 8 -tsamp 64 -tobs "$1" -seed 1 | wc -c)
  [ "$size" = "$2" ] || fail "-tobs $1: $size bytes, SIGPROC fake wrote $2"
done
echo PASS
