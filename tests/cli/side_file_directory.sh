#!/bin/bash
# SPDX-License-Identifier: MIT
# A directory given where a side file is read (QA pass 16, P12): dedisp -i (SIGPROC ignore file),
# --kill-chans and accelsearch --zaplist said nothing and exited 0, with nothing ignored or zapped
# (std::ifstream reads a directory as an empty file). Now: an error naming the directory, status
# 1, no output; and a .inf that never ends (a FIFO, /dev/zero) is refused after a bounded read.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp accelsearch

"$bin/fake-pulsar" -q --nchans 16 --nbits 8 --nsamples 8192 --period 20 --dm 5 --fold-snr 20 --seed 4 -o f.fil
"$bin/dedisp" -q f.fil -d 5 -o t.tim
mkdir dir

expect_exit 1 "dir: is a directory, not a file" "$bin/dedisp" --device cpu f.fil --dm 5 -i dir -o out_i
check "dedisp -i dir: no output" test ! -e out_i_DM5.00.dat
expect_exit 1 "dir: is a directory, not a file" "$bin/dedisp" --device cpu f.fil --dm 5 --kill-chans dir -o out_k
expect_exit 1 "dir: is a directory, not a file" "$bin/accelsearch" --device cpu --zmax 0 t.tim --zaplist dir -o z
check "accelsearch --zaplist dir: no candidates file" test ! -e z.csv

# Files still work.
printf '3\n' >ignore.txt
check "dedisp -i file runs" "$bin/dedisp" -q --device cpu f.fil --dm 5 -i ignore.txt -o out_ok
printf '50 1\n' >birds
check "accelsearch --zaplist file runs" "$bin/accelsearch" -q --device cpu --zmax 0 t.tim --zaplist birds -o zok

# A .dat whose .inf is /dev/zero: refused from a bounded read (it grew until memory ran out).
mkdir z
"$bin/dedisp" -q f.fil --dm 5 --format dat -o z/a
rm z/a_DM5.00.inf && ln -s /dev/zero z/a_DM5.00.inf
expect_exit 1 "too large for a PRESTO .inf" timeout 60 "$bin/accelsearch" --device cpu --zmax 0 z/a_DM5.00.dat -o z/o
# The same for the .inf beside a .fft (read whole, unbounded, before its values were parsed).
head -c 8192 /dev/zero >z/b.fft && ln -s /dev/zero z/b.inf
expect_exit 1 "z/b.inf: holds more than .* too large for a PRESTO .inf" \
  bash -c "$(address_limit 2000000) && timeout 60 '$bin/accelsearch' --device cpu --zmax 0 z/b.fft -o z/o"
exit $fail
