#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# header on every format it reads (shared data), and the ones it does not.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
data="${FASTPSR_SHARED:-}/data"
[ -d "$data" ] || skip "shared data not found at $data"
[ "$("$HEADER" "$data/real/parkes_crab_4bit.sf" -nchans -nsamples -tsamp -fch1 -foff -nbits)" = "416
4096
512.00000
4028.000
-8.000000
4" ] || fail "PSRFITS values"
"$HEADER" "$data/real/parkes_crab_4bit.sf" | grep -q "^Polarisations *: 4, AABBCRCI (AA+BB summed)" || fail "PSRFITS lines"
for f in small_DM62.50.dat small_DM62.50.inf small_DM62.50.fft; do
  "$HEADER" "$data/peer-outputs/small/$f" -nsamples -refdm -tsamp | tr '\n' ' ' | grep -qx "32768 62.500000 64.00000 " ||
    fail "$f"
done
cp "$data/peer-outputs/small/small_DM62.50.dat" "$WORK/orphan.dat"
EXPECT="missing .inf: expected '$WORK/orphan.inf'" expect_header_error "$WORK/orphan.dat" "$WORK/orphan.dat"
# GUPPI RAW (QA pass 21: refused before): the numbers ppf reads (4 coarse channels of 3.125 MHz
# centred on OBSFREQ 356.6875, TBIN, STT_IMJD 58132 + STT_SMJD 51093, 4 blocks of 1024 samples less
# the 64 of OVERLAP), the first block's cards under --json.
raw="$data/real/puppi_J1810+1744.raw"
[ "$("$HEADER" "$raw" -nchans -nsamples -tsamp -fch1 -foff -nbits -nifs -tstart 2>/dev/null)" = "4
3840
4000.00000
352.000
3.125000
8
2
58132.591354166667" ] || fail "GUPPI RAW values: $("$HEADER" "$raw" -nchans -nsamples -tsamp -fch1 -foff -nbits -nifs -tstart 2>&1)"
"$HEADER" "$raw" 2>/dev/null | grep -q "^Blocks *: 4 of 6400 + 16384 bytes; 1024 samples each, 960 new (OVERLAP 64)" ||
  fail "GUPPI RAW blocks line"
"$HEADER" --json "$raw" 2>/dev/null | grep -q '"PKTFMT": "1SFA"' || fail "GUPPI RAW cards in --json"
printf 'hello, world' >"$WORK/hello.txt"
EXPECT="unknown format" expect_header_error "$WORK/hello.txt" "$WORK/hello.txt"
echo ok
