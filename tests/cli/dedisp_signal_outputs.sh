#!/bin/bash
# SPDX-License-Identifier: MIT
# A signal while dedisp renames its completed .dat/.inf files into place leaves all of them or
# none (QA pass 16 leftovers): the handler removed only the temporaries, so a SIGINT in that
# phase left some DM trials under their final names and not the others. The renamed files are
# now removed too until the last is in place (temp_files::OutputSet). The moment a signal lands
# depends on the machine, so the run is timed first and then interrupted at 16 moments from 0.4
# to 1.6 times its time (it completes its files in its last third or so); whatever the moment,
# the set is whole (the run finished, or the signal came after the last rename) or absent, never
# partial. The deterministic cases are the unit tests 'output set: ...'
# (tests/unit/io/test_output_set.cpp).
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp
set -m  # without job control a script's background commands ignore SIGINT

"$bin/fake-pulsar" -q --nchans 64 --nbits 8 --tobs 2 --seed 2 -o obs.fil
run=("$bin/dedisp" obs.fil --dm 0:250:0.5 -o kd)  # 501 DM trials: 1002 files
"${run[@]}" -q
check "the uninterrupted run writes 1002 files" test "$(find . -maxdepth 1 -name 'kd_*' | wc -l)" = 1002
rm -f kd_*
# Timed as the runs below go: in the background, after the files of a run were removed.
start=$(date +%s%N)
"${run[@]}" -q &
{ wait $!; } 2>/dev/null
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
rm -f kd_*

whole=0 none=0 renaming=0
for k in $(seq 0 15); do
  delay_ms=$((elapsed_ms * 2 / 5 + elapsed_ms * k * 6 / 75))  # 0.4 to 1.6 times the run's time
  "${run[@]}" -q 2>err.txt &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  # Final names present when the signal is sent: the run was renaming its files (or done).
  [ -n "$(find . -maxdepth 1 -name 'kd_*' -print -quit)" ] && renaming=$((renaming + 1))
  kill -INT "$pid" 2>/dev/null
  { wait "$pid"; } 2>/dev/null
  rc=$?
  finals=$(find . -maxdepth 1 -name 'kd_*' | wc -l)
  temps=$(find . -maxdepth 1 -name '.kd_*.tmp.*' | wc -l)
  check "signal after $delay_ms ms: no temporaries left ($temps)" test "$temps" = 0
  case "$rc:$finals" in
    0:1002 | 130:1002) whole=$((whole + 1)) ;;
    130:0) none=$((none + 1)) ;;
    *) check "signal after $delay_ms ms: status $rc with $finals of 1002 files (a partial set)" false ;;
  esac
  rm -f kd_*
done
echo "16 interrupted runs (a run takes $elapsed_ms ms): $whole left every file, $none left none;" \
  "$renaming had final files when the signal was sent"
exit $fail
