#!/bin/bash
# SPDX-License-Identifier: MIT
# dedisp --mask takes PRESTO rfifind masks (prepsubband -mask): every masked sample (channels
# masked throughout, whole intervals, each interval's list; rfifind counts channels from the
# lowest frequency) takes its channel's padding from the .stats file beside the mask. The DM-0
# series is checked, sample for sample, against a plain Python reading of the three files.
source "$FASTPSR_SOURCE/tests/cli/lib/workdir.bash" fake-pulsar dedisp
export FASTPSR_BINDIR=$bin

# 64 channels of 8 bits, 0.1 ms; a broadband impulse at 1.05 s (sample 10500, interval 5 of
# 2000 samples) that the mask covers.
"$bin/fake-pulsar" -q -nchans 64 -nbits 8 -tsamp 100 -nsamples 20000 -seed 7 --rfi-impulse time=1.05,amp=30 -o r.fil

# rfifind's files: lowest channel 433.968 - 63 x 0.062 MHz; channels 62 and 63 (the file's 1 and
# 0) throughout, interval 5 wholly, interval 2 channels 10-20, interval 7 every channel by count;
# masks of other data (32 channels, another band, intervals of twice the time) and a cut one.
cat > write_mask.py <<'PY'
import struct, sys
def mask(path, nchan=64, per=2000, tsamp=1e-4, lo=433.968 - 63 * 0.062):
    nint = 10
    with open(path, "wb") as f:
        f.write(struct.pack("<6d", 10.0, 4.0, 50000.0, per * tsamp, lo, 0.062))
        f.write(struct.pack("<3i", nchan, nint, per))
        f.write(struct.pack("<3i", 2, 62, 63) if nchan == 64 else struct.pack("<i", 0))
        f.write(struct.pack("<2i", 1, 5))
        counts = [0] * nint
        counts[2], counts[7] = 11, nchan
        f.write(struct.pack(f"<{nint}i", *counts))
        f.write(struct.pack("<11i", *range(10, 21)))
mask("r_rfifind.mask")
mask("other_chans.mask", nchan=32)
mask("other_band.mask", lo=1400.0)
mask("other_tsamp.mask", tsamp=2e-4)
# Interval averages of channel c (rfifind's order): 100 + c / 4 + i / 10 for interval i, so the
# middle 80% of 10 (intervals 1-8) average 100 + c / 4 + 0.45.
nchan, nint = 64, 10
with open("r_rfifind.stats", "wb") as f:
    f.write(struct.pack("<5i", nchan, nint, 2000, 0, 16))
    f.write(struct.pack(f"<{nchan * nint}f", *([0.0] * nchan * nint)))
    f.write(struct.pack(f"<{nchan * nint}f", *[100 + c / 4 + i / 10 for i in range(nint) for c in range(nchan)]))
    f.write(struct.pack(f"<{nchan * nint}f", *([1.0] * nchan * nint)))
open("short.mask", "wb").write(open("r_rfifind.mask", "rb").read()[:-4])
PY
python3 write_mask.py
cp r_rfifind.mask nostats.mask

# The reference: the file's samples, each masked one replaced by its channel's padding rounded
# to a sample (8 bits), summed over channels (DM 0).
cat > reference.py <<'PY'
import math, struct, sys
data = open("r.fil", "rb").read()
hdr = data.index(b"HEADER_END") + len("HEADER_END")
raw, nchan, per = data[hdr:], 64, 2000
n = len(raw) // nchan
def mask_channels(i):  # in the file's order (channel 0 the highest)
    m = {62, 63}
    if i in (5, 7): m |= set(range(nchan))
    if i == 2: m |= set(range(10, 21))
    return {nchan - 1 - c for c in m}
pad = [math.floor(100 + (nchan - 1 - fc) / 4 + 0.45 + 0.5) for fc in range(nchan)]
want = []
for s in range(n):
    row = list(raw[s * nchan:(s + 1) * nchan])
    for fc in mask_channels(s // per): row[fc] = pad[fc]
    want.append(float(sum(row)))
got = struct.unpack(f"<{len(want)}f", open(sys.argv[1], "rb").read())
bad = [s for s in range(n) if got[s] != want[s]]
print(f"{sys.argv[1]}: {len(bad)} of {n} samples differ from the reference" + (f", first {bad[0]}: {got[bad[0]]} vs {want[bad[0]]}" if bad else ""))
sys.exit(1 if bad else 0)
PY

"$bin/dedisp" r.fil -d 0 --device cpu -q -o plain
check "without the mask the impulse is in the series" python3 -c "
import struct; v = struct.unpack('<20000f', open('plain_DM0.00.dat', 'rb').read())
s = sorted(v); med = s[10000]; mad = sorted(abs(x - med) for x in v)[10000]
assert max(v[10400:10600]) > med + 20 * 1.4826 * mad, (max(v[10400:10600]), med, mad)"

"$bin/dedisp" r.fil -d 0 --device cpu -v --mask r_rfifind.mask -o masked 2>masked.log
check "masked series: every sample as the reference" python3 reference.py masked_DM0.00.dat
check "-v describes the mask: $(grep 'mask:' masked.log | head -1)" \
  grep -q "mask: r_rfifind.mask: 10 intervals of 2000 samples (0.2 s); 2 channels masked throughout, 1 interval wholly, 75 channel-intervals listed; padding from the rfifind .stats file" masked.log
# 2 channels x 20000 + interval 5's 62 more x 2000 + interval 7's 62 x 2000 + interval 2's 11 x 2000
check "-v counts the values replaced: $(grep 'values replaced' masked.log)" \
  grep -q "mask: 310000 of 1280000 values replaced (24.22%)" masked.log

# PRESTO's spelling, and the prepsubband shim's -mask.
"$bin/dedisp" r.fil -d 0 --device cpu -q -mask r_rfifind.mask -o dash
check "-mask is --mask" cmp dash_DM0.00.dat masked_DM0.00.dat
"$FASTPSR_SOURCE/tools/presto-compat/prepsubband" -nobary -noclip -lodm 0 -dmstep 1 -numdms 1 -nsub 64 \
  -mask r_rfifind.mask -o ps r.fil 2>/dev/null
check "prepsubband shim -noclip -mask: the same series (one sample fewer: even length)" \
  cmp -n $((4 * 19999)) ps_DM0.00.dat masked_DM0.00.dat
# Clipping (the shim's default, as PRESTO's) pads masked samples with the clipper's running
# channel levels instead, as PRESTO does.
"$FASTPSR_SOURCE/tools/presto-compat/prepsubband" -nobary -lodm 0 -dmstep 1 -numdms 1 -nsub 64 \
  -mask r_rfifind.mask -o psc r.fil 2>/dev/null
"$bin/dedisp" r.fil -d 0 --device cpu -v --clip 6 --mask r_rfifind.mask --even -o clipped 2>clipped.log
check "prepsubband shim -mask (clipping at 6): dedisp --clip 6 --mask" cmp psc_DM0.00.dat clipped_DM0.00.dat
check "-v: padding from the clipper's levels" grep -q "padding from the clipper's running channel averages" clipped.log
check "clipped and masked differ from masked alone" sh -c "! cmp -s -n $((4 * 19999)) clipped_DM0.00.dat masked_DM0.00.dat"

# With --start the mask's intervals still count from the file's first sample.
"$bin/dedisp" r.fil -d 0 --device cpu -q --mask r_rfifind.mask --start 3000 -o late
check "--start 3000: the masked series from sample 3000" cmp late_DM0.00.dat <(tail -c $((4 * 17000)) masked_DM0.00.dat)

# No .stats file: a warning, and each channel's mean of the data.
expect_exit 0 "nostats.mask: no nostats.stats beside it: masked samples take each channel's mean" \
  "$bin/dedisp" r.fil -d 0 --device cpu --mask nostats.mask -o nostats
check "interval 5 without .stats: every channel padded, one constant sum" python3 -c "
import struct; v = struct.unpack('<20000f', open('nostats_DM0.00.dat', 'rb').read())
assert len(set(v[10000:12000])) == 1 and abs(v[10000] - sum(v[:2000]) / 2000) < 64, (v[10000], sum(v[:2000]) / 2000)"

# Masks of other data, and files that are not masks: errors naming the mask, no output.
expect_exit 2 "dedisp: error: other_chans.mask: the mask is for 32 channels; the data have 64: made from another file?" \
  "$bin/dedisp" r.fil -d 0 --device cpu --mask other_chans.mask -o x
expect_exit 2 "is not the data's" "$bin/dedisp" r.fil -d 0 --device cpu --mask other_band.mask -o x
expect_exit 2 "another sample time" "$bin/dedisp" r.fil -d 0 --device cpu --mask other_tsamp.mask -o x
expect_exit 1 "short.mask" "$bin/dedisp" r.fil -d 0 --device cpu --mask short.mask -o x
expect_exit 1 "missing.mask" "$bin/dedisp" r.fil -d 0 --device cpu --mask missing.mask -o x
check "no output from a refused mask: $(ls x* 2>/dev/null)" test -z "$(ls x* 2>/dev/null)"

# On a GPU: the same masked series (integer sums: bit for bit).
if [ "${FASTPSR_HAVE_CUDA:-0}" = 1 ] && nvidia-smi -L >/dev/null 2>&1; then
  "$bin/dedisp" r.fil -d 0 --device gpu -q --mask r_rfifind.mask -o gpu
  check "GPU masked series: every sample as the reference" python3 reference.py gpu_DM0.00.dat
fi
# header describes a mask: what it covers, what it masks (24.22%: intervals 5 and 7 whole, 62-63
# throughout, 10-20 in interval 2), and whether its .stats is there; dedisp points a mask to --mask.
if [ -x "$bin/header" ]; then
  "$bin/header" r_rfifind.mask > mask.txt
  for want in "Number of channels               : 64" "Number of samples                : 20000" \
      "Mask intervals                   : 10 of 2000 samples (0.2 s)" "Channels masked throughout       : 2: 62-63" \
      "Intervals masked whole           : 1: 5" "Masked (channel, interval) cells : 155 of 640 (24.22%)" \
      "Statistics file                  : r_rfifind.stats" "Frequency of channel 1 (MHz)     : 433.968000"; do
    check "header r_rfifind.mask says '$want': $(cat mask.txt)" grep -qF "$want" mask.txt
  done
  check "header of a mask without its .stats says so" sh -c "'$bin/header' nostats.mask | grep -q 'nostats.stats is missing'"
  check "header --json: the masked cells" sh -c "'$bin/header' --json r_rfifind.mask | grep -q '\"masked_cells\": 155'"
  expect_exit 1 "short.mask: " "$bin/header" short.mask
fi
expect_exit 1 "not a SIGPROC file but PRESTO rfifind mask (it does not start with HEADER_START): dedisp takes a mask with --mask" \
  "$bin/dedisp" r_rfifind.mask -d 0 -o x
exit $fail
