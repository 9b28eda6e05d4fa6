#!/bin/bash
# SPDX-License-Identifier: MIT
# dedisp --numout N (PRESTO's -numout, which survey scripts give prepsubband): every .dat holds
# exactly N samples, the first N of the series or all of them and then the series' mean, the
# .inf saying N and, where padded, PRESTO's on/off pairs; through the spool too (more DMs than
# files may be open), and through the prepsubband and prepdata shims.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp
export FASTPSR_BINDIR=$bin

"$bin/fake-pulsar" -q -nchans 64 -nbits 8 -tsamp 100 -nsamples 20000 -seed 11 -o r.fil
"$bin/dedisp" r.fil --dm 0:20:10 --device cpu -q -o plain
"$bin/dedisp" r.fil --dm 0:20:10 --device cpu -q --numout 25000 -o long
"$bin/dedisp" r.fil --dm 0:20:10 --device cpu -q --numout 10000 -o short

# Each padded series: its own samples, then float32(mean) of them up to N; N and the on/off
# pairs (0, L-1), (N-1, N-1) in the .inf.
cat > padded.py <<'PY'
import struct, sys
plain, padded, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
a = open(plain, "rb").read()
b = open(padded, "rb").read()
L = len(a) // 4
assert len(b) == 4 * n, f"{padded}: {len(b) // 4} samples, not {n}"
assert b[:len(a)] == a, f"{padded}: its first {L} samples are not the series'"
mean = struct.pack("<f", sum(struct.unpack(f"<{L}f", a)) / L)
assert b[len(a):] == mean * (n - L), f"{padded}: the padding is not the series' mean {struct.unpack('<f', mean)[0]}"
inf = open(padded[:-4] + ".inf").read()
assert f"Number of bins in the time series      =  {n} " in inf, inf
assert f"On/Off bin pair #  1                   =  0          , {L - 1} " in inf, inf
assert f"On/Off bin pair #  2                   =  {n - 1}      , {n - 1} " in inf, inf
PY
for dm in 0.00 10.00 20.00; do
  check "DM $dm padded to 25000" python3 padded.py "plain_DM$dm.dat" "long_DM$dm.dat" 25000
  check "DM $dm cut to 10000" cmp "short_DM$dm.dat" <(head -c 40000 "plain_DM$dm.dat")
  check "DM $dm cut: N 10000, no breaks" sh -c "grep -q 'Number of bins in the time series *= *10000 ' short_DM$dm.inf &&
    grep -q 'Any breaks in the data? (1 yes, 0 no) *= *0' short_DM$dm.inf"
done
check "the note says so" grep -q "the first 25000 (-numout), or all then their mean up to 25000" long_DM0.00.inf

# 40 DMs with 20 files open at most: spooled, then written with the same padding.
"$bin/dedisp" r.fil --dm 0:39:1 --device cpu -q -o plain40
bash -c "ulimit -n 20 && '$bin/dedisp' r.fil --dm 0:39:1 --device cpu -v --numout 24000 -o spool" 2>spool.log
check "spooled: $(grep -o 'spooled[^)]*' spool.log | head -1)" grep -q "spooled" spool.log
for dm in 0.00 17.00 39.00; do
  check "spooled DM $dm padded to 24000" python3 padded.py "plain40_DM$dm.dat" "spool_DM$dm.dat" 24000
done

# With --even (the shims): N must be even; other formats hold what there is.
expect_exit 2 "--numout 24001 is odd; --even asks an even length" "$bin/dedisp" r.fil -d 5 --even --numout 24001 -o x
expect_exit 2 "--numout is for .dat files" "$bin/dedisp" r.fil -d 5 --format tim --numout 24000 -o x.tim
expect_exit 2 "give a number of samples of 1 or more" "$bin/dedisp" r.fil -d 5 --numout 0 -o x
check "no output from a refused --numout" test -z "$(ls x* 2>/dev/null)"

# PRESTO's command lines.
"$FASTPSR_SOURCE/tools/presto-compat/prepsubband" -nobary -lodm 0 -dmstep 10 -numdms 3 -nsub 64 -numout 25000 \
  -o ps r.fil 2>/dev/null
for dm in 0.00 10.00 20.00; do
  check "prepsubband -numout 25000: DM $dm" python3 padded.py "plain_DM$dm.dat" "ps_DM$dm.dat" 25000
done
"$FASTPSR_SOURCE/tools/presto-compat/prepdata" -nobary -dm 10 -numout 10000 -o pd r.fil 2>/dev/null
check "prepdata -numout 10000" cmp pd.dat short_DM10.00.dat
exit $fail
