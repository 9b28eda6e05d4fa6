#!/bin/bash
# SPDX-License-Identifier: MIT
# NaN and Inf in a 32-bit filterbank: dedisp still writes its outputs but warns once, naming the
# file, the count and the first (sample, channel), and says what to do; killed channels are not
# counted (QA pass 20, finding 4: it said nothing, and accelsearch refused each trial later).
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp

"$bin/fake-pulsar" -q --nchans 16 --nbits 32 --nsamples 4096 --seed 4 -o clean.fil
# A NaN at sample 100, channel 5 and an Inf at sample 2000, channel 7 (float32 little-endian).
hdr=$(( $(stat -c %s clean.fil) - 4096 * 16 * 4 ))
cp clean.fil bad.fil
printf '\x00\x00\xc0\x7f' | dd of=bad.fil bs=1 seek=$(( hdr + (100 * 16 + 5) * 4 )) conv=notrunc status=none
printf '\x00\x00\x80\x7f' | dd of=bad.fil bs=1 seek=$(( hdr + (2000 * 16 + 7) * 4 )) conv=notrunc status=none

mkdir -p out
check "dedisp runs on it" sh -c "'$bin/dedisp' bad.fil --dm 0:20:10 -o out/x 2>err.txt"
check "the warning names the file, the count and the first value" \
  grep -q "bad.fil: 2 input values are not finite (NaN or Inf; the first at sample 100, channel 5)" err.txt
check "and the way out" grep -q -- "--kill-chans" err.txt
check "the outputs are there" test -s out/x_DM10.00.dat
check "a clean file: no warning" sh -c "'$bin/dedisp' clean.fil --dm 0:20:10 -o out/c 2>err2.txt && ! grep -q 'not finite' err2.txt"
check "channels killed are not counted" sh -c "'$bin/dedisp' bad.fil --dm 0:20:10 --kill-chans 5 -o out/k 2>err3.txt"
check "one left (channel 7)" grep -q "1 input value is not finite (NaN or Inf; the first at sample 2000, channel 7)" err3.txt
check "--start counts from the file's first sample" sh -c "'$bin/dedisp' bad.fil -d 10 --start 50 -o out/s.dat 2>err4.txt"
check "sample 100 of the file" grep -q "the first at sample 100, channel 5" err4.txt
exit $fail
