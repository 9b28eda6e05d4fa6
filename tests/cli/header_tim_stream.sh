#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A tim-stream (records with exact nsamples, docs/formats-fastpsr.md): the first record is shown
# with the record count; a stream cut inside a record is an error naming the record.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
record() {  # $1: refdm bytes, $2: samples
  token HEADER_START
  key_int telescope_id 4
  key_int data_type 2
  key_raw refdm "$1"
  key_raw fch1 "$D_1500"
  key_int nchans 1
  key_int nbits 32
  key_int nsamples "$2"
  key_raw tstart "$D_60000"
  key_raw tsamp "$D_64US"
  key_int nifs 1
  token HEADER_END
  head -c $((4 * $2)) /dev/zero
}
{ record "$D_ZERO" 100; record "$D_1500" 50; record "$D_60000" 0; } >"$WORK/s.tims"
"$HEADER" "$WORK/s.tims" >"$WORK/listing"
grep -q "^Number of samples *: 100$" "$WORK/listing" || fail "first record: $(cat "$WORK/listing")"
grep -q "^tim-stream records *: 3 (the first is shown)$" "$WORK/listing" || fail "records: $(cat "$WORK/listing")"
grep -q "^tim-stream samples *: 150$" "$WORK/listing" || fail "samples"
"$HEADER" - <"$WORK/s.tims" | grep -q "^tim-stream records *: 3" || fail "from stdin"
head -c $(($(stat -c %s "$WORK/s.tims") - 300)) "$WORK/s.tims" >"$WORK/cut.tims"
EXPECT="record 1: truncated" expect_header_error "$WORK/cut.tims" "$WORK/cut.tims"
