#!/bin/bash
# SPDX-License-Identifier: MIT
# A dedisp run that fails part-way through writing its outputs (here: one DM trial's .inf is a
# link to /dev/full, a full disk) leaves none of its files under their final names: no partial
# set of DM trials, no .dat without its .inf (QA pass 16, P16). With every file open at once, and
# with the series spooled and written one after the other (more files than it may open).
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp
[ -c /dev/full ] || { echo "skipped: no /dev/full here"; exit 77; }

"$bin/fake-pulsar" -q --nchans 64 --fch1 1500 --foff -1 --nbits 8 --tsamp 64 --nsamples 20000 --seed 3 -o in.fil

for mode in open spooled; do
  rm -rf out && mkdir out
  ln -s /dev/full out/d_DM12.00.inf
  limit=""
  [ "$mode" = spooled ] && limit="ulimit -n 100 && "
  expect_exit 1 "dedisp: error: out/d_DM12.00.inf: .*No space left on device" \
    bash -c "$limit'$bin/dedisp' in.fil --device cpu --dm 0:20:1 -o out/d"
  check "$mode: only the link is left: $(ls -A out | tr '\n' ' ')" test "$(ls -A out)" = d_DM12.00.inf
  check "$mode: the link is kept" test -L out/d_DM12.00.inf
  # The same run without the full disk writes every file.
  rm out/d_DM12.00.inf
  check "$mode: a run that succeeds" bash -c "$limit'$bin/dedisp' in.fil --device cpu --dm 0:20:1 -o out/d"
  check "$mode: 21 .dat and 21 .inf" test "$(ls out | grep -c '\.dat$')/$(ls out | grep -c '\.inf$')" = 21/21
done

exit $fail
