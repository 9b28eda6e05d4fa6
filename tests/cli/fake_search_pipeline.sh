#!/bin/bash
# SPDX-License-Identifier: MIT
# End to end: fake-pulsar | dedisp | accelsearch finds an accelerated pulsar at the z that
# --report predicts (fdot = -accn f / c, PRESTO z = fdot T^2), and with --sigproc-phase at twice
# that z, with the mean period shifted by fdot T / 2 as SIGPROC fake's phase law makes it.
set -euo pipefail
bin=${FASTPSR_BIN:?}
for tool in fake-pulsar dedisp accelsearch; do
  [ -x "$bin/$tool" ] || { echo "skipped: $bin/$tool is not built"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail() { echo "FAIL: $*" >&2; exit 1; }
json() { python3 -c "import json,sys; r=json.load(open('$1')); print(r['pulsars'][0]['$2'])"; }

for law in integrated sigproc; do
  flag=()
  [ $law = sigproc ] && flag=(--sigproc-phase)
  "$bin/fake-pulsar" --nchans 64 --fch1 1500 --foff -1 --tsamp 256 --nsamples 131072 --nbits 8 --period 4.8372 \
      --dm 62.5 --accn 25000 --fold-snr 40 --smear full --seed 8 "${flag[@]}" --report r.json -o f.fil
  want_z=$(json r.json z)
  want_p=$(json r.json period_mean_s)
  "$bin/dedisp" -q f.fil --dm 62.5 --format dat -o f
  "$bin/accelsearch" -q --zmax 60 --numharm 8 --device cpu f_DM62.50.dat -o c
  read -r sigma period z < <(awk 'NR == 4 { gsub(/\(.*/, "", $6); gsub(/\(.*/, "", $10); print $2, $6, $10 }' \
      f_DM62.50_ACCEL_60)
  echo "$law: found P $period ms, z $z, sigma $sigma; injected mean P $(awk -v p="$want_p" 'BEGIN{print 1e3*p}') ms, z $want_z"
  awk -v z="$z" -v w="$want_z" 'BEGIN { exit !(z > w - 2 && z < w + 2) }' || fail "$law: z $z, want $want_z"
  awk -v p="$period" -v w="$want_p" 'BEGIN { exit !(p > 1e3 * w - 0.001 && p < 1e3 * w + 0.001) }' ||
      fail "$law: period $period ms, want $want_p s"
  awk -v s="$sigma" 'BEGIN { exit !(s > 8) }' || fail "$law: sigma $sigma"
  [ $law = integrated ] && z_integrated=$want_z
done
# SIGPROC's law doubles z.
awk -v a="$z_integrated" -v b="$want_z" 'BEGIN { exit !(b / a > 1.99 && b / a < 2.01) }' ||
    fail "sigproc z $want_z is not twice $z_integrated"
echo PASS
