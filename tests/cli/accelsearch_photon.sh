#!/bin/bash
# SPDX-License-Identifier: MIT
# accelsearch -photon on a photon-counting series (X-ray style .dat: Poisson counts, 3% ... 5%
# modulated): the powers are normalised by the photon count (bin 0), not also de-reddened (QA
# pass 15: both divided, and nothing passed even -sigma 0.1). The modulation is found with the
# power theory predicts, the same files as with --no-deredden, and a sigma close to the block
# median's; a --dered- option with -photon is a usage error naming both.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" accelsearch
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }

# 2^17 bins of 1 ms, Poisson counts of mean 5 modulated by 5% at 7.3 Hz: the normalised power
# of the signal is lambda a^2 N / 4 = 409.6 (plus the noise's 1).
python3 - <<'PY'
import math, random, struct
rng = random.Random(7)
n, dt, lam, a, f = 1 << 17, 1e-3, 5.0, 0.05, 7.3
def poisson(mu):
    limit, k, p = math.exp(-mu), 0, rng.random()
    while p > limit:
        k += 1
        p *= rng.random()
    return k
counts = [poisson(lam * (1 + a * math.cos(2 * math.pi * f * i * dt))) for i in range(n)]
open("x.dat", "wb").write(struct.pack("<%df" % n, *counts))
print(sum(counts), file=open("nph.txt", "w"))
PY
cat >x.inf <<'INF'
 Data file name without suffix          =  x
 Telescope used                         =  RXTE
 Instrument used                        =  PCA
 Object being observed                  =  test
 J2000 Right Ascension (hh:mm:ss.ssss)  =  00:00:00.0000
 J2000 Declination     (dd:mm:ss.ssss)  =  00:00:00.0000
 Data observed by                       =  unset
 Epoch of observation (MJD)             =  55000.000000000000000
 Barycentered?           (1 yes, 0 no)  =  1
 Number of bins in the time series      =  131072
 Width of each time series bin (sec)    =  0.001
 Any breaks in the data? (1 yes, 0 no)  =  0
 Type of observation (EM band)          =  X-ray
 Field-of-view diameter (arcsec)        =  3600
 Central energy (kev)                   =  10
 Energy bandpass (kev)                  =  20
 Data analyzed by                       =  test
 Any additional notes:
    none

INF
nph=$(cat nph.txt)
mkdir -p photon plain median
for d in photon plain median; do cp x.dat x.inf $d/; done

# The first candidate's line in an ACCEL file: sigma, summed power, frequency (Hz).
first() { awk '/^1 /{print $2, $3, $7; exit}' "$1"; }

(cd photon && "$bin"/accelsearch -v -zmax 0 -numharm 1 -photon x.dat >out.txt 2>err.txt)
rc=$?
check "-photon: exit $rc ($(cat photon/err.txt))" test $rc -eq 0
check "-photon: a candidate ($(grep 'no candidates' photon/err.txt))" test -s photon/x_ACCEL_0
read -r sigma power freq <<<"$(first photon/x_ACCEL_0)"
echo "-photon: sigma ${sigma:-none}, power ${power:-none}, f ${freq:-none} Hz"
check "-photon: the candidate is at 7.3 Hz (got ${freq:-none})" \
  awk -v f="${freq:-0}" 'BEGIN { split(f, p, "("); exit !(p[1] > 7.298 && p[1] < 7.302) }'
check "-photon: power ${power:-none} within 20% of lambda a^2 N / 4 + 1 = 410.6" \
  awk -v p="${power:-0}" 'BEGIN { exit !(p > 0.8 * 410.6 && p < 1.2 * 410.6) }'
check "-photon -v says the de-reddening is off" grep -q 'without de-reddening (-photon)' photon/err.txt
check "-photon -v prints the photon count ($nph)" grep -q "normalised by $nph photons" photon/err.txt
check "the ACCEL file names the photon count column" grep -q NumPhot photon/x_ACCEL_0

# The same files as -photon --no-deredden (PRESTO's accelsearch on a raw .fft).
(cd plain && "$bin"/accelsearch -q -zmax 0 -numharm 1 -photon --no-deredden x.dat)
check "-photon equals -photon --no-deredden" cmp -s photon/x_ACCEL_0 plain/x_ACCEL_0
check "-photon equals -photon --no-deredden (.cand)" cmp -s photon/x_ACCEL_0.cand plain/x_ACCEL_0.cand
check "--norm photon equals -photon" \
  bash -c "cd plain && '$bin'/accelsearch -q -zmax 0 -numharm 1 --norm photon x.dat && cmp -s x_ACCEL_0 ../photon/x_ACCEL_0"

# Close to the block-median normalisation's sigma (Poisson noise is white: both estimate the
# same mean power; here 27.03 and 27.50).
(cd median && "$bin"/accelsearch -q -zmax 0 -numharm 1 -median --no-deredden x.dat)
read -r msigma _ _ <<<"$(first median/x_ACCEL_0)"
check "-photon sigma ${sigma:-none} within 10% of -median --no-deredden's ${msigma:-none}" \
  awk -v s="${sigma:-0}" -v m="${msigma:-0}" 'BEGIN { exit !(m > 0 && s > 0.9 * m && s < 1.1 * m) }'

# A de-reddening option with -photon: refused, naming both.
expect_exit 2 "accelsearch: error: -photon and --dered-end: .*without de-reddening" \
  "$bin"/accelsearch -zmax 0 -numharm 1 -photon --dered-end 200 x.dat
expect_exit 2 "accelsearch: error: --norm photon and --dered-start" \
  "$bin"/accelsearch -zmax 0 -numharm 1 --norm photon --dered-start 4 x.dat

# A series whose sum is not positive is no photon count: a warning, the powers left as they are.
python3 -c "
import struct
d = open('x.dat', 'rb').read()
v = struct.unpack('<%df' % (len(d) // 4), d)
m = sum(v) / len(v)
open('z.dat', 'wb').write(struct.pack('<%df' % len(v), *[1e-3 * (x - m - 1) for x in v]))
"
sed 's/=  x$/=  z/' x.inf >z.inf
"$bin"/accelsearch -zmax 0 -numharm 1 -photon z.dat >out.txt 2>err.txt
rc=$?
check "a series of negative sum with -photon: exit $rc" test $rc -eq 0
check "a series of negative sum with -photon: a warning ($(cat err.txt))" \
  grep -q 'z.dat: -photon: bin 0 (the sum of the series) is .*, not a photon count' err.txt

[ $fail -eq 0 ] && echo PASS
exit $fail
