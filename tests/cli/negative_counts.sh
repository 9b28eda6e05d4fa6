#!/bin/bash
# SPDX-License-Identifier: MIT
# Unsigned count options given a negative value: CLI11 took "-1" as 2^64 - 1 (dedisp --nsamps -1
# read everything with a warning about 18446744073709551615 samples, --start -1 named a wrapped
# count, ppf --gulp -1 failed in the C++ library; fake-pulsar -seed -1 became seed
# 18446744073709551615, QA pass 20). Now a usage error (status 2) naming the option.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" dedisp ppf fake-pulsar

for opt in --nsamps --gulp --start; do
  expect_exit 2 "dedisp: error: $opt: -1 is negative" "$bin/dedisp" in.fil --dm 5 "$opt" -1 -o x
done
for opt in --gulp --scale-rows; do
  expect_exit 2 "ppf: error: $opt: -1 is negative" "$bin/ppf" in.raw -C 16 --nbits 8 "$opt" -1 -o x.fil
done
for opt in -seed --seed; do
  expect_exit 2 "fake-pulsar: error: --seed: -1 is negative: give a whole number, 0 or more" \
    "$bin/fake-pulsar" -nchans 8 -nsamples 100 "$opt" -1 -o x.fil
done
expect_exit 2 "fake-pulsar: error: --seed: -5 is negative" "$bin/fake-pulsar" -nchans 8 -nsamples 100 --seed=-5 -o x.fil
"$bin/fake-pulsar" -v -nchans 8 -nsamples 100 -seed 18446744073709551615 -o max.fil 2>max.err
check "the largest seed is still taken: $(cat max.err)" grep -q 18446744073709551615 max.err
rm -f max.fil max.err
check "nothing written: $(ls -A)" test -z "$(ls -A | grep -v '^err.txt$\|^out.stdout$')"
exit $fail
