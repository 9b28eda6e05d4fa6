#!/bin/bash
# SPDX-License-Identifier: MIT
# accelsearch on malformed input and outputs (QA pass 16): refused with a message naming the file
# and the problem, before the search where it can be.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp accelsearch
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }

"$bin/fake-pulsar" -q --nchans 16 --nbits 8 --nsamples 8192 --period 20 --dm 5 --fold-snr 20 --seed 4 -o f.fil
"$bin/dedisp" -q f.fil -d 5 -o t.tim

# set_tsamp IN OUT VALUE: a copy of the .tim with its tsamp replaced.
set_tsamp() {
  python3 - "$@" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
i = b.index(b"\x05\x00\x00\x00tsamp") + 9
b[i:i + 8] = struct.pack("<d", float(sys.argv[3]))
open(sys.argv[2], "wb").write(b)
PY
}

# P19: a sample time of 1e-300 s gave periods of 1e-295 s, written as "nan(-2147483648".
for ts in 1e-300 1e300; do
  set_tsamp t.tim "ts$ts.tim" "$ts"
  expect_exit 1 "accelsearch: error: ts$ts.tim: the sample time .* s is not one accelsearch can search" \
    "$bin/accelsearch" --device cpu --zmax 4 "ts$ts.tim"
  check "tsamp $ts: no ACCEL file" test -z "$(ls | grep "ts$ts.*ACCEL")"
done

# P15: the sifted table's destination is checked before the search (it failed after it).
cp t.tim u.tim
expect_exit 1 "nodir/c.csv: cannot create output file: directory 'nodir' does not exist" \
  "$bin/accelsearch" --device cpu --zmax 0 t.tim u.tim -o nodir/c
check "no search was made (no ACCEL file)" test -z "$(ls | grep ACCEL)"
mkdir c.csv
expect_exit 1 "c.csv: is a directory" "$bin/accelsearch" --device cpu --zmax 0 t.tim u.tim -o c
check "no search was made (no ACCEL file)" test -z "$(ls | grep ACCEL)"
rmdir c.csv
# A writable -o: the table is written, and no temporary is left.
check "accelsearch -o c runs" "$bin/accelsearch" -q --device cpu --zmax 0 t.tim u.tim -o c
check "c.csv and c.txt written" test -s c.csv -a -s c.txt
check "no temporary left: $(ls -A | grep tmp)" test -z "$(ls -A | grep '\.tmp\.')"

# An empty stream names stdin as the other tools do, "<stdin>" (QA pass 20: it said "stdin").
expect_exit 1 "accelsearch: error: <stdin>: no time series on the input" \
  sh -c "'$bin/accelsearch' -q --device cpu --zmax 0 - </dev/null"

exit $fail
