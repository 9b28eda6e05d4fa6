#!/bin/bash
# SPDX-License-Identifier: MIT
# --invert (PRESTO's -invert): a filterbank whose data channels run opposite to its header's
# frequencies, dedispersed with --invert, gives the series of the same data in the header's
# order to the bit (8-bit samples: integer sums, whatever the order), and without it does not;
# the prepdata and prepsubband shims pass -invert.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp

"$bin/fake-pulsar" -q --nchans 64 --fch1 1500 --foff -1 --tsamp 256 --nsamples 32768 --nbits 8 \
  --period 4.8372 --dm 62.5 --fold-snr 30 --seed 5 -o right.fil
# The same spectra with their channels reversed, the header unchanged.
python3 - <<'PY'
b = open("right.fil", "rb").read()
end = b.index(b"HEADER_END") + 10
data = b[end:]
flipped = b"".join(data[i:i + 64][::-1] for i in range(0, len(data), 64))
open("flipped.fil", "wb").write(b[:end] + flipped)
PY
"$bin/dedisp" -q right.fil --dm 60:64:2 -o r
"$bin/dedisp" -q flipped.fil --dm 60:64:2 --invert -o f
"$bin/dedisp" -q flipped.fil --dm 60:64:2 -o n
for dm in 60.00 62.00 64.00; do
  check "DM $dm: --invert reads the flipped data as the right one" cmp -s "r_DM$dm.dat" "f_DM$dm.dat"
  check "DM $dm: and its .inf" bash -c "diff <(grep -v 'Data file name' r_DM$dm.inf) <(grep -v 'Data file name' f_DM$dm.inf)"
  check "DM $dm: without --invert the flipped data give another series" bash -c "! cmp -s r_DM$dm.dat n_DM$dm.dat"
done
# One DM to a .tim, PRESTO's delays (a .tim takes SIGPROC's by default only for a falling band,
# and the flipped header's band rises).
"$bin/dedisp" -q right.fil -d 62.5 --delay-model presto -o r.tim
"$bin/dedisp" -q flipped.fil -d 62.5 --flip-band --delay-model presto -o f.tim
check "--flip-band, a .tim" cmp -s r.tim f.tim

if command -v make >/dev/null; then
  make -s -C "$FASTPSR_SOURCE" -f Makefile.presto-compat install BINDIR="$bin" COMPATDIR="$tmp/compat" >/dev/null
  "$tmp/compat/prepdata" -dm 62 -nobary -o pr right.fil >/dev/null 2>&1
  "$tmp/compat/prepdata" -dm 62 -nobary -invert -o pf flipped.fil >/dev/null 2>&1
  check "prepdata -invert" cmp -s pr.dat pf.dat
  "$tmp/compat/prepsubband" -lodm 60 -dmstep 2 -numdms 2 -nobary -o sr right.fil >/dev/null 2>&1
  "$tmp/compat/prepsubband" -lodm 60 -dmstep 2 -numdms 2 -nobary -invert -o sf flipped.fil >/dev/null 2>&1
  check "prepsubband -invert" cmp -s sr_DM62.00.dat sf_DM62.00.dat
fi
exit $fail
