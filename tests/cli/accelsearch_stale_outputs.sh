#!/bin/bash
# SPDX-License-Identifier: MIT
# accelsearch re-run in the same directory: a run that finds nothing writes no _ACCEL or .cand
# file (as PRESTO) and removes those an earlier run left under the same names, saying so (QA
# pass 15: the earlier run's candidates stayed, and were read as this run's); a .txtcand of
# that name beside a time series' outputs goes too. A run that finds candidates rewrites them.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp accelsearch

"$bin/fake-pulsar" -q --nchans 16 --nbits 8 --tsamp 64 --nsamples 65536 --fch1 1400 --foff -10 --period 5.3 \
  --snrpeak 1 | "$bin/dedisp" - -q -d 0 >x.tim

"$bin/accelsearch" -zmax 0 -numharm 2 x.tim >out.txt 2>err.txt
rc=$?
check "first run: exit $rc ($(cat err.txt))" test $rc -eq 0
check "first run: the pulsar's candidates" test -s x_ACCEL_0 -a -s x_ACCEL_0.cand

# Nothing above sigma 1000: the first run's files are removed, and the message says so.
expect_exit 0 "x.tim: no candidates above sigma 1000.00; removed x_ACCEL_0, x_ACCEL_0.cand of an earlier run" \
  "$bin/accelsearch" -zmax 0 -numharm 2 -sigma 1000 x.tim
check "no _ACCEL file left from the first run" test ! -e x_ACCEL_0
check "no .cand file left from the first run" test ! -e x_ACCEL_0.cand
check "the .inf stays" test -s x.inf

# Again: nothing to remove, nothing said about it.
expect_exit 0 "x.tim: no candidates above sigma 1000.00$" "$bin/accelsearch" -zmax 0 -numharm 2 -sigma 1000 x.tim

# A .txtcand of this name is no output of a time series' search: removed, said, and the
# candidates written.
echo stale >x_ACCEL_0.txtcand
expect_exit 0 "x.tim: removed x_ACCEL_0.txtcand of an earlier run" "$bin/accelsearch" -zmax 0 -numharm 2 x.tim
check "the stale .txtcand is gone" test ! -e x_ACCEL_0.txtcand
check "the candidates are written" test -s x_ACCEL_0 -a -s x_ACCEL_0.cand

# -q: the files still go, quietly.
"$bin/accelsearch" -q -zmax 0 -numharm 2 -sigma 1000 x.tim >out.txt 2>err.txt
rc=$?
check "-q: exit $rc" test $rc -eq 0
check "-q: the files are removed" test ! -e x_ACCEL_0 -a ! -e x_ACCEL_0.cand
check "-q: nothing said ($(cat err.txt))" test ! -s err.txt

[ $fail -eq 0 ] && echo PASS
exit $fail
