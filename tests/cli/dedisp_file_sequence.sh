#!/bin/bash
# SPDX-License-Identifier: MIT
# Several files of one observation (a recorder's split output) are read as one: a filterbank cut
# into three consecutive files (each with its own header and tstart) gives the whole file's .dat
# and .inf values to the bit, through dedisp and through the prepsubband/prepdata shims, with
# --start reaching into the second file; a gap between them reads as zeros or the clipping's
# levels, a .dat's gap then takes the series' mean, and the .inf's on/off pairs go around it
# (PRESTO's padding); an overlap or another band is refused, naming the file, and nothing is
# written. PSRFITS sequences: tests/unit/formats/test_file_sequence.cpp.
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

# A gap of 7 samples before the last part (a recorder's dropped data) reads as 7 zero samples,
# as PRESTO pads it: the .tim series of the whole file with those zeros put in. In a .dat, the
# samples of the gap then take the mean of the others (prepsubband and prepdata overwrite their
# padding so), and the .inf's on/off pairs list the data on either side (PRESTO's form).
python3 split.py whole.fil 20000,30000 7
python3 - <<'PY'
b = open("whole.fil", "rb").read()
end = b.index(b"HEADER_END") + 10
at = end + 50000 * 64
open("padded.fil", "wb").write(b[:at] + bytes(7 * 64) + b[at:])
PY
"$bin/dedisp" -q padded.fil --dm 60:64:2 --format tim -o wp
expect_exit 0 "part0.fil: 1 stretch without data (7 samples" "$bin/dedisp" part0.fil part1.fil part2.fil --dm 60:64:2 \
  --format tim -o g
for dm in 60.00 62.00 64.00; do
  check "DM $dm: a gap between parts reads as zero samples" cmp -s "wp_DM$dm.tim" "g_DM$dm.tim"
done
"$bin/dedisp" -q part0.fil part1.fil part2.fil -d 62 -o g62.dat 2>/dev/null
n=$(awk -F= '/Number of bins/ {gsub(/ /, "", $2); print $2}' g62.inf)
check "the .inf lists the data around the gap: $(grep 'On/Off' g62.inf)" \
  bash -c "grep -Eq 'On/Off bin pair # +1 += +0 +, 49999 ' g62.inf &&
           grep -Eq 'On/Off bin pair # +2 += +50007 +, $((n - 1)) ' g62.inf"
"$bin/dedisp" -q padded.fil -d 62 -o wp62.dat
check "the whole file's .inf has no on/off pairs" bash -c "! grep -q 'On/Off' wp62.inf"
# gap_level.py SERIES FIRST COUNT WANT [show]: samples FIRST.. FIRST+COUNT-1 of a .dat or .tim
# are all 0 (WANT zero), the mean of the others to float precision (mean), or within 2% of
# their median (level).
cat > gap_level.py <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
if sys.argv[1].endswith(".tim"):
    b = b[b.index(b"HEADER_END") + 10:]
v = struct.unpack("<%df" % (len(b) // 4), b)
first, count, want = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
gap, rest = v[first:first + count], v[:first] + v[first + count:]
mean = sum(rest) / len(rest)
level = sorted(rest)[len(rest) // 2]
if want == "zero":
    ok = all(x == 0 for x in gap)
elif want == "mean":
    ok = all(abs(x - mean) <= 1e-6 * abs(mean) for x in gap)
else:
    ok = all(abs(x - level) < 0.02 * level for x in gap)
if len(sys.argv) > 5:
    print("gap from", min(gap), "to", max(gap), "mean of the rest", mean, "median", level)
sys.exit(0 if ok else 1)
PY
check "the .dat's gap takes the mean of the rest: $(python3 gap_level.py g62.dat 50000 7 mean show)" \
  python3 gap_level.py g62.dat 50000 7 mean
# Clipping (PRESTO's default in prepsubband) pads with the channels' running levels instead, as
# PRESTO's padding values, also where a gap holds whole clipping blocks (3000 samples here: the
# clipping alone would replace the zeros of a short gap by itself, but a block of nothing but
# zeros pulls the running levels down): at DM 0 the gap's samples in a .tim (nothing overwritten)
# are zeros without clipping and the series' level with it.
python3 split.py whole.fil 20000,30000 3000
"$bin/dedisp" -q part0.fil part1.fil part2.fil -d 0 -o gz.tim 2>/dev/null
"$bin/dedisp" -q part0.fil part1.fil part2.fil -d 0 --clip 6 -o gc.tim 2>/dev/null
check "without clipping the gap is zeros: $(python3 gap_level.py gz.tim 50000 3000 zero show)" \
  python3 gap_level.py gz.tim 50000 3000 zero
check "with clipping the gap takes the channels' levels: $(python3 gap_level.py gc.tim 50000 3000 level show)" \
  python3 gap_level.py gc.tim 50000 3000 level
mkdir out
python3 split.py whole.fil 20000,30000 -4
expect_exit 1 "an overlap of 4 samples" "$bin/dedisp" part0.fil part1.fil part2.fil -d 62 -o out/g
expect_exit 1 "part0.fil: starts at sample 0 of the observation" "$bin/dedisp" part0.fil part0.fil -d 62 -o out/g
"$bin/fake-pulsar" -q --nchans 32 --nsamples 1000 -o other.fil
expect_exit 1 "other.fil: not the same data as part0.fil: 32 channels, not 64" "$bin/dedisp" part0.fil other.fil -d 62 -o out/g
expect_exit 2 "stdin cannot be one of several input files" "$bin/dedisp" part0.fil - -d 62 -o out/g
check "nothing written by the refused runs: $(ls -A out)" test -z "$(ls -A out)"
exit $fail
