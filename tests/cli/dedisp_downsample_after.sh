#!/bin/bash
# SPDX-License-Identifier: MIT
# dedisp --downsample-after D (QA pass 17, D5): PRESTO's prepdata -downsamp D dedisperses at full
# resolution (delays rounded in input samples) and then sums D consecutive samples in float32,
# from 0 in time order; dedisp --downsample rounds the delays in output samples (prepsubband's
# way) and differs. --downsample-after D must equal, bit for bit, the sums of D consecutive
# samples of a full-resolution run (a last partial group dropped), with dt x D and that N in the
# .inf; the prepdata shim's -downsamp must give it. Usage errors: with --downsample, --dm-plan,
# --downsample-mean.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp
command -v python3 >/dev/null || { echo "skipped: python3 is not installed"; exit 77; }

"$bin/fake-pulsar" -q --nchans 64 --fch1 1500 --foff -1 --nbits 8 --tsamp 64 --nsamples 20000 --period 7.3 \
  --dm 30 --seed 3 -o f.fil

inf_n() { sed -n 's/.*Number of bins in the time series *= *\([0-9]*\).*/\1/p' "$1"; }
inf_dt() { sed -n 's/.*Width of each time series bin (sec) *= *\([-+.0-9eE]*\).*/\1/p' "$1"; }

# sums_of <full .dat> <D> <out .dat>: float32 sums of D consecutive samples, as prepdata's
# downsample(): tmp = 0; tmp += x[j] for each j, every add rounded to float32.
sums_of() {
  python3 - "$@" <<'EOF'
import array, struct, sys
full = array.array("f")
with open(sys.argv[1], "rb") as f:
    full.frombytes(f.read())
d = int(sys.argv[2])
f32 = lambda v: struct.unpack("f", struct.pack("f", v))[0]
out = array.array("f")
for g in range(len(full) // d):
    acc = 0.0
    for x in full[g * d:(g + 1) * d]:
        acc = f32(acc + x)
    out.append(acc)
with open(sys.argv[3], "wb") as f:
    out.tofile(f)
EOF
}

"$bin/dedisp" -q f.fil -d 30 -o full.dat
dt=$(inf_dt full.inf)
for d in 2 3 4 7; do
  "$bin/dedisp" -q f.fil -d 30 --downsample-after $d -o after$d.dat
  sums_of full.dat $d want$d.dat
  check "--downsample-after $d: not the sums of $d full-resolution samples" cmp -s after$d.dat want$d.dat
  check "--downsample-after $d: no samples" test -s after$d.dat
  check "--downsample-after $d: .inf N $(inf_n after$d.inf), want $(($(stat -c %s want$d.dat) / 4))" \
    test "$(inf_n after$d.inf)" = $(($(stat -c %s want$d.dat) / 4))
  check "--downsample-after $d: .inf dt $(inf_dt after$d.inf), want $d x $dt" \
    python3 -c "import sys; sys.exit(abs(float('$(inf_dt after$d.inf)') - $d * float('$dt')) > 1e-12)"
done
# Several DMs at once, and the 8-bit .tim path (the sums are what gets scaled).
"$bin/dedisp" -q f.fil --dm 28:31:1 -o fullm
"$bin/dedisp" -q f.fil --dm 28:31:1 --downsample-after 4 -o afterm
for dm in 28 29 30 31; do
  sums_of fullm_DM$dm.00.dat 4 wantm$dm.dat
  check "--dm 28:31:1 --downsample-after 4: DM $dm differs" cmp -s afterm_DM$dm.00.dat wantm$dm.dat
done
# prepsubband's way (delays in output samples) is not the same: the reason for the option.
"$bin/dedisp" -q f.fil -d 30 --downsample 4 -o before4.dat
check "--downsample 4 equals --downsample-after 4 here: the test shows nothing" sh -c "! cmp -s before4.dat after4.dat"

# The prepdata shim: -downsamp is --downsample-after (its output also even, as PRESTO's).
export FASTPSR_BINDIR=$bin
"$FASTPSR_SOURCE/tools/presto-compat/prepdata" -nobary -dm 30 -downsamp 4 -o pd4 f.fil 2>/dev/null
"$bin/dedisp" -q f.fil -d 30 --downsample-after 4 --even -o after4e.dat
check "prepdata shim -downsamp 4 is not dedisp --downsample-after 4 --even" cmp -s pd4.dat after4e.dat
n=$(($(stat -c %s after4.dat) / 4))
check "--even: after4e.dat is not after4.dat less one odd sample" \
  cmp -s -n $((n / 2 * 8)) after4.dat after4e.dat

# With --downsample-mean, the mean of each D dedispersed samples: the float32 sum divided once
# (prepsubband -sub's subbands).
"$bin/dedisp" -q f.fil -d 30 --downsample-after 4 --downsample-mean -o mean4.dat
check "--downsample-after 4 --downsample-mean: each sum divided by 4" python3 - <<'PY'
import struct
def floats(p):
    b = open(p, "rb").read(); return struct.unpack("<%df" % (len(b) // 4), b)
s, m = floats("after4.dat"), floats("mean4.dat")
assert len(s) == len(m) > 0
f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]
assert all(b == f32(a / 4.0) for a, b in zip(s, m))
PY
expect_exit 2 "--downsample-after" "$bin/dedisp" f.fil -d 30 --downsample-after 2 --downsample 2 -o x.dat
expect_exit 2 "--downsample-after" "$bin/dedisp" f.fil --dm-plan auto --dm-max 50 --downsample-after 2 -o x
expect_exit 2 "--downsample-after" "$bin/dedisp" f.fil -d 30 --downsample-after 0 -o x.dat
check "a refused run wrote a file" test ! -e x.dat -a ! -e x.inf
exit $fail
