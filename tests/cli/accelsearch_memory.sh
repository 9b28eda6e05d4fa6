#!/bin/bash
# SPDX-License-Identifier: MIT
# accelsearch's bounded memory and reproducible CPU runs, as a user meets them: a plane larger
# than --plane-memory is searched in blocks (PRESTO's default search) and gives the files of the
# whole plane (-inmem) byte for byte; measured FFTW plans kept as wisdom make a second run give
# the first run's bytes; bad values of the new options are usage errors (status 2).
set -u
bin=${FASTPSR_BIN:?}
for tool in fake-pulsar dedisp accelsearch; do
  [ -x "$bin/$tool" ] || { echo "skipped: $bin/$tool is not built"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export XDG_CACHE_HOME="$tmp/cache"  # the default wisdom file, away from the user's
fail=0
check() { if ! eval "$1"; then echo "FAILED: $2"; fail=1; fi; }

"$bin/fake-pulsar" -q --nchans 32 --fch1 1500 --foff -2 --tsamp 128 --nsamples 262144 --nbits 8 --period 3.1416 \
    --dm 40 --accn 15000 --fold-snr 30 --seed 11 -o f.fil
"$bin/dedisp" -q f.fil --dm 40 --format dat -o f
for mode in inmem blocks; do mkdir -p $mode && ln -s ../f_DM40.00.dat ../f_DM40.00.inf $mode/; done

# The whole plane: 41 z x ~262k rk x 4 bytes = ~43 MB; 24 MiB forces blocks (of one chunk of
# 16384 rk: ~16 MB of windows for 16 harmonics).
(cd inmem && "$bin/accelsearch" -q --device cpu -zmax 40 -numharm 16 -inmem f_DM40.00.dat)
(cd blocks && "$bin/accelsearch" -v --device cpu -zmax 40 -numharm 16 --plane-memory 0.0234375 f_DM40.00.dat \
    2>log.txt)
check "grep -q 'block search' blocks/log.txt" "-v names the block search (got: $(grep searcher blocks/log.txt))"
check "grep -q 'more than --plane-memory' blocks/log.txt" "the note that the plane is searched in blocks"
for f in f_DM40.00_ACCEL_40 f_DM40.00_ACCEL_40.cand; do
  check "[ -s inmem/$f ] && cmp -s inmem/$f blocks/$f" "$f: the block search differs from -inmem"
done
check "[ \$(grep -c '^ *[0-9]' inmem/f_DM40.00_ACCEL_40) -ge 1 ]" "the pulsar is found"
# The memory the search reported, in blocks: under the limit (plus the templates).
mib=$(sed -n 's/.*memory: \([0-9.]*\) MiB host.*/\1/p' blocks/log.txt)
check "awk -v m='$mib' 'BEGIN { exit !(m > 0 && m < 24 + 4) }'" "host memory $mib MiB with --plane-memory 24 MiB"

# Measured plans, kept as wisdom: the second run gives the first run's bytes.
for run in 1 2; do
  mkdir -p measure$run && ln -s ../f_DM40.00.dat ../f_DM40.00.inf measure$run/
  (cd measure$run && "$bin/accelsearch" -q --device cpu -zmax 40 -numharm 8 --fftw measure --wisdom ../w f_DM40.00.dat)
done
check "[ -s w ]" "the wisdom file is written"
check "cmp -s measure1/f_DM40.00_ACCEL_40 measure2/f_DM40.00_ACCEL_40" "two measured runs with wisdom differ"
# The default wisdom file lies under XDG_CACHE_HOME.
mkdir -p default && ln -s ../f_DM40.00.dat ../f_DM40.00.inf default/
(cd default && "$bin/accelsearch" -q --device cpu -zmax 0 f_DM40.00.dat)
check "[ -s cache/fastpsr/fftwf-wisdom ]" "the default wisdom file"

# A wisdom path that is not a regular file (a FIFO: FFTW would wait on it forever; a device
# would be replaced by the rename) is neither read nor written, with a warning.
mkfifo fifo
mkdir -p wfifo && ln -s ../f_DM40.00.dat ../f_DM40.00.inf wfifo/
(cd wfifo && timeout 120 "$bin/accelsearch" --device cpu -zmax 0 --wisdom ../fifo f_DM40.00.dat >out.txt 2>err.txt)
got=$?
check "[ $got -eq 0 ]" "--wisdom on a FIFO: exit $got (wanted 0; 124 is a hang)"
check "[ -p fifo ]" "--wisdom on a FIFO: the FIFO was replaced"
check "grep -q 'not a regular file' wfifo/err.txt" "--wisdom on a FIFO: no warning (got: $(cat wfifo/err.txt))"

# Usage errors.
for args in "--plane-memory -1" "-inmem --plane-memory 2" "--fftw fast" "--plane-memory inf" "--plane-memory nan" \
    "--plane-memory 1e400"; do
  "$bin/accelsearch" -q --device cpu $args f_DM40.00.dat >out.txt 2>err.txt
  got=$?
  check "[ $got -eq 2 ]" "accelsearch $args: exit $got (wanted 2): $(cat err.txt)"
done
"$bin/accelsearch" -q --device cpu --plane-memory "" f_DM40.00.dat >out.txt 2>err.txt
got=$?
check "[ $got -eq 2 ]" "accelsearch --plane-memory '': exit $got (wanted 2): $(cat err.txt)"
[ $fail -eq 0 ] && echo PASS
exit $fail
