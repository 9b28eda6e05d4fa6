#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A PSRDADA file: the header block is read, the band and start time derived, the data counted.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
printf 'HDR_VERSION 1.0\nHDR_SIZE 4096\nNCHAN 4\nNBIT 8\nNPOL 2\nNDIM 2\nTSAMP 0.64\nFREQ 1400\nBW -64\nUTC_START 2023-02-25-06:00:00\nOBS_OFFSET 3200\nSOURCE J0437-4715\nTELESCOPE Parkes\nORDER TFP\n' >"$WORK/h.txt"
{ cat "$WORK/h.txt"; head -c $((4096 - $(stat -c %s "$WORK/h.txt"))) /dev/zero; head -c 1600 /dev/zero; } >"$WORK/x.dada"
# 16 bytes per sample (4 chans x 2 pols x complex 8-bit): 100 samples; OBS_OFFSET 3200 bytes is
# 200 samples of 0.64 us after UTC_START.
out=$("$HEADER" "$WORK/x.dada" -nsamples -nchans -nifs -fch1 -foff -tsamp -headersize -format -telescope -tstart)
[[ "$out" == "100
4
2
1424.000
-16.000000
0.64000
4096
PSRDADA
Parkes
60000.25000000148"* ]] || fail "got
$out"
head -c 100 "$WORK/x.dada" >"$WORK/cut.dada"
EXPECT="shorter than its header" expect_header_error "$WORK/cut.dada" "$WORK/cut.dada"
