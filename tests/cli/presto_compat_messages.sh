#!/bin/bash
# SPDX-License-Identifier: MIT
# Through the PRESTO/SIGPROC compatibility shims (Makefile.presto-compat), the tools' own errors
# and warnings name the command the user ran, as the shims' messages do
# ("prepsubband (fastpsr): error: ..."), not the tool underneath ("dedisp: error: ...", which a
# user who typed prepsubband has never heard of). The tools run directly keep their names.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp
command -v make >/dev/null || { echo "skipped: make is not installed"; exit 77; }

make -s -C "$FASTPSR_SOURCE" -f Makefile.presto-compat install BINDIR="$bin" COMPATDIR="$tmp/compat" >/dev/null
export PATH="$tmp/compat:$PATH"

"$bin/fake-pulsar" -q --nchans 16 --nbits 8 --nsamples 4096 --seed 3 -o f.fil
# A filterbank cut inside its last sample: the tools warn about it.
head -c $(($(stat -c %s f.fil) - 5)) f.fil >cut.fil

# Errors: a missing input, and a usage error of the tool underneath.
expect_exit 1 "^prepsubband (fastpsr): error: missing.fil: cannot open" prepsubband -nobary -o ps missing.fil
check "prepsubband: no 'dedisp:' in the message" sh -c "! grep -q 'dedisp' err.txt"
expect_exit 1 "^prepdata (fastpsr): error: missing.fil: cannot open" prepdata -nobary -o pd missing.fil
expect_exit 1 "^dedisperse (fastpsr): error: missing.fil: cannot open" dedisperse missing.fil -d 5
expect_exit 2 "^dedisperse (fastpsr): error: -B: 7 not in" dedisperse f.fil -d 5 -B 7
check "dedisperse -B 7: the help line names dedisperse" grep -q "^Run 'dedisperse --help'" err.txt

# The flags the shims translate are named as the user typed them (FASTPSR_FLAG_NAMES), not as
# dedisp spells them; flags the user did not type are never renamed into theirs.
no_dedisp_flag() { check "$1: dedisp's $2 not named" sh -c "! grep -q -- '$2' err.txt"; }
expect_exit 2 "^prepsubband (fastpsr): error: -numout: 0 is out of range" prepsubband -numout 0 -nobary -o ps f.fil
no_dedisp_flag "prepsubband -numout 0" --numout
expect_exit 2 "^prepsubband (fastpsr): error: -dmstep: 0 is out of range" prepsubband -dmstep 0 -nobary -o ps f.fil
expect_exit 2 "^dedisperse (fastpsr): error: -b '0': give a number of subbands" dedisperse f.fil -d 5 -b 0
no_dedisp_flag "dedisperse -b 0" --subbands
expect_exit 2 "^prepsubband (fastpsr): error: -subdm -5: DMs are not negative" prepsubband -sub -subdm -5 -nobary -o ps f.fil
# -nsub within PRESTO's 1 to 4096 (0 ran the channels one by one).
for n in 0 4097 x; do
  expect_exit 2 "^prepsubband (fastpsr): error: -nsub $n: give 1 to 4096 subbands" prepsubband -nsub $n -nobary -o ps f.fil
done
check "prepsubband -nsub 0: nothing written" sh -c "! ls ps_DM* 2>/dev/null"
expect_exit 2 "^prepdata (fastpsr): error: -downsamp: 0 is out of range" prepdata -downsamp 0 -nobary -o pd f.fil
no_dedisp_flag "prepdata -downsamp 0" --downsample-after
expect_exit 2 "^prepdata (fastpsr): error: -numout: -5 is negative" prepdata -numout -5 -nobary -o pd f.fil
# dedisp run directly, and with a list but no shim name, keeps its own spelling.
expect_exit 2 "^dedisp: error: --numout: 0 is out of range" "$bin/dedisp" f.fil -d 5 --numout 0 -o x
expect_exit 2 "^dedisp: error: --numout: 0" env FASTPSR_FLAG_NAMES=--numout=-numout "$bin/dedisp" f.fil -d 5 --numout 0 -o x
expect_exit 2 "^fake (fastpsr): error: " fake -nchans 0 -tobs 1
check "fake -nchans 0: no 'fake-pulsar:' in the message" sh -c "! grep -q 'fake-pulsar:' err.txt"
expect_exit 2 "^Run 'fake --help' for the options" fake -nosuchoption 1

# Warnings too.
check "prepdata of a cut filterbank runs" sh -c "prepdata -dm 5 -nobary -o cut cut.fil 2>err.txt"
check "prepdata: the warning names prepdata" grep -q "^prepdata (fastpsr): warning: cut.fil: trailing partial sample" err.txt

# The tools themselves, and a value that is no plain command name, keep the tool's name.
expect_exit 1 "^dedisp: error: missing.fil: cannot open" "$bin/dedisp" missing.fil -d 5 -o x
expect_exit 1 "^dedisp: error: missing.fil" env FASTPSR_COMMAND='a b/c' "$bin/dedisp" missing.fil -d 5 -o x
expect_exit 1 "^dedisp: error: missing.fil" env FASTPSR_COMMAND= "$bin/dedisp" missing.fil -d 5 -o x
exit $fail
