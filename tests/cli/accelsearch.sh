#!/bin/bash
# SPDX-License-Identifier: MIT
# accelsearch as a user runs it: PRESTO-named outputs, a stream from stdin with sifting, and
# clear errors (exit 1 or 2, the file named) for bad input.
set -u
BIN=${FASTPSR_BIN:?}
SHARED=${FASTPSR_SHARED:-}
SMALL="$SHARED/data/peer-outputs/small"
[ -d "$SMALL" ] || { echo "no shared data: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail=0
check() { if ! eval "$1"; then echo "FAILED: $2"; fail=1; fi; }
expect_error() {  # code, pattern, command...
  local code=$1 pattern=$2
  shift 2
  "$@" >out.txt 2>err.txt
  local got=$?
  check "[ $got -eq $code ]" "exit $got (wanted $code) from: $*"
  check "grep -q -- \"$pattern\" err.txt" "message '$pattern' from: $* (got: $(cat err.txt))"
}

cp "$SMALL"/small_DM62.50_red.fft "$SMALL"/small_DM62.50_red.inf "$SMALL"/small_DM62.50.dat "$SMALL"/small_DM62.50.inf .
cp "$SMALL"/small_DM62.5.tim .

# PRESTO's command line and output names; the candidates are PRESTO's.
"$BIN"/accelsearch -zmax 0 -numharm 8 --no-deredden small_DM62.50_red.fft
check "[ -s small_DM62.50_red_ACCEL_0 ] && [ -s small_DM62.50_red_ACCEL_0.cand ] && [ -s small_DM62.50_red_ACCEL_0.txtcand ]" "outputs"
check "diff <(head -3 small_DM62.50_red_ACCEL_0) <(head -3 $SMALL/small_DM62.50_red_ACCEL_0)" "ACCEL header"
check "diff <(awk '/^[0-9]/{print \$1,\$2,\$3,\$5,\$8,\$10}' small_DM62.50_red_ACCEL_0) <(awk '/^[0-9]/{print \$1,\$2,\$3,\$5,\$8,\$10}' $SMALL/small_DM62.50_red_ACCEL_0)" "same candidates as PRESTO"
ncand=$(grep -c '^[0-9]' small_DM62.50_red_ACCEL_0)
check "[ $(stat -c %s small_DM62.50_red_ACCEL_0.cand) -eq $((ncand * 88)) ]" ".cand size"
# GNU long forms and a .dat input: no .txtcand (as PRESTO).
"$BIN"/accelsearch --zmax 10 --numharm 4 -q small_DM62.50.dat
check "[ -s small_DM62.50_ACCEL_10 ] && [ ! -e small_DM62.50_ACCEL_10.txtcand ]" ".dat outputs"

# A tim-stream on stdin: per-trial files and the sifted table.
"$BIN"/accelsearch -zmax 0 -q - -o stream <small_DM62.5.tim
check "[ -s stream_DM62.50_ACCEL_0 ] && [ -s stream_DM62.50.inf ] && [ -s stream.csv ] && [ -s stream.txt ]" "stream outputs"
check "head -1 stream.csv | grep -q '^file,candnum,dm,'" "csv header"

# --help carries examples.
"$BIN"/accelsearch --help >help.txt
check "grep -q 'Examples' help.txt" "--help examples"

# Bad input.
expect_error 2 "numharm" "$BIN"/accelsearch -numharm 3 small_DM62.50.dat
expect_error 2 "zmax" "$BIN"/accelsearch -zmax -2 small_DM62.50.dat
expect_error 2 "more than this series allows" "$BIN"/accelsearch -zmax 40000 small_DM62.50.dat
cp small_DM62.50.dat noinf.dat
expect_error 1 "noinf" "$BIN"/accelsearch noinf.dat
head -c 1000 small_DM62.50.dat >short.dat
sed 's/small_DM62.50/short/' small_DM62.50.inf >short.inf
expect_error 1 "short.dat" "$BIN"/accelsearch short.dat
: >empty.dat
sed 's/small_DM62.50/empty/' small_DM62.50.inf >empty.inf
expect_error 1 "empty.dat" "$BIN"/accelsearch empty.dat
python3 - <<'PY'
import struct
data = bytearray(open("small_DM62.50.dat", "rb").read())
data[400:404] = struct.pack("<f", float("nan"))
open("nan.dat", "wb").write(data)
PY
sed 's/small_DM62.50/nan/' small_DM62.50.inf >nan.inf
expect_error 1 "nan.dat.*sample 100" "$BIN"/accelsearch nan.dat
head -c 1000 small_DM62.50_red.fft >cut.fft
cp small_DM62.50_red.inf cut.inf
expect_error 1 "cut.fft" "$BIN"/accelsearch cut.fft
check "[ ! -e nan_ACCEL_200 ] && ! ls .*tmp* >/dev/null 2>&1" "no output after an error"

[ $fail -eq 0 ] && echo "accelsearch CLI: all checks passed"
exit $fail
