#!/bin/bash
# SPDX-License-Identifier: MIT
# dedisp on malformed input (QA pass 16): each is refused with a message naming the file and the
# problem (status 1 for the data, 2 for a usage error), quickly and in bounded memory.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" dedisp
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }

# fil OUT NCHANS DATA_BYTES [key=double ...]: a SIGPROC filterbank header (8 bits, 64 us, fch1
# 1500 MHz, foff -1e-6 MHz, tstart 60000) followed by DATA_BYTES bytes of data.
fil() {
  python3 - "$@" <<'PY'
import struct, sys
out, nchans, nbytes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
d = {"fch1": 1500.0, "foff": -1e-6, "tstart": 60000.0, "tsamp": 64e-6}
for kv in sys.argv[4:]:
    k, v = kv.split("=")
    d[k] = float(v)
tok = lambda s: struct.pack("<i", len(s)) + s.encode()
h = tok("HEADER_START") + tok("data_type") + struct.pack("<i", 1)
for k in ("fch1", "foff", "tstart", "tsamp"):
    h += tok(k) + struct.pack("<d", d[k])
h += tok("nchans") + struct.pack("<i", nchans) + tok("nbits") + struct.pack("<i", 8)
h += tok("nifs") + struct.pack("<i", int(d.get("nifs", 1))) + tok("HEADER_END")
open(out, "wb").write(h + bytes(i % 251 for i in range(nbytes)))
PY
}

# P1: a header claiming 2^28 channels over 1000 bytes of data (no whole sample) is refused before
# any per-channel table (those took 11.5 GB and 17 s): under 1 GB of address space (not under ASan), in seconds.
fil huge.fil 268435456 1000
mkdir out
expect_exit 1 "dedisp: error: huge.fil: the data hold no whole sample (268435456 channels of 8 bits" \
  bash -c "$(address_limit 1000000) && timeout 60 '$bin/dedisp' huge.fil --device cpu --dm 5 -o out/x"
check "nothing written: $(ls -A out)" test -z "$(ls -A out)"
# The same with two IFs (read through the IF sum since --if): the same message, as little memory.
fil huge2.fil 134217728 1000 nifs=2
expect_exit 1 "dedisp: error: huge2.fil: the data hold no whole sample (134217728 channels of 8 bits each, 2 IFs)" \
  bash -c "$(address_limit 1000000) && timeout 60 '$bin/dedisp' huge2.fil --device cpu --dm 5 -o out/x"
# From a pipe, whose length is not known: its first sample is read ahead before any table (the
# tables took 23 GB for 2^29 channels), in as much memory as the data that came.
expect_exit 1 "dedisp: error: <stdin>: the data hold no whole sample (268435456 channels of 8 bits each, 1 IF)" \
  bash -c "$(address_limit 1000000) && cat huge.fil | timeout 60 '$bin/dedisp' - --device cpu --dm 5 -o out/x"
expect_exit 1 "dedisp: error: <stdin>: the data hold no whole sample (134217728 channels of 8 bits each, 2 IFs)" \
  bash -c "$(address_limit 1000000) && cat huge2.fil | timeout 60 '$bin/dedisp' - --device cpu --dm 5 -o out/x"
# A --start past the end of a short file: refused the same way, naming --start.
fil small.fil 16 1600
expect_exit 2 "dedisp: error: small.fil: --start 100: the input holds only 100 samples" \
  "$bin/dedisp" small.fil --device cpu --dm 5 --start 100 -o out/x
# --start-fraction: one of the two starts, a fraction, and a length a pipe does not tell.
expect_exit 2 "dedisp: error: --start and --start-fraction both say where to start" \
  "$bin/dedisp" small.fil --device cpu --dm 5 --start 10 --start-fraction 0.5 -o out/x
expect_exit 2 "dedisp: error: --start-fraction: 1.5" "$bin/dedisp" small.fil --device cpu --dm 5 --start-fraction 1.5 -o out/x
expect_exit 2 "dedisp: error: --start-rounding: " "$bin/dedisp" small.fil --device cpu --dm 5 --start-fraction 0.5 \
  --start-rounding prepfold -o out/x
expect_exit 2 "needs the input's length, which a pipe does not tell" sh -c \
  "cat small.fil | '$bin/dedisp' - --device cpu --dm 5 --start-fraction 0.5 -o out/x"
expect_exit 2 "dedisp: error: small.fil: --start-fraction 1: that skips all 100 samples of the input" \
  "$bin/dedisp" small.fil --device cpu --dm 5 --start-fraction 1 -o out/x

# P2: a NaN tstart is an unknown epoch: 0 in the .inf and the .tim, with a warning naming the file
# (it was "-2147483648.nan" in the .inf and NaN in the .tim).
fil nan.fil 16 64000 tstart=nan
expect_exit 0 "dedisp: warning: nan.fil: tstart is nan: the epoch is unknown" \
  "$bin/dedisp" nan.fil --device cpu --dm 0:10:5 -o out/n
check "the .inf's epoch is 0" grep -q "Epoch of observation (MJD)  *=  *0\.0*$" out/n_DM5.00.inf
check "no NaN in the .inf" bash -c "! grep -qi nan out/n_DM5.00.inf"
expect_exit 0 "tstart is nan" "$bin/dedisp" nan.fil --device cpu -d 5 -o out/n.tim
check "the .tim's tstart is 0" bash -c "'$bin/header' out/n.tim -tstart | grep -qx '0\(\.0*\)\?'"

# P5: -d takes one DM, so the input may follow it (`dedisp -d 5 obs.fil` took the file as a
# second DM and failed with CLI11's "At Most 1 required but received 2").
fil ok.fil 16 64000
check "dedisp -d 5 ok.fil runs" "$bin/dedisp" -q -d 5 ok.fil --device cpu -o out/a.tim
check "dedisp ok.fil -d 5 runs" "$bin/dedisp" -q ok.fil -d 5 --device cpu -o out/b.tim
check "both orders give the same file" cmp out/a.tim out/b.tim
# Given twice, the last DM is taken, with a warning, as SIGPROC and PRESTO do (QA pass 20).
expect_exit 0 "dedisp: warning: -d given 2 times; the last (6) is used" "$bin/dedisp" -d 5 -d 6 ok.fil --device cpu -o out/c.tim
"$bin/dedisp" -q -d 6 ok.fil --device cpu -o out/d.tim
check "-d 5 -d 6 is -d 6" cmp out/c.tim out/d.tim

# A dat root that is a device or FIFO (QA pass 21: `-o /dev/null` wrote /dev/null_DM5.00.dat into
# /dev) is a usage error; one stream into it is fine.
mkfifo pipe.fifo
expect_exit 2 "dedisp: error: -o pipe.fifo: is not a regular file" "$bin/dedisp" ok.fil --device cpu -d 5 -o pipe.fifo
check "nothing named from the FIFO" test -z "$(ls pipe.fifo_* 2>/dev/null)"
expect_exit 2 "to discard the output, write one stream to it: --format tim-stream -o /dev/null" \
  "$bin/dedisp" ok.fil --device cpu --dm 5:7:1 -o /dev/null
check "nothing written into /dev" test ! -e /dev/null_DM5.00.dat
check "one stream into /dev/null" "$bin/dedisp" ok.fil --device cpu --dm 5:7:1 --format tim-stream -o /dev/null

exit $fail
