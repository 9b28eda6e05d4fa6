#!/bin/bash
# SPDX-License-Identifier: MIT
# accelsearch --part i/n (job arrays) and --sift: each part searches DM trials i, i+n, ... of its
# inputs (or of a stream's records) and writes their ACCEL files exactly as the whole run does;
# --sift then reads every part's ACCEL files and writes the whole run's sifted table, byte for
# byte. --sift also reads PRESTO's ACCEL files. Bad parts and bad --sift inputs are refused.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp accelsearch

"$bin/fake-pulsar" -q --nchans 64 --fch1 1500 --foff -2 --nbits 8 --tsamp 64 --nsamples 131072 --period 7.3 \
  --dm 30 --snrpeak 0.5 --seed 3 -o f.fil
"$bin/dedisp" -q f.fil --dm 24:36:1 -o o
search() { "$bin/accelsearch" -q --zmax 10 --numharm 4 --device cpu "$@"; }

# Files: the whole run, its ACCEL files kept aside, then three parts over the same inputs.
search o_DM*.dat -o whole
mkdir w
mv o_DM*_ACCEL_10* w/
for i in 1 2 3; do
  n=$("$bin/accelsearch" --zmax 10 --numharm 4 --device cpu -v --part $i/3 o_DM*.dat -o part 2>&1 |
    sed -n "s/.*part $i\/3: \([0-9]*\) of the 13 inputs.*/\1/p")
  check "part $i/3 does not say it has 4 or 5 of the 13 inputs (got '$n')" test "$n" = 4 -o "$n" = 5
  check "part $i/3 wrote no table of its own, part_part${i}of3.csv" test -s part_part${i}of3.csv
done
check "a part wrote the whole run's table name" test ! -e part.csv
check "the parts wrote $(ls o_DM*_ACCEL_10* | wc -l) ACCEL files, the whole run $(ls w | wc -l)" \
  test "$(ls o_DM*_ACCEL_10* | wc -l)" = "$(ls w | wc -l)"
differ=0
for f in w/*; do cmp -s "$f" "${f#w/}" || differ=$((differ + 1)); done
check "$differ ACCEL files of the parts differ from the whole run's" test $differ = 0
"$bin/accelsearch" -q --sift o_DM*_ACCEL_10 -o merged
check "--sift of the parts' ACCEL files is not the whole run's table (csv)" cmp -s whole.csv merged.csv
check "--sift of the parts' ACCEL files is not the whole run's table (txt)" cmp -s whole.txt merged.txt
check "the sifted table has no candidates" test "$(wc -l <merged.csv)" -ge 2

# A DM trial with no candidates writes no ACCEL file, but it is still a trial between others:
# --sift counts the *DM*.inf files beside the ACCEL files, as ACCEL_sift.py does. One ACCEL file
# as DMs 24 and 26: adjacent trials (kept) until DM 25's .inf is beside them (a gap: dropped).
mkdir adj
cp w/o_DM30.00_ACCEL_10 adj/o_DM24.00_ACCEL_10
cp w/o_DM30.00_ACCEL_10 adj/o_DM26.00_ACCEL_10
"$bin/accelsearch" -q --sift adj/*_ACCEL_10 -o adj/without
cp o_DM25.00.inf adj/
"$bin/accelsearch" -q --sift adj/*_ACCEL_10 -o adj/with
n_without=$(($(wc -l <adj/without.csv) - 1))
n_with=$(($(wc -l <adj/with.csv) - 1))
check "DMs 24 and 26 alone: $n_without candidates kept, want some" test "$n_without" -ge 1
check "with DM 25's .inf beside them: $n_with candidates kept, want none (not adjacent)" test "$n_with" = 0
# The whole run with a threshold that leaves some trials without candidates, and --sift of its
# ACCEL files: the same table.
mkdir hi
(cd hi && for f in ../o_DM*.dat ../o_DM*.inf; do ln -s "$f" .; done &&
  "$bin/accelsearch" -q --zmax 10 --numharm 4 --device cpu --sigma 12 o_DM*.dat -o whole &&
  "$bin/accelsearch" -q --sift o_DM*_ACCEL_10 -o sifted)
check "--sigma 12 left every trial with candidates ($(ls hi/*_ACCEL_10 | wc -l) ACCEL files of 13)" \
  test "$(ls hi/*_ACCEL_10 | wc -l)" -lt 13
check "--sift is not the whole run's table where trials have no candidates" cmp -s hi/whole.csv hi/sifted.csv

# A stream: each part reads past the other parts' records; the same command line in every part.
"$bin/dedisp" -q f.fil --dm 24:36:2 --format tim-stream >s.tims
mkdir sw sp
(cd sw && search - -o s <../s.tims)
for i in 1 2 3; do (cd sp && search --part $i/3 - -o s <../s.tims); done
check "the stream parts wrote $(ls sp | wc -l) files, the whole run $(ls sw | wc -l) (+ 4 tables)" \
  test "$(ls sp | wc -l)" = $(($(ls sw | wc -l) + 4))
differ=0
for f in sw/s_DM*; do cmp -s "$f" "sp/${f#sw/}" || differ=$((differ + 1)); done
check "$differ files of the stream parts differ from the whole run's" test $differ = 0
"$bin/accelsearch" -q --sift sp/s_DM*_ACCEL_10 -o sp/merged
check "--sift of the stream parts is not the whole run's table" cmp -s sw/s.csv sp/merged.csv

# PRESTO's own ACCEL file is read (one DM: the DM-count rule leaves no candidate).
presto="$FASTPSR_SHARED/data/peer-outputs/iso/iso_DM62.50_ACCEL_200"
if [ -f "$presto" ]; then
  "$bin/accelsearch" --sift "$presto" -o presto 2>sift.log
  check "--sift of PRESTO's ACCEL file failed: $(cat sift.log)" grep -q "sifted candidates from 1 DM trials" sift.log
  check "--sift of PRESTO's ACCEL file wrote no table" test -s presto.txt
  # ACCEL_sift.py's settings: one DM trial is enough with --sift-min-dms 1, and the pulsar
  # (4.837 ms) is the best candidate.
  "$bin/accelsearch" -q --sift "$presto" --sift-min-dms 1 -o presto1
  check "--sift-min-dms 1: the 4.837 ms pulsar is not the first candidate of PRESTO's file" \
    sh -c "sed -n 2p presto1.csv | grep -q ',4\.837[0-9]*,'"
else
  echo "skipped: PRESTO's ACCEL file (no $FASTPSR_SHARED/data/peer-outputs)"
fi
# A higher --sift-sigma keeps fewer, in a search's table as in --sift's.
all=$(($(wc -l <whole.csv) - 1))
search o_DM*.dat --sift-sigma 15 -o strict
"$bin/accelsearch" -q --sift o_DM*_ACCEL_10 --sift-sigma 15 -o strict2
strict=$(($(wc -l <strict.csv) - 1))
check "--sift-sigma 15 kept $strict of $all candidates" test "$strict" -ge 1 -a "$strict" -lt "$all"
check "--sift-sigma 15: the search's table and --sift's differ" cmp -s strict.csv strict2.csv

# Refused.
mkdir out
expect_exit 2 "there are only 3 parts" "$bin/accelsearch" --part 4/3 o_DM24.00.dat -o out/x
expect_exit 2 "there are 2 inputs, too few for 3 parts: this part has none" \
  "$bin/accelsearch" --part 3/3 o_DM24.00.dat o_DM25.00.dat -o out/x
expect_exit 2 "error: <stdin>: --part 9/9: the stream held fewer than 9 records" sh -c "'$bin/accelsearch' --zmax 0 --part 9/9 - -o out/x <s.tims"
expect_exit 2 "--sift reads the ACCEL files of every part" "$bin/accelsearch" --sift --part 1/2 w/* -o out/x
expect_exit 2 "not a .cand file" "$bin/accelsearch" --sift w/o_DM24.00_ACCEL_10.cand -o out/x
expect_exit 2 "not a stream" "$bin/accelsearch" --sift - -o out/x
expect_exit 2 "--sift-min-dms: 0 is out of range" "$bin/accelsearch" --sift w/o_DM24.00_ACCEL_10 --sift-min-dms 0 -o out/x
expect_exit 2 "--sift-r-err: -1 is negative" "$bin/accelsearch" --sift w/o_DM24.00_ACCEL_10 --sift-r-err -1 -o out/x
echo "not an ACCEL file" >notes_DM1.00_ACCEL_0
expect_exit 1 "notes_DM1.00_ACCEL_0" "$bin/accelsearch" --sift notes_DM1.00_ACCEL_0 -o out/x
expect_exit 1 "missing_ACCEL_0" "$bin/accelsearch" --sift missing_ACCEL_0 -o out/x
check "a refused run wrote files: $(ls out)" test -z "$(ls out)"
exit $fail
