#!/bin/bash
# SPDX-License-Identifier: MIT
# accelsearch as a user runs it: PRESTO-named outputs, a stream from stdin with sifting, and
# clear errors (exit 1 or 2, the file named) for bad input.
set -u
BIN=${FASTPSR_BIN:?}
SHARED=${FASTPSR_SHARED:-}
SMALL="$SHARED/data/peer-outputs/small"
[ -d "$SMALL" ] || { echo "no shared data: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
fail=0
check() { if ! eval "$1"; then echo "FAILED: $2"; fail=1; fi; }
expect_error() {  # code, pattern, command...
  local code=$1 pattern=$2
  shift 2
  "$@" >out.txt 2>err.txt
  local got=$?
  check "[ $got -eq $code ]" "exit $got (wanted $code) from: $*"
  check "grep -q -- \"$pattern\" err.txt" "message '$pattern' from: $* (got: $(cat err.txt))"
}

cp "$SMALL"/small_DM62.50_red.fft "$SMALL"/small_DM62.50_red.inf "$SMALL"/small_DM62.50.dat "$SMALL"/small_DM62.50.inf .
cp "$SMALL"/small_DM62.5.tim .

# PRESTO's command line and output names; the candidates are PRESTO's.
"$BIN"/accelsearch -zmax 0 -numharm 8 --no-deredden small_DM62.50_red.fft
check "[ -s small_DM62.50_red_ACCEL_0 ] && [ -s small_DM62.50_red_ACCEL_0.cand ] && [ -s small_DM62.50_red_ACCEL_0.txtcand ]" "outputs"
check "diff <(head -3 small_DM62.50_red_ACCEL_0) <(head -3 $SMALL/small_DM62.50_red_ACCEL_0)" "ACCEL header"
check "diff <(awk '/^[0-9]/{print \$1,\$2,\$3,\$5,\$8,\$10}' small_DM62.50_red_ACCEL_0) <(awk '/^[0-9]/{print \$1,\$2,\$3,\$5,\$8,\$10}' $SMALL/small_DM62.50_red_ACCEL_0)" "same candidates as PRESTO"
ncand=$(grep -c '^[0-9]' small_DM62.50_red_ACCEL_0)
check "[ $(stat -c %s small_DM62.50_red_ACCEL_0.cand) -eq $((ncand * 88)) ]" ".cand size"
# GNU long forms and a .dat input: no .txtcand (as PRESTO).
"$BIN"/accelsearch --zmax 10 --numharm 4 -q small_DM62.50.dat
check "[ -s small_DM62.50_ACCEL_10 ] && [ ! -e small_DM62.50_ACCEL_10.txtcand ]" ".dat outputs"

# A tim-stream on stdin: per-trial files and the sifted table.
"$BIN"/accelsearch -zmax 0 -q - -o stream <small_DM62.5.tim
check "[ -s stream_DM62.50_ACCEL_0 ] && [ -s stream_DM62.50.inf ] && [ -s stream.csv ] && [ -s stream.txt ]" "stream outputs"
check "head -1 stream.csv | grep -q '^file,candnum,dm,'" "csv header"

# Many DM trials of different lengths (dedisp keeps each DM's valid samples): one run, trials
# overlapped and one searcher kept for the shorter ones, writes the files of single-file runs,
# byte for byte, and so does --serial.
mkdir -p many one serial
for n in 32768 32700 32514 32766; do
  head -c $((4 * n)) small_DM62.50.dat >many/t$n.dat
  sed -e "s/small_DM62.50/t$n/" -e "s/\(Number of bins in the time series *= *\)32768/\1$n/" small_DM62.50.inf >many/t$n.inf
  cp many/t$n.dat many/t$n.inf one/ && cp many/t$n.dat many/t$n.inf serial/
done
(cd many && "$BIN"/accelsearch -zmax 20 -numharm 8 -q t32768.dat t32700.dat t32514.dat t32766.dat -o sifted)
(cd serial && "$BIN"/accelsearch -zmax 20 -numharm 8 -q --serial t32768.dat t32700.dat t32514.dat t32766.dat -o sifted)
mkdir -p threads && cp many/t*.dat many/t*.inf threads/
(cd threads && "$BIN"/accelsearch -zmax 20 -numharm 8 -q --trial-threads 3 t32768.dat t32700.dat t32514.dat t32766.dat -o sifted)
for n in 32768 32700 32514 32766; do
  (cd one && "$BIN"/accelsearch -zmax 20 -numharm 8 -q t$n.dat)
  for f in t${n}_ACCEL_20 t${n}_ACCEL_20.cand; do
    check "[ -s one/$f ] && cmp -s one/$f many/$f" "$f: a many-trial run differs from a single-file run"
    check "cmp -s one/$f serial/$f" "$f: --serial differs from a single-file run"
    check "cmp -s one/$f threads/$f" "$f: --trial-threads 3 differs from a single-file run"
  done
done
check "cmp -s many/sifted.csv serial/sifted.csv && cmp -s many/sifted.txt serial/sifted.txt" "sifted tables"
check "cmp -s many/sifted.csv threads/sifted.csv && cmp -s many/sifted.txt threads/sifted.txt" "sifted tables (threads)"
# A bad file among them: the trials before it are still written, then the error (exit 1).
rm -f many/*ACCEL*
: >many/t0.dat
sed 's/small_DM62.50/t0/' small_DM62.50.inf >many/t0.inf
for threads in 1 3; do
  rm -f many/*ACCEL*
  (cd many && "$BIN"/accelsearch -zmax 20 -numharm 8 -q --trial-threads $threads t32768.dat t32700.dat t0.dat t32766.dat >out.txt 2>err.txt)
  check "[ $? -eq 1 ] && grep -q t0.dat many/err.txt" "a bad file among many: exit 1 naming it ($threads threads)"
  check "cmp -s one/t32700_ACCEL_20 many/t32700_ACCEL_20 && [ ! -e many/t32766_ACCEL_20 ]" "trials before the bad file written, none after ($threads threads)"
done

# A tim-stream of several DM trials: records read in order, transformed and searched by several
# threads, written as one trial at a time writes them.
mkdir -p stream3 streamserial
"$BIN"/fake-pulsar -q --nchans 16 --nbits 8 --tsamp 64 --nsamples 65536 --fch1 1400 --foff -10 --period 5.3 \
  --dm 20 --snrpeak 1 | "$BIN"/dedisp - -q --dm 0:40:10 --format tim-stream >trials.tims
(cd stream3 && "$BIN"/accelsearch -zmax 20 -numharm 4 -q --trial-threads 3 - -o s <../trials.tims)
(cd streamserial && "$BIN"/accelsearch -zmax 20 -numharm 4 -q --serial - -o s <../trials.tims)
check "[ \$(ls stream3/s_DM*.inf | wc -l) -eq 5 ] && [ -s stream3/s.csv ]" "a stream of 5 DM trials: 5 .inf files and the sifted table"
# A .tim beside a .inf of other data: the .inf is left alone, with a warning saying so.
mkdir -p staleinf
"$BIN"/fake-pulsar -q --nchans 16 --nbits 8 --tsamp 64 --nsamples 8192 --fch1 1400 --foff -10 --period 5.3 \
  --snrpeak 1 | "$BIN"/dedisp - -q -d 0 >staleinf/x.tim
cp small_DM62.50.inf staleinf/x.inf
(cd staleinf && "$BIN"/accelsearch -zmax 0 -numharm 2 x.tim 2>err.txt)
check "grep -q 'x.inf describes other data' staleinf/err.txt" "no warning about a .inf of other data"
check "cmp -s staleinf/x.inf small_DM62.50.inf" "the user's .inf was changed"
for f in streamserial/*; do
  check "cmp -s $f stream3/\$(basename $f)" "stream: $(basename $f) differs between --trial-threads 3 and --serial"
done

# A rednoise output (_red.fft) is not de-reddened again: the default gives --no-deredden's files.
mkdir -p red && cp small_DM62.50_red.fft small_DM62.50_red.inf red/
(cd red && "$BIN"/accelsearch -zmax 0 -numharm 8 -q small_DM62.50_red.fft)
check "cmp -s red/small_DM62.50_red_ACCEL_0 small_DM62.50_red_ACCEL_0" "_red.fft de-reddened again by default"
# A stream's DM trials closer than the names' decimals: refused, naming --dm-prec; with it, one
# set of files each. A rerun on other data rewrites the stream's own .inf files.
mkdir -p prec
"$BIN"/fake-pulsar -q --nchans 16 --nbits 8 --tsamp 128 --nsamples 16384 --fch1 400 --foff -1 --period 5.3 \
  --snrpeak 1 >prec/lo.fil
"$BIN"/dedisp -q prec/lo.fil --dm 0:0.03:0.005 --format tim-stream >prec/close.tims
(cd prec && expect_error 2 "use --dm-prec 3" "$BIN"/accelsearch -zmax 0 -q - -o c <close.tims)
(cd prec && "$BIN"/accelsearch -zmax 0 -q --dm-prec 3 - -o d <close.tims)
check "[ \$(ls prec/d_DM*_ACCEL_0 | wc -l) -eq 7 ] && [ -s prec/d_DM0.005.inf ]" "--dm-prec 3: 7 trials, 7 names"
"$BIN"/dedisp -q prec/lo.fil --dm 0 --nsamps 8000 --format tim-stream >prec/short.tims
(cd prec && "$BIN"/accelsearch -zmax 0 -q --dm-prec 3 - -o d <short.tims)
check "grep -q 'Number of bins in the time series *= *8000' prec/d_DM0.000.inf" "a rerun left the stream's old .inf"
# PRESTO's -lobin: 0 (its default) is accepted, another value refused.
mkdir -p lobin && (cd lobin && ln -sf ../small_DM62.50.dat ../small_DM62.50.inf . &&
  "$BIN"/accelsearch -q -zmax 0 -lobin 0 small_DM62.50.dat) || { echo "FAILED: -lobin 0"; fail=1; }
expect_error 2 "lobin 3" "$BIN"/accelsearch -lobin 3 small_DM62.50.dat
# An unknown one-dash option starting with h is an error, not the help on stdout.
expect_error 2 "unknown option '-harmpolish'" "$BIN"/accelsearch -harmpolish small_DM62.50.dat
check "[ ! -s out.txt ]" "-harmpolish printed something on stdout"

# --help carries examples.
"$BIN"/accelsearch --help >help.txt
check "grep -q 'Examples' help.txt" "--help examples"

# Bad input.
expect_error 2 "numharm" "$BIN"/accelsearch -numharm 3 small_DM62.50.dat
expect_error 2 "zmax" "$BIN"/accelsearch -zmax -2 small_DM62.50.dat
# Refusals about one trial name its file (QA pass 20, finding 5), also in a run over several.
expect_error 2 "small_DM62.50.dat: -zmax 40000 .*use a smaller -zmax" "$BIN"/accelsearch -zmax 40000 small_DM62.50.dat
expect_error 2 "small_DM62.50.dat: the search range is empty: -flo 1 Hz" "$BIN"/accelsearch -fhi 0.5 small_DM62.50.dat
expect_error 2 "small_DM62.50.dat: the lowest frequency" "$BIN"/accelsearch -rlo -10 small_DM62.50.dat
# Its frequency in 6 significant digits, as the other messages (QA pass 21: 17 digits).
expect_error 2 "the lowest frequency to search ([0-9]* bins, [0-9]*\.[0-9]\{1,5\} Hz) is outside" \
  "$BIN"/accelsearch -flo 50000.3 small_DM62.50.dat
head -c 400 small_DM62.50.dat >short_DM1.00.dat
sed 's/^ Number of bins in the time series .*/ Number of bins in the time series      =  100/' small_DM62.50.inf >short_DM1.00.inf
expect_error 2 "short_DM1.00.dat: the series is too short to search" "$BIN"/accelsearch -zmax 0 small_DM62.50.dat \
  short_DM1.00.dat -o two
# A window narrower than numharm bins is one trial, not a division by zero.
mkdir -p narrow && (cd narrow && ln -sf ../small_DM62.50.dat ../small_DM62.50.inf . &&
  "$BIN"/accelsearch -q -zmax 0 -numharm 4 -rlo 500 -rhi 501 small_DM62.50.dat) || fail=1
cp small_DM62.50.dat noinf.dat
expect_error 1 "noinf" "$BIN"/accelsearch noinf.dat
head -c 1000 small_DM62.50.dat >short.dat
sed 's/small_DM62.50/short/' small_DM62.50.inf >short.inf
expect_error 1 "short.dat" "$BIN"/accelsearch short.dat
: >empty.dat
sed 's/small_DM62.50/empty/' small_DM62.50.inf >empty.inf
expect_error 1 "empty.dat" "$BIN"/accelsearch empty.dat
python3 - <<'PY'
import struct
data = bytearray(open("small_DM62.50.dat", "rb").read())
data[400:404] = struct.pack("<f", float("nan"))
open("nan.dat", "wb").write(data)
PY
sed 's/small_DM62.50/nan/' small_DM62.50.inf >nan.inf
expect_error 1 "nan.dat.*sample 100" "$BIN"/accelsearch nan.dat
head -c 1000 small_DM62.50_red.fft >cut.fft
cp small_DM62.50_red.inf cut.inf
expect_error 1 "cut.fft" "$BIN"/accelsearch cut.fft
expect_error 2 "numharm" "$BIN"/accelsearch -numharm 3 missing.dat   # the option first, not the file
expect_error 1 "empty stream" "$BIN"/accelsearch - -o none </dev/null
check "[ ! -e none.csv ]" "no sift table from an empty stream"
check "[ ! -e nan_ACCEL_200 ] && ! ls .*tmp* >/dev/null 2>&1" "no output after an error"

[ $fail -eq 0 ] && echo "accelsearch CLI: all checks passed"
exit $fail
