#!/bin/bash
# SPDX-License-Identifier: MIT
# An odd-length series loses its last sample to the real FFT; its frequencies are then those of
# the samples searched whatever the input's format: a PRESTO .dat with its .inf and a SIGPROC
# .tim of the same samples give the same candidates, periods included (until 2026-11-27 the
# .dat kept the .inf's odd N for T, so its frequencies were off by 1/N; QA pass 12).
set -u
bin=${FASTPSR_BIN:?}
for tool in fake-pulsar dedisp accelsearch; do
  [ -x "$bin/$tool" ] || { echo "skipped: $bin/$tool is not built"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export XDG_CACHE_HOME="$tmp/cache"
fail=0
check() { if ! eval "$1"; then echo "FAILED: $2"; fail=1; fi; }

"$bin/fake-pulsar" -q --nchans 16 --fch1 1500 --foff -4 --tsamp 256 --nsamples 65537 --nbits 8 --period 11.3 \
    --dm 0 --fold-snr 40 --seed 5 -o f.fil
"$bin/dedisp" -q f.fil --dm 0 --format dat -o d
"$bin/dedisp" -q f.fil --dm 0 --format tim -o t.tim
check "[ \$(stat -c %s d_DM0.00.dat) -eq \$((4 * 65537)) ]" "the .dat holds the odd length"
"$bin/accelsearch" -q --device cpu --fftw estimate -zmax 0 -numharm 4 d_DM0.00.dat 2>/dev/null
"$bin/accelsearch" -q --device cpu --fftw estimate -zmax 0 -numharm 4 t.tim 2>/dev/null
rows() { awk '/^ *[0-9]+ +[0-9.]+ +[0-9.]+/ { print $2, $3, $4, $5, $6 }' "$1" | head -5; }
check "[ -n \"\$(rows d_DM0.00_ACCEL_0)\" ]" "candidates from the .dat"
check "diff <(rows d_DM0.00_ACCEL_0) <(rows t_ACCEL_0)" "the .dat and the .tim give other candidates:
$(rows d_DM0.00_ACCEL_0)
--
$(rows t_ACCEL_0)"
[ $fail -eq 0 ] && echo PASS
exit $fail
