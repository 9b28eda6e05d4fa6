#!/bin/bash
# SPDX-License-Identifier: MIT
# End to end: fake-pulsar --voltages, ppf, dedisp, accelsearch finds the injected pulsar at its
# period and PRESTO z (with z's sign), and only at the right DM (the sweep, 7.8 ms across the
# band, is longer than the 4.8 ms period).
set -euo pipefail
bin=${FASTPSR_BIN:?}
for tool in fake-pulsar ppf dedisp accelsearch; do
  [ -x "$bin/$tool" ] || { echo "skipped: $bin/$tool is not built"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin/fake-pulsar" --voltages --freq 400 --bw 2 --npol 2 --tobs 12 --period 4.8372 --dm 30 --width 5 \
    --profile vonmises --z -10 --fold-snr 30 --seed 5 | tee v.raw | "$bin/ppf" -q -C 64 --nint 4 --device cpu - -o v.fil
# Full Stokes: four IFs, of which dedisp --if 0 takes I, the very series of --detect I.
"$bin/ppf" -q -C 64 --nint 4 --device cpu --detect IQUV v.raw -o iquv.fil
"$bin/dedisp" -q v.fil -d 30 -o i.tim
"$bin/dedisp" -q iquv.fil --if 0 -d 30 -o iquv_i.tim
cmp -s i.tim iquv_i.tim || fail "dedisp --if 0 of the IQUV filterbank differs from the Stokes I filterbank's series"
"$bin/dedisp" -q v.fil --dm 30 --format dat -o v
"$bin/dedisp" -q v.fil --dm 0 --format dat -o v
"$bin/accelsearch" -q --zmax 20 --numharm 8 --device cpu v_DM30.00.dat v_DM0.00.dat -o cands

# The strongest candidate at DM 30: its period, z and significance.
read -r sigma period z < <(awk 'NR == 4 { gsub(/\(.*/, "", $6); gsub(/\(.*/, "", $10); print $2, $6, $10 }' \
    v_DM30.00_ACCEL_20)
echo "DM 30: candidate 1 at P = $period ms, z = $z, sigma $sigma"
awk -v p="$period" 'BEGIN { exit !(p > 4.8362 && p < 4.8382) }' || fail "period $period ms, injected 4.8372"
awk -v z="$z" 'BEGIN { exit !(z >= -12 && z <= -8) }' || fail "z $z, injected -10"
awk -v s="$sigma" 'BEGIN { exit !(s > 8) }' || fail "sigma $sigma"
# At DM 0 the pulses are smeared over more than a period: nothing near 4.8372 ms stands out.
if awk 'NR >= 4 && NF > 8 { p = $6; gsub(/\(.*/, "", p); if (p > 4.83 && p < 4.84 && $2 > 8) found = 1 }
        END { exit !found }' v_DM0.00_ACCEL_20; then
  fail "the pulsar is found at DM 0"
fi
echo PASS
