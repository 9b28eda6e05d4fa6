#!/bin/bash
# SPDX-License-Identifier: MIT
# Makefile.presto-compat: the PRESTO/SIGPROC-named commands, installed into a folder first in PATH,
# run a PRESTO-style script unchanged and give exactly what the fastpsr tools give; options the
# shims cannot honour are refused with their name and status 2.
set -euo pipefail
bin=${FASTPSR_BIN:?}
src=${FASTPSR_SOURCE:?}
for tool in fake-pulsar dedisp accelsearch header; do
  [ -x "$bin/$tool" ] || { echo "skipped: $bin/$tool is not built"; exit 77; }
done
command -v make >/dev/null || { echo "skipped: make is not installed"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

make -s -C "$src" -f Makefile.presto-compat install BINDIR="$bin" COMPATDIR="$tmp/compat" >/dev/null
cd "$tmp"
export PATH="$tmp/compat:$PATH"
for c in prepsubband prepdata dedisperse fake accelsearch header; do
  [ "$(command -v $c)" = "$tmp/compat/$c" ] || fail "$c is not the shim"
done

# A PRESTO/SIGPROC-style script, as users have them.
fake -nchans 64 -tsamp 256 -tobs 20 -period 50.3 -dm 30 -snrpeak 3 -nbits 8 -seed 11 > f.fil
[ "$(header f.fil -nchans)" = 64 ] || fail "header -nchans"
prepsubband -lodm 28 -dmstep 1 -numdms 5 -nobary -noclip -o ps f.fil
prepdata -dm 30 -nobary -o pd f.fil
dedisperse f.fil -d 30 > sig.tim
dedisperse f.fil -d 30 -nobaseline > signb.tim
accelsearch -zmax 0 -numharm 8 pd.dat

# The same from the fastpsr tools directly (--even: the shims write even lengths, as PRESTO).
"$bin/dedisp" -q f.fil --dm 28:32:1 --nsub 32 --even -o ref  # prepsubband's default: 32 subbands
"$bin/dedisp" -q f.fil -d 30 --even -o refp.dat          # prepdata: every channel at its own delay
"$bin/dedisp" -q f.fil -d 30 --delay-model sigproc --baseline sigproc > ref.tim
"$bin/dedisp" -q f.fil -d 30 --delay-model sigproc > refnb.tim
for dm in 28.00 29.00 30.00 31.00 32.00; do
  cmp -s "ps_DM$dm.dat" "ref_DM$dm.dat" || fail "prepsubband DM $dm differs from dedisp"
  cmp -s "ps_DM$dm.inf" "ref_DM$dm.inf" || true  # the .inf names its own data file
  [ -s "ps_DM$dm.inf" ] || fail "no ps_DM$dm.inf"
done
[ -s pd.inf ] || fail "prepdata wrote no pd.inf"
cmp -s pd.dat refp.dat || fail "prepdata -dm 30 differs from dedisp -d 30"
# PRESTO's defaults where a script leaves the flags out: DMs 0..9 in steps of 1, 32 subbands.
prepsubband -nobary -o dflt f.fil
"$bin/dedisp" -q f.fil --dm 0:9:1 --nsub 32 --even -o refdflt
for dm in 0.00 4.00 9.00; do
  cmp -s "dflt_DM$dm.dat" "refdflt_DM$dm.dat" || fail "prepsubband's defaults: DM $dm differs"
done
[ ! -e dflt_DM10.00.dat ] || fail "prepsubband's defaults: more than 10 DMs"
prepsubband -nobary -lodm 20 -o lo f.fil
[ -s lo_DM29.00.dat ] && [ ! -e lo_DM30.00.dat ] || fail "-lodm 20 alone: not DMs 20..29"
cmp -s sig.tim ref.tim || fail "dedisperse differs from dedisp --baseline sigproc"
cmp -s signb.tim refnb.tim || fail "dedisperse -nobaseline differs from dedisp"
cmp -s sig.tim signb.tim && fail "dedisperse's baseline changed nothing"
# The pulsar (19.88 Hz) is the top candidate. (With -numharm 4 its second harmonic, 39.76 Hz, comes
# first under PRESTO accelsearch's own de-reddening of a .dat, the default since QA pass 17 (D1);
# with rednoise's, --dered-end 100 --dered-endfreq 6, the fundamental did: a near tie of two sums.)
f=$(awk 'NR == 4 { gsub(/\(.*/, "", $7); print $7 }' pd_ACCEL_0)
awk -v f="$f" 'BEGIN { exit !(f > 19.87 && f < 19.89) }' || fail "accelsearch found $f Hz, not 19.88"

# -ncpus (PRESTO's thread count) is taken; DDplan's -nsub with -downsamp runs (each channel at its
# own delay, with a note) and equals dedisp's downsampled direct dedispersion.
prepsubband -ncpus 2 -lodm 28 -dmstep 1 -numdms 5 -nobary -noclip -o pn f.fil
prepdata -ncpus 2 -dm 30 -nobary -o pdn f.fil
cmp -s pn_DM30.00.dat ps_DM30.00.dat || fail "prepsubband -ncpus 2 differs"
# More subbands than channels: one a channel, as prepsubband resets it.
prepsubband -lodm 30 -numdms 1 -nsub 128 -nobary -o many f.fil
cmp -s many_DM30.00.dat refp.dat || fail "-nsub 128 on 64 channels differs from per-channel delays"
cmp -s pdn.dat pd.dat || fail "prepdata -ncpus 2 differs"
prepsubband -lodm 28 -dmstep 2 -numdms 2 -nsub 16 -downsamp 2 -nobary -o nd f.fil 2> note.txt
"$bin/dedisp" -q f.fil --dm 28:30:2 --downsample 2 --downsample-mean --even -o refd
cmp -s nd_DM30.00.dat refd_DM30.00.dat || fail "prepsubband -nsub 16 -downsamp 2 differs from dedisp --downsample 2 --downsample-mean"
grep -q -- "-nsub 16 with -downsamp 2" note.txt || fail "no note for -nsub with -downsamp: $(cat note.txt)"

# Refusals name the option and exit 2.
set +e
prepsubband -sub -subdm 10 --dm 0:1:1 -o m f.fil 2> err.txt
rc=$?
set -e
[ $rc = 2 ] || fail "prepsubband -sub with DM trials: status $rc"
grep -q -- "-sub writes subbands at one DM" err.txt || fail "prepsubband -sub with DM trials: $(cat err.txt)"
[ -z "$(ls m_* 2>/dev/null)" ] || fail "prepsubband -sub with DM trials wrote output"
# -offset N skips N spectra and moves the epoch (dedisp --start).
prepsubband -lodm 30 -numdms 1 -nobary -offset 300 -o off f.fil 2>/dev/null
"$bin/dedisp" -q f.fil -lodm 30 -numdms 1 --nsub 32 --start 300 --clip 6 --even -o refoff
cmp -s off_DM30.00.dat refoff_DM30.00.dat || fail "prepsubband -offset 300 differs from dedisp --start 300"
prepdata -dm 30 -nobary -offset 300 -o poff f.fil 2>/dev/null
"$bin/dedisp" -q f.fil -d 30 --start 300 --clip 6 --even -o prefoff.dat
cmp -s poff.dat prefoff.dat || fail "prepdata -offset 300 differs from dedisp --start 300"
grep -q "Epoch of observation (MJD) *= *$(sed -n 's/^ Epoch of observation (MJD) *= *//p' refoff_DM30.00.inf)" \
  off_DM30.00.inf || fail "prepsubband -offset: not dedisp --start's epoch"
# -start F skips that fraction of the spectra, rounded down to PRESTO's reads (prepdata.c,
# prepsubband.c): (long)(F N / worklen) worklen, worklen 2400 spectra of a filterbank for
# prepdata, and for prepsubband 2400 x ((int)(delay across the band at the highest DM / tsamp) /
# 2400 + 1), delay dm / (0.000241 f^2). Worked out here from the header, then run as -offset.
n=$(header f.fil -nsamples)
fch1=$(header f.fil -fch1)
foff=$(header f.fil -foff)
tsamp=$(header f.fil -tsamp)
pd_offset=$(awk -v n="$n" 'BEGIN { printf "%d", int(0.6 * n / 2400) * 2400 }')
ps_offset=$(awk -v n="$n" -v f1="$fch1" -v fo="$foff" -v ts="$tsamp" 'BEGIN {
  lo = f1 + 63 * fo; hi = lo - 63 * fo; dm = 2000
  reads = int(int((dm / (0.000241 * lo * lo) - dm / (0.000241 * hi * hi)) / (ts * 1e-6)) / 2400) + 1
  printf "%d", int(0.6 * n / (2400 * reads)) * 2400 * reads }')
[ "$pd_offset" != "$ps_offset" ] || fail "-start test: the two roundings should differ here ($pd_offset)"
prepdata -dm 30 -nobary -start 0.6 -o pst f.fil 2>/dev/null
prepdata -dm 30 -nobary -offset "$pd_offset" -o pof f.fil 2>/dev/null
cmp -s pst.dat pof.dat || fail "prepdata -start 0.6 is not -offset $pd_offset"
same_inf() { [ "$(sed 1d "$1")" = "$(sed 1d "$2")" ]; }  # all but the line naming the file
same_inf pst.inf pof.inf || fail "prepdata -start 0.6: not the .inf of -offset $pd_offset"
prepdata -dm 30 -nobary -start 0.6 -offset 5 -o pst2 f.fil 2>/dev/null
cmp -s pst2.dat pof.dat || fail "prepdata -start 0.6 -offset 5: -start wins, as in PRESTO"
prepdata -dm 30 -nobary -start 0 -offset 300 -o pst3 f.fil 2>/dev/null
cmp -s pst3.dat poff.dat || fail "prepdata -start 0 -offset 300: the offset, as in PRESTO"
prepsubband -lodm 0 -dmstep 500 -numdms 5 -nobary -start 0.6 -o sst f.fil 2>/dev/null
prepsubband -lodm 0 -dmstep 500 -numdms 5 -nobary -offset "$ps_offset" -o sof f.fil 2>/dev/null
for dm in 0.00 1000.00 2000.00; do
  cmp -s sst_DM$dm.dat sof_DM$dm.dat || fail "prepsubband -start 0.6 is not -offset $ps_offset (DM $dm)"
  same_inf sst_DM$dm.inf sof_DM$dm.inf || fail "prepsubband -start 0.6: not the .inf of -offset $ps_offset"
done
# A --part of the run rounds with the whole run's highest DM, as every other part does.
"$bin/dedisp" f.fil -v --lodm 0 --dmstep 500 --numdms 5 --start-fraction 0.6 --start-rounding prepsubband \
  --part 1/2 -o part 2> err.txt
grep -q -- "--start-fraction 0.6: $ps_offset samples skipped" err.txt || fail "--part 1/2: $(grep skipped err.txt)"
set +e
prepdata -dm 30 -nobary -start 1.5 -o pbad f.fil 2> err.txt
rc=$?
set -e
[ $rc = 2 ] && grep -q "^prepdata (fastpsr): error: -start: 1.5" err.txt || fail "prepdata -start 1.5: status $rc, $(cat err.txt)"
# -mask is dedisp's --mask (tests/cli/dedisp_mask.sh): a missing mask is named, nothing written.
set +e
prepsubband -lodm 0 -dmstep 1 -numdms 2 -nobary -mask x.mask -o m f.fil 2> err.txt
rc=$?
set -e
[ $rc = 1 ] || fail "prepsubband -mask x.mask (missing): status $rc"
grep -q -- "x.mask" err.txt || fail "prepsubband -mask x.mask (missing): $(cat err.txt)"
[ ! -e m_DM0.00.dat ] || fail "prepsubband -mask x.mask (missing) wrote output"
# refused cmd...: status 2, nothing on stdout, the message in err.txt.
refused() {
  set +e
  "$@" > out.txt 2> err.txt
  rc=$?
  set -e
  [ $rc = 2 ] || fail "$*: status $rc"
  [ ! -s out.txt ] || fail "$*: wrote to stdout"
}
# Several input files are one observation (dedisp_file_sequence.sh): the same file twice overlaps
# itself and is refused by dedisp (status 1), naming it; nothing written. -o is required, as in PRESTO.
set +e
prepsubband -lodm 30 -numdms 1 -nobary -o two f.fil f.fil > out.txt 2> err.txt
rc=$?
set -e
[ $rc = 1 ] || fail "prepsubband f.fil f.fil: status $rc"
grep -q "prepsubband (fastpsr): error: f.fil: .*an overlap of" err.txt || fail "prepsubband, 2 inputs: $(cat err.txt)"
[ ! -e two_DM30.00.dat ] || fail "prepsubband with 2 overlapping inputs wrote output"
refused prepsubband -lodm 30 -numdms 1 -nobary f.fil
grep -q "prepsubband (fastpsr): error: -o" err.txt || fail "prepsubband without -o: $(cat err.txt)"
refused prepdata -dm 30 -nobary f.fil
grep -q "prepdata (fastpsr): error: -o" err.txt || fail "prepdata without -o: $(cat err.txt)"
[ ! -e f_DM30.00.dat ] && [ ! -e f.dat ] || fail "a shim without -o wrote next to the input"
# -filterbank only names the input format: accepted, same output.
prepsubband -filterbank -lodm 28 -dmstep 1 -numdms 5 -nobary -o psf f.fil
cmp -s psf_DM30.00.dat ps_DM30.00.dat || fail "prepsubband -filterbank differs"
prepdata -filterbank -dm 30 -nobary -o pdf f.fil 2> note.txt
cmp -s pdf.dat pd.dat || fail "prepdata -filterbank differs"
grep -q "note: no barycentring" note.txt && fail "note about barycentring with -nobary"
# Without -nobary (PRESTO barycentres): the same topocentric series, with a note.
prepsubband -lodm 28 -dmstep 1 -numdms 5 -o topo f.fil 2> note.txt
grep -q "prepsubband (fastpsr): note: no barycentring: .*topocentric" note.txt ||
  fail "prepsubband without -nobary: no note: $(cat note.txt)"
cmp -s topo_DM30.00.dat ps_DM30.00.dat || fail "prepsubband without -nobary differs"
grep -q "Barycentered? .*= *0" topo_DM30.00.inf || fail "topo_DM30.00.inf: not Barycentered? = 0"
prepdata -dm 30 -o topo f.fil 2> note.txt
grep -q "prepdata (fastpsr): note: no barycentring: .*topocentric" note.txt ||
  fail "prepdata without -nobary: no note: $(cat note.txt)"
cmp -s topo.dat pd.dat || fail "prepdata without -nobary differs"
# dedisperse: -B sets the output bits (SIGPROC's flag); -n is profile bins, refused.
dedisperse f.fil -d 30 -B 8 > sig8.tim
"$bin/dedisp" -q f.fil -d 30 --delay-model sigproc --baseline sigproc -B 8 > ref8.tim
cmp -s sig8.tim ref8.tim || fail "dedisperse -B 8 differs from dedisp -B 8"
[ "$(header sig8.tim -nbits)" = 8 ] || fail "dedisperse -B 8: not 8 bits"
refused dedisperse f.fil -d 30 -n 8
grep -q "dedisperse (fastpsr): error: option -n is not supported" err.txt || fail "dedisperse -n: $(cat err.txt)"
# Without a file dedisperse reads stdin (SIGPROC's usage: "def=stdin"); -o names the output.
cat f.fil | dedisperse -d 30 > piped.tim
cmp -s piped.tim sig.tim || fail "dedisperse from stdin differs from the file's"
dedisperse -d 30 -o named.tim f.fil
cmp -s named.tim sig.tim || fail "dedisperse -o differs from stdout"
refused dedisperse f.fil -d 30 f.fil
grep -q "two input files" err.txt || fail "dedisperse with two files: $(cat err.txt)"
# SIGPROC's other flags: -subzero is dedisp's --zero-dm; the rest are refused by name.
dedisperse f.fil -d 30 -subzero > sub.tim
"$bin/dedisp" -q f.fil -d 30 --delay-model sigproc --baseline sigproc --zero-dm > refsub.tim
cmp -s sub.tim refsub.tim || fail "dedisperse -subzero differs from dedisp --zero-dm"
for opt in "-c 5" "-f 1400" "-j 2" -swapout -headerless -sumifs -epn -stream; do
  refused dedisperse f.fil -d 30 $opt
  grep -q "dedisperse (fastpsr): error: option ${opt%% *} is not supported" err.txt ||
    fail "dedisperse $opt: $(cat err.txt)"
done
# -h: what the shim is, its usage, where the rest is said; status 0, nothing run.
for s in prepsubband prepdata dedisperse; do
  "$s" -h > help.txt 2>&1 || fail "$s -h: status $?"
  grep -q "^usage: $s " help.txt || fail "$s -h: $(cat help.txt)"
  grep -q "man fastpsr-presto-compat" help.txt || fail "$s -h names no man page: $(cat help.txt)"
done
echo PASS
