#!/bin/bash
# SPDX-License-Identifier: MIT
# dedisp --subbands N (SIGPROC dedisperse -b N): a filterbank of N subbands, each dedispersed at
# one DM to its own reference, sample for sample against a Python reading of the .fil (PRESTO's
# subband delays and SIGPROC's dmshift()); dedispersing that file again equals prepsubband's
# two-stage --nsub run byte for byte, for a band in either order (a band in rising order took
# wrong two-stage delays before); the dedisperse shim; refusals; the GPU.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp
export FASTPSR_BINDIR=$bin
export PYTHONPATH=$FASTPSR_SOURCE/tests/cli/lib  # sigproc_fil.py

"$bin/fake-pulsar" -q -nchans 64 -nbits 8 -tsamp 80 -nsamples 20000 -seed 5 \
  --frb time=0.6,dm=150,width=1,snr=60 -o f.fil

# The .fil read in Python: header fields, then the subbands summed from the channels.
cat > subbands.py <<'PY'
import struct, sys
from sigproc_fil import header
def shifts(h, nsub, dm, model):
    n, foff, fch1, ts = h["nchans"], h["foff"], h["fch1"], h["tsamp"]
    cpb = n // nsub
    s = [0] * n
    if model == "sigproc":  # dmshift(): fi walked, f1 += cpb * df after each band
        fi, f1 = fch1, fch1
        for i in range(n):
            s[i] = int(4148.741601 * (1.0 / (fi * fi) - 1.0 / (f1 * f1)) * dm / ts)
            fi += foff
            if (i + 1) % cpb == 0: f1 += cpb * foff
        return s
    w = abs(foff)  # PRESTO: lowest channel first
    lo = fch1 - (n - 1) * w if foff < 0 else fch1
    sbw = w * cpb
    for ii in range(n):
        f = lo + ii * w
        top = lo + sbw - w + (ii // cpb) * sbw
        d = (dm / (0.000241 * f * f) - dm / (0.000241 * top * top)) / ts
        s[n - 1 - ii if foff < 0 else ii] = int(d + 0.5) if d >= 0 else int(d - 0.5)
    return s
fil, out, nsub, dm, model = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
h, data = header(fil)
n = h["nchans"]; cpb = n // nsub
x = data
nin = len(x) // n
s = shifts(h, nsub, dm, model)
nout = nin - max(s)
ho, y = header(out)
assert ho["data_type"] == 6 and ho["nchans"] == nsub and ho["refdm"] == dm, ho
assert abs(ho["foff"] - h["foff"] * cpb) < 1e-12, ho
assert len(y) == 4 * nsub * nout, f"{len(y) // (4 * nsub)} samples, not {nout}"
got = struct.unpack(f"<{nsub * nout}f", y)
for t in range(nout):
    for b in range(nsub):
        want = sum(x[(t + s[c]) * n + c] for c in range(b * cpb, (b + 1) * cpb))
        assert got[t * nsub + b] == want, f"sample {t} subband {b}: {got[t * nsub + b]} != {want}"
print(f"{nout} samples x {nsub} subbands equal")
PY

"$bin/dedisp" f.fil -d 150 --subbands 16 --device cpu -q -o sub16.fil
check "presto model: 16 subbands sample for sample" python3 subbands.py f.fil sub16.fil 16 150 presto
"$bin/dedisp" f.fil -d 150 --subbands 8 --delay-model sigproc --device cpu -q -o sig8.fil
check "sigproc model: 8 subbands sample for sample" python3 subbands.py f.fil sig8.fil 8 150 sigproc
"$bin/dedisp" f.fil -d 150 --subbands all --device cpu -q -o all.fil
check "--subbands all: every channel its own subband" python3 subbands.py f.fil all.fil 64 150 presto

# The subband file dedispersed again at the DM is prepsubband's two-stage sum (-nsub 16).
data() { python3 -c "import sys; d=open(sys.argv[1],'rb').read(); sys.stdout.buffer.write(d[d.index(b'HEADER_END')+10:])" "$1"; }
"$bin/dedisp" sub16.fil -d 150 --delay-model presto --format tim --device cpu -q -o stage2.tim
"$bin/dedisp" f.fil -d 150 --nsub 16 --delay-model presto --format tim --device cpu -q -o nsub16.tim
check "subbands then DM: the --nsub 16 series" cmp <(data stage2.tim) <(data nsub16.tim)

# The same band written in rising frequency order (foff > 0): the same series.
python3 -c "import sigproc_fil; sigproc_fil.write_rising_copy('f.fil', 'rise.fil')"
"$bin/dedisp" rise.fil -d 150 --subbands 16 --device cpu -q -o rsub16.fil
check "rising band: 16 subbands sample for sample" python3 subbands.py rise.fil rsub16.fil 16 150 presto
"$bin/dedisp" rsub16.fil -d 150 --delay-model presto --format tim --device cpu -q -o rstage2.tim
check "rising band: subbands then DM equal the falling band's" cmp <(data rstage2.tim) <(data stage2.tim)
"$bin/dedisp" rise.fil -d 150 --nsub 16 --delay-model presto --format tim --device cpu -q -o rnsub16.tim
check "rising band: --nsub 16 equals the falling band's" cmp <(data rnsub16.tim) <(data nsub16.tim)

# A subband whose every channel is killed is zeros; the others are unchanged.
"$bin/dedisp" f.fil -d 150 --subbands 16 --kill-chans 0:3,9 --device cpu -q -o kill.fil
check "killed subband: zeros, the rest as summed" python3 - <<'PY'
import struct
def body(p):
    d = open(p, "rb").read(); return d[d.index(b"HEADER_END") + 10:]
a = struct.unpack(f"<{len(body('kill.fil')) // 4}f", body("kill.fil"))
b = struct.unpack(f"<{len(body('sub16.fil')) // 4}f", body("sub16.fil"))
assert len(a) == len(b)
assert all(v == 0.0 for v in a[0::16]), "subband 0 is not zeros"
assert all(a[i] == b[i] for i in range(len(a)) if i % 16 not in (0, 2)), "other subbands changed"
assert any(a[i] != b[i] for i in range(2, len(a), 16)), "channel 9's subband did not change"
PY

# SIGPROC's dedisperse -b N through the shim: SIGPROC's delays and baseline, data_type 6.
"$FASTPSR_SOURCE/tools/presto-compat/dedisperse" f.fil -d 150 -b 8 -nobaseline > shim8.fil
check "dedisperse -b 8 -nobaseline: the sigproc subbands" cmp shim8.fil sig8.fil
"$FASTPSR_SOURCE/tools/presto-compat/dedisperse" f.fil -d 150 -b 8 -o shimb.fil
"$bin/dedisp" f.fil -d 150 --subbands 8 --delay-model sigproc --baseline sigproc --device cpu -q -o base8.fil
check "dedisperse -b 8: SIGPROC's running-median baseline a subband" cmp shimb.fil base8.fil
"$FASTPSR_SOURCE/tools/presto-compat/dedisperse" f.fil -d 150 -b 1 -nobaseline > one.tim
"$bin/dedisp" f.fil -d 150 --delay-model sigproc --format tim --device cpu -q -o plain.tim
check "dedisperse -b 1: the .tim" cmp one.tim plain.tim
"$FASTPSR_SOURCE/tools/presto-compat/dedisperse" f.fil -d 150 -b nchans -nobaseline > shimall.fil
check "dedisperse -b nchans: a subband a channel" python3 subbands.py f.fil shimall.fil 64 150 sigproc

expect_exit 2 "the 64 channels do not split into 5 subbands" "$bin/dedisp" f.fil -d 150 --subbands 5 -o x.fil
expect_exit 2 "--subbands dedisperses at one DM" "$bin/dedisp" f.fil --dm 0:10:5 --subbands 8 -o x.fil
expect_exit 2 "--subbands writes a filterbank" "$bin/dedisp" f.fil -d 150 --subbands 8 --format tim -o x.tim
expect_exit 2 "give a number of subbands (1 or more) or all" "$bin/dedisp" f.fil -d 150 --subbands 8x -o x.fil
expect_exit 2 "does not go with --nsub" "$bin/dedisp" f.fil -d 150 --subbands 8 --nsub 16 -o x.fil
check "no output from a refused run" test -z "$(ls x.* 2>/dev/null)"

if [ "${FASTPSR_HAVE_CUDA:-0}" = 1 ] && nvidia-smi -L >/dev/null 2>&1; then
  "$bin/dedisp" f.fil -d 150 --subbands 16 --device gpu -q -o gsub16.fil
  check "GPU: the same 16 subbands" cmp gsub16.fil sub16.fil
  "$bin/dedisp" f.fil -d 150 --subbands all --device gpu -q -o gall.fil
  check "GPU: a subband a channel" cmp gall.fil all.fil
  "$bin/dedisp" f.fil -d 150 --subbands 16 --kill-chans 0:3,9 --device gpu -q -o gkill.fil
  check "GPU: a killed subband" cmp gkill.fil kill.fil
fi
exit $fail
