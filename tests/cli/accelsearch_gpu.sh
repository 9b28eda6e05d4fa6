#!/bin/bash
# SPDX-License-Identifier: MIT
# accelsearch on the GPU as a user runs it: the same candidates as --device cpu (same r, z within
# half a bin, sigma within 1%) on both correlation paths and both interpolations, -v describing
# the GPU configuration, and a bad --gpu-config rejected with the key named. Skipped without a
# CUDA build or a GPU.
set -u
BIN=${FASTPSR_BIN:?}
SHARED=${FASTPSR_SHARED:-}
SMALL="$SHARED/data/peer-outputs/small"
case "${FASTPSR_HAVE_CUDA:-0}" in 1 | ON | TRUE | true) ;; *) echo "no CUDA build: skipped"; exit 77 ;; esac
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
[ -d "$SMALL" ] || { echo "no shared data: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail=0
check() { if ! eval "$1"; then echo "FAILED: $2"; fail=1; fi; }
cp "$SMALL"/small_DM62.50.dat "$SMALL"/small_DM62.50.inf .

# Candidates as "r z sigma numharm" lines (the value before any uncertainty in parentheses).
cands() { awk '/^[0-9]/{for (i = 1; i <= NF; ++i) sub(/\(.*/, "", $i); print $8, $10, $2, $5}' "$1"; }
# Every CPU candidate has a GPU one with the same harmonics, r within 0.01 bin (the optimiser
# starts from the same grid point), z within half a bin and sigma within 1%; and as many.
same_candidates() {
  python3 - "$1" "$2" <<'PY'
import sys
def load(p):
    return [tuple(float(v) for v in line.split()) for line in open(p) if line.strip()]
cpu, gpu = load(sys.argv[1]), load(sys.argv[2])
ok = len(cpu) == len(gpu) and len(cpu) > 0
for r, z, s, n in cpu:
    if not any(n == gn and abs(r - gr) < 0.05 and abs(z - gz) <= 0.5 and abs(s - gs) <= 0.01 * s
               for gr, gz, gs, gn in gpu):
        print("no GPU match for CPU candidate r %g z %g sigma %g harmonics %d" % (r, z, s, n))
        ok = False
if len(cpu) != len(gpu):
    print("%d CPU candidates, %d GPU candidates" % (len(cpu), len(gpu)))
sys.exit(0 if ok else 1)
PY
}

for interp in "" "--interbin"; do
  "$BIN"/accelsearch -zmax 50 -numharm 8 $interp --device cpu -q small_DM62.50.dat
  mv small_DM62.50_ACCEL_50 cpu_ACCEL
  cands cpu_ACCEL >cpu.txt
  for path in custom cufft; do
    "$BIN"/accelsearch -zmax 50 -numharm 8 $interp --device gpu --gpu-config "path=$path" -q small_DM62.50.dat
    check "[ -s small_DM62.50_ACCEL_50 ] && [ -s small_DM62.50_ACCEL_50.cand ]" "GPU outputs ($path $interp)"
    cands small_DM62.50_ACCEL_50 >gpu.txt
    check "same_candidates cpu.txt gpu.txt" "the CPU's candidates on the GPU ($path $interp)"
  done
done

# The time series transformed on the host (--host-fft: FFTW, as the CPU does) or by cuFFT (the
# default above): the same candidates either way.
"$BIN"/accelsearch -zmax 50 -numharm 8 --device gpu --host-fft -q small_DM62.50.dat
cands small_DM62.50_ACCEL_50 >gpu_host.txt
"$BIN"/accelsearch -zmax 50 -numharm 8 --device cpu -q small_DM62.50.dat
cands small_DM62.50_ACCEL_50 >cpu50.txt
check "same_candidates cpu50.txt gpu_host.txt" "the CPU's candidates on the GPU with --host-fft"

# The block search on the GPU (forced: this plane fits) gives the whole plane's files byte for
# byte, and says so.
"$BIN"/accelsearch -zmax 50 -numharm 16 --device gpu -q small_DM62.50.dat
mv small_DM62.50_ACCEL_50 whole_ACCEL
mv small_DM62.50_ACCEL_50.cand whole.cand
"$BIN"/accelsearch -zmax 50 -numharm 16 --device gpu --gpu-config block_rk=16384 small_DM62.50.dat 2>blocks.txt
check "cmp -s whole_ACCEL small_DM62.50_ACCEL_50 && cmp -s whole.cand small_DM62.50_ACCEL_50.cand" \
  "the GPU block search's ACCEL and .cand files equal the whole plane's"
check "grep -q 'searched on the GPU in blocks of 16384 rk' blocks.txt" "the block search said (got: $(cat blocks.txt))"

# -v says what runs.
"$BIN"/accelsearch -zmax 20 --device gpu -v small_DM62.50.dat 2>verbose.txt
check "grep -q 'custom shared-memory FFT path' verbose.txt" "-v describes the GPU searcher"

# A bad --gpu-config is a usage error naming the key.
"$BIN"/accelsearch -zmax 20 --device gpu --gpu-config hs_rows=3 small_DM62.50.dat >out.txt 2>err.txt
got=$?
check "[ $got -eq 2 ]" "exit $got for hs_rows=3 (wanted 2)"
check "grep -q 'hs_rows=3' err.txt" "the bad key named (got: $(cat err.txt))"
exit $fail
