#!/bin/bash
# SPDX-License-Identifier: MIT
# A thread the system will not start (QA pass 17, D7): with 3 GB stacks in 8 GB of address space
# the second thread has no room, and accelsearch ended with SIGABRT ("terminate called without an
# active exception", status 134: a started std::thread destroyed while the error unwound). Now the
# threads started are stopped and joined and the error says what failed, status 1.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp accelsearch
skip_under_asan "it needs terabytes of address space (no ulimit -v under it)"

"$bin/fake-pulsar" -q --nchans 16 --tsamp 256 --tobs 10 --period 50.3 --dm 20 --nbits 8 --seed 3 -o f.fil
"$bin/dedisp" -q f.fil -d 20 --even -o s.dat
( ulimit -s 3000000 && ulimit -v 8000000 && exec "$bin/accelsearch" --device cpu --ncpus 2 -zmax 0 s.dat ) \
  >out.txt 2>err.txt
rc=$?
if [ "$rc" = 0 ]; then
  echo "skipped: every thread started under these limits here (nothing to test): $(cat err.txt)"
  exit 77
fi
check "exit status 1 (not $rc): $(cat err.txt)" test "$rc" = 1
# Ours, or libgomp's own message when its worker is the thread refused.
check "the error says a thread could not be started: $(cat err.txt)" \
  grep -q "accelsearch: error: cannot start a thread\|Thread creation failed" err.txt
check "no abort" bash -c "! grep -q 'terminate called' err.txt"

# dedisp under the same limits: its writer team, read-ahead and file openers start threads too.
mkdir o
( ulimit -s 3000000 && ulimit -v 8000000 && exec "$bin/dedisp" --device cpu f.fil --dm 0:40:1 -o o/x ) \
  >out.txt 2>err.txt
rc=$?
if [ "$rc" != 0 ]; then
  check "dedisp: exit status 1 (not $rc): $(cat err.txt)" test "$rc" = 1
  check "dedisp: the error says a thread could not be started: $(cat err.txt)" \
    grep -q "dedisp: error: cannot start a thread\|Thread creation failed" err.txt
  check "dedisp: no file left: $(ls o)" test -z "$(ls -A o)"
fi
exit $fail
