#!/bin/bash
# SPDX-License-Identifier: MIT
# tune without a GPU: help and man page, --dry-run lists each problem's key and candidate axes
# (dedisp setups and a real filterbank's plan, accel, ppf), usage errors exit 2, and measuring
# without a GPU is a clear error with exit 1 (only checked where there is no GPU).
set -u
bin=${FASTPSR_BIN:?}
tune="$bin/tune"
[ -x "$tune" ] || { echo "tune not built"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export FASTPSR_TUNING="$tmp/tuning.json"
source "$FASTPSR_SOURCE/tests/cli/lib/checks.bash"

check "--help has examples" sh -c "'$tune' --help | grep -q 'Examples:'"
check "--help: --device names the GPU only" sh -c "'$tune' --help | grep -q 'gpu:N (tune measures GPU kernels)'"
check "man page" grep -q '^\.TH TUNE 1' "$FASTPSR_SOURCE/man/man1/tune.1"

"$tune" dedisp --setup apertif --dry-run >dd.txt 2>err.txt
check "dedisp dry run exits 0 ($(cat err.txt))" test $? -eq 0
check "dedisp key" grep -q '^dedisp nchans=1024,nbits=8,ndms=2048,span=2^13,ds=1$' dd.txt
check "dedisp axes" grep -q 'threads_time *32 64 128' dd.txt
check "database named" grep -q "database: $FASTPSR_TUNING" dd.txt
"$tune" dedisp --setup meerkat --dry-run >mk.txt 2>&1
check "meerkat: one target per DM range shape" test "$(grep -c '^dedisp nchans=4096' mk.txt)" -gt 1

"$bin/fake-pulsar" --nchans 64 --fch1 1500 --foff -1 --tsamp 256 --nsamples 8192 --nbits 8 --period 100 --dm 20 \
    --seed 3 -q -o f.fil
"$tune" dedisp --fil f.fil --dm 0:50:1 --dry-run >fil.txt 2>&1
check "a filterbank's plan ($(cat fil.txt))" grep -q '^dedisp nchans=64,nbits=8,ndms=51,' fil.txt
"$tune" dedisp --fil f.fil --zero-dm --dm 0:50:1 --dry-run >zd.txt 2>&1
check "zero-DM input is float32" grep -q 'nbits=32' zd.txt
sf="${FASTPSR_SHARED:-}/data/real/parkes_crab_4bit.sf"
if [ -f "$sf" ]; then  # the shape dedisp takes from PSRFITS: 416 channels of float32
  "$tune" dedisp --fil "$sf" --dm 50:60:1 --dry-run >sf.txt 2>&1
  check "a PSRFITS file's plan ($(cat sf.txt))" grep -q '^dedisp nchans=416,nbits=32,ndms=11,' sf.txt
fi

"$tune" accel --setup fdas-8m --zmax 200 --numharm 16 --dry-run >ac.txt 2>&1
check "accel key ($(cat ac.txt))" grep -q '^accel bins=2^22,numz=201,numharm=16,interp=fourier,plane=auto$' ac.txt
check "accel axes" grep -q 'path *custom cufft' ac.txt
"$tune" accel --setup fdas-8m --zmax 200 --numharm 16 --plane f16bound --dry-run >acb.txt 2>&1
check "accel key, plane f16bound ($(cat acb.txt))" grep -q ',plane=f16bound$' acb.txt

"$tune" ppf --channels 4096 --taps 16 --format ci8 --complex --dry-run >pp.txt 2>&1
check "ppf key ($(cat pp.txt))" grep -q '^ppf nchans=4096,ntaps=16,ncoarse=1,npol=1,input=ci8,output=complex$' pp.txt
# ppf's defaults: an entry tuned with them is the one a default ppf run looks up.
"$tune" ppf --channels 64 --dry-run >pd.txt 2>&1
check "ppf default taps ($(cat pd.txt))" grep -q '^ppf nchans=64,ntaps=8,' pd.txt
check "ppf complex output tries the persistent and cluster kernels" grep -q 'fft *persist cufft cluster' pp.txt
check "ppf complex output tries the persistent kernel's schedules" grep -q 'sched *static dynamic' pp.txt

expect_error() {  # expect_error <exit code> <text in stderr> <tune arguments...>
  local code=$1 text=$2
  shift 2
  expect_exit "$code" "$text" "$tune" "$@"
}
expect_error 2 "give --setup or --fil" dedisp --dry-run
expect_error 2 "unknown setup 'nope'" dedisp --setup nope --dry-run
expect_error 2 "fdas-2m and fdas-8m" accel --setup nope --dry-run
expect_error 2 "channels" ppf --taps 4 --dry-run
expect_error 2 "" frobnicate
expect_error 1 "nothere.fil" dedisp --fil nothere.fil --dry-run

# Measuring needs a GPU: without one (or without CUDA) a clear error, exit 1, nothing stored.
no_gpu=0
case "${FASTPSR_HAVE_CUDA:-0}" in 1 | ON | TRUE | true) nvidia-smi -L >/dev/null 2>&1 || no_gpu=1 ;; *) no_gpu=1 ;; esac
if [ $no_gpu = 1 ]; then
  expect_error 1 "tune: error: .*\(no GPU\|no CUDA backend\)" dedisp --setup apertif --budget 1
  check "nothing stored" test ! -e "$FASTPSR_TUNING"
fi
exit $fail
