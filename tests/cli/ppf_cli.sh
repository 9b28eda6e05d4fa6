#!/bin/bash
# SPDX-License-Identifier: MIT
# ppf as a user runs it: help and man page, bad input (exit codes, messages naming the file, no
# output left behind), streaming equality between a file and a pipe with several gulp sizes,
# PSRDADA complex output read back by ppf, and the GUPPI RAW sample.
set -u
ppf="$FASTPSR_BIN/ppf"
[ -x "$ppf" ] || { echo "ppf not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export XDG_CACHE_HOME="$tmp/cache"  # FFTW wisdom of measured plans goes here, not to the user's
source "$FASTPSR_SOURCE/tests/cli/lib/checks.bash"
expect_error() {  # expect_error <exit code> <text in stderr> <ppf arguments...>: and no output left
  local code=$1 text=$2
  shift 2
  expect_exit "$code" "$text" "$ppf" "$@"
  if [ -e out.fil ]; then
    echo "FAIL: ppf $* left out.fil behind"
    fail=1
    rm -f out.fil
  fi
}

check "--help has examples" sh -c "'$ppf' --help | grep -q 'Examples:'"
check "man page" grep -q '^\.TH PPF 1' "$FASTPSR_SOURCE/man/man1/ppf.1"

raw="--format ci8 --fcentre 1400 --bw 400 --tstart 60000"
head -c 1001 /dev/urandom >odd.dat
expect_error 1 "odd.dat: 1001 bytes is not a whole number of ci8 samples" -C 16 $raw odd.dat -o out.fil
# From a pipe the size is unknown: the error comes from the read (on the reading thread).
expect_error 1 "<stdin>: the data end inside a sample" -C 16 $raw - -o out.fil < <(cat odd.dat)
head -c 2000 /dev/urandom >d1000.dat
expect_error 1 "d1000.dat: 1000 samples is not a multiple of --channels 64" -C 64 $raw d1000.dat -o out.fil
head -c 1280 /dev/urandom >d640.dat
expect_error 1 "d640.dat: 640 samples make 10 spectra of 64 channels: fewer than the 16" -C 64 -T 16 $raw d640.dat -o out.fil
expect_error 2 "ci8, ci16, cf32" -C 64 --format ci4 --fcentre 1400 --bw 400 d640.dat -o out.fil
expect_error 2 "channels" $raw d640.dat -o out.fil
expect_error 1 "nothere.dat" -C 64 $raw nothere.dat -o out.fil
expect_error 2 "disagree" -C 64 --format ci8 --fcentre 1400 --bw 400 --tsamp 1e-9 d640.dat -o out.fil
expect_error 2 "needs two polarisations" -C 64 --detect IQUV $raw d640.dat -o out.fil
expect_error 2 "give --format" -C 64 d640.dat -o out.fil
expect_error 2 "expected avx512, avx2 or generic" -C 64 $raw --cpu-config isa=sse9 d640.dat -o out.fil
expect_error 2 "unknown key 'tile'" -C 64 $raw --cpu-config tile=8 d640.dat -o out.fil
# Meaningless combinations and filters are refused, not silently obeyed.
expect_error 2 "--nint applies to power output" -C 64 --complex --nint 16 $raw d640.dat -o out.raw
expect_error 2 "--detect applies to power output" -C 64 --complex --detect AA $raw d640.dat -o out.raw
expect_error 2 "at least 2 output samples" -C 16 --nbits 8 --scale-rows 1 $raw d640.dat -o out.fil
expect_error 2 "beta above 700" -C 16 --window kaiser:720 $raw d640.dat -o out.fil
expect_error 2 "nothing after the colon" -C 16 --window kaiser: $raw d640.dat -o out.fil
expect_error 2 "an MJD is not negative" -C 16 --format ci8 --fcentre 1400 --bw 400 --tstart -5 d640.dat -o out.fil
expect_error 2 "raw input needs --fcentre" -C 16 --format ci8 --bw 400 --tstart 60000 d640.dat -o out.fil
expect_error 2 "give it with --nbits 8" -C 16 --scale-rows 10 $raw d640.dat -o out.fil
expect_error 2 "--dada is for --complex output" -C 16 --dada $raw d640.dat -o out.fil
# --complex --dada on stdout: ppf channelises its own output again, through a pipe.
"$ppf" -q -C 16 --complex --dada $raw d640.dat -o - | "$ppf" -q -C 4 --drop-partial - -o twice.fil
check "ppf | ppf through --dada: 64 channels" sh -c "[ \"\$('$FASTPSR_BIN/header' twice.fil -nchans)\" = 64 ]"
python3 -c "open('zero.txt','w').write(' '.join(['0']*128))"
expect_error 1 "zero.txt: the coefficients sum to zero" -C 16 -T 8 --coeffs zero.txt $raw d640.dat -o out.fil
expect_error 2 "--coeffs gives it instead" -C 16 -T 1 --coeffs zero.txt --window kaiser $raw d640.dat -o out.fil
python3 -c "import struct; open('c127.bin','wb').write(struct.pack('<127f',*([1.0]*127)))"
expect_error 1 "the file has 508" -C 16 -T 8 --coeffs c127.bin $raw d640.dat -o out.fil
cat d640.dat | "$ppf" -C 64 -T 4 $raw --drop-partial -o out.fil -q 2>/dev/null
check "pipe of 640 ci8 samples, 64 channels x 4 taps" test -s out.fil
rm -f out.fil

# Streaming: one gulp holding the whole input and pipes read in gulps of 1, 7 and the default
# number of spectra give the same bytes (both read stdin, so the headers name the same input).
head -c $((8 * (1000 * 64 + 37))) /dev/urandom >s.dat
for mode in "--nint 5" "--nint 3 --nbits 8 --scale-rows 20" "--detect IQUV --nint 2" "--complex"; do
  args="-C 64 -T 8 --format ci16 --npol 2 --fcentre 1400 --bw 100 --drop-partial --fftw estimate $mode"
  "$ppf" $args --gulp 2000 <s.dat -o whole.out -q
  for gulp in 1 7 0; do
    cat s.dat | "$ppf" $args --gulp $gulp -q >pipe.out
    check "streaming equality ($mode, --gulp $gulp)" cmp -s whole.out pipe.out
  done
done

"$ppf" -C 64 -T 8 --format ci16 --npol 2 --fcentre 1400 --bw 100 --drop-partial --fftw estimate --complex s.dat \
  -o file.out -q
check "a file and a pipe give the same complex output" cmp -s file.out pipe.out
# The FIR's AVX-512 and AVX2 variants give the same bytes (the default is one of them where the
# CPU has AVX2 and FMA).
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
for isa in avx512 avx2; do
  case " $flags " in
    *" avx2 "*" fma "* | *" fma "*" avx2 "*) ;;
    *) continue ;;
  esac
  [ $isa = avx512 ] && case " $flags " in *" avx512f "*) ;; *) continue ;; esac
  "$ppf" -C 64 -T 8 --format ci16 --npol 2 --fcentre 1400 --bw 100 --drop-partial --fftw estimate --complex \
    --cpu-config isa=$isa s.dat -o $isa.out -q
  check "--cpu-config isa=$isa gives the default's complex output" cmp -s file.out $isa.out
done

# Complex output as PSRDADA, channelised again by ppf (a second stage).
head -c $((2 * 2 * 256 * 40)) /dev/urandom >c.dat
"$ppf" -C 256 -T 4 --format ci8 --npol 2 --fcentre 1400 --bw 100 --complex c.dat -o stage1.dada -q
check "complex PSRDADA output" test -s stage1.dada
check "its header" grep -qa "NCHAN        256" stage1.dada
"$ppf" -C 4 -T 2 --detect IQUV --drop-partial stage1.dada -o stage2.fil -q
check "second stage on ppf's own output" test -s stage2.fil

# The two-stage pipe of the README and the man page, as written there (it failed without
# --drop-partial: stage 1 writes N/16 - 7 spectra, here 99993 for stage 2's 64 channels; QA
# pass 15), on voltages with a tone at 1403 MHz.
if [ -x "$FASTPSR_BIN/fake-pulsar" ]; then
  "$FASTPSR_BIN/fake-pulsar" -q --voltages --bw 16 --freq 1400 --tobs 0.1 --tone freq=1403,amp=0.5 --seed 5 -o obs.dada
  readme_cmd=$(grep -o '^ppf -C 16 --complex --dada obs.dada | ppf [^#]*' "$FASTPSR_SOURCE/README.md")
  man_cmd=$(grep '^ppf \\-C 16 \\-\\-complex \\-\\-dada' "$FASTPSR_SOURCE/man/man1/ppf.1" | sed 's/\\-/-/g')
  for cmd in "$readme_cmd" "$man_cmd"; do
    rm -f fine.fil
    check "the documented two-stage pipe is found (got '$cmd')" test -n "$cmd"
    check "the documented two-stage pipe runs: $cmd" env PATH="$FASTPSR_BIN:$PATH" bash -o pipefail -c "$cmd 2>/dev/null"
    check "... and writes 1024 channels: $cmd" \
      sh -c "[ \"\$('$FASTPSR_BIN/header' fine.fil -nchans 2>/dev/null)\" = 1024 ]"
  done
fi

if [ -f "$FASTPSR_SHARED/data/real/puppi_J1810+1744.raw" ]; then
  "$ppf" -C 64 -T 4 --detect AA "$FASTPSR_SHARED/data/real/puppi_J1810+1744.raw" -o puppi.fil -q 2>/dev/null
  check "GUPPI RAW sample to a filterbank" test -s puppi.fil
  # The reader holds a whole block (BLOCSIZE bytes): the memory plan counts it.
  "$ppf" -C 64 -T 4 --detect AA "$FASTPSR_SHARED/data/real/puppi_J1810+1744.raw" -o puppi.fil -v 2>puppi.log
  check "the GUPPI block is not in the memory plan: $(grep memory: puppi.log)" grep -q "the reader's block of" puppi.log
fi

if [ "${FASTPSR_HAVE_CUDA:-0}" = 1 ] && nvidia-smi -L >/dev/null 2>&1; then
  "$ppf" -C 64 -T 8 --format ci16 --npol 2 --fcentre 1400 --bw 100 --nint 5 --drop-partial --device gpu s.dat -o gpu.fil -q
  "$ppf" -C 64 -T 8 --format ci16 --npol 2 --fcentre 1400 --bw 100 --nint 5 --drop-partial --device cpu s.dat -o cpu.fil -q
  check "GPU run writes as much as the CPU run" test "$(stat -c %s gpu.fil)" = "$(stat -c %s cpu.fil)"
fi
exit $fail
