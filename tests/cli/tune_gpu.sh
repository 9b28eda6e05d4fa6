#!/bin/bash
# SPDX-License-Identifier: MIT
# tune on a GPU, then the tools reading what it stored: dedisp, accelsearch and ppf at -v name
# the tuned entry, --no-tuning and --gpu-config keys override it, a corrupt database only warns.
# Skipped without a CUDA build or a GPU.
set -u
bin=${FASTPSR_BIN:?}
case "${FASTPSR_HAVE_CUDA:-0}" in 1 | ON | TRUE | true) ;; *) echo "no CUDA build: skipped"; exit 77 ;; esac
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export FASTPSR_TUNING="$tmp/tuning.json"
export XDG_CACHE_HOME="$tmp/cache"  # FFTW wisdom of ppf
source "$FASTPSR_SOURCE/tests/cli/lib/checks.bash"

"$bin/fake-pulsar" --nchans 64 --fch1 1500 --foff -1 --tsamp 256 --nsamples 65536 --nbits 8 --period 100 --dm 20 \
    --seed 3 -q -o f.fil
# dedisp: tune the plan of --dm 0:50:1, then dedisp with it.
"$bin/tune" dedisp --fil f.fil --dm 0:50:1 --seconds 1 --budget 8 >tune_dd.txt 2>&1
check "tune dedisp exits 0 ($(tail -3 tune_dd.txt))" test $? -eq 0
check "tune dedisp stored an entry" grep -q '"algorithm": "dedisp"' "$FASTPSR_TUNING"
check "tune dedisp printed its table" grep -q 'vs default' tune_dd.txt
"$bin/dedisp" f.fil --dm 0:50:1 --device gpu -v --format dat -o d 2>dd.txt
check "dedisp runs with the tuned entry ($(grep 'GPU configuration' dd.txt))" \
    grep -q 'GPU configuration: .* (tuned .*tuning.json' dd.txt
"$bin/dedisp" f.fil --dm 0:50:1 --device gpu -v --no-tuning --format dat -o d 2>dd.txt
check "dedisp --no-tuning" grep -q 'GPU configuration: defaults (tuning database not read)' dd.txt
"$bin/dedisp" f.fil --dm 0:50:1 --device gpu -v --gpu-config stages=3 --format dat -o d 2>dd.txt
check "dedisp: a user key over the tuned ones" grep -q 'GPU configuration: .*stages=3.*given: stages' dd.txt
"$bin/dedisp" f.fil --dm 0:40:1 --device gpu -v --format dat -o e 2>dd.txt
check "dedisp: another shape has no entry" grep -q '(defaults: no tuning entry for dedisp nchans=64,nbits=8,ndms=41' dd.txt

# accelsearch on one of those series.
"$bin/tune" accel --dat d_DM20.00.dat --zmax 20 --numharm 4 --budget 8 >tune_ac.txt 2>&1
check "tune accel exits 0 ($(tail -3 tune_ac.txt))" test $? -eq 0
"$bin/accelsearch" -zmax 20 -numharm 4 --device gpu -v d_DM20.00.dat 2>ac.txt
check "accelsearch runs with the tuned entry ($(grep 'GPU configuration' ac.txt))" \
    grep -q 'GPU configuration: .* (tuned ' ac.txt

# ppf on raw complex int8 voltages.
head -c $((2 * 64 * 4096)) /dev/urandom >v.dat
"$bin/tune" ppf -C 64 -T 4 --format ci8 --complex --budget 8 >tune_pp.txt 2>&1
check "tune ppf exits 0 ($(tail -3 tune_pp.txt))" test $? -eq 0
"$bin/ppf" -C 64 -T 4 --complex --format ci8 --fcentre 1400 --bw 100 --tstart 60000 --device gpu -v v.dat -o v.dada 2>pp.txt
check "ppf runs with the tuned entry ($(grep 'GPU configuration' pp.txt))" grep -q 'GPU configuration: .* (tuned ' pp.txt

# A corrupt database: a warning naming it, and the run goes on with the defaults.
echo '{"format": "fastpsr-tuning", "version": 1, "entries": [' >"$FASTPSR_TUNING"
"$bin/dedisp" f.fil --dm 0:50:1 --device gpu -v --format dat -o d 2>dd.txt
check "dedisp with a corrupt database exits 0" test $? -eq 0
check "the warning names the file ($(grep warning dd.txt))" grep -q "warning: $FASTPSR_TUNING: not a valid tuning database" dd.txt
exit $fail
