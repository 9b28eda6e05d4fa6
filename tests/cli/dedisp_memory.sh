#!/bin/bash
# SPDX-License-Identifier: MIT
# dedisp's host memory as a user meets it: -v's "memory: host" line counts what the process holds
# (each DM's file buffer and delay tables, the tim-stream spool), so the peak resident size is
# that plus the program (a few MiB); the dedisperser's part is the kernel line's number; a run
# that needs more than the process may use (ulimit -v, or the RAM) is refused before any data is
# read, naming the file, the sizes and what to lower, with status 1 and no output left behind.
set -u
bin=${FASTPSR_BIN:?}
for tool in fake-pulsar dedisp header; do
  [ -x "$bin/$tool" ] || { echo "skipped: $bin/$tool is not built"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
source "$FASTPSR_SOURCE/tests/cli/lib/checks.bash"
source "$FASTPSR_SOURCE/tests/cli/lib/memory.bash"

fake() { "$bin/fake-pulsar" -q --nchans 256 --fch1 1500 --foff -1 --nbits 8 --tsamp 64 --seed 5 "$@"; }
fake --nsamples 200000 -o f.fil
fake --nsamples 30000 -o short.fil

# 1001 DMs, one .dat each: every file has a 64 KiB buffer and every DM a delay table (the audit's
# missing ~70 KiB a DM); over three gulps of input, so the read-ahead buffers are filled.
mkdir dat
rss=$(peak_rss_kib "$bin/dedisp" -v --device cpu short.fil --dm 0:100:0.1 --gulp 8192 -o dat/s)
mib=$(reported_mib)
check_rss "dat, 1001 DMs" "$rss" "$mib"
check "the memory line names the files' buffers" grep -q 'write buffer of 64 KiB for each of 1001 files' err.txt
# The two host numbers of -v: the memory line's dedisperser part is the kernel line's.
kernel=$(sed -n 's/.*cpu kernel:.*host memory \([0-9.]*\) MiB.*/\1/p' err.txt)
check "the memory line's dedisperser part ($(grep -o 'dedisperser [0-9.]* MiB ([^)]*)' err.txt)) is the kernel line's ($kernel MiB)" \
  grep -q "dedisperser $kernel MiB (the kernel line's)" err.txt
check "dat: 1001 files written" test "$(ls dat | grep -c '\.dat$')" -eq 1001
rm -rf dat

# tim-stream: the records are spooled (here all of them fit the 512 MiB: 101 x ~200000 x 4 B).
rss=$(peak_rss_kib "$bin/dedisp" -v --device cpu f.fil --dm 0:100:1 --format tim-stream -o -)
mib=$(reported_mib)
check_rss "tim-stream, 101 DMs" "$rss" "$mib"
check "the memory line names the spool" grep -q 'the records spooled, up to' err.txt

# Too much for the process: refused at once, before reading data, naming the file, the sizes and
# --gulp (here more than ulimit -v allows: about 2.7 GB of gulp buffers). From stdin, whose
# length is not known: a file's length caps the gulp. Not under ASan, whose shadow memory needs
# the address space.
mkdir out
if [ -z "${FASTPSR_ASAN:-}" ]; then
  expect_exit 1 "dedisp: error: <stdin>: needs about .* GiB of host memory (dedisperser .*input .*), but this process may use .* (ulimit -v): use a smaller --gulp (now 2000000 samples)" \
    bash -c "ulimit -v 1000000 && cat f.fil | '$bin/dedisp' - --dm 0:100:1 --gulp 2000000 --device cpu -o out/g"
  check "nothing left in the output directory: $(ls -A out)" test -z "$(ls -A out)"
fi

# From a pipe whose data stall after the header: the refusal comes without waiting for them
# (4 TB of output blocks: more than any RAM, so no ulimit is needed). A check made after the
# first read would wait for the data and be ended by timeout (124).
"$bin/fake-pulsar" -q --nchans 2 --fch1 1500 --foff -1 --nbits 8 --tsamp 64 --nsamples 100000 --seed 1 -o two.fil
mkfifo stall
{ head -c 20000 two.fil; exec sleep 60; } >stall &
producer=$!
expect_exit 1 "<stdin>: needs about .*use .*fewer DMs a run (now 4001" \
  timeout 30 "$bin/dedisp" - --dm 0:400:0.1 --gulp 268435456 --device cpu -o out/p <stall
kill "$producer" 2>/dev/null
wait "$producer" 2>/dev/null
check "nothing left in the output directory: $(ls -A out)" test -z "$(ls -A out)"

# A --gulp longer than the file is one gulp of the file (it was refused: the buffers it sized
# passed the kernels' 32-bit row offsets; QA pass 12), with the output of the default gulp.
mkdir -p g1 g2
(cd g1 && "$bin/dedisp" -q ../two.fil --device cpu --dm 0:100:2.5 -o x)
(cd g2 && "$bin/dedisp" -q ../two.fil --device cpu --dm 0:100:2.5 --gulp 100000000 -o x)
check "--gulp past the file's end: the default gulp's output" diff -r g1 g2
check "--gulp past the file's end: 41 files" test "$(ls g2 | grep -c '\.dat$')" -eq 41

# The CPU's default gulp counts every channel of the input, killed ones too (the read-ahead holds
# them all): killing most of a band gives the gulp and input memory of the whole band (QA pass
# 15: 2048 -> 248 channels multiplied them by 8), and the same output as an explicit gulp.
"$bin/fake-pulsar" -q --nchans 2048 --fch1 1500 --foff -0.125 --nbits 8 --tsamp 64 --nsamples 20000 --seed 2 -o wide.fil
mkdir -p k0 k1 k2
gulp_line() { sed -n 's/.*memory: host .* input \([0-9.]* MiB\).*; gulp \([0-9]*\) samples.*/\2 samples, input \1/p' err.txt; }
(cd k0 && "$bin/dedisp" -v --device cpu ../wide.fil --dm 0:20:10 -o w 2>../err.txt)
whole=$(gulp_line)
(cd k1 && "$bin/dedisp" -v --device cpu ../wide.fil --dm 0:20:10 --kill-chans 0:1799 -o w 2>../err.txt)
killed=$(gulp_line)
check "default gulp with 248 of 2048 channels kept ($killed) is the whole band's ($whole)" \
  test -n "$whole" -a "$killed" = "$whole"
(cd k2 && "$bin/dedisp" -q --device cpu ../wide.fil --dm 0:20:10 --kill-chans 0:1799 --gulp 4096 -o w)
check "killed channels: the default gulp's output is --gulp 4096's" diff -r k1 k2
rm -rf wide.fil k0 k1 k2

# The default gulp is no longer than an input of known length (as an explicit --gulp), with the
# output of a shorter gulp.
mkdir -p s1 s2
(cd s1 && "$bin/dedisp" -v --device cpu ../short.fil --dm 0:20:10 -o s 2>../err.txt)
check "default gulp of a 30000-sample file: $(gulp_line)" grep -q 'gulp 30000 samples' err.txt
(cd s2 && "$bin/dedisp" -q --device cpu ../short.fil --dm 0:20:10 --gulp 4096 -o s)
check "the short file's default gulp gives --gulp 4096's output" diff -r s1 s2

# 4,194,304 channels of 3 samples (1-bit: 1.5 MiB of data; QA pass 20): the dedisperser held
# 6.2 GiB, every channel's row padded by 768 samples past its 3. Now the rows hold the data
# (24 MiB as 16-bit sums) with one padding after the last, beside the per-channel tables (delays,
# row offsets, kept channels, frequencies: 4 + 4 + 4 + 8 B a channel), which -v counts too.
"$bin/fake-pulsar" -q --nchans 4194304 --fch1 1500 --foff -0.0001 --nbits 1 --nsamples 3 --seed 3 -o wide3.fil
rss=$(peak_rss_kib "$bin/dedisp" -v --device cpu wide3.fil -d 0 -o wide3.tim)
mib=$(reported_mib)
kernel=$(sed -n 's/.*cpu kernel:.*host memory \([0-9.]*\) MiB.*/\1/p' err.txt)
check "4194304 channels x 3 samples: the dedisperser's $kernel MiB is at most 128 MiB" \
  awk -v k="$kernel" 'BEGIN { exit !(k > 0 && k <= 128) }'
check "4194304 channels x 3 samples: -v says $mib MiB in all, at most 224" \
  awk -v m="$mib" 'BEGIN { exit !(m > 0 && m <= 224) }'
check_rss "4194304 channels x 3 samples" "$rss" "$mib"
check "4194304 channels x 3 samples: 3 samples out" test "$("$bin/header" wide3.tim -nsamples)" = 3
rm -f wide3.fil wide3.tim

[ $fail -eq 0 ] && echo PASS
exit $fail
