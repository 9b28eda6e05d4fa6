#!/bin/bash
# SPDX-License-Identifier: MIT
# dedisp --part i/n (job arrays): each part dedisperses a contiguous slice of the DM trials with
# about 1/n of the work, and the parts together write exactly the whole run's files, byte for
# byte: .dat/.inf of an automatic plan (ranges of several downsamplings, cut inside a range),
# and a tim-stream whose parts, concatenated in order, are the whole run's stream. Bad parts are
# usage errors; --dm-plan show says what a part holds.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp

"$bin/fake-pulsar" -q --nchans 64 --fch1 1500 --foff -2 --nbits 8 --tsamp 64 --nsamples 60000 --period 7.3 \
  --dm 30 --seed 3 -o f.fil

mkdir whole parts
(cd whole && "$bin/dedisp" -q ../f.fil --dm-plan auto --dm-max 300 -o o)
nranges=$("$bin/dedisp" f.fil --dm-plan show --dm-max 300 | sed -n 's/.* DM trials in \([0-9]*\) ranges.*/\1/p')
check "the automatic plan has several ranges (got '$nranges')" test "${nranges:-0}" -ge 3
for i in 1 2 3 4 5 6 7; do
  (cd parts && "$bin/dedisp" -q ../f.fil --dm-plan auto --dm-max 300 --part $i/7 -o o) ||
    check "part $i/7 failed" false
done
check "the parts wrote $(ls parts | wc -l) files, the whole run $(ls whole | wc -l)" \
  test "$(ls parts | wc -l)" = "$(ls whole | wc -l)"
differ=0
for f in whole/*; do cmp -s "$f" "parts/${f#whole/}" || differ=$((differ + 1)); done
check "$differ files of the parts differ from the whole run's" test $differ = 0

# Balanced by work (output samples): DMs downsampled by D count 1/D. The plan's first range is
# full resolution, so the first part holds fewer DMs than the last.
n1=$("$bin/dedisp" -v f.fil --dm-plan auto --dm-max 300 --part 1/3 -o p1 2>&1 | sed -n 's/.*part 1\/3: \([0-9]*\) of.*/\1/p')
n3=$("$bin/dedisp" -v f.fil --dm-plan auto --dm-max 300 --part 3/3 -o p3 2>&1 | sed -n 's/.*part 3\/3: \([0-9]*\) of.*/\1/p')
check "-v did not say what the parts hold ('$n1', '$n3')" test -n "$n1" -a -n "$n3"
check "part 1/3 has $n1 DMs, part 3/3 $n3: not balanced by work" test "${n1:-0}" -lt "${n3:-0}"
"$bin/dedisp" f.fil --dm-plan show --dm-max 300 --part 2/3 >show.txt
check "--dm-plan show --part does not name the part" grep -q "^part 2/3: [0-9]* of the [0-9]* DM trials, DM" show.txt

# A stream: the parts' records in order are the whole run's.
"$bin/dedisp" -q f.fil --dm 0:40:1 --format tim-stream >whole.tims
for i in 1 2 3; do "$bin/dedisp" -q f.fil --dm 0:40:1 --format tim-stream --part $i/3; done >parts.tims
check "tim-stream parts concatenated differ from the whole stream" cmp -s whole.tims parts.tims

# Parts of one DM each name their files as the whole run of three does (a run of one DM writes
# exactly -o; more are written under -o as a root), and on stdout they write a tim-stream too.
printf '1\n2\n3\n' >dms.txt
mkdir w3 p3
(cd w3 && "$bin/dedisp" -q ../f.fil --dm-list ../dms.txt --format tim -o x && "$bin/dedisp" -q ../f.fil \
  --dm-list ../dms.txt -o y.dat && "$bin/dedisp" -q ../f.fil --dm-list ../dms.txt >s.tims)
for i in 1 2 3; do
  (cd p3 && "$bin/dedisp" -q ../f.fil --dm-list ../dms.txt --format tim -o x --part $i/3 &&
    "$bin/dedisp" -q ../f.fil --dm-list ../dms.txt -o y.dat --part $i/3 &&
    "$bin/dedisp" -q ../f.fil --dm-list ../dms.txt --part $i/3 >>s.tims)
done
check "parts of one DM each: $(diff -rq w3 p3 2>&1 | head -3)" diff -rq w3 p3

# One file for all the DMs: each part names its own (the same -o in every part).
for i in 1 2; do "$bin/dedisp" -q f.fil --dm 0:40:1 --format fil --part $i/2 -o dt.fil; done
"$bin/dedisp" -q f.fil --dm 0:40:1 --format tim-stream --part 2/2 -o st.tims
check "fil parts are not dt_part1of2.fil and dt_part2of2.fil: $(ls dt*)" \
  test -s dt_part1of2.fil -a -s dt_part2of2.fil -a ! -e dt.fil
check "a tim-stream part is not st_part2of2.tims: $(ls st*)" test -s st_part2of2.tims -a ! -e st.tims

# Bad parts: status 2, nothing written.
mkdir out
expect_exit 2 "parts are numbered 1 to 4" "$bin/dedisp" f.fil --dm 0:4:1 --part 0/4 -o out/x
expect_exit 2 "there are only 4 parts" "$bin/dedisp" f.fil --dm 0:4:1 --part 5/4 -o out/x
expect_exit 2 "give i/n" "$bin/dedisp" f.fil --dm 0:4:1 --part 2 -o out/x
expect_exit 2 "there are 5 DM trials, too few for 6 parts: this part has none" \
  "$bin/dedisp" f.fil --dm 0:4:1 --part 3/6 -o out/x
expect_exit 2 "parts are numbered" "$bin/dedisp" missing.fil --dm 0:4:1 --part 0/2 -o out/x
check "a refused part wrote files: $(ls out)" test -z "$(ls out)"
exit $fail
