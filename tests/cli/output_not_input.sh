#!/bin/bash
# SPDX-License-Identifier: MIT
# An output that is the run's own input (the same name, a symbolic link to it, a hard link) is
# refused before anything is written, naming the output, status 2, and the input is left byte for
# byte (QA pass 20, finding 1: `dedisp obs.fil --format fil -o obs.fil` replaced the observation
# with its DM-time plane, status 0). header --set -o edits its input in place on purpose.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp ppf header

"$bin/fake-pulsar" -q --nchans 16 --nbits 8 --nsamples 4096 --seed 2 -o obs.fil
"$bin/fake-pulsar" -q --voltages --freq 1400 --bw 1 --npol 2 --tobs 0.05 --seed 1 -o v.dada
cp obs.fil obs.orig
cp v.dada v.orig
ln -s obs.fil link.fil
ln obs.fil hard.fil

expect_exit 2 "obs.fil: is this run's input" "$bin/dedisp" obs.fil --dm 0:10:1 --format fil -o obs.fil
expect_exit 2 "obs.fil: is this run's input" "$bin/dedisp" obs.fil -d 0 -o obs.fil
expect_exit 2 "obs.fil: is this run's input" "$bin/dedisp" link.fil --dm 0:10:1 --format fil -o obs.fil
expect_exit 2 "hard.fil: is this run's input" "$bin/dedisp" obs.fil --dm 0:10:1 --format fil -o hard.fil
check "dedisp left its input as it was" cmp -s obs.fil obs.orig
expect_exit 2 "v.dada: is this run's input" "$bin/ppf" --device cpu -C 16 --complex v.dada -o v.dada
expect_exit 2 "v.dada: is this run's input" "$bin/ppf" --device cpu -C 16 v.dada -o v.dada
check "ppf left its input as it was" cmp -s v.dada v.orig
check "no temporaries left" sh -c '! ls -a | grep -q "\.tmp\."'

# Other outputs still work, and header --set may replace its own input.
check "dedisp to another name" "$bin/dedisp" -q obs.fil --dm 0:10:1 --format fil -o plane.fil
check "ppf to another name" "$bin/ppf" -q --device cpu -C 16 v.dada -o v.fil
check "header --set in place" "$bin/header" obs.fil --set source_name=J0000+0000 -o obs.fil
check "header --set changed the file" sh -c "'$bin/header' obs.fil -source_name | grep -q J0000+0000"
exit $fail
