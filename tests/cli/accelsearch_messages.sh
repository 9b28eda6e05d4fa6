#!/bin/bash
# SPDX-License-Identifier: MIT
# accelsearch's messages and `-o -` (QA pass 21, findings 3 and 5): -o - writes the sifted table's
# CSV to stdout and no summary file (it wrote files named "-.csv" and "-.txt"), and is a usage
# error with a stream, whose trials' files are named after the prefix; a single input that finds
# candidates says how many and where (it said nothing); among many trials an empty one is named
# only with -v (every one was, without it); a stream's trials are named with their DM.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp accelsearch

"$bin/fake-pulsar" -q --nchans 16 --nbits 8 --tsamp 64 --nsamples 65536 --fch1 1400 --foff -10 --period 5.3 \
  --dm 30 --snrpeak 3 -o f.fil
"$bin/dedisp" -q f.fil -d 30 >x.tim
"$bin/dedisp" -q f.fil --dm 28:31:1 --even -o d
acc() { "$bin/accelsearch" --device cpu --fftw estimate -zmax 0 -numharm 2 "$@"; }

# -o -: the CSV on stdout, the same bytes as -o c writes to c.csv; no file named after "-".
acc -q d_DM*.dat -o c
acc d_DM*.dat -o - >stdout.csv 2>err.txt
rc=$?
check "-o -: exit $rc ($(cat err.txt))" test $rc -eq 0
check "-o -: the table on stdout is c.csv" cmp -s stdout.csv c.csv
check "-o -: the CSV has its header and rows ($(wc -l <stdout.csv) lines)" \
  bash -c "head -1 stdout.csv | grep -q '^file,candnum,' && [ \$(wc -l <stdout.csv) -gt 1 ]"
check "-o -: no file named -.csv or -.txt ($(ls -A))" test ! -e -.csv -a ! -e -.txt
check "-o -: the final line says stdout ($(cat err.txt))" \
  grep -q "^accelsearch: [0-9]* sifted candidates from 4 DM trials (the CSV table on stdout)$" err.txt
check "-o - | head -1: exit 0 and the header" \
  bash -c "set -o pipefail; '$bin/accelsearch' -q --device cpu --fftw estimate -zmax 0 -numharm 2 d_DM*.dat -o - |
    head -1 | grep -q '^file,candnum,'"
# --sift -o -: the same table.
acc -q --sift d_DM*_ACCEL_0 -o - >sift.csv
check "--sift -o -: the table on stdout is c.csv" cmp -s sift.csv c.csv
check "--sift -o -: no file named -.csv or -.txt" test ! -e -.csv -a ! -e -.txt
# A stream's trials are written as <prefix>_DM<dm>_ACCEL_*: -o - is refused before reading it.
"$bin/dedisp" -q f.fil --dm 28:31:1 --format tim-stream -o s.tims
expect_exit 2 "accelsearch: error: -o -: a stream's DM trials are written to <prefix>_DM<dm>_ACCEL_<zmax> files" \
  sh -c "'$bin/accelsearch' -zmax 0 - -o - <s.tims"
check "stream -o -: no outputs ($(ls -A | grep -- '^-'))" test -z "$(ls -A | grep -- '^-')"

# One input with candidates: one line, how many and where; -q: nothing.
acc x.tim >out.txt 2>err.txt
check "one input: its line ($(cat err.txt))" grep -q "^accelsearch: [1-9][0-9]* candidates\? in x_ACCEL_0 (.cand)$" err.txt
check "one input: one line ($(cat err.txt))" test "$(wc -l <err.txt)" = 1
check "one input: nothing on stdout" test ! -s out.txt
acc -q x.tim >out.txt 2>err.txt
check "one input -q: nothing said ($(cat err.txt))" test ! -s err.txt

# Many trials and nothing found: the final line alone; -v names each trial.
mkdir none && cp d_DM*.dat d_DM*.inf none/ && cd none || exit 1
acc -sigma 1000 d_DM*.dat -o n 2>err.txt
check "many trials: no per-trial line ($(cat err.txt))" bash -c "! grep -q 'no candidates' err.txt"
check "many trials: the final line ($(cat err.txt))" grep -q "0 sifted candidates from 4 DM trials in n.csv and n.txt" err.txt
acc -v -sigma 1000 d_DM*.dat -o n 2>err.txt
check "many trials -v: each trial named ($(grep -c 'no candidates' err.txt))" \
  test "$(grep -Ec 'd_DM(28|29|30|31).00.dat: no candidates above sigma 1000.00$' err.txt)" = 4
# A stream's trials are named by record and DM.
acc -v -sigma 1000 - -o s <../s.tims 2>err.txt
check "stream -v: the trial's DM named ($(grep 'no candidates' err.txt))" \
  grep -q "<stdin>:[0-9]* (DM 29.00): no candidates above sigma 1000.00$" err.txt
cd ..

[ $fail -eq 0 ] && echo PASS
exit $fail
