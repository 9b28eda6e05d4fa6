#!/bin/bash
# SPDX-License-Identifier: MIT
# --wisdom DIR/sub/file in a directory that does not exist (QA pass 16): the directories were
# created without a word. Now a path the user gives gets no directory: one warning says the
# wisdom cannot be saved there, and the run goes on (status 0, its output written). The default
# location ($XDG_CACHE_HOME/fastpsr) is still created when missing.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar ppf dedisp accelsearch

"$bin/fake-pulsar" -q --voltages --freq 1400 --bw 1 --npol 2 --tobs 0.05 --seed 1 -o v.dada
"$bin/fake-pulsar" -q --nchans 16 --nbits 8 --nsamples 4096 --seed 2 -o f.fil
"$bin/dedisp" -q f.fil -d 0 -o t.tim

check "ppf with --wisdom in a missing directory runs" \
  sh -c "'$bin/ppf' --device cpu -C 16 -T 4 --fftw measure --wisdom nodir/sub/w v.dada -o w.fil 2>err.txt"
check "ppf: its output is written" test -s w.fil
check "ppf: the warning names the file and says the wisdom cannot be saved" \
  grep -q "ppf: warning: nodir/sub/w: the directory 'nodir/sub' does not exist .*cannot be saved there" err.txt
check "ppf: one warning" test "$(grep -c 'cannot be saved' err.txt)" = 1
check "ppf: no directory created" test ! -e nodir
check "accelsearch with --wisdom in a missing directory runs" \
  sh -c "'$bin/accelsearch' --device cpu --zmax 2 --fftw measure --wisdom nodir/w t.tim -o acc 2>err.txt"
check "accelsearch: its candidates are written" test -e acc.csv
check "accelsearch: one warning" test "$(grep -c "nodir/w: the directory 'nodir' does not exist" err.txt)" = 1
check "accelsearch: no directory created" test ! -e nodir

# An existing directory: the wisdom is written there.
mkdir have
check "ppf with --wisdom in an existing directory" \
  "$bin/ppf" -q --device cpu -C 16 -T 4 --fftw measure --wisdom have/w v.dada -o w.fil
check "the wisdom file is written" grep -q '^(fftw-' have/w
# The default location: made when missing.
check "ppf with the default wisdom path" "$bin/ppf" -q --device cpu -C 16 -T 4 --fftw measure v.dada -o w.fil
check "the default wisdom file and its directories are made" grep -q '^(fftw-' cache/fastpsr/fftwf-wisdom

# A path that cannot be looked at is said as such, not taken for a file that is not wisdom (QA
# pass 20, finding 9: a file in a folder without search permission was "a file that exists and is
# not FFTW wisdom"). A name too long stands in for the permission, which root does not feel.
long=$(printf 'w%.0s' $(seq 300))
expect_exit 1 "--wisdom: cannot look at it (File name too long)" \
  "$bin/ppf" --device cpu -C 16 -T 4 --fftw measure --wisdom "$long" v.dada -o w2.fil
check "no output after the refusal" test ! -e w2.fil
if [ "$(id -u)" != 0 ]; then
  mkdir -p locked && chmod 000 locked
  expect_exit 1 "locked/w: --wisdom: cannot look at it (Permission denied)" \
    "$bin/accelsearch" --device cpu --zmax 2 --fftw measure --wisdom locked/w t.tim -o acc
  chmod 700 locked
fi
exit $fail
