#!/bin/bash
# SPDX-License-Identifier: MIT
# Unsigned count options given a negative value: CLI11 took "-1" as 2^64 - 1 (dedisp --nsamps -1
# read everything with a warning about 18446744073709551615 samples, --start -1 named a wrapped
# count, ppf --gulp -1 failed in the C++ library). Now a usage error (status 2) naming the option.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" dedisp ppf

for opt in --nsamps --gulp --start; do
  expect_exit 2 "dedisp: error: $opt: -1 is negative" "$bin/dedisp" in.fil --dm 5 "$opt" -1 -o x
done
for opt in --gulp --scale-rows; do
  expect_exit 2 "ppf: error: $opt: -1 is negative" "$bin/ppf" in.raw -C 16 --nbits 8 "$opt" -1 -o x.fil
done
check "nothing written: $(ls -A)" test -z "$(ls -A | grep -v '^err.txt$\|^out.stdout$')"
exit $fail
