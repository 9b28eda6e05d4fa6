#!/bin/bash
# SPDX-License-Identifier: MIT
# ppf's host memory as a user meets it: -v's "memory: host" line counts the input buffers and,
# for 8-bit output, the rows held until the scaling is set (--scale-rows), so the peak resident
# size is that plus the program (a few MiB); a run that needs more than the process may use is
# refused before any data is read, naming the file, the sizes and what to lower (--scale-rows,
# --gulp), with status 1 and no output left behind; an allocation that fails anyway says so
# with the memory the process held and may use, naming the input.
set -u
bin=${FASTPSR_BIN:?}
for tool in fake-pulsar ppf; do
  [ -x "$bin/$tool" ] || { echo "skipped: $bin/$tool is not built"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export XDG_CACHE_HOME="$tmp/cache"  # FFTW wisdom, away from the user's
source "$FASTPSR_SOURCE/tests/cli/lib/checks.bash"
source "$FASTPSR_SOURCE/tests/cli/lib/memory.bash"

# 2 s of 16 MHz ci8 voltages: 64 MB, 32M samples, 125000 spectra of 256 channels.
"$bin/fake-pulsar" -q --voltages --bw 16 --tobs 2 --period 0.5 --dm 30 --fold-snr 20 --seed 2 -o v.dada

# Power, float32: the channeliser's buffers and the two gulps read ahead (16 MiB each).
rss=$(peak_rss_kib "$bin/ppf" -v --device cpu -C 256 v.dada -o p.fil)
mib=$(reported_mib)
check_rss "power f32" "$rss" "$mib" 0.9
check "the memory line names the read-ahead buffers" grep -q 'input 32.0 MiB (two gulps read ahead)' err.txt

# 8-bit: 50000 rows wanted, so two blocks of 32768 rows (1 KiB each) are held before the scaling.
rss=$(peak_rss_kib "$bin/ppf" -v --device cpu -C 256 --nbits 8 --scale-rows 50000 v.dada -o p8.fil)
mib=$(reported_mib)
check_rss "8-bit, --scale-rows 50000" "$rss" "$mib" 0.7
check "the memory line names the held rows" grep -q '8-bit scaling 128.0 MiB (655[0-9]* rows held as float32' err.txt
rm -f p.fil p8.fil

# From a pipe whose data stall after the header, --scale-rows 1e9: about 1 TB of rows to hold,
# more than any RAM. Refused without waiting for the data (a check after the first read would
# wait, and be ended by timeout: 124). Opening stdin reads its first MiB, so 2 MB are sent.
mkdir out
mkfifo stall
{ head -c 2000000 v.dada; exec sleep 60; } >stall &
producer=$!
expect_exit 1 "ppf: error: <stdin>: needs about .* GiB of host memory (channeliser .*, input .*, 8-bit scaling .*), but this process may use .*: use a smaller --scale-rows (now 1000000000" \
  timeout 30 "$bin/ppf" --device cpu -C 256 --nbits 8 --scale-rows 1000000000 - -o out/p.fil <stall
kill "$producer" 2>/dev/null
wait "$producer" 2>/dev/null
# The file's length bounds the rows held: the same option on the file runs.
check "--scale-rows 1000000000 on the file runs" "$bin/ppf" -q --device cpu -C 256 --nbits 8 --scale-rows 1000000000 \
  v.dada -o out/p.fil
check "the file run wrote its output" test -s out/p.fil
rm -f out/p.fil

# A gulp of 10^10 spectra: terabytes of buffers.
expect_exit 1 "v.dada: needs about .*: use a smaller --gulp (now 10000000000 spectra)" \
  "$bin/ppf" --device cpu -C 256 --gulp 10000000000 v.dada -o out/p.fil
check "nothing left in the output directory: $(ls -A out)" test -z "$(ls -A out)"

# An allocation that fails all the same (the filter design of 2^26 channels x 16 taps: 8 GiB,
# under ulimit -v 2 GB) names the input and what the process held and may use. Not under ASan,
# whose shadow memory needs the address space.
if [ -z "${FASTPSR_ASAN:-}" ]; then
  expect_exit 1 "ppf: error: v.dada: out of host memory: a buffer could not be allocated (the process held up to .* and may use [0-9.]* [GM]iB: ulimit -v)" \
    bash -c "ulimit -v 2000000 && exec '$bin/ppf' --device cpu -C 67108864 -T 16 v.dada -o out/p.fil"
  check "nothing left in the output directory: $(ls -A out)" test -z "$(ls -A out)"
fi

[ $fail -eq 0 ] && echo PASS
exit $fail
