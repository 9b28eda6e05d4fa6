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
# The same file with its last row's OFFS_SUB moved 2 rows on: 2 rows missing before it (a
# recorder's dropped rows), counted in the samples and said.
python3 - "$data/real/parkes_crab_4bit.sf" "$WORK/dropped.sf" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.rindex(b"XTENSION", 0, b.index(b"EXTNAME = 'SUBINT"))
cards = {}
while True:
    block = b[i:i + 2880].decode("ascii")
    i += 2880
    for k in range(0, 2880, 80):
        card = block[k:k + 80]
        if "=" in card[:10]:
            cards[card[:8].strip()] = card[10:].split("/")[0].strip().strip("'").strip()
    if any(block[k:k + 8] == "END     " for k in range(0, 2880, 80)):
        break
size = {"D": 8, "E": 4, "J": 4, "I": 2, "B": 1, "A": 1, "K": 8}
offset, col = 0, 1
while cards.get("TTYPE%d" % col) != "OFFS_SUB":
    form = cards["TFORM%d" % col]
    offset += int(form[:-1] or 1) * size[form[-1]]
    col += 1
row, rows = int(cards["NAXIS1"]), int(cards["NAXIS2"])
at = i + (rows - 1) * row + offset
tsubint = float(cards.get("NSBLK")) * float(cards["TBIN"])
v = struct.unpack(">d", b[at:at + 8])[0]
b[at:at + 8] = struct.pack(">d", v + 2 * tsubint)
open(sys.argv[2], "wb").write(b)
PY
[ "$("$HEADER" "$WORK/dropped.sf" -nsamples)" = "$((4096 + 2 * $("$HEADER" --json "$data/real/parkes_crab_4bit.sf" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["details"]["nsblk"])')))" ] || fail "PSRFITS rows missing: nsamples"
"$HEADER" "$WORK/dropped.sf" | grep -q "^Rows missing (by OFFS_SUB) *: [0-9]* samples (2 rows), read as zeros" ||
  fail "PSRFITS rows missing: $("$HEADER" "$WORK/dropped.sf" | grep -i missing)"
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
