#!/bin/bash
# SPDX-License-Identifier: MIT
# -zmax above ~14900 (templates wider than 2^15 points) on the CPU: the automatic FFT length
# looked no further than 2^16 and gave 0, so the run ended in "FFT length 0 must be at least
# twice the widest template". Now the shortest length that holds the templates is taken, and
# such a search is refused for its memory (16000 z rows of 2^17-point templates: 16 GB) with the
# tools' message, or runs where the memory is there.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp accelsearch
skip_under_asan "no address-space limit can stop the 16 GB of templates"

"$bin/fake-pulsar" -q --nchans 16 --tsamp 256 --tobs 60 --period 50.3 --dm 20 --nbits 8 --seed 3 -o g.fil
"$bin/dedisp" -q g.fil -d 20 --even -o g.dat
bash -c "ulimit -v 4000000 && exec '$bin/accelsearch' --device cpu -zmax 16000 -numharm 1 g.dat" \
  >out.txt 2>err.txt
rc=$?
check "no 'FFT length 0': $(cat err.txt)" bash -c "! grep -q 'FFT length 0' err.txt"
if [ "$rc" != 0 ]; then
  check "status 1 and the memory named (status $rc): $(cat err.txt)" \
    bash -c "[ $rc = 1 ] && grep -q 'memory' err.txt"
fi
exit $fail
