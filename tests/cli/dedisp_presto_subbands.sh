#!/bin/bash
# SPDX-License-Identifier: MIT
# PRESTO's subband files: dedisp --subbands N --format sub (and the prepsubband shim's -sub
# -subdm) writes <root>_DM<dm>.sub<NN> (int16, lowest frequency first) and .sub.inf sample for
# sample as a Python reading of prepsubband -sub (subband_search_delays at full resolution, the
# mean of -downsamp samples, (short)(x + 0.5)); dedisp and the shim read such a set as
# prepsubband does (subband_delays from the .sub.inf's band, -downsamp, -runavg), again against
# Python; writing then reading at the DMs whose mean is -subdm gives the --nsub run byte for
# byte; a band in rising order gives the same files; refusals.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp header accelsearch
export FASTPSR_BINDIR=$bin
export PYTHONPATH=$FASTPSR_SOURCE/tests/cli/lib  # sigproc_fil.py
shims=$FASTPSR_SOURCE/tools/presto-compat

"$bin/fake-pulsar" -q -nchans 64 -nbits 8 -tsamp 80 -nsamples 20000 -seed 7 \
  --frb time=0.6,dm=150,width=1,snr=60 -o f.fil

cat > ref.py <<'PY'
import struct, sys
from sigproc_fil import header
def f32(x): return struct.unpack("<f", struct.pack("<f", x))[0]
def nearest(x): return int(x + 0.5) if x >= 0 else int(x - 0.5)  # PRESTO's NEAREST_LONG
def delay(dm, f): return dm / (0.000241 * f * f)                  # PRESTO's delay_from_dm
def inf(path):
    v = {}
    for line in open(path):
        if "=" in line:
            k, x = line.split("=", 1); v[k.strip()] = x.strip()
    return v
def shorts(path):
    b = open(path, "rb").read(); return list(struct.unpack("<%dh" % (len(b) // 2), b))
def name(root, j, nsub):
    digits = 0
    while 10 ** digits < nsub: digits += 1
    return "%s.sub%0*d" % (root, digits, j) if digits else "%s.sub%d" % (root, j)

def write(fil, root, nsub, dm, ds):
    """prepsubband -sub -subdm dm -nsub nsub -downsamp ds -noclip, read from its source."""
    h, x = header(fil)
    n, foff, ts = h["nchans"], h["foff"], h["tsamp"]
    w = abs(foff); lo = h["fch1"] - (n - 1) * w if foff < 0 else h["fch1"]
    cps = n // nsub; sbw = w * cps
    col = lambda ii: n - 1 - ii if foff < 0 else ii  # PRESTO's channel ii (lowest first) in the file
    s1 = [nearest((delay(dm, lo + ii * w) - delay(dm, lo + sbw - w + (ii // cps) * sbw)) / ts) for ii in range(n)]
    nin = len(x) // n
    nout = (nin - max(s1)) // ds
    v = inf(root + ".sub.inf")
    assert int(v["Number of bins in the time series"]) == nout, (v, nout)
    assert int(v["Number of channels"]) == n and float(v["Dispersion measure (cm-3 pc)"]) == dm, v
    assert abs(float(v["Width of each time series bin (sec)"]) - ts * ds) < 1e-12, v
    assert abs(float(v["Central freq of low channel (MHz)"]) - lo) < 1e-9, v
    assert abs(float(v["Channel bandwidth (MHz)"]) - w) < 1e-12, v
    for j in range(nsub):
        y = shorts(name(root, j, nsub))
        assert len(y) == nout, (j, len(y), nout)
        for t in range(nout):
            s = 0
            for k in range(t * ds, t * ds + ds):
                s += sum(x[(k + s1[ii]) * n + col(ii)] for ii in range(j * cps, j * cps + cps))
            want = int(f32(f32(float(s)) / ds) + 0.5)  # (short)(infloat + 0.5)
            assert y[t] == want, (j, t, y[t], want)

def read(root, nsub, dm, ds, runavg, dat):
    """prepsubband -dm.. -downsamp ds [-runavg] -noclip on the subband files: float32 sums."""
    v = inf(root + ".sub.inf")
    lo = float(v["Central freq of low channel (MHz)"]); w = float(v["Channel bandwidth (MHz)"])
    dt = float(v["Width of each time series bin (sec)"]); n = int(v["Number of channels"])
    sbw = w * (n // nsub); tops = [lo + sbw - w + j * sbw for j in range(nsub)]
    off = [nearest((delay(dm, f) - delay(dm, tops[-1])) / (dt * ds)) for f in tops]
    subs = []
    for j in range(nsub):
        y = shorts(name(root, j, nsub))
        z = [float(a) for a in y]
        if runavg:
            for b in range(0, len(y), 1024):
                blk = y[b:b + 1024]; avg = sum(float(a) for a in blk) / len(blk)
                for t in range(b, b + len(blk)): z[t] = f32(float(y[t]) - avg)
        subs.append([f32(f32(sum(z[t * ds:t * ds + ds])) / ds) for t in range(len(y) // ds)])
    nout = (len(subs[0]) - max(off)) // 2 * 2  # --even
    b = open(dat, "rb").read(); got = struct.unpack("<%df" % (len(b) // 4), b)
    assert len(got) == nout, (len(got), nout)
    for t in range(nout):
        terms = [subs[j][t + off[j]] for j in range(nsub)]
        assert abs(got[t] - sum(terms)) <= 1e-6 * sum(abs(a) for a in terms) + 1e-30, (t, got[t], sum(terms))

if sys.argv[1] == "write": write(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]))
else: read(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "1", sys.argv[7])
PY

# header describes one file of the set; the other tools name it when given one.
"$bin/dedisp" f.fil -d 150 --subbands 8 --format sub -q -o a
"$bin/header" a_DM150.00.sub3 > h.txt
check "header: subband 3 of 8, its channels" grep -q "Subband *: 3 of 8 (channels 24 to 31 of 64" h.txt
check "header: the DM of the set" grep -q "Reference DM (pc/cc) *: 150.000000" h.txt
check "header: samples from the file" grep -q "Number of samples *: $(($(stat -c %s a_DM150.00.sub3) / 2))$" h.txt
expect_exit 1 "is a PRESTO subband file, not a time series" "$bin/accelsearch" a_DM150.00.sub0

# Writing: dedisp itself, then the shim with -downsamp (means, rounded as PRESTO's cast).
check "--format sub: 8 subband files sample for sample" python3 ref.py write f.fil a_DM150.00 8 150 1
check "--format sub: the files prepsubband names" test -f a_DM150.00.sub0 -a -f a_DM150.00.sub7 -a -f a_DM150.00.sub.inf
"$shims/prepsubband" -sub -subdm 150 -nsub 16 -downsamp 3 -noclip -o p f.fil 2>shim.err
check "prepsubband -sub -downsamp 3: sample for sample" python3 ref.py write f.fil p_DM150.00 16 150 3
check "prepsubband -sub: no barycentring note (PRESTO sets -nobary itself)" test ! -s shim.err
check "16 subbands are named sub00..sub15" test -f p_DM150.00.sub00 -a -f p_DM150.00.sub15

# Reading: the shim on the set, with -downsamp and -runavg, against Python.
"$shims/prepsubband" -nobary -lodm 120 -dmstep 30 -numdms 3 -downsamp 2 -noclip -o q p_DM150.00.sub??
for dm in 120.00 150.00 180.00; do
  check "subband input, DM $dm, -downsamp 2" python3 ref.py read p_DM150.00 16 "$dm" 2 0 "q_DM$dm.dat"
done
"$shims/prepsubband" -nobary -lodm 150 -numdms 1 -runavg -noclip -o r p_DM150.00.sub??
check "subband input, -runavg" python3 ref.py read p_DM150.00 16 150 1 1 r_DM150.00.dat
check "subband input: the .inf keeps the original band" grep -q "Number of channels *= *64" q_DM120.00.inf
check "the .sub.inf says what the subbands hold" grep -q "PRESTO subbands of 4 channels at DM 150, each channel shifted to its subband's highest, means of 3 samples" p_DM150.00.sub.inf
# -ignorechan acts on raw channels only, in PRESTO: said, and the series unchanged.
"$shims/prepsubband" -nobary -lodm 150 -numdms 1 -noclip -o pl p_DM150.00.sub??
"$shims/prepsubband" -nobary -lodm 150 -numdms 1 -noclip -ignorechan 0:3 -o ig p_DM150.00.sub?? 2>ig.err
check "subband input, -ignorechan: said" grep -q "ignorechan does nothing on subband input" ig.err
check "subband input, -ignorechan: not used" cmp ig_DM150.00.dat pl_DM150.00.dat

# --start (the shim's -offset) and --nsamps read the set as if it began and ended there: -runavg's
# blocks of 1024 count from the first sample read (PRESTO seeks, then reads blocks), and its last
# block takes nothing beyond --nsamps. Against copies of the set cut to the same samples.
mkdir cut
for f in p_DM150.00.sub??; do tail -c +2001 "$f" | head -c 30000 > "cut/$f"; done
cp p_DM150.00.sub.inf cut/
"$bin/dedisp" cut/p_DM150.00.sub?? --dm 120:180:30 --runavg -q -o cut/r
"$bin/dedisp" p_DM150.00.sub?? --dm 120:180:30 --runavg --start 1000 --nsamps 15000 -q -o rs
for dm in 120.00 150.00 180.00; do
  check "--runavg --start 1000 --nsamps 15000 = the cut set, DM $dm" cmp "rs_DM$dm.dat" "cut/r_DM$dm.dat"
done
"$shims/prepsubband" -nobary -lodm 150 -numdms 1 -runavg -noclip -o cut/q cut/p_DM150.00.sub??
"$shims/prepsubband" -nobary -lodm 150 -numdms 1 -runavg -noclip -offset 1000 -o qo p_DM150.00.sub?? 2>/dev/null
n=$(stat -c %s cut/q_DM150.00.dat)
check "prepsubband -offset 1000 -runavg = the cut set" cmp -n "$n" qo_DM150.00.dat cut/q_DM150.00.dat

# Two stages through files equal --nsub (stage 1 at the mean of the DM list) byte for byte.
printf '100\n150\n200\n' > dms.txt
"$bin/dedisp" a_DM150.00.sub? --dm-list dms.txt -q -o s
"$bin/dedisp" f.fil --dm-list dms.txt --nsub 8 -q -o n
for dm in 100.00 150.00 200.00; do
  check "subbands written and read = --nsub 8, DM $dm" cmp "s_DM$dm.dat" "n_DM$dm.dat"
done
# Without -o, dat files take the set's root less its _DM<dm>: a_DM100.00.dat, not a_DM150.00_DM100.00.dat
# (a_DM150.00.sub* lists the .sub.inf first: the root still comes from a subband file).
"$bin/dedisp" a_DM150.00.sub* --dm 100:200:100 --format dat -q
check "default root of a subband set" test -f a_DM100.00.dat -a -f a_DM200.00.inf -a ! -e a_DM150.00_DM100.00.dat
# --nsub is the set's own; another is said and not used.
"$bin/dedisp" a_DM150.00.sub? --dm-list dms.txt --nsub 4 -o s4 2>nsub.err
check "--nsub with subband input: said" grep -q "does not apply to subband input" nsub.err
check "--nsub with subband input: not used" cmp s4_DM100.00.dat s_DM100.00.dat

# A band in rising order: the same files (sub0 the lowest subband either way).
python3 -c "import sigproc_fil; sigproc_fil.write_rising_copy('f.fil', 'rise.fil')"
"$bin/dedisp" rise.fil -d 150 --subbands 8 --format sub -q -o b
for j in 0 3 7; do check "rising band: sub$j the falling band's" cmp "b_DM150.00.sub$j" "a_DM150.00.sub$j"; done

# More subbands than channels: one a channel, as prepsubband resets -nsub (its default 32).
"$bin/fake-pulsar" -q -nchans 16 -nbits 8 -tsamp 80 -nsamples 4000 -seed 3 -o c16.fil
"$shims/prepsubband" -sub -subdm 20 -noclip -o c16 c16.fil 2>c16.err
check "-nsub 32 on 16 channels: said" grep -q "one subband a channel" c16.err
check "-nsub 32 on 16 channels: 16 subbands" test -f c16_DM20.00.sub15 -a ! -e c16_DM20.00.sub16
check "-nsub 32 on 16 channels: sample for sample" python3 ref.py write c16.fil c16_DM20.00 16 20 1

# Refusals, with nothing written.
mkdir bad && cp a_DM150.00.sub[0-6] a_DM150.00.sub.inf bad/
expect_exit 1 "do not split into 7 subbands" "$bin/dedisp" bad/a_DM150.00.sub? -d 150 -o bad/x
rm bad/a_DM150.00.sub3
expect_exit 1 "subband 3 is missing" "$bin/dedisp" bad/a_DM150.00.sub? -d 150 -o bad/x
head -c 100 a_DM150.00.sub3 > bad/a_DM150.00.sub3
cp a_DM150.00.sub7 bad/
expect_exit 1 "the subbands of a set have one length" "$bin/dedisp" bad/a_DM150.00.sub? -d 150 -o bad/x
expect_exit 1 "subband files of two sets" "$bin/dedisp" a_DM150.00.sub0 bad/a_DM150.00.sub1 -d 150 -o bad/x
rm bad/a_DM150.00.sub.inf
expect_exit 1 "a_DM150.00.sub.inf" "$bin/dedisp" bad/a_DM150.00.sub? -d 150 -o bad/x
expect_exit 1 "a_DM150.00.sub4 is beside them: give the whole set" "$bin/dedisp" a_DM150.00.sub[0-3] -d 150 -o bad/x
mkdir w && cp p_DM150.00.sub0[0-7] p_DM150.00.sub.inf w/
expect_exit 1 "8 subband files numbered with 2 digits" "$bin/dedisp" w/p_DM150.00.sub?? -d 150 -o bad/x
expect_exit 1 "the .sub.inf of another set" "$bin/dedisp" a_DM150.00.sub? p_DM150.00.sub.inf -d 150 -o bad/x
check "no output from a refused run" test -z "$(ls bad/x* 2>/dev/null)"
expect_exit 2 "give --subbands N" "$bin/dedisp" f.fil -d 150 --format sub -o x
# Too short: the largest delay within a subband is named (337-340 MHz at DM 40: 321 samples).
"$bin/fake-pulsar" -q -nchans 64 -nbits 8 -tsamp 80 --fch1 400 --foff -1 -nsamples 300 -o short.fil
expect_exit 2 "DM 40 needs more than 321 samples (0.02568 s) of data to fill its delay within a subband" \
  "$bin/dedisp" short.fil -d 40 --subbands 16 --format sub -o x
expect_exit 2 "--format sub writes a set of files under a root name" "$bin/dedisp" f.fil -d 150 --subbands 8 --format sub -o -
expect_exit 2 "use --downsample-after D --downsample-mean" "$bin/dedisp" f.fil -d 150 --subbands 8 --format sub --downsample 2 -o x
expect_exit 2 "add --downsample-mean" "$bin/dedisp" f.fil -d 150 --subbands 8 --format sub --downsample-after 2 -o x
expect_exit 2 "does not apply to PRESTO subband input" "$bin/dedisp" a_DM150.00.sub? -d 150 --delay-model sigproc -o x
expect_exit 2 "--delay-model presto" "$bin/dedisp" f.fil -d 150 --subbands 8 --format sub --delay-model sigproc -o x
expect_exit 2 "--runavg is for PRESTO subband input" "$bin/dedisp" f.fil -d 150 --runavg -o x
expect_exit 1 "f.fil: starts at sample 0 of the observation" "$bin/dedisp" f.fil f.fil -d 150 -o x
expect_exit 2 "-sub with subband input" "$shims/prepsubband" -sub -subdm 150 -o x p_DM150.00.sub??
expect_exit 2 "DM trials do not go with it" "$shims/prepsubband" -sub -subdm 150 --dm 0:10:1 -o x f.fil
check "no output from a refused run" test -z "$(ls x* 2>/dev/null)"

if [ "${FASTPSR_HAVE_CUDA:-0}" = 1 ] && nvidia-smi -L >/dev/null 2>&1; then
  "$bin/dedisp" f.fil -d 150 --subbands 8 --format sub --device gpu -q -o g
  for j in 0 5; do check "GPU: sub$j the CPU's" cmp "g_DM150.00.sub$j" "a_DM150.00.sub$j"; done
  "$bin/dedisp" a_DM150.00.sub? --dm-list dms.txt --device gpu -q -o gs
  check "GPU: subband input = the CPU's --nsub run" cmp gs_DM150.00.dat n_DM150.00.dat
fi
exit $fail
