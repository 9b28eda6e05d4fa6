#!/bin/bash
# SPDX-License-Identifier: MIT
# dedisp --clip SIGMA: PRESTO's time-domain clipping (prepsubband and prepdata clip at 6 sigma
# unless -noclip; the presto-compat shims do the same). Broadband impulses stand out of the DM-0
# series without it and are gone with it; only the spectra it reports clipped change; --noclip,
# --clip 0 and PRESTO's spellings; off with --zero-dm as in PRESTO. The values against a plain
# reading of PRESTO's clip_times are a unit test (test_time_clip.cpp).
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp
export FASTPSR_BINDIR=$bin

# 64 channels of 8 bits, 30 s of 250 us, a pulsar, and broadband impulses twice a second.
"$bin/fake-pulsar" -q -nchans 64 -nbits 8 -tsamp 250 -nsamples 120000 -period 33.3 -dm 40 --fold-snr 30 -seed 5 \
  --rfi-impulses rate=2,amp=3 -o imp.fil
"$bin/dedisp" imp.fil -d 0 --device cpu -q -o plain
"$bin/dedisp" imp.fil -d 0 --device cpu -v --clip 6 -o clip 2>clip.log
clipped=$(sed -n 's/.*clip: 6 sigma: \([0-9]*\) of 120000 spectra replaced.* in 50 blocks of up to 2400$/\1/p' clip.log)
check "-v says how many spectra were clipped, in 50 blocks of 2400: $(grep 'clip:' clip.log)" test -n "$clipped"

cat > outliers.py <<'PY'
import struct, sys
v = struct.unpack(f"<{len(open(sys.argv[1], 'rb').read()) // 4}f", open(sys.argv[1], "rb").read())
s = sorted(v)
med = s[len(s) // 2]
mad = sorted(abs(x - med) for x in v)[len(v) // 2] * 1.4826
print(sum(1 for x in v if abs(x - med) > 6 * mad))
PY
before=$(python3 outliers.py plain_DM0.00.dat)
after=$(python3 outliers.py clip_DM0.00.dat)
check "the impulses stand out without clipping ($before samples beyond 6 sigma)" test "$before" -gt 50
check "and are gone with it ($after left)" test "$after" -eq 0
changed=$(python3 -c "
import struct
a = struct.unpack('<120000f', open('plain_DM0.00.dat', 'rb').read())
b = struct.unpack('<120000f', open('clip_DM0.00.dat', 'rb').read())
print(sum(1 for x, y in zip(a, b) if x != y))")
check "only the $clipped spectra reported clipped change the series ($changed samples differ)" test "$changed" = "$clipped"

# Off, in each spelling; PRESTO's single-dash forms.
for off in "--noclip" "--clip 0" "-noclip" "-clip 0"; do
  "$bin/dedisp" imp.fil -d 0 --device cpu -q $off -o off
  check "$off: no clipping" cmp off_DM0.00.dat plain_DM0.00.dat
done
"$bin/dedisp" imp.fil -d 0 --device cpu -q -clip 6 -o dash
check "-clip 6 is --clip 6" cmp dash_DM0.00.dat clip_DM0.00.dat
expect_exit 0 "--clip 6 with --zero-dm: no clipping, as PRESTO turns it off with -zerodm" \
  "$bin/dedisp" imp.fil -d 0 --device cpu --clip 6 --zero-dm -o zc
"$bin/dedisp" imp.fil -d 0 --device cpu -q --zero-dm -o z
check "--clip with --zero-dm is --zero-dm alone" cmp zc_DM0.00.dat z_DM0.00.dat
expect_exit 2 "--clip" "$bin/dedisp" imp.fil -d 0 --clip -1 -o x

# The shims clip at 6 sigma by default, as PRESTO's prepsubband and prepdata.
"$FASTPSR_SOURCE/tools/presto-compat/prepsubband" -nobary -lodm 0 -dmstep 40 -numdms 2 -nsub 64 -o ps imp.fil 2>/dev/null
"$bin/dedisp" imp.fil --dm 0:40:40 --device cpu -q --clip 6 --even -o ref
for dm in 0.00 40.00; do check "prepsubband shim: clipped at 6 (DM $dm)" cmp ps_DM$dm.dat ref_DM$dm.dat; done
"$FASTPSR_SOURCE/tools/presto-compat/prepdata" -nobary -noclip -dm 0 -o pd imp.fil 2>/dev/null
check "prepdata shim -noclip: not clipped" cmp pd.dat <(head -c 480000 plain_DM0.00.dat)
"$FASTPSR_SOURCE/tools/presto-compat/prepdata" -nobary -clip 4 -dm 0 -o pd4 imp.fil 2>/dev/null
"$bin/dedisp" imp.fil -d 0 --device cpu -q --clip 4 --even -o c4
check "prepdata shim -clip 4: dedisp --clip 4" cmp pd4.dat c4_DM0.00.dat

# On a GPU: the same clipped series (integer sums: bit for bit).
# The output does not depend on the gulp: one shorter than a clipping block is raised to one (it
# clipped other spectra before: QA pass 23).
for g in 1000 3001; do
  "$bin/dedisp" imp.fil -d 0 --device cpu -q --clip 6 --gulp $g -o "g$g"
  check "--clip 6 --gulp $g: the whole-file series" cmp "g${g}_DM0.00.dat" clip_DM0.00.dat
done
if [ "${FASTPSR_HAVE_CUDA:-0}" = 1 ] && nvidia-smi -L >/dev/null 2>&1; then
  "$bin/dedisp" imp.fil -d 0 --device gpu -q --clip 6 -o gpu
  check "GPU: the same clipped series" cmp gpu_DM0.00.dat clip_DM0.00.dat
fi
exit $fail
