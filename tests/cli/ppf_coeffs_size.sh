#!/bin/bash
# SPDX-License-Identifier: MIT
# ppf --coeffs reads at most what C x T coefficients can need (QA pass 16): a file that never
# ends (/dev/zero, a FIFO) was read until memory ran out; now it is refused after 64 bytes a
# coefficient and 1 MiB, naming the file and the sizes, with no output left behind.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" ppf

raw="--format ci8 --fcentre 1400 --bw 400 --tstart 60000"
head -c 1280 /dev/urandom >d.dat
# 16 x 8 = 128 coefficients: 512 bytes of float32, or at most 128 x 64 + 1048576 bytes of text.
expect_exit 1 "/dev/zero: too large for --coeffs: 128 coefficients .* exactly 512 bytes as float32, or at most 1056768 bytes as text; the file holds more than 1056768 bytes" \
  bash -c "$(address_limit 2000000) && timeout 60 '$bin/ppf' --device cpu -C 16 -T 8 --coeffs /dev/zero $raw d.dat -o out.fil"
check "--coeffs /dev/zero: no output" test ! -e out.fil
mkfifo fifo
timeout 70 sh -c 'yes 1 >fifo' 2>/dev/null &
expect_exit 1 "fifo: too large for --coeffs" \
  bash -c "$(address_limit 2000000) && timeout 60 '$bin/ppf' --device cpu -C 16 -T 8 --coeffs fifo $raw d.dat -o out.fil"
# A regular file too large is refused from its size.
head -c 1056769 /dev/zero >big.bin
expect_exit 1 "big.bin: too large for --coeffs: .* the file has 1056769 bytes" \
  "$bin/ppf" --device cpu -C 16 -T 8 --coeffs big.bin $raw d.dat -o out.fil
# A float32 file of exactly 512 bytes still works.
python3 -c "import struct; open('c.bin','wb').write(struct.pack('<128f',*([1.0]*128)))"
check "--coeffs of 512 float32 bytes runs" "$bin/ppf" -q --device cpu -C 16 -T 8 --coeffs c.bin $raw d.dat -o ok.fil
check "--coeffs of 512 float32 bytes: output" test -s ok.fil
exit $fail
