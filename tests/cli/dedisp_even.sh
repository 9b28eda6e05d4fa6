#!/bin/bash
# SPDX-License-Identifier: MIT
# dedisp --even (QA pass 17, D4): dedisp writes N - maxdelay samples, odd for about half of the
# DM trials, and PRESTO's realfft and accelsearch refuse an odd-length .dat. With --even every
# .dat (and .tim) has an even length equal to its .inf N, byte-identical to the run without it
# less the last sample where that was odd: with every file open, with the series spooled (more
# DMs than files this process may open), for 8-bit .tim and on stdout. The prepsubband and
# prepdata shims pass it. tim-stream and fil refuse it (status 2).
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp

"$bin/fake-pulsar" -q --nchans 64 --fch1 1500 --foff -1 --nbits 8 --tsamp 64 --nsamples 20000 --period 7.3 \
  --dm 30 --seed 3 -o f.fil

size() { stat -c %s "$1"; }
inf_n() { sed -n 's/.*Number of bins in the time series *= *\([0-9]*\).*/\1/p' "$1"; }

# compare <plain file> <even file> <header bytes> <bytes a sample> <.inf of the even file, or "">:
# the even file is the plain one, less its last sample where the plain one's count is odd.
odd=0 even=0
compare() {
  local plain=$1 ev=$2 hdr=$3 w=$4 inf=$5
  local n=$((($(size "$plain") - hdr) / w)) m=$((($(size "$ev") - hdr) / w))
  if ((n % 2)); then
    odd=$((odd + 1))
    check "$ev: $m samples, want $((n - 1)) (of $n)" test "$m" = $((n - 1))
  else
    even=$((even + 1))
    check "$ev: $m samples, want $n" test "$m" = "$n"
  fi
  check "$ev is not $plain less its last sample" cmp -s -n $((hdr + m * w)) "$plain" "$ev"
  check "$ev: the file is longer than its samples" test "$(size "$ev")" = $((hdr + m * w))
  if [ -n "$inf" ]; then check "$inf: N = $(inf_n "$inf"), the .dat holds $m" test "$(inf_n "$inf")" = "$m"; fi
}

# dat, every file open.
"$bin/dedisp" -q f.fil --dm 20:31:1 -o plain
"$bin/dedisp" -q f.fil --dm 20:31:1 --even -o ev
for dm in 20 21 22 23 24 25 26 27 28 29 30 31; do
  compare "plain_DM$dm.00.dat" "ev_DM$dm.00.dat" 0 4 "ev_DM$dm.00.inf"
done
check "odd and even lengths both tested ($odd odd, $even even)" test "$odd" -gt 0 -a "$even" -gt 0
grep -q "(--even)" ev_DM20.00.inf || check "the .inf note does not mention --even" false

# dat, spooled: fewer files than the DMs need may be open, so the series are written at the end.
bash -c "ulimit -n 40 && exec \"$bin/dedisp\" f.fil --dm 20:31:1 --even -o sp -v" 2>sp.log >/dev/null
check "the spooled run did not spool: $(grep output: sp.log)" grep -q "spooled" sp.log
for dm in 20 21 22 23 24 25 26 27 28 29 30 31; do
  compare "plain_DM$dm.00.dat" "sp_DM$dm.00.dat" 0 4 "sp_DM$dm.00.inf"
done

# 8-bit .tim files, and one .tim on stdout.
"$bin/dedisp" -q f.fil --dm 20:23:1 --format tim -B 8 -o t8
"$bin/dedisp" -q f.fil --dm 20:23:1 --format tim -B 8 --even -o e8
for dm in 20 21 22 23; do
  hdr=$(grep -abo HEADER_END "t8_DM$dm.00.tim" | head -1 | cut -d: -f1)
  compare "t8_DM$dm.00.tim" "e8_DM$dm.00.tim" $((hdr + 10)) 1 ""
done
"$bin/dedisp" -q f.fil -d 21 > one.tim
"$bin/dedisp" -q f.fil -d 21 --even > one_even.tim
hdr=$(grep -abo HEADER_END one.tim | head -1 | cut -d: -f1)
compare one.tim one_even.tim $((hdr + 10)) 4 ""

# One sample with full data: --even would leave an empty file, so the run is refused and says
# why; two samples are kept.
md=$("$bin/dedisp" f.fil -d 30 -v -o probe.tim 2>&1 >/dev/null | sed -n 's/.*max delay \([0-9]*\) samples.*/\1/p' | head -1)
check "dedisp -v gave no max delay" test -n "$md"
expect_exit 2 "--even leaves no samples: DM 30 has only one sample" \
  "$bin/dedisp" f.fil -d 30 --nsamps $((md + 1)) --even -o short.dat
check "the refused run left a file: $(ls short.* 2>/dev/null)" test ! -e short.dat -a ! -e short.inf
"$bin/dedisp" -q f.fil -d 30 --nsamps $((md + 2)) --even -o two.dat
check "two samples with --even: $(size two.dat) bytes, want 8" test "$(size two.dat)" = 8

# Refused where fastpsr's own tools read the output.
expect_exit 2 "--even is for the dat and tim files" "$bin/dedisp" f.fil --dm 20:23:1 --format tim-stream --even -o x.tims
expect_exit 2 "--even is for the dat and tim files" "$bin/dedisp" f.fil --dm 20:23:1 --format fil --even -o x.fil
check "a refused --even wrote a file" test ! -e x.tims -a ! -e x.fil

# The shims write even lengths (PRESTO's prepsubband and prepdata always do).
export FASTPSR_BINDIR=$bin
"$FASTPSR_SOURCE/tools/presto-compat/prepsubband" -nobary -lodm 20 -dmstep 1 -numdms 12 -nsub 64 -o ps f.fil 2>/dev/null
for dm in 20 21 22 23 24 25 26 27 28 29 30 31; do
  n=$(($(size "ps_DM$dm.00.dat") / 4))
  check "prepsubband shim: ps_DM$dm.00.dat has $n samples, odd" test $((n % 2)) = 0
  check "prepsubband shim: ps_DM$dm.00.inf N differs from the .dat" test "$(inf_n "ps_DM$dm.00.inf")" = "$n"
  check "prepsubband shim: ps_DM$dm.00.dat is not dedisp --even's" cmp -s "ps_DM$dm.00.dat" "ev_DM$dm.00.dat"
done
for dm in 21 22; do
  "$FASTPSR_SOURCE/tools/presto-compat/prepdata" -nobary -dm $dm -o pd$dm f.fil 2>/dev/null
  n=$(($(size pd$dm.dat) / 4))
  check "prepdata shim: pd$dm.dat has $n samples, odd" test $((n % 2)) = 0
  check "prepdata shim: pd$dm.inf N differs from the .dat" test "$(inf_n pd$dm.inf)" = "$n"
  check "prepdata shim: pd$dm.dat is not dedisp --even's" cmp -s pd$dm.dat "ev_DM$dm.00.dat"
done
exit $fail
