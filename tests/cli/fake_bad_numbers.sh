#!/bin/bash
# SPDX-License-Identifier: MIT
# fake-pulsar refuses numbers that would make endless or NaN output (QA pass 16, P17): a
# negative --nsamples (CLI11 wrapped -1 to 2^64 - 1 samples, written until killed) or one past
# 2^64 - 1, and NaN or infinite values of the floating-point options (NaN samples, a NaN tstart,
# a pulsar silently absent). Each is a usage error (status 2) naming the option, with no output.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar
fp=$bin/fake-pulsar
base=(--nchans 16 --nbits 8 --seed 1)

for n in -1 -5 18446744073709551616; do
  expect_exit 2 "--nsamples: $n is" timeout 20 "$fp" "${base[@]}" --nsamples "$n" -o x.fil
  check "no output for --nsamples $n" test ! -e x.fil
done
expect_exit 2 "-nsamples: -1 is negative" timeout 20 "$fp" "${base[@]}" -nsamples -1 -o x.fil
check "--nsamples 1 still works" \
  sh -c "'$fp' ${base[*]} --nsamples 1 -o one.fil && test -s one.fil"

# Filterbank options, with a pulsar where the option describes it.
psr=(--period 5 --nsamples 4096)
for opt in --fch1 --foff --tsamp --tobs --tstart --mean --rms; do
  for v in nan inf -inf 1e999; do
    expect_exit 2 "$opt: $v is not a finite number" timeout 20 "$fp" "${base[@]}" "$opt" "$v" -o x.fil
  done
done
for opt in --period --dm --width --snrpeak --phase --pdot --accn --fdot --z --spectral-index --bper --becc --binc \
  --bomega --bphase --bpmass --bcmass; do
  expect_exit 2 "$opt: nan is not a finite number" timeout 20 "$fp" "${base[@]}" "${psr[@]}" "$opt" nan -o x.fil
done
expect_exit 2 "--fold-snr: inf is not a finite number" timeout 20 "$fp" "${base[@]}" --period 5 --fold-snr inf -o x.fil
# One dash, as SIGPROC fake's users type it.
expect_exit 2 "-tstart: nan is not a finite number" timeout 20 "$fp" "${base[@]}" -tstart nan -o x.fil
# Voltage options.
for opt in --freq --bw; do
  expect_exit 2 "$opt: nan is not a finite number" timeout 20 "$fp" --voltages --tobs 0.01 "$opt" nan -o x.dada
done
expect_exit 2 "--peak-power: inf is not a finite number" \
  timeout 20 "$fp" --voltages --tobs 0.01 --period 5 --peak-power inf -o x.dada
check "no output after the refusals" test ! -e x.fil -a ! -e x.dada

# Finite values still work, and --help is unchanged by the checks.
check "finite values run" sh -c "'$fp' ${base[*]} --period 5 --phase 0.25 --tstart 60000 --nsamples 4096 -o ok.fil"
check "--help lists the options without a validator name" sh -c "'$fp' --help | grep -q -- '--tstart FLOAT'"
exit $fail
