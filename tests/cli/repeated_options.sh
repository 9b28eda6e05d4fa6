#!/bin/bash
# SPDX-License-Identifier: MIT
# An option of one value given more than once takes the last value, with one warning line, as
# SIGPROC's fake/dedisperse and PRESTO's clig parsers do (QA pass 20, finding 10: every tool
# refused it, "--tsamp given 2 times: it takes one value; give it once", so scripts that append
# overrides to a default option string, `fake $DEFAULTS -nbits 8`, failed). Options of many
# values (header --set, fake-pulsar --psr) keep every one; -q keeps the warning quiet; a value
# given before the last is not checked.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar header dedisp accelsearch ppf tune

defaults="-nchans 32 -fch1 1500 -foff -1 -nbits 4 -tsamp 256 -nsamples 40000 -period 5 -dm 30 -snrpeak 1 -seed 2"
# shellcheck disable=SC2086 # the defaults are split on purpose, as in such scripts
"$bin/fake-pulsar" $defaults -nbits 8 -tsamp 64 -o f.fil 2>fake.err
check "fake-pulsar with an appended -nbits/-tsamp failed: $(cat fake.err)" test -s f.fil
check "the last -nbits (8) is used: $("$bin/header" f.fil -nbits)" test "$("$bin/header" f.fil -nbits)" = 8
check "the last -tsamp (64) is used: $("$bin/header" f.fil -tsamp)" test "$("$bin/header" f.fil -tsamp)" = 64.00000
check "fake-pulsar warns once per repeated option: $(cat fake.err)" test "$(wc -l <fake.err)" = 2
check "fake-pulsar's warning: $(cat fake.err)" grep -qx \
  "fake-pulsar: warning: --tsamp given 2 times; the last (64) is used, as SIGPROC and PRESTO do" fake.err
# shellcheck disable=SC2086
"$bin/fake-pulsar" $defaults -nbits 8 -tsamp 64 -q -o q.fil 2>q.err
check "-q keeps the warning quiet: $(cat q.err)" test ! -s q.err
check "-q gives the same file" cmp -s f.fil q.fil

"$bin/dedisp" f.fil -d 30 -d 40 -o last.tim 2>dd.err
"$bin/dedisp" -q f.fil -d 40 -o once.tim
check "dedisp -d 30 -d 40 is -d 40: $(cat dd.err)" cmp -s last.tim once.tim
check "dedisp's warning: $(cat dd.err)" grep -qx \
  "dedisp: warning: -d given 3 times; the last (40) is used, as SIGPROC and PRESTO do" \
  <("$bin/dedisp" f.fil -d 20 -d 30 -d40 -o x.tim 2>&1)
# Only the value used is checked: one before it is dropped, as SIGPROC and PRESTO drop it.
"$bin/dedisp" -q f.fil -d nan -d 40 -o dropped.tim
check "dedisp -d nan -d 40 is -d 40" cmp -s dropped.tim once.tim
expect_exit 2 "dedisp: error: -d: nan is not a finite number" "$bin/dedisp" f.fil -d 40 -d nan -o x2.tim
check "the refusal gives no warning: $(cat err.txt)" sh -c "! grep -q warning err.txt"
"$bin/fake-pulsar" -q -nchans 8 -nsamples 100 -seed -1 -seed 5 -o s5.fil
"$bin/fake-pulsar" -q -nchans 8 -nsamples 100 -seed 5 -o s5b.fil
check "fake-pulsar -seed -1 -seed 5 is -seed 5" cmp -s s5.fil s5b.fil

"$bin/dedisp" -q f.fil -d 30 -o m.tim
"$bin/accelsearch" -zmax 10 -numharm 1 -zmax 0 m.tim 2>acc.err
check "accelsearch -zmax 10 ... -zmax 0 searched z 0: $(cat acc.err)" test -e m_ACCEL_0 -a ! -e m_ACCEL_10
check "accelsearch's warning: $(cat acc.err)" grep -q "accelsearch: warning: --zmax given 2 times; the last (0)" acc.err

# header: a repeated -o writes the last; repeated --set keeps every one.
"$bin/header" f.fil --set source_name=A --set telescope_id=4 -o a.fil -o b.fil 2>hd.err
check "header -o a.fil -o b.fil wrote b.fil only" test -e b.fil -a ! -e a.fil
check "header --set twice sets both: $("$bin/header" b.fil -source_name -telescope_id | tr '\n' ' ')" \
  test "$("$bin/header" b.fil -source_name -telescope_id | tr '\n' ' ')" = "A 4 "
check "header's warning: $(cat hd.err)" grep -q "header: warning: --output given 2 times; the last (b.fil)" hd.err
check "header --set gives no warning: $(cat hd.err)" test "$(wc -l <hd.err)" = 1

# fake-pulsar --psr twice: two pulsars.
"$bin/fake-pulsar" -q -nchans 32 -fch1 1500 -foff -1 -nbits 8 -tsamp 64 -nsamples 8000 -seed 2 \
  --psr period=5,dm=10,snr=20 --psr period=7,dm=20,snr=20 --report r.json -o two.fil
check "fake-pulsar --psr twice injects two pulsars" test "$(grep -c '"period' r.json)" -ge 2

# ppf: a refused value is the last one given, named as given.
expect_exit 2 "--fwidth: 100 is out of range" "$bin/ppf" -C 16 --fwidth 8 --fwidth 100 --show-filter
check "ppf -C 16 --fwidth 100 --fwidth 8 is taken" sh -c "'$bin/ppf' -q -C 16 --fwidth 100 --fwidth 8 --show-filter | grep -q 'fwidth 8'"
# tune's subcommands too.
expect_exit 2 "tune: warning: --budget given 2 times; the last (2) is used" "$bin/tune" dedisp --budget 1 --budget 2
exit $fail
