#!/bin/bash
# SPDX-License-Identifier: MIT
# --wisdom FILE (ppf, accelsearch) only ever replaces a file that holds FFTW wisdom (or nothing):
# a data file named by mistake (`--wisdom obs.fil`), a text file or a read-only file that is not
# wisdom is refused before the run, naming it, status 2, and left byte for byte as it was. A new
# file, an empty one and a wisdom file are written as before. A default wisdom file
# ($XDG_CACHE_HOME/fastpsr/fftwf-wisdom) that is not wisdom is left alone with a warning.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar ppf dedisp accelsearch

"$bin/fake-pulsar" -q --voltages --freq 1400 --bw 1 --npol 2 --tobs 0.05 --seed 1 -o v.dada
"$bin/fake-pulsar" -q --nchans 16 --nbits 8 --nsamples 4096 --seed 2 -o precious.fil
"$bin/dedisp" -q precious.fil -d 0 -o t.tim
cp precious.fil precious.orig
printf 'notes\n' >notes.txt
cp precious.fil readonly.fil && chmod 0444 readonly.fil

for victim in precious.fil notes.txt readonly.fil; do
  expect_exit 2 "$victim: --wisdom: the file exists and is not FFTW wisdom" \
    "$bin/ppf" --device cpu -C 16 -T 4 --fftw measure --wisdom "$victim" v.dada -o w.fil
  check "ppf: no output after the refusal ($victim)" test ! -e w.fil
  expect_exit 2 "$victim: --wisdom: the file exists and is not FFTW wisdom" \
    "$bin/accelsearch" --device cpu --zmax 2 --fftw measure --wisdom "$victim" t.tim -o acc
done
check "the filterbank named by --wisdom is unchanged" cmp -s precious.fil precious.orig
check "the read-only file is unchanged" cmp -s readonly.fil precious.orig
check "the text file is unchanged" grep -qx notes notes.txt

# A new file, then the same file again (wisdom now), and an empty file: written.
check "ppf writes new wisdom" "$bin/ppf" -q --device cpu -C 16 -T 4 --fftw measure --wisdom new.w v.dada -o w.fil
check "the new wisdom file starts as FFTW wisdom" grep -q '^(fftw-' new.w
check "ppf updates a wisdom file" "$bin/ppf" -q --device cpu -C 40 -T 4 --fftw measure --wisdom new.w v.dada -o w.fil
check "accelsearch updates a wisdom file" \
  "$bin/accelsearch" -q --device cpu --zmax 2 --fftw measure --wisdom new.w t.tim -o acc
: >empty.w
check "ppf writes wisdom into an empty file" \
  "$bin/ppf" -q --device cpu -C 16 -T 4 --fftw measure --wisdom empty.w v.dada -o w.fil
check "the empty file now holds wisdom" grep -q '^(fftw-' empty.w

# --fftw estimate uses no wisdom, so the file is not looked at.
check "estimate ignores --wisdom" "$bin/ppf" -q --device cpu -C 16 -T 4 --fftw estimate --wisdom precious.fil \
  v.dada -o w.fil
check "and leaves it" cmp -s precious.fil precious.orig

# The default path holding something else: a warning, the run goes on, the file is left.
mkdir -p cache/fastpsr && cp precious.orig cache/fastpsr/fftwf-wisdom
check "ppf runs with a default wisdom path that is not wisdom" \
  sh -c "'$bin/ppf' --device cpu -C 16 -T 4 --fftw measure v.dada -o w.fil 2>err.txt"
check "the warning names the default file" grep -q 'fftwf-wisdom: not FFTW wisdom' err.txt
check "the default file is left" cmp -s cache/fastpsr/fftwf-wisdom precious.orig
exit $fail
