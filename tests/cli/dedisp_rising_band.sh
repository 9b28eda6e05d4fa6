#!/bin/bash
# SPDX-License-Identifier: MIT
# A band in rising order (foff > 0): .tim and tim-stream take the presto delay model by default
# (SIGPROC's needs channel 0 the highest), so `dedisp - --format tim-stream | accelsearch -` runs
# on such files; asking for the sigproc model is refused at every DM above 0, naming channel 1
# (QA pass 20, finding 3: the default refused them, and DM 0.5 passed where DM 1 failed).
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp header

"$bin/fake-pulsar" -q --nchans 64 --nbits 8 --fch1 1374 --foff -2 --nsamples 8192 --seed 3 -o down.fil
"$bin/header" down.fil --set fch1=1248 --set foff=2 -o up.fil

check "tim of a rising band, default model" "$bin/dedisp" -q up.fil -d 30 -o up.tim
check "the same with --delay-model presto" "$bin/dedisp" -q up.fil -d 30 --delay-model presto -o up-presto.tim
check "the default is presto's for it" cmp -s up.tim up-presto.tim
check "tim-stream of a rising band" sh -c "'$bin/dedisp' -q up.fil --dm 0:30:10 --format tim-stream > s.ts"
check "the stream holds the trials" test -s s.ts
for dm in 0.5 1 30; do
  expect_exit 2 "channel 1 (1250 MHz) is above the reference frequency" \
    "$bin/dedisp" up.fil -d "$dm" --delay-model sigproc -o x.tim
done
check "a falling band keeps SIGPROC's model for tim" sh -c "'$bin/dedisp' -v down.fil -d 30 -o d.tim 2>&1 | grep -q 'sigproc model'"
exit $fail
