# SPDX-License-Identifier: MIT
# Sourced by the cli tests: writes SIGPROC headers byte by byte (so that broken ones can be made
# too) and checks the `header` tool's error contract. Not a test itself (tests are cli/*.sh).
set -u
: "${FASTPSR_BIN:?FASTPSR_BIN must point at the built tools}"
HEADER="$FASTPSR_BIN/header"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/fastpsr-cli-XXXXXX")
trap 'chmod -R u+rwx "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }

# Little-endian int32 as raw bytes.
le32() {
  local v=$(( $1 & 0xffffffff ))
  printf "$(printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((v & 255)) $(((v >> 8) & 255)) $(((v >> 16) & 255)) $(((v >> 24) & 255)))"
}
token() { le32 "${#1}"; printf '%s' "$1"; }
key_int() { token "$1"; le32 "$2"; }
key_raw() { token "$1"; printf "$2"; }  # $2: the value's bytes as \x escapes

# Doubles as little-endian bytes.
D_64US='\x8d\xed\xb5\xa0\xf7\xc6\x10\x3f'
D_1500='\x00\x00\x00\x00\x00\x70\x97\x40'
D_M05='\x00\x00\x00\x00\x00\x00\xe0\xbf'
D_60000='\x00\x00\x00\x00\x00\x4c\xed\x40'
D_M1MS='\xfc\xa9\xf1\xd2\x4d\x62\x50\xbf'
D_ZERO='\x00\x00\x00\x00\x00\x00\x00\x00'

# A filterbank header: 4 channels of 8 bits at 64 us unless NCHANS, NBITS, TSAMP (bytes) or
# NSAMPLES are set; EXTRA (bytes) goes before HEADER_END.
fil_header() {
  token HEADER_START
  key_int machine_id 10
  key_int telescope_id 4
  key_int data_type 1
  key_raw fch1 "$D_1500"
  key_raw foff "$D_M05"
  key_int nchans "${NCHANS:-4}"
  key_int nbits "${NBITS:-8}"
  key_raw tstart "$D_60000"
  key_raw tsamp "${TSAMP:-$D_64US}"
  key_int nifs 1
  if [ -n "${NSAMPLES:-}" ]; then key_int nsamples "$NSAMPLES"; fi
  printf "${EXTRA:-}"
  token HEADER_END
}

# Runs `header "$@"` and requires: exit 1, no output on stdout, and exactly one stderr line
# "header: error: <file>: <something containing $EXPECT>". No core dump, no sanitizer report.
expect_header_error() {
  local file="$1"
  shift
  set +e
  "$HEADER" "$@" >"$WORK/out" 2>"$WORK/err"
  local rc=$?
  set -e
  [ "$rc" -eq 1 ] || { cat "$WORK/err" >&2; fail "exit status $rc, expected 1"; }
  [ ! -s "$WORK/out" ] || fail "something was printed on stdout: $(head -c 200 "$WORK/out")"
  [ "$(wc -l <"$WORK/err")" -eq 1 ] || { cat "$WORK/err" >&2; fail "expected one line on stderr"; }
  grep -qF "header: error: $file: " "$WORK/err" || { cat "$WORK/err" >&2; fail "message does not name '$file'"; }
  grep -qF -- "$EXPECT" "$WORK/err" || { cat "$WORK/err" >&2; fail "message does not say '$EXPECT'"; }
  echo "ok: $(cat "$WORK/err")"
}
