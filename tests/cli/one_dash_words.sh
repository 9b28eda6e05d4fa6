#!/bin/bash
# SPDX-License-Identifier: MIT
# A one-dash word a tool does not know is an unknown option (status 2), never a one-letter option
# with the rest glued on as its value (QA pass 18): SIGPROC's `header f.fil -obsdb` wrote a copy
# of the file named "bsdb" (-o bsdb) and said nothing; `dedisperse f.fil -old` wrote its series
# to a file "ld". Glued numbers (-d30, -B8), values such as -inf, and -vv still work.
# An unknown two-dash option is named as such too, also where CLI11 says something else (QA pass
# 19: `tune --bogus` said "A subcommand is required", `header --bogus` "The following argument
# was not expected").
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar header dedisp tune

"$bin/fake-pulsar" -q --nchans 32 --fch1 1500 --foff -1 --nbits 8 --tsamp 64 --nsamples 8000 --period 5 \
  --dm 30 --seed 2 -o f.fil
expect_exit 2 "unknown option '-obsdb' (a one-letter option takes its value after a space)" \
  "$bin/header" f.fil -obsdb
check "header -obsdb wrote 'bsdb'" test ! -e bsdb
expect_exit 2 "unknown option '-old'" "$bin/dedisp" f.fil -d 30 -old
check "dedisp -old wrote 'ld'" test ! -e ld
expect_exit 2 "unknown option '-icliplow'" "$bin/dedisp" f.fil -d 30 -icliplow
"$bin/dedisp" -q f.fil -d 30 >spaced.tim
"$bin/dedisp" -q f.fil -d30 >glued.tim
check "dedisp -d30 differs from -d 30" cmp -s spaced.tim glued.tim
"$bin/dedisp" -vv f.fil -d 30 -o vv.tim 2>vv.log
check "dedisp -vv failed: $(head -3 vv.log)" cmp -s spaced.tim vv.tim
expect_exit 2 "-d: -inf is not a finite number" "$bin/dedisp" f.fil -d -inf -o x.tim
check "header -tsamp (SIGPROC's flag) no longer works" test "$("$bin/header" f.fil -tsamp)" = 64.00000
expect_exit 2 "unknown option '--bogus'" "$bin/tune" --bogus
expect_exit 2 "unknown option '--bogus'" "$bin/tune" run --bogus
expect_exit 2 "unknown option '--bogus'" "$bin/header" --bogus f.fil
expect_exit 2 "unknown option '--bogus'" "$bin/dedisp" f.fil -d 30 --bogus=3
# A missing input or subcommand says what to give.
expect_exit 2 "no subcommand given: one of dedisp, accel, ppf" "$bin/tune"
expect_exit 2 "no input given: SIGPROC filterbank file (or search-mode PSRFITS file), or - for stdin" bash -c "'$bin/dedisp' </dev/null"
# An option of one value given twice takes the last: repeated_options.sh.
# A stray word is taken as a second input file (several files are one observation), and named.
expect_exit 1 "extra: cannot open for reading" "$bin/dedisp" f.fil -d 30 extra
exit $fail
