#!/bin/bash
# SPDX-License-Identifier: MIT
# Several files of one observation (a recorder's split output) are read as one: a filterbank cut
# into three consecutive files (each with its own header and tstart) gives the whole file's .dat
# and .inf values to the bit, through dedisp and through the prepsubband/prepdata shims, with
# --start reaching into the second file; a gap, an overlap or another band is refused, naming
# the file, and nothing is written. PSRFITS sequences: tests/unit/formats/test_file_sequence.cpp.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp

"$bin/fake-pulsar" -q --nchans 64 --fch1 1500 --foff -1 --tsamp 256 --nsamples 65536 --nbits 8 \
  --period 4.8372 --dm 62.5 --fold-snr 30 --seed 3 -o whole.fil
# split.py FILE COUNTS [SHIFT]: parts of COUNTS samples (the last takes the rest), each header's
# tstart moved to its first sample (the last part SHIFT samples more).
cat > split.py <<'PY'
import struct, sys
src, counts = sys.argv[1], [int(x) for x in sys.argv[2].split(",")]
shift = int(sys.argv[3]) if len(sys.argv) > 3 else 0
b = open(src, "rb").read()
end = b.index(b"HEADER_END") + 10
head, data = bytearray(b[:end]), b[end:]
def value(key, fmt):
    i = head.index(key) + len(key)
    return i, struct.unpack(fmt, head[i:i + struct.calcsize(fmt)])[0]
at, tstart = value(b"tstart", "<d")
_, tsamp = value(b"tsamp", "<d")
_, nchans = value(b"nchans", "<i")
counts.append(len(data) // nchans - sum(counts))
first = 0
for n, count in enumerate(counts):
    h = bytearray(head)
    moved = first + (shift if n == len(counts) - 1 else 0)
    h[at:at + 8] = struct.pack("<d", tstart + moved * tsamp / 86400.0)
    open(f"part{n}.fil", "wb").write(bytes(h) + data[first * nchans:(first + count) * nchans])
    first += count
PY
python3 split.py whole.fil 20000,30000
"$bin/dedisp" -q whole.fil --dm 60:64:2 -o w
expect_exit 0 "part0.fil and 2 more files: one observation" "$bin/dedisp" -v part0.fil part1.fil part2.fil --dm 60:64:2 -o p
for dm in 60.00 62.00 64.00; do
  check "DM $dm: the parts give the whole file's series" cmp -s "w_DM$dm.dat" "p_DM$dm.dat"
  check "DM $dm: and its .inf" bash -c "diff <(grep -v 'Data file name' w_DM$dm.inf) <(grep -v 'Data file name' p_DM$dm.inf)"
done
# --start 25000 begins inside part1; a tim with one DM, on the GPU where there is one.
"$bin/dedisp" -q whole.fil -d 62.5 --start 25000 -o ws.tim
"$bin/dedisp" -q part0.fil part1.fil part2.fil -d 62.5 --start 25000 -o ps.tim
check "--start into the second file" cmp -s ws.tim ps.tim

if command -v make >/dev/null; then
  make -s -C "$FASTPSR_SOURCE" -f Makefile.presto-compat install BINDIR="$bin" COMPATDIR="$tmp/compat" >/dev/null
  "$tmp/compat/prepsubband" -lodm 60 -dmstep 2 -numdms 2 -nobary -noclip -o ss part0.fil part1.fil part2.fil 2>/dev/null
  "$tmp/compat/prepsubband" -lodm 60 -dmstep 2 -numdms 2 -nobary -noclip -o sw whole.fil 2>/dev/null
  check "prepsubband on the parts = on the whole file" cmp -s ss_DM62.00.dat sw_DM62.00.dat
  "$tmp/compat/prepdata" -dm 62 -nobary -noclip -o ds part0.fil part1.fil part2.fil 2>/dev/null
  "$tmp/compat/prepdata" -dm 62 -nobary -noclip -o dw whole.fil 2>/dev/null
  check "prepdata on the parts = on the whole file" cmp -s ds.dat dw.dat
fi

mkdir out
python3 split.py whole.fil 20000,30000 7
expect_exit 1 "part2.fil: starts at sample 50007 of the observation" "$bin/dedisp" part0.fil part1.fil part2.fil -d 62 -o out/g
expect_exit 1 "part1.fil ends at sample 50000: a gap of 7 samples" "$bin/dedisp" part0.fil part1.fil part2.fil -d 62 -o out/g
python3 split.py whole.fil 20000,30000 -4
expect_exit 1 "an overlap of 4 samples" "$bin/dedisp" part0.fil part1.fil part2.fil -d 62 -o out/g
expect_exit 1 "part0.fil: starts at sample 0 of the observation" "$bin/dedisp" part0.fil part0.fil -d 62 -o out/g
"$bin/fake-pulsar" -q --nchans 32 --nsamples 1000 -o other.fil
expect_exit 1 "other.fil: not the same data as part0.fil: 32 channels, not 64" "$bin/dedisp" part0.fil other.fil -d 62 -o out/g
expect_exit 2 "stdin cannot be one of several input files" "$bin/dedisp" part0.fil - -d 62 -o out/g
check "nothing written by the refused runs: $(ls -A out)" test -z "$(ls -A out)"
exit $fail
