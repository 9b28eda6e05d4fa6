#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `header ... | head -c 10`: the reader goes away early; header must end with status 0 and say
# nothing. Once with a big (sparse) input, once with an output far larger than a pipe's buffer.
set -eu
. "$(dirname "$0")/lib/sigproc.bash"
fil_header >"$WORK/big.fil"
truncate -s +$((1 << 31)) "$WORK/big.fil"   # 2 GiB of data, without using the disk
NCHANS=$((1 << 21)) fil_header >"$WORK/wide.fil"   # 2 Mi channels, no samples
for args in "$WORK/big.fil" "-frequencies $WORK/wide.fil" "--json $(printf "$WORK/big.fil %.0s" $(seq 3000))"; do
  set +e
  # shellcheck disable=SC2086
  "$HEADER" $args 2>"$WORK/err" | head -c 10 >/dev/null
  status=("${PIPESTATUS[@]}")
  set -e
  [ "${status[0]}" -eq 0 ] || fail "header $args: exit status ${status[0]}"
  [ ! -s "$WORK/err" ] || fail "header $args said: $(head -c 300 "$WORK/err")"
done
echo ok
