#!/bin/bash
# SPDX-License-Identifier: MIT
# A dedisp run that fails part-way through writing its outputs (here: one DM trial's .inf is a
# link to /dev/full, a full disk) leaves none of its files under their final names: no partial
# set of DM trials, no .dat without its .inf (QA pass 16, P16). With every file open at once, and
# with the series spooled and written one after the other (more files than it may open).
# A run on stdin refused once the data is read (a DM whose delay the data cannot fill, known only
# at its end) writes nothing to a shell redirect: no header-only .tim or DM-time filterbank
# (QA pass 19).
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

# stdin: the length is known only at the end, so the refusal comes after the reading.
for fmt in tim fil; do
  expect_exit 2 "DM 50000 needs more than .* samples .* of data to fill its delay" \
    bash -c "cat in.fil | '$bin/dedisp' - --device cpu -d 50000 --format $fmt"
  check "$fmt: nothing on stdout behind a redirect ($(wc -c <out.stdout) bytes)" test ! -s out.stdout
  # The same with a DM the data fills: the header comes with the data.
  check "$fmt: a DM the data fills" bash -c "cat in.fil | '$bin/dedisp' - --device cpu -d 50 --format $fmt >ok.$fmt"
  check "$fmt: its header and samples" bash -c "'$bin/header' ok.$fmt -nsamples | grep -qx '[1-9][0-9]*'"
done

exit $fail
