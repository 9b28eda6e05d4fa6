#!/bin/bash
# SPDX-License-Identifier: MIT
# dedisp takes a search-mode PSRFITS file (QA pass 21: it refused them, and nothing converted
# them): read as a float32 filterbank of total intensity (sigproc_view.hpp; the values against
# the PSRFITS reader are a unit test), with the file's source, epoch and band in the outputs.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" dedisp header
sf="${FASTPSR_SHARED:-}/data/real/parkes_crab_4bit.sf"
[ -f "$sf" ] || { echo "skipped: no $sf (the shared data)"; exit 77; }

expect_exit 0 "search-mode PSRFITS (4-bit, 4 polarisations, intensity from AA+BB), read as a float32 filterbank" \
  "$bin/dedisp" "$sf" --device cpu -v -d 56.7 -o crab
check "a .dat and an .inf" test -s crab_DM56.70.dat -a -s crab_DM56.70.inf
check "the source" grep -q "Object being observed *= *J0534+2200" crab_DM56.70.inf
# What PRESTO's .inf takes from PSRFITS and a SIGPROC header cannot hold (it said FAKE and unset).
check "the backend as the instrument" grep -q "Instrument used *= *Medusa$" crab_DM56.70.inf
check "the observer" grep -q "Data observed by *= *WF$" crab_DM56.70.inf
check "the project and date" grep -q "^    Project ID P958, Date: 2019-03-01T07:55:14.$" crab_DM56.70.inf
check "the polarisations and bits" grep -q "^    2 polns were summed.  Samples have 4 bits.$" crab_DM56.70.inf
# STT_IMJD 58543, STT_SMJD 28543, STT_OFFS 0.3605 (the file's README).
check "the epoch" grep -q "Epoch of observation (MJD) *= *58543.33036296" crab_DM56.70.inf
check "416 channels of 8 MHz from 708 MHz" sh -c \
  'grep -q "Number of channels *= *416" crab_DM56.70.inf && grep -q "Channel bandwidth (MHz) *= *8$" crab_DM56.70.inf &&
   grep -q "Central freq of low channel (MHz) *= *708$" crab_DM56.70.inf'
# 4096 samples less the delay across the band at DM 56.7 (presto delays, full-data samples).
bins=$(sed -n 's/^ Number of bins in the time series *= *\([0-9]*\).*/\1/p' crab_DM56.70.inf)
check "the series has the file's samples less the band's delay ($bins)" test "$bins" -gt 3000 -a "$bins" -lt 4096
check "4 bytes a bin" test "$(stat -c %s crab_DM56.70.dat)" -eq $((4 * bins))

# --start and --nsamps skip and cut in samples of the file; a stream of several DMs.
expect_exit 0 "1000 samples after skipping 100" "$bin/dedisp" "$sf" --device cpu -v --start 100 --nsamps 1000 -d 56.7 -o part.tim
# --start-fraction (PRESTO's -start): floor(F N) samples, or rounded down to PRESTO's reads: a
# PSRFITS row (NSBLK, 2048 here) at a time for prepdata (int(0.6 x 4096 / 2048) x 2048), not the
# 2400 spectra of a filterbank.
expect_exit 0 "start-fraction 0.6: 2457 samples skipped" "$bin/dedisp" "$sf" --device cpu -v --start-fraction 0.6 -d 56.7 -o f1.tim
expect_exit 0 "start-fraction 0.6: 2048 samples skipped" "$bin/dedisp" "$sf" --device cpu -v --start-fraction 0.6 \
  --start-rounding prepdata -d 56.7 -o f2.tim
"$bin/dedisp" "$sf" --device cpu -q --start 2048 -d 56.7 -o f3.tim
check "--start-fraction 0.6 rounded as prepdata = --start 2048" cmp -s f2.tim f3.tim
"$bin/dedisp" "$sf" --device cpu --dm 50:60:2 --format tim-stream -o crab.tims
check "a tim-stream of 6 DMs" sh -c "'$bin/header' crab.tims | grep -q 'tim-stream records *: 6 '"
# --if (PRESTO's -if): one of the file's four polarisations (AABBCRCI), or AA + BB as by default.
expect_exit 0 "intensity from polarisation 1" "$bin/dedisp" "$sf" --device cpu -v --if 1 -d 56.7 -o bb.tim
expect_exit 0 "intensity from AA+BB" "$bin/dedisp" "$sf" --device cpu -v --if sum -d 56.7 -o sum.tim
"$bin/dedisp" "$sf" --device cpu -q -d 56.7 -o auto.tim
check "--if sum = the default" cmp -s sum.tim auto.tim
check "--if 1 is not the sum" sh -c "! cmp -s bb.tim auto.tim"
expect_exit 2 "--if 4: POL_TYPE 'AABBCRCI' with 4 polarisations (0 to 3)" "$bin/dedisp" "$sf" --if 4 -d 56.7 -o x.tim

# PRESTO's -noweights, -noscales, -nooffsets (the reader's values with each left out are a unit
# test): this file's weights are all 1, its scales and offsets are not; the prepsubband and
# prepdata shims pass them (they dropped them without a word), take -psrfits, and prepsubband
# -runavg does nothing here, as in PRESTO (it acts only on .sub input).
for f in "" --noweights --noscales --nooffsets; do
  "$bin/dedisp" "$sf" --device cpu -q -d 56.7 --format tim $f -o "s$f.tim"
done
check "--noweights: the same (weights all 1)" cmp s.tim s--noweights.tim
check "--noscales: another series" sh -c '! cmp -s s.tim s--noscales.tim'
check "--nooffsets: another series" sh -c '! cmp -s s.tim s--nooffsets.tim'
export FASTPSR_BINDIR=$bin
"$bin/dedisp" "$sf" --device cpu -q -d 56.7 --noscales --nooffsets --clip 6 --even -o dd
# (--device cpu through the shims too: float input is summed in another order on a GPU.)
"$FASTPSR_SOURCE/tools/presto-compat/prepdata" -psrfits -nobary -dm 56.7 -noscales -nooffsets --device cpu -o pd "$sf" \
  2>/dev/null
check "prepdata -psrfits -noscales -nooffsets: dedisp's" cmp pd.dat dd_DM56.70.dat
"$bin/dedisp" "$sf" --device cpu -q -lodm 56.7 -numdms 1 --nsub 32 --noscales --clip 6 --even -o ddn
"$FASTPSR_SOURCE/tools/presto-compat/prepsubband" -nobary -lodm 56.7 -numdms 1 -noscales -runavg --device cpu -o ps "$sf" \
  2>ps.err
check "prepsubband -noscales -runavg: dedisp --noscales" cmp ps_DM56.70.dat ddn_DM56.70.dat
check "prepsubband -runavg: a note that it does nothing here" grep -q "note: -runavg acts only on PRESTO .sub input" ps.err
"$bin/dedisp" "$sf" --device cpu -q -d 56.7 --subbands 8 -o dmt.fil
expect_exit 0 "apply to PSRFITS input; this is a SIGPROC filterbank" "$bin/dedisp" dmt.fil --noscales -d 0 -o y.tim

# On a GPU: the same series as the CPU backend's. Float input is summed in another order there
# (each backend is within 1e-6 of the sum of |terms| of the double reference: unit and GPU tests),
# so 4e-6 of the series' largest value, far below any misread sample's difference.
if [ "${FASTPSR_HAVE_CUDA:-0}" = 1 ] && nvidia-smi -L >/dev/null 2>&1; then
  "$bin/dedisp" "$sf" --device gpu -q --dm 0:120:30 -o gpu
  "$bin/dedisp" "$sf" --device cpu -q --dm 0:120:30 -o cpu
  for dm in 0.00 30.00 60.00 90.00 120.00; do
    check "DM $dm: the GPU's series is the CPU's" python3 - "gpu_DM$dm.dat" "cpu_DM$dm.dat" <<'PY'
import struct, sys
g, c = (open(p, "rb").read() for p in sys.argv[1:3])
assert len(g) == len(c) and len(c) > 8000, (len(g), len(c))
g, c = (struct.unpack(f"<{len(b) // 4}f", b) for b in (g, c))
big = max(abs(v) for v in c)
worst = max(abs(a - b) for a, b in zip(g, c))
print(f"{sys.argv[1]}: largest |gpu - cpu| {worst:.3g} of largest |value| {big:.4g}")
sys.exit(0 if worst <= 4e-6 * big else 1)
PY
  done
fi
exit $fail
