#!/bin/bash
# SPDX-License-Identifier: MIT
# Numeric option values that make no sense are usage errors (status 2) naming the option and the
# value (QA leftovers): NaN and infinities (dedisp -d nan said "DMs are not negative", --dm-tol inf
# and accelsearch --rlo/--rhi/--baryv nan were taken, NaN being --rlo's "not given"), negative
# counts (--threads -1, accelsearch --fft-len -1), thread counts that crashed (--ncpus 100000:
# SIGSEGV; dedisp --threads 100000 hung), ppf --fwidth beyond the band (1e30 was taken) and its
# raw input's --tsamp inf (blamed the output file), and what the sweep of every tool's numeric
# options found besides (apps/common/option_checks.hpp). Nothing is written by a refused run.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp accelsearch ppf tune

"$bin/fake-pulsar" -q --nchans 64 --fch1 1500 --foff -1 --nbits 8 --tsamp 64 --nsamples 40000 --seed 1 \
  --period 5 -o m.fil
"$bin/dedisp" -q m.fil -d 0 >m.tim
head -c 65536 /dev/zero >in.raw
mkdir out

# usage <tool> <text in stderr> <arguments...>: status 2, the text said.
usage() {
  local tool=$1 text=$2
  shift 2
  expect_exit 2 "$tool: error: $text" timeout 60 "$bin/$tool" "$@"
}

# dedisp
usage dedisp "-d: nan is not a finite number" -d nan m.fil
usage dedisp "-d: nan is not a finite number" m.fil -d nan -o out/x.tim
usage dedisp "-d: -inf is not a finite number" m.fil -d -inf -o out/x.tim
usage dedisp "-d -1: DMs are not negative" m.fil -d -1 -o out/x.tim
for v in -1 1025 100000; do
  usage dedisp "--threads: $v is [a-z ]*: give 0 (all cores) to 1024 threads" m.fil --dm 0:2:1 --threads "$v" -o out/x
done
for v in inf nan -inf 1e999; do
  usage dedisp "--dm-tol: $v is not a finite number" m.fil --dm-plan show --dm-tol "$v"
done
usage dedisp "--dm-tol: 0.5 is out of range: give a factor of 1 or more" m.fil --dm-plan show --dm-tol 0.5
usage dedisp "--dm-min: nan is not a finite number" m.fil --dm-plan show --dm-min nan
usage dedisp "--dm-min: -1 is negative" m.fil --dm-plan show --dm-min -1
usage dedisp "--dm-max: inf is not a finite number" m.fil --dm-plan show --dm-max inf
usage dedisp "--dm-plan-nsub: -1 is negative" m.fil --dm-plan show --dm-plan-nsub -1
usage dedisp "--lodm: nan is not a finite number" m.fil --lodm nan --dmstep 1 --numdms 2 -o out/x
usage dedisp "--lodm: -1 is negative" m.fil --lodm -1 --dmstep 1 --numdms 2 -o out/x
usage dedisp "--dmstep: inf is not a finite number" m.fil --lodm 0 --dmstep inf --numdms 2 -o out/x
usage dedisp "--dmstep: 0 is out of range" m.fil --lodm 0 --dmstep 0 --numdms 2 -o out/x
usage dedisp "--numdms: 20000000 is out of range: give 1 to 10000000 DMs" m.fil --lodm 0 --dmstep 1 --numdms 20000000 \
  -o out/x
# --dm-prec -1 was a runtime error ("negative precision", status 1), 2000000000 hung.
usage dedisp "--dm-prec: -1 is negative: give 0 to 15 digits" m.fil --dm 0:2:1 --dm-prec -1 -o out/x
usage dedisp "--dm-prec: 2000000000 is out of range" m.fil --dm 0:2:1 --dm-prec 2000000000 -o out/x
usage dedisp "--nsub: -1 is negative" m.fil --dm 0:2:1 --nsub -1 -o out/x
check "dedisp wrote nothing: $(ls out)" test -z "$(ls -A out)"
check "dedisp --threads 1 --dm-prec 15 still runs" \
  sh -c "'$bin/dedisp' -q m.fil --dm 0:1:1 --threads 1 --dm-prec 15 -o out/ok && test -s out/ok_DM1.000000000000000.dat"
rm -rf out/*

# accelsearch: every floating-point option, the thread count and the FFT length.
for opt in --rlo --rhi --baryv --flo --fhi --sigma --dered-endfreq; do
  for v in nan inf; do
    usage accelsearch "$opt: $v is not a finite number" -zmax 0 "$opt" "$v" m.tim
  done
done
usage accelsearch "--rlo: nan is not a finite number" -zmax 0 -rlo nan m.tim # PRESTO's spelling
usage accelsearch "--baryv: 1 is out of range: give a velocity v/c between -1 and 1" -zmax 0 -baryv 1 m.tim
usage accelsearch "--baryv: -1 is out of range" -zmax 0 -baryv -1 m.tim
usage accelsearch "--sigma: 0 is out of range" -zmax 0 -sigma 0 m.tim
usage accelsearch "--sigma: 1e155 is out of range: give a sigma above 0 and at most 1e6" -zmax 0 -sigma 1e155 m.tim
usage accelsearch "--dered-endfreq: -1 is negative" -zmax 0 --dered-endfreq -1 m.tim
usage accelsearch "--fft-len: -1 is negative" -zmax 0 --fft-len -1 m.tim
for v in -1 100000; do
  usage accelsearch "--ncpus: $v is [a-z ]*: give 0 (all cores) to 1024 threads" -zmax 0 -ncpus "$v" m.tim
done
# 1e9 overflowed the plan's template sizes (negative bin counts in the message).
usage accelsearch "--zmax: 1000000000 is out of range: give 0 to 1000000 bins" -zmax 1000000000 m.tim
check "accelsearch wrote nothing: $(ls -A | grep ACCEL)" test -z "$(ls -A | grep ACCEL)"
check "accelsearch -ncpus 1 -baryv 0.5 -sigma 5 still runs" \
  sh -c "'$bin/accelsearch' -q -zmax 0 -numharm 1 -ncpus 1 -baryv 0.5 -sigma 5 m.tim"

# ppf: the filter's passband and the raw input's rate, band and start.
raw=(in.raw --format ci8 --fcentre 1400 --bw 16 -C 16 -T 4)
for v in 1e30 17; do
  usage ppf "--fwidth: $v is out of range: give a passband width above 0 and at most --channels (16)" \
    "${raw[@]}" --fwidth "$v" -o out/x.fil
done
for v in nan inf; do
  usage ppf "--fwidth: $v is not a finite number" "${raw[@]}" --fwidth "$v" -o out/x.fil
done
usage ppf "--fwidth: 0 is out of range" "${raw[@]}" --fwidth 0 -o out/x.fil
usage ppf "--fwidth: 1e30 is out of range" -C 16 --fwidth 1e30 --show-filter
# --tsamp inf (or --bw nan) gave "out/x.fil: tsamp must be a positive number of seconds" (status 1).
for v in inf nan; do
  usage ppf "--tsamp: $v is not a finite number" in.raw --format ci8 --fcentre 1400 -C 16 --tsamp "$v" -o out/x.fil
  usage ppf "--bw: $v is not a finite number" in.raw --format ci8 --fcentre 1400 -C 16 --bw "$v" -o out/x.fil
  usage ppf "--fcentre: $v is not a finite number" in.raw --format ci8 --fcentre "$v" -C 16 --bw 16 -o out/x.fil
  usage ppf "--tstart: $v is not a finite number" "${raw[@]}" --tstart "$v" -o out/x.fil
done
usage ppf "--tsamp: 0 is out of range: give a sample interval of 1e-12 to 1 s" \
  in.raw --format ci8 --fcentre 1400 -C 16 --tsamp 0 -o out/x.fil
usage ppf "--tsamp: 1e300 is out of range" in.raw --format ci8 --fcentre 1400 -C 16 --tsamp 1e300 -o out/x.fil
usage ppf "--bw: 0 is out of range: give a bandwidth of 1e-6 to 1e6 MHz" \
  in.raw --format ci8 --fcentre 1400 -C 16 --bw 0 -o out/x.fil
usage ppf "--bw: 1e300 is out of range" in.raw --format ci8 --fcentre 1400 -C 16 --bw 1e300 -o out/x.fil
# A band reaching 0 MHz made a filterbank that dedisp refuses.
usage ppf "--fcentre 1 MHz with a bandwidth of 16 MHz: the band reaches down to -7 MHz" \
  in.raw --format ci8 --fcentre 1 -C 16 --bw 16 -o out/x.fil
check "ppf wrote nothing: $(ls out)" test -z "$(ls -A out)"
check "ppf --fwidth 16 -C 16 (the whole band) and --tsamp 6.25e-8 still run" \
  sh -c "'$bin/ppf' -q in.raw --format ci8 --fcentre 1400 --tsamp 6.25e-8 -C 16 -T 4 --fwidth 16 --tstart 60000 \
    -o out/ok.fil && test -s out/ok.fil"
rm -rf out/*

# fake-pulsar: threads, counts and ids, and values whose samples overflow float32 (NaN and
# infinite output) or whose sample count wrapped to 0 (a header-only file).
fp=(--nchans 16 --nbits 32 --nsamples 4096 --seed 1)
for v in -1 100000; do
  usage fake-pulsar "--threads: $v is [a-z ]*: give 0 (all cores) to 1024 threads" "${fp[@]}" --threads "$v" -o out/x.fil
done
usage fake-pulsar "--nchans: -1 is negative: give 1 channel or more" --nchans -1 -o out/x.fil
usage fake-pulsar "--telescope-id: -1 is negative" "${fp[@]}" --telescope-id -1 -o out/x.fil
usage fake-pulsar "--machine-id: -1 is negative" "${fp[@]}" --machine-id -1 -o out/x.fil
usage fake-pulsar "--mean: 1e300 is out of range" "${fp[@]}" --mean 1e300 -o out/x.fil
usage fake-pulsar "--rms: 1e300 is out of range" "${fp[@]}" --rms 1e300 -o out/x.fil
usage fake-pulsar "--snrpeak: 1e300 is out of range" "${fp[@]}" --period 5 --snrpeak 1e300 -o out/x.fil
usage fake-pulsar "--spectral-index: 1e300 is out of range" "${fp[@]}" --period 5 --spectral-index 1e300 -o out/x.fil
# 0 or less was read as "not given": the pulsar came at --snrpeak's default.
for v in -1 0; do
  usage fake-pulsar "--fold-snr: $v is [a-z ]*: give an S/N above 0" "${fp[@]}" --period 5 --fold-snr "$v" -o out/x.fil
done
usage fake-pulsar "--tobs: 1e+300 is out of range" --nchans 16 --tobs 1e300 -o out/x.fil
usage fake-pulsar "--tobs: 1e+300 is out of range" --voltages --tobs 1e300 -o out/x.dada
usage fake-pulsar "--peak-power: 1e300 is out of range" --voltages --nsamples 4096 --period 5 --peak-power 1e300 \
  -o out/x.dada
# The same bounds inside --psr and --frb (one more NaN-sample source).
usage fake-pulsar "--psr: snrpeak=1e+300 is outside 0 to 1e+06" "${fp[@]}" --psr period=5,snrpeak=1e300 -o out/x.fil
usage fake-pulsar "--psr: snr=0 is not above 0" "${fp[@]}" --psr period=5,snr=0 -o out/x.fil
usage fake-pulsar "--psr: spindex=1e+300 is outside -10 to 10" "${fp[@]}" --psr period=5,spindex=1e300 -o out/x.fil
usage fake-pulsar "--frb: snr must be above 0 and at most 1e+06" "${fp[@]}" --frb time=0.1,snr=1e300 -o out/x.fil
usage fake-pulsar "--frb: spindex=-1e+300 is outside -10 to 10" "${fp[@]}" --frb time=0.1,snr=8,spindex=-1e300 \
  -o out/x.fil
usage fake-pulsar "--frb: fluence must be 0 to 1e+12 rms ms, got 1e+300" "${fp[@]}" --frb time=0.1,fluence=1e300 \
  -o out/x.fil
usage fake-pulsar "--frb: fluence must be 0 to 1e+12 rms ms, got -1" "${fp[@]}" --frb time=0.1,fluence=-1 -o out/x.fil
usage fake-pulsar "--rfi-impulse: width must be positive and amp 0 to 1e+12" "${fp[@]}" \
  --rfi-impulse time=0.1,amp=1e300 -o out/x.fil
check "fake-pulsar wrote nothing: $(ls -A out)" test -z "$(ls -A out)"
check "fake-pulsar --threads 2 --fold-snr 10 --spectral-index -2 (and --psr, --frb alike) still runs" \
  sh -c "'$bin/fake-pulsar' -q ${fp[*]} --threads 2 --period 5 --fold-snr 10 --spectral-index -2 \
    --psr period=7,snr=10,spindex=-2 --frb time=0.01,snr=8,spindex=-1 --frb time=0.02,fluence=5 \
    --rfi-impulse time=0.03,amp=3 -o out/ok.fil"

# tune (a dry run needs no GPU).
usage tune "--budget: nan is not a finite number" dedisp --setup apertif --dry-run --budget nan
usage tune "--budget: inf is not a finite number" dedisp --setup apertif --dry-run --budget inf
usage tune "--seconds: nan is not a finite number" dedisp --setup apertif --dry-run --seconds nan
usage tune "--seconds: -1 is negative" dedisp --setup apertif --dry-run --seconds -1
usage tune "--dm-min: nan is not a finite number" dedisp --fil m.fil --dry-run --dm-min nan
usage tune "--zmax: 2000000 is out of range: give 0 to 1000000 bins" accel --setup fdas-2m --dry-run --zmax 2000000
check "tune dedisp --dry-run --budget 30 --seconds 1 still runs" \
  sh -c "'$bin/tune' dedisp --setup apertif --dry-run --budget 30 --seconds 1 >/dev/null"

[ $fail -eq 0 ] && echo PASS
exit $fail
