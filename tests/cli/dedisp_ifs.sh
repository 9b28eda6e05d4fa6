#!/bin/bash
# SPDX-License-Identifier: MIT
# Filterbanks of several IFs (fake-pulsar --nifs, ppf --detect IQUV; dedisp refused them all):
# two IFs are summed into total intensity, exactly (8-bit samples: the sum of the two IFs'
# series to the bit), --if N takes one, more than two need --if; a pulsar in two IFs with
# independent noise is found at its period; the prepdata/prepsubband shims pass PRESTO's -if.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp accelsearch header

fake=("$bin/fake-pulsar" --nchans 64 --fch1 1500 --foff -1 --tsamp 256 --nbits 8 --period 4.8372 --dm 62.5 -q)
"${fake[@]}" --nifs 2 --nsamples 65536 --fold-snr 30 --seed 3 -o two.fil
check "fake-pulsar wrote 2 IFs" test "$("$bin/header" two.fil -nifs)" = 2

# float32 .tim of each choice; the sum must equal IF 0 + IF 1 sample for sample.
expect_exit 0 "dedispersing the sum of its 2 IFs" "$bin/dedisp" two.fil -v -d 62.5 -o auto.tim
for choice in sum 0 1; do "$bin/dedisp" two.fil -q -d 62.5 --if $choice -o if_$choice.tim; done
sums_match() {
  python3 - "$@" <<'EOF'
import struct, sys
def series(path):
    b = open(path, 'rb').read()
    start = b.index(b'HEADER_END') + 10
    n = (len(b) - start) // 4
    return struct.unpack('<%df' % n, b[start:start + 4 * n])
total, a, b = (series(p) for p in sys.argv[1:4])
bad = [i for i in range(len(total)) if total[i] != a[i] + b[i]]
ok = len(total) == len(a) == len(b) > 60000 and not bad and a != b
if not ok:
    print(f"{len(total)}, {len(a)}, {len(b)} samples; {len(bad)} differ", file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
}
check "auto = IF 0 + IF 1, to the bit" sums_match auto.tim if_0.tim if_1.tim
check "--if sum = auto" cmp -s auto.tim if_sum.tim
check "the output has one IF" test "$("$bin/header" auto.tim -nifs)" = 1

# The pulsar, in both IFs with independent noise, is found in their sum at its period.
"$bin/dedisp" two.fil -q --dm 62.5 --format dat -o p
"$bin/accelsearch" -q --zmax 0 --numharm 8 --device cpu p_DM62.50.dat -o c
read -r sigma period < <(awk 'NR == 4 { gsub(/\(.*/, "", $6); print $2, $6 }' p_DM62.50_ACCEL_0)
check "pulsar found at 4.8372 ms (got $period ms, sigma $sigma)" \
  awk -v p="$period" -v s="$sigma" 'BEGIN { exit !(p > 4.8362 && p < 4.8382 && s > 8) }'

# Four IFs (what ppf --detect IQUV writes): which to use must be said.
"${fake[@]}" --nifs 4 --nsamples 4096 --seed 4 -o four.fil
expect_exit 2 "four.fil: the data have 4 IFs" "$bin/dedisp" four.fil -d 62.5 -o x.tim
check "nothing written for a refused run" test ! -e x.tim
expect_exit 0 "dedispersing IF 0 of 4" "$bin/dedisp" four.fil -v -d 62.5 --if 0 -o i0.tim
expect_exit 0 "dedispersing the sum of its 4 IFs" "$bin/dedisp" four.fil -v -d 62.5 --if sum -o s.tim
expect_exit 2 "--if 4: the data have 4 IFs (0 to 3)" "$bin/dedisp" four.fil -d 62.5 --if 4 -o x.tim
expect_exit 2 "--if: 'x' is not an IF" "$bin/dedisp" four.fil -d 62.5 --if x -o x.tim
"${fake[@]}" --nsamples 4096 --seed 5 -o one.fil
expect_exit 2 "--if 1: the data have one IF" "$bin/dedisp" one.fil -d 1 --if 1 -o x.tim
# PRESTO's spelling, in dedisp and through the shims.
"$bin/dedisp" four.fil -q -d 62.5 -if 2 -o d2.tim
"$bin/dedisp" four.fil -q -d 62.5 --if 2 -o e2.tim
check "dedisp -if 2 = --if 2" cmp -s d2.tim e2.tim

if command -v make >/dev/null; then
  make -s -C "$FASTPSR_SOURCE" -f Makefile.presto-compat install BINDIR="$bin" COMPATDIR="$tmp/compat" >/dev/null
  "$tmp/compat/prepdata" -dm 62.5 -nobary -noclip -if 1 -o pd four.fil >/dev/null 2>&1
  "$bin/dedisp" four.fil -q --dm 62.5 --if 1 --even -o dd.dat
  check "prepdata -if 1 = dedisp --if 1" cmp -s pd.dat dd.dat
  "$tmp/compat/prepsubband" -lodm 62 -dmstep 0.5 -numdms 2 -nobary -noclip -if 3 -o ps four.fil >/dev/null 2>&1
  "$bin/dedisp" four.fil -q --dm 62:62.5:0.5 --nsub 32 --if 3 --even -o ds  # prepsubband: 32 subbands
  check "prepsubband -if 3 = dedisp --if 3" cmp -s ps_DM62.50.dat ds_DM62.50.dat
  expect_exit 2 "prepdata (fastpsr): error: four.fil: -if 7: the data have 4 IFs" \
    "$tmp/compat/prepdata" -dm 62.5 -nobary -if 7 -o bad four.fil
else
  echo "make is not installed: the shims' -if is not checked"
fi
exit $fail
